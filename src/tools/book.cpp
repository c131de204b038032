// SPDX-License-Identifier: MIT
// exactattn: a whole book — scenario files from directories, a thread pool, JUnit XML.
#include "exactattn/book.hpp"

#include <fmt/format.h>
#include <mpfr.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <mutex>
#include <thread>

#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"
#include "render/text.hpp"

namespace exactattn {

namespace fs = std::filesystem;

std::vector<std::string> scenario_files(const std::vector<std::string>& paths) {
    std::vector<std::string> out;
    for (const auto& p : paths) {
        Location where;
        where.file = p;
        std::error_code ec;
        if (p == "chapter14" && !fs::exists(p, ec)) {
            out.push_back(p);
            continue;
        }
        if (!fs::is_directory(p, ec)) {
            out.push_back(p);  // a file: the loader names it if it cannot be read
            continue;
        }
        std::vector<std::string> found;
        fs::recursive_directory_iterator it(p, fs::directory_options::none, ec);
        for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
            const auto& e = *it;
            if (e.path().extension() == ".json" && e.is_regular_file(ec)) found.push_back(e.path().string());
        }
        if (ec) throw reference_error(fmt::format("cannot list the directory: {}", ec.message()), where);
        if (found.empty()) throw reference_error("the directory holds no *.json scenario file", where);
        std::sort(found.begin(), found.end());
        out.insert(out.end(), found.begin(), found.end());
    }
    return out;
}

std::size_t default_jobs() { return std::max(1U, std::thread::hardware_concurrency()); }

void run_parallel(std::size_t count, std::size_t jobs, const std::function<void(std::size_t)>& task) {
    std::atomic<std::size_t> next{0};
    // The lowest index that failed (count: none); indices above it are not started.
    std::atomic<std::size_t> stop{count};
    std::mutex mu;
    std::exception_ptr first;
    std::size_t first_at = count;
    auto work = [&] {
        for (;;) {
            const std::size_t i = next.fetch_add(1);
            if (i >= count || i > stop.load()) return;
            try {
                task(i);
            } catch (...) {
                const std::lock_guard<std::mutex> lock(mu);
                if (i < first_at) {
                    first_at = i;
                    first = std::current_exception();
                    stop.store(i);
                }
            }
        }
    };
    const std::size_t n = std::min(jobs, count);
    if (n <= 1) {
        work();
    } else {
        std::vector<std::thread> pool;
        pool.reserve(n);
        // The workers compute under the caller's limits and charge the caller's job: the
        // budget is the whole command's, not one file's (docs/limits.md).
        const Limits caller = limits();
        WorkBudget* const job = WorkBudget::current();
        for (std::size_t t = 0; t < n; ++t) {
            pool.emplace_back([&work, &caller, job] {
                {
                    const ScopedLimits scoped(caller);
                    const WorkBudget::Share share(job);
                    work();
                }
                // MPFR keeps its constants (ln 2 for the interval code) in a per-thread cache
                // that a thread's exit does not free: free it here, or every file verified in
                // parallel leaks it.
                mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);
            });
        }
        for (auto& t : pool) t.join();
    }
    if (first) std::rethrow_exception(first);
}

namespace {

// JUnit reports carry file names, pointers and values in attributes (xml_escape, attribute rules).
std::string xml_attr(const std::string& s) { return detail::xml_escape(s, true); }

}  // namespace

std::string junit_xml(const std::vector<VerifyResult>& results, const std::string& suite_name) {
    std::size_t tests = 0;
    std::size_t failures = 0;
    auto failed = [](const VerifyResult& r) {
        return static_cast<std::size_t>(
            std::count_if(r.entries.begin(), r.entries.end(), [](const Checked& c) { return !c.passed; }));
    };
    for (const auto& r : results) {
        tests += r.entries.size();
        failures += failed(r);
    }
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out += fmt::format("<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\">\n", xml_attr(suite_name),
                       tests, failures);
    for (std::size_t k = 0; k < results.size(); ++k) {
        const auto& r = results[k];
        out +=
            fmt::format("  <testsuite name=\"{}\" id=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\">\n",
                        xml_attr(r.file), k, r.entries.size(), failed(r));
        for (const auto& e : r.entries) {
            out += fmt::format("    <testcase classname=\"{}\" name=\"{}\">\n", xml_attr(r.file), xml_attr(e.pointer));
            out += "      <properties>\n";
            out += fmt::format("        <property name=\"pointer\" value=\"{}\"/>\n", xml_attr(e.pointer));
            out += fmt::format("        <property name=\"expected\" value=\"{}\"/>\n", xml_attr(e.expected));
            out += fmt::format("        <property name=\"computed\" value=\"{}\"/>\n", xml_attr(e.computed));
            out += "      </properties>\n";
            if (!e.passed) {
                const std::string message = fmt::format("expected {}, computed {}", e.expected, e.computed);
                out += fmt::format("      <failure message=\"{}\" type=\"mismatch\">{}: {}</failure>\n",
                                   xml_attr(message), xml_attr(e.pointer), xml_attr(message));
            }
            out += "    </testcase>\n";
        }
        out += "  </testsuite>\n";
    }
    out += "</testsuites>\n";
    return out;
}

std::string crosscheck_junit(const std::vector<CrosscheckResult>& results) {
    std::vector<VerifyResult> suites;
    for (const auto& c : results) {
        VerifyResult v;
        v.file = c.file;
        for (const auto& row : c.rows) {
            v.entries.push_back(Checked{row.quantity, row.exact, fmt::format("{}", row.computed), row.passed});
        }
        suites.push_back(std::move(v));
    }
    return junit_xml(suites, "exactattn crosscheck");
}

}  // namespace exactattn
