// SPDX-License-Identifier: MIT
// exactattn: a whole book of scenario files reported as JUnit XML.
#include "exactattn/book.hpp"

#include <fmt/format.h>

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
