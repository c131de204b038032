// SPDX-License-Identifier: MIT
// exactattn benchmark: a command run as a process.
#include "process.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace exactattn::bench {

ProcessRun run_process(const std::vector<std::string>& args, std::string* captured, const std::string& stdout_file) {
    std::fflush(stdout);
    std::fflush(stderr);
    int fds[2] = {-1, -1};
    if (captured != nullptr && pipe(fds) != 0) return {};
    const auto t0 = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
        const int null = open("/dev/null", O_WRONLY);
        if (captured != nullptr) {
            close(fds[0]);
            dup2(fds[1], 1);
        } else if (!stdout_file.empty()) {
            const int f = open(stdout_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            dup2(f < 0 ? null : f, 1);
        } else {
            dup2(null, 1);
        }
        dup2(null, 2);
        std::vector<char*> argv;
        for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        execv(argv[0], argv.data());
        _exit(127);
    }
    if (captured != nullptr) {
        close(fds[1]);
        char buf[4096];
        ssize_t k = 0;
        while ((k = read(fds[0], buf, sizeof buf)) > 0) captured->append(buf, static_cast<std::size_t>(k));
        close(fds[0]);
    }
    int status = 0;
    rusage ru{};
    wait4(pid, &status, 0, &ru);
    const auto t1 = std::chrono::steady_clock::now();
    ProcessRun r;
    r.ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.maxrss_mib = static_cast<double>(ru.ru_maxrss) / 1024.0;
    return r;
}

}  // namespace exactattn::bench
