// SPDX-License-Identifier: MIT
// exactattn command line: the options (CLI11) of every subcommand, parsed into one struct.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include "commands.hpp"
#include "delivery.hpp"

namespace CLI {
class App;
}

namespace exactattn::cli {

/// The parsed command line: one options struct per subcommand, and the shared ones.
struct Parsed {
    std::string output;         ///< -o FILE (empty: standard output)
    std::string preamble_file;  ///< --preamble FILE (empty: none)
    RenderOptions render;
    EvalOptions eval;
    RunOptions run;
    ReadOptions read;
    EncodeOptions encode;
    FilesOptions verify;
    FilesOptions cross;
    FilesOptions answers;
    CheckOptions check;
    AttendOptions attend;
    RolloutOptions rollout;
    VariantsOptions variants;
    FigureOptions figure;
    PointersOptions pointers;
    std::int64_t max_work = 0;                  ///< --max-work N (0: the default)
    bool warnings_as_errors = false;            ///< --warnings-as-errors
    std::function<int(std::ostream&)> command;  ///< the chosen subcommand, bound to its options
};

/// Builds the application into `app`, binding every option into `p`; the chosen subcommand is
/// bound into p.command, delivering its output through `d`.
void make_app(CLI::App& app, Parsed& p, Delivery& d);

/// --preamble FILE: the author's preamble lines, read whole (valid UTF-8) before any work; they
/// belong in a complete document, so the option goes with --standalone.
std::string read_preamble(const std::string& path, bool standalone);

}  // namespace exactattn::cli
