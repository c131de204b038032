// SPDX-License-Identifier: MIT
// exactattn: the command line's files and jobs — the scenario files a list of paths names, and
// the pool of threads that verify, crosscheck and manuscript run them on (-j N).
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <mutex>
#include <thread>

#include "commands.hpp"
#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"

namespace exactattn::cli {

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

}  // namespace exactattn::cli
