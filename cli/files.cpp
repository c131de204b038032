// SPDX-License-Identifier: MIT
// exactattn: the command line's files and jobs — the scenario files a list of paths names, and
// the pool of threads that verify, crosscheck and manuscript run them on (-j N).
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
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

std::string read_standard_input(double work_per_byte, std::string_view what) {
    struct stat st {};
    if (::fstat(STDIN_FILENO, &st) != 0) {
        throw usage_error(fmt::format("cannot read standard input (-): {}", std::strerror(errno)));
    }
    // A pipe is what `-` is for; a terminal would wait for typing and /dev/zero never ends.
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
        throw usage_error(
            "cannot read standard input (-): it is a terminal, device or socket, not a pipe or a file "
            "(pipe the manuscript in, or name its file)");
    }
    const std::int64_t max = limits().max_file_bytes;
    const auto refuse = [](const std::string& what) {
        Location where;
        where.file = "-";
        return over_limit(Limit::max_file_bytes, what, where);
    };
    if (S_ISREG(st.st_mode) && static_cast<std::int64_t>(st.st_size) > max) {
        throw refuse(fmt::format("standard input has {} bytes", st.st_size));
    }
    std::string s;
    char chunk[1 << 16];
    for (;;) {
        const ssize_t r = ::read(STDIN_FILENO, chunk, sizeof chunk);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) throw usage_error(fmt::format("cannot read standard input (-): {}", std::strerror(errno)));
        if (r == 0) break;
        if (static_cast<std::int64_t>(s.size()) + r > max) {
            throw refuse(fmt::format("standard input has more than {} bytes", max));
        }
        s.append(chunk, static_cast<std::size_t>(r));
        // The job charges the bytes after a byte-order mark (3 bytes) at the latest when the
        // text is prepared, and what it has spent only grows: past this it certainly refuses.
        const double work = static_cast<double>(s.size() - std::min<std::size_t>(s.size(), 3)) * work_per_byte;
        if (work_per_byte > 0 && !work_fits(work)) {
            Location where;
            where.file = "-";
            throw over_work(work, fmt::format("reading {} of {} bytes or more", what, s.size())).located(where);
        }
    }
    return s;
}

std::size_t default_jobs() { return std::max(1U, std::thread::hardware_concurrency()); }

}  // namespace exactattn::cli
