// SPDX-License-Identifier: MIT
// exactattn command line: argument parsing (CLI11) and the error → exit code contract.
#include "app.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <new>
#include <ostream>
#include <sstream>

#include "commands.hpp"
#include "exactattn/error.hpp"

namespace exactattn::cli {

namespace {

const std::vector<std::string> kReportFormats = {"text", "markdown", "latex", "csv", "json"};

}  // namespace

int run(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
    return run(args, out, err, nullptr);
}

int run(std::span<const std::string> args, std::ostream& out, std::ostream& err,
        std::optional<ErrorKind>* kind) {
    if (kind != nullptr) kind->reset();
    CLI::App app{"exactattn: exact arithmetic for the mathematics of attention (a = ln 2).\n"
                 "With no arguments, prints the built-in Chapter 14 scenario.",
                 "exactattn"};
    app.set_version_flag("--version", "exactattn 0.1.0");
    app.require_subcommand(0, 1);
    std::string output;
    app.add_option("-o,--output", output, "Write the output to FILE instead of standard output");

    EvalOptions eval;
    auto* s_eval = app.add_subcommand("eval", "Evaluate an expression exactly");
    s_eval->add_option("expr", eval.expr, "Expression, e.g. '2^(1/2)/(2+2^(1/2))'")->required();
    s_eval->add_option("--format", eval.format, "ascii|unicode|latex|decimal|json")
        ->check(CLI::IsMember({"ascii", "unicode", "latex", "decimal", "json"}));
    s_eval->add_option("--digits", eval.digits, "Significant digits for decimal (1-100000)")
        ->check(CLI::Range(1, 100000));

    RunOptions runo;
    auto* s_run = app.add_subcommand("run", "Run a scenario file (or the built-in chapter14)");
    s_run->add_option("file", runo.file, "Scenario JSON file, or chapter14");
    s_run->add_option("--format", runo.format, "text|markdown|latex|csv|json")
        ->check(CLI::IsMember(kReportFormats));

    ReadOptions read;
    auto* s_read = app.add_subcommand("read", "One attention read with a full trace");
    s_read->add_option("--memory", read.memory, "Memory rows, e.g. [[a,0],[0,a]], or @FILE")
        ->required();
    s_read->add_option("--query", read.query, "Query vector, e.g. [1,0]")->required();
    s_read->add_option("--readout", read.readout, "Readout coefficients, e.g. [1,2]");
    s_read->add_option("--remove", read.remove, "Positions to remove (1-based)");
    s_read->add_option("--zero", read.zero, "Positions whose score is set to 0 (1-based)");
    s_read->add_option("--format", read.format, "text|json")
        ->check(CLI::IsMember({"text", "json"}));

    EncodeOptions enc;
    auto* s_enc = app.add_subcommand("encode", "Encoder states for a token list");
    s_enc->add_option("--scenario", enc.scenario, "Scenario file, or chapter14");
    s_enc->add_option("--tokens", enc.tokens, "Tokens separated by spaces")->required();
    s_enc->add_option("--format", enc.format, "text|markdown|latex|csv|json")
        ->check(CLI::IsMember(kReportFormats));

    FilesOptions verify;
    auto* s_verify = app.add_subcommand("verify", "Check every expect entry of scenario files");
    s_verify->add_option("files", verify.files, "Scenario files")->required();

    for (auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) sub->fallthrough();

    FilesOptions cross;
    cross.format = "markdown";
    auto* s_cross = app.add_subcommand("crosscheck", "Exact results against an independent double path");
    s_cross->add_option("files", cross.files, "Scenario files, or chapter14")->required();
    s_cross->add_option("--format", cross.format, "markdown|json")
        ->check(CLI::IsMember({"markdown", "json"}));

    FilesOptions answers;
    answers.format = "markdown";
    auto* s_answers = app.add_subcommand("answers", "Exercise answer key of a scenario");
    s_answers->add_option("file", answers.files, "Scenario file, or chapter14")->required()->expected(1);
    s_answers->add_option("--format", answers.format, "markdown|latex|json")
        ->check(CLI::IsMember({"markdown", "latex", "json"}));

    CheckOptions check;
    auto* s_check = app.add_subcommand("check", "Judge learner answers (exit 0 right, 1 wrong)");
    s_check->add_option("file", check.file, "Scenario file, or chapter14")->required();
    s_check->add_option("--answer", check.answer, "One declared learner answer by name");
    s_check->add_option("--target", check.target,
                        "JSON pointer of the quantity, e.g. /reads/example-14.1/weights");
    s_check->add_option("--proposed", check.proposed, "The proposed value, e.g. '[2/3,1/3,1/3]'");

    AttendOptions attendo;
    auto* s_attend = app.add_subcommand("attend", "One exact attention layer (Chapter 15)");
    add_attend_options(*s_attend, attendo);

    std::vector<std::string> argv(args.rbegin(), args.rend());  // CLI11 parses a reversed vector
    std::ostringstream buffer;
    int code = 0;
    try {
        app.parse(argv);
        if (*s_eval) code = cmd_eval(eval, buffer);
        else if (*s_read) code = cmd_read(read, buffer);
        else if (*s_enc) code = cmd_encode(enc, buffer);
        else if (*s_verify) code = cmd_verify(verify, buffer);
        else if (*s_cross) code = cmd_crosscheck(cross, buffer);
        else if (*s_answers) code = cmd_answers(answers, buffer);
        else if (*s_check) code = cmd_check(check, buffer);
        else if (*s_attend) code = cmd_attend(attendo, buffer);
        else code = cmd_run(runo, buffer);  // `run`, or no subcommand at all
        if (!output.empty()) {
            std::ofstream file(output, std::ios::binary | std::ios::trunc);
            if (file) file << buffer.view();
            if (!file || !file.flush()) {
                Location where;
                where.context = "--output";
                throw usage_error(fmt::format("cannot write {}: {}", output, std::strerror(errno)), where);
            }
            return code;
        }
    } catch (const CLI::CallForHelp&) {
        out << app.help();
        return 0;
    } catch (const CLI::CallForAllHelp&) {
        out << app.help("", CLI::AppFormatMode::All);
        return 0;
    } catch (const CLI::CallForVersion&) {
        out << "exactattn 0.1.0\n";
        return 0;
    } catch (const CLI::ParseError& e) {
        // CLI11 uses its own exit codes; the contract says 2 for every usage error.
        std::string msg = e.what();
        for (auto& c : msg) c = c == '\n' ? ' ' : c;
        err << "exactattn: usage: " << msg << " (see exactattn --help)\n";
        if (kind != nullptr) *kind = ErrorKind::Usage;
        return 2;
    } catch (const Error& e) {
        std::string msg = e.what();
        for (auto& c : msg) c = c == '\n' ? ' ' : c;
        err << "exactattn: " << msg << '\n';
        if (kind != nullptr) *kind = e.kind();
        return static_cast<int>(e.exit_code());
    } catch (const std::bad_alloc&) {
        err << "exactattn: out of memory: the input needs more memory than this machine has; "
               "lower its size (see Limits in README.md)\n";
        if (kind != nullptr) *kind = ErrorKind::Limit;
        return 2;
    } catch (const std::exception& e) {
        err << "exactattn: internal error: " << e.what() << '\n';
        return 2;
    }
    out << buffer.view();  // no copy: a report can be hundreds of megabytes
    out.flush();
    return code;
}

}  // namespace exactattn::cli
