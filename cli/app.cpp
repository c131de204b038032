// SPDX-License-Identifier: MIT
// exactattn command line: one command run, and the error → exit code contract.
//
// Three steps: make the application (cli/options.cpp), dispatch to cmd_<name>, and deliver: the
// whole output goes to standard output or, atomically, to the -o file (cli/output_files.cpp)
// only when the command succeeded; every error becomes one line on stderr and exit code 2. The
// state of the run (cli/delivery.hpp) is owned here and passed to the command by reference.
#include "app.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <new>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "commands.hpp"
#include "delivery.hpp"
#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/out_of_memory.hpp"
#include "exactattn/version.hpp"
#include "options.hpp"

namespace exactattn::cli {

namespace {

/// One line on stderr for an error; returns the exit code.
int report_error(std::ostream& err, std::string message, std::optional<ErrorKind>* kind, ErrorKind k, int code) {
    for (auto& c : message) c = c == '\n' ? ' ' : c;  // CLI11 wraps some of its messages
    // Names echoed from files and arguments may hold control characters (an escape sequence
    // would restyle the terminal, a CR hide the message): they are shown as <U+001B>.
    err << "exactattn: " << escape_controls(message) << '\n';
    err.flush();
    if (kind != nullptr) *kind = k;
    return code;
}

}  // namespace

int run(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
    return run(args, out, err, nullptr);
}

namespace {

// The options the parsed command line implies, bound into the command's options: the -o
// directory, the --preamble file, the warnings sink and the shared rendering options.
void prepare(Parsed& p, Delivery& d, std::ostream& err) {
    // -o DIR: one CSV file per table (emit); any other output to a directory is refused.
    std::error_code ec;
    if (!p.output.empty() && std::filesystem::is_directory(p.output, ec)) {
        d.directory = p.output;
        p.render.figure_files = true;  // a Markdown report links the SVG files written beside it
    }
    if (!p.preamble_file.empty()) p.render.preamble = read_preamble(p.preamble_file, p.render.standalone);
    d.warnings.as_errors = p.warnings_as_errors;
    p.render.warn = [&d](const Warning& w) { d.warnings.add(w); };
    p.variants.warn = p.render.warn;
    p.run.render = p.read.render = p.encode.render = p.answers.render = p.cross.render = p.check.render =
        p.rollout.render = p.render;
    p.attend.render = p.pointers.render = p.render;
    p.variants.output = p.output;
    // A class row that cannot be graded: its one placed line, and the class goes on.
    p.check.refused = [&err](const Error& e) { err << "exactattn: " << escape_controls(e.what()) << '\n'; };
}

// The command's buffer delivered (after it succeeded and its warnings passed): to the files
// written already, the -o file, or standard output. Returns the command's exit code.
int deliver(std::ostringstream& buffer, int code, const Parsed& p, Delivery& d, std::ostream& out) {
    // Standard output that cannot be written (`> /dev/full`) is an error, exit 2, whatever
    // the command: a lost write never exits 0.
    const auto check_out = [&out] {
        out.flush();
        if (!out) {
            const int e = errno;
            throw usage_error(
                fmt::format("cannot write standard output: {}", e != 0 ? std::strerror(e) : "write failed"));
        }
    };
    if (d.directory_written) {  // the files are written; the command's summary to stdout
        out << buffer.view();
        check_out();
        return code;
    }
    if (!p.output.empty()) {
        if (d.deferred) d.deferred(buffer);
        write_output_file(p.output, buffer.view());
        return code;
    }
    out << buffer.view();  // no copy: a report can be hundreds of megabytes
    if (d.deferred) d.deferred(out);
    check_out();
    return code;
}

// Runs the command as one job with one work budget, then delivers its output.
int execute(const Parsed& p, Delivery& d, std::ostream& out, std::ostream& err) {
    set_limit_audience(LimitAudience::CommandLine);  // refusals name --max-work
    // The command is one job with one work budget (docs/limits.md, "The work budget").
    Limits budgeted = limits();
    if (p.max_work > 0) budgeted.max_work = p.max_work;
    const ScopedLimits scoped(budgeted);
    const WorkBudget job;
    // EXACTATTN_REPORT_WORK=1: the work the command spent, on standard error, however it
    // ends (docs/limits.md: how far honest work stays from the budget is measured so).
    struct ReportWork {
        const WorkBudget& job;
        std::ostream& err;
        ~ReportWork() {
            if (std::getenv("EXACTATTN_REPORT_WORK") == nullptr) return;
            err << fmt::format("exactattn: work: {:.3g} of {} work units (limits: max_work)\n", job.spent(),
                               limits().max_work);
        }
    } const report_work{job, err};
    std::ostringstream buffer;
    const int code = p.command(buffer);
    d.warnings.refuse();
    d.warnings.print(err);
    return deliver(buffer, code, p, d, out);
}

}  // namespace

int run(std::span<const std::string> args, std::ostream& out, std::ostream& err, std::optional<ErrorKind>* kind) {
    if (kind != nullptr) kind->reset();
    CLI::App app{
        "exactattn: exact arithmetic for the mathematics of attention (a = ln 2).\n"
        "With no arguments, prints the built-in Chapter 14 scenario.",
        "exactattn"};
    Parsed p;
    Delivery d;  // how the output goes out: the command's, passed to it by reference
    std::vector<std::string> argv(args.rbegin(), args.rend());  // CLI11 parses a reversed vector
    try {
        make_app(app, p, d);
        app.parse(argv);
        if (!p.command) p.command = [&p, &d](std::ostream& o) { return cmd_run(p.run, o, d); };  // no subcommand
        prepare(p, d, err);
        return execute(p, d, out, err);
    } catch (const CLI::CallForHelp&) {
        out << app.help();
        return 0;
    } catch (const CLI::CallForAllHelp&) {
        out << app.help("", CLI::AppFormatMode::All);
        return 0;
    } catch (const CLI::CallForVersion&) {
        out << "exactattn " EXACTATTN_VERSION_STRING "\n";
        return 0;
    } catch (const CLI::ParseError& e) {
        // CLI11 uses its own exit codes; the contract says 2 for every usage error.
        return report_error(err, fmt::format("usage: {} (see exactattn --help)", e.what()), kind, ErrorKind::Usage, 2);
    } catch (const Error& e) {
        return report_error(err, e.what(), kind, e.kind(), static_cast<int>(e.exit_code()));
    } catch (const std::bad_alloc&) {
        return report_error(err, out_of_memory_reason(), kind, ErrorKind::Limit, 2);
    } catch (const std::length_error&) {
        return report_error(err, too_large_reason(), kind, ErrorKind::Limit, 2);
    } catch (const std::exception& e) {
        return report_error(err, fmt::format("internal error: {}", e.what()), nullptr, ErrorKind::Usage, 2);
    }
}

}  // namespace exactattn::cli
