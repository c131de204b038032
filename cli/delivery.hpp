// SPDX-License-Identifier: MIT
// exactattn command line: the state one run of a command delivers its output with, owned by
// run() (cli/app.cpp) and passed to the commands by reference: the -o directory, whether files
// went into it, the warnings met, and the output handed back to be written after success.
#pragma once

#include <mutex>
#include <ostream>
#include <string>
#include <unordered_set>
#include <vector>

#include "commands.hpp"
#include "exactattn/error.hpp"
#include "exactattn/warning.hpp"

namespace exactattn::cli {

// The command's warnings (docs/cli.md, "Warnings"): each distinct one once, in the order met,
// from any of the command's threads (crosscheck -j N).
struct Warnings {
    std::mutex lock;
    std::vector<Warning> met;
    std::unordered_set<std::string> lines;  // met's lines: a note of many commands stays linear
    bool as_errors = false;                 // --warnings-as-errors

    void add(const Warning& w) {
        const std::lock_guard<std::mutex> hold(lock);
        if (lines.insert(w.str()).second) met.push_back(w);
    }
    // Each warning as one line on stderr.
    void print(std::ostream& err) {
        const std::lock_guard<std::mutex> hold(lock);
        for (const auto& w : met) err << "exactattn: warning: " << escape_controls(w.str()) << '\n';
        met.clear();
    }
    // With --warnings-as-errors, the first warning is the command's error, at its place: exit 2,
    // nothing written.
    void refuse() {
        const std::lock_guard<std::mutex> hold(lock);
        if (!as_errors || met.empty()) return;
        const Warning first = met.front();
        met.clear();
        throw parse_error(first.where, first.reason + " (--warnings-as-errors: nothing written)");
    }
};

/// How one command's output is delivered (docs/cli.md, "Output").
struct Delivery {
    std::string directory;           ///< -o DIR: the directory that receives emit()'s files (empty: none)
    bool directory_written = false;  ///< set by emit() and write_files(): the output went into files
    Warnings warnings;               ///< the command's warnings
    DeferredOutput deferred;         ///< written after the command's buffer, if set
};

}  // namespace exactattn::cli
