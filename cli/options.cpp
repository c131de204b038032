// SPDX-License-Identifier: MIT
// exactattn command line: the application's subcommands and options (CLI11), and the option
// helpers the commands share.
//
// Every subcommand first, then the options they all share, so no subcommand can miss one.
#include "options.hpp"

#include <CLI/CLI.hpp>

#include <exception>
#include <optional>

#include "exactattn/error.hpp"
#include "exactattn/format.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/version.hpp"

namespace exactattn::cli {

void add_format_option(CLI::App& sub, std::string& format, bool prose_only) {
    sub.add_option("--format", format, format_choices(prose_only))->check(CLI::IsMember(format_names(prose_only)));
}

namespace {

/// -j N and --junit FILE of the commands that run a whole book (verify, crosscheck).
void add_book_options(CLI::App& sub, FilesOptions& o) {
    sub.add_option("-j,--jobs", o.jobs, "Files run in parallel (default: the number of cores)")
        ->check(CLI::Range(std::size_t{1}, std::size_t{256}));
    sub.add_option("--junit", o.junit, "Also write a JUnit XML report to FILE");
}

/// eval, run, read and encode: the reports of one expression, scenario or read.
void add_report_commands(CLI::App& app, Parsed& p, Delivery& d) {
    auto* s_eval = app.add_subcommand("eval", "Evaluate an expression exactly");
    s_eval->add_option("expr", p.eval.expr, "Expression, e.g. '2^(1/2)/(2+2^(1/2))'")->required();
    s_eval->add_option("--format", p.eval.format, "ascii|unicode|latex|mathml|decimal|json")
        ->check(CLI::IsMember({"ascii", "unicode", "latex", "mathml", "decimal", "json"}));
    s_eval->add_flag("--display", p.eval.display,
                     "The display form ((3√2 − 2)/7, 2^1100) instead of the canonical one");
    s_eval->add_option("--digits", p.eval.digits, "Significant digits for decimal (1-100000)")
        ->check(CLI::Range(1, 100000));
    s_eval->callback([&p] { p.command = [&p](std::ostream& o) { return cmd_eval(p.eval, o); }; });

    auto* s_run = app.add_subcommand("run", "Run a scenario file (or the built-in chapter14)");
    s_run->add_option("file", p.run.file, "Scenario JSON file, or chapter14");
    add_format_option(*s_run, p.run.format);
    s_run->callback([&p, &d] { p.command = [&p, &d](std::ostream& o) { return cmd_run(p.run, o, d); }; });

    auto* s_read = app.add_subcommand("read", "One attention read with a full trace");
    s_read->add_option("--memory", p.read.memory, "Memory rows, e.g. [[a,0],[0,a]], or @FILE")->required();
    s_read->add_option("--query", p.read.query, "Query vector, e.g. [1,0]")->required();
    s_read->add_option("--readout", p.read.readout, "Readout coefficients, e.g. [1,2]");
    s_read->add_option("--remove", p.read.remove, "Positions to remove (1-based)");
    s_read->add_option("--zero", p.read.zero, "Positions whose score is set to 0 (1-based)");
    add_format_option(*s_read, p.read.format);
    auto* fields = s_read->add_option("--fields", p.read.fields,
                                      "JSON only: the keys to write, e.g. weights,context,denominator (default: all)");
    s_read->callback([&p, &d, fields] {
        p.read.fields_given = fields->count() > 0;
        p.command = [&p, &d](std::ostream& o) { return cmd_read(p.read, o, d); };
    });

    auto* s_enc = app.add_subcommand("encode", "Encoder states for a token list");
    s_enc->add_option("--scenario", p.encode.scenario, "Scenario file, or chapter14");
    s_enc->add_option("--tokens", p.encode.tokens, "Tokens separated by spaces")->required();
    add_format_option(*s_enc, p.encode.format);
    s_enc->callback([&p, &d] { p.command = [&p, &d](std::ostream& o) { return cmd_encode(p.encode, o, d); }; });
}

/// verify, crosscheck and answers: the commands over scenario files.
void add_book_commands(CLI::App& app, Parsed& p, Delivery& d) {
    auto* s_verify = app.add_subcommand("verify", "Check every expect entry of scenario files");
    s_verify->add_option("files", p.verify.files, "Scenario files or directories (every *.json below)")->required();
    add_book_options(*s_verify, p.verify);
    p.verify.format = "text";
    s_verify
        ->add_option("--format", p.verify.format,
                     "text, or github: each mismatch and wrong claim as a GitHub annotation line")
        ->check(CLI::IsMember({"text", "github"}));
    s_verify->add_option("--sarif", p.verify.sarif, "Also write a SARIF 2.1.0 log of the mismatches to FILE");
    s_verify->callback([&p] { p.command = [&p](std::ostream& o) { return cmd_verify(p.verify, o); }; });

    p.cross.format = "markdown";
    auto* s_cross = app.add_subcommand("crosscheck", "Exact results against an independent double path");
    s_cross->add_option("files", p.cross.files, "Scenario files or directories (every *.json below), or chapter14")
        ->required();
    add_book_options(*s_cross, p.cross);
    add_format_option(*s_cross, p.cross.format);
    s_cross->callback([&p, &d] { p.command = [&p, &d](std::ostream& o) { return cmd_crosscheck(p.cross, o, d); }; });

    p.answers.format = "markdown";
    auto* s_answers = app.add_subcommand("answers", "Exercise answer key of a scenario");
    s_answers->add_option("file", p.answers.files, "Scenario file, or chapter14")->required()->expected(1);
    add_format_option(*s_answers, p.answers.format, /*prose_only=*/true);
    s_answers->callback([&p] { p.command = [&p](std::ostream& o) { return cmd_answers(p.answers, o); }; });
}

/// check: a learner's answer, declared, ad hoc, or a class's CSV.
void add_check_command(CLI::App& app, Parsed& p, Delivery& d) {
    auto* s_check = app.add_subcommand("check", "Judge learner answers (exit 0 right, 1 wrong)");
    auto* check_file = s_check->add_option("file", p.check.file, "Scenario file, or chapter14");
    auto* answer = s_check->add_option("--answer", p.check.answer, "One declared learner answer by name");
    add_format_option(*s_check, p.check.format);
    auto* target = s_check->add_option("--target", p.check.target,
                                       "JSON pointer of the quantity, e.g. /reads/example-14.1/weights");
    auto* proposed = s_check->add_option("--proposed", p.check.proposed, "The proposed value, e.g. '[2/3,1/3,1/3]'");
    auto* answers =
        s_check->add_option("--answers", p.check.answers, "A class's answers: CSV with columns student,target,answer");
    auto* variants_dir =
        s_check->add_option("--variants", p.check.variants,
                            "With --answers: grade the class against the directory `exactattn variants -o DIR` wrote");
    variants_dir->needs(answers);
    variants_dir->excludes(check_file);
    s_check->add_option("--tolerance", p.check.tolerance,
                        "For decimals: decimal-places:N, significant-figures:N, absolute:E or relative:E");
    s_check->add_option("--accept", p.check.accept, "A mistake accepted as right (remaining-weights)")
        ->check(CLI::IsMember({"remaining-weights"}));
    // An ad-hoc answer (--target with --proposed), a declared one (--answer) and a class's CSV
    // exclude each other: silently ignoring one of them would judge something not asked for.
    target->needs(proposed);
    proposed->needs(target);
    answer->excludes(target);
    answer->excludes(proposed);
    answers->excludes(target);
    answers->excludes(proposed);
    answers->excludes(answer);
    s_check->callback([&p, &d, target, check_file, variants_dir] {
        // The scenario, or the variants directory instead (a class on variants).
        if (check_file->count() == 0 && variants_dir->count() == 0) {
            throw CLI::RequiredError("file (a scenario file, or --variants DIR with --answers)");
        }
        p.check.ad_hoc = target->count() > 0;
        // A refusal while the report is computed, judged or printed names the scenario file
        // (a class CSV's rows are placed at their lines already), as `run`'s does.
        p.command = [&p, &d](std::ostream& o) {
            return limits_placed_in_file(p.check.file, [&] { return cmd_check(p.check, o, d); });
        };
    });
}

/// attend, rollout, variants, figure and pointers; oracle and manuscript beside them.
void add_scenario_commands(CLI::App& app, Parsed& p, Delivery& d) {
    auto* s_attend = app.add_subcommand("attend", "One exact attention layer (Chapter 15)");
    add_attend_options(*s_attend, p.attend);
    s_attend->callback([&p, &d] { p.command = [&p, &d](std::ostream& o) { return cmd_attend(p.attend, o, d); }; });

    auto* s_rollout = app.add_subcommand("rollout", "A decoder rollout: teacher forcing and generation step by step");
    s_rollout->add_option("file", p.rollout.file, "Scenario file with a decoder")->required();
    s_rollout->add_option("--rollout", p.rollout.name, "The declared rollout (default: the only one)");
    s_rollout->add_option("--digits", p.rollout.digits, "Decimals of the rounded cross-entropy (1-100)")
        ->check(CLI::Range(1, 100));
    add_format_option(*s_rollout, p.rollout.format);
    s_rollout->callback([&p, &d] { p.command = [&p, &d](std::ostream& o) { return cmd_rollout(p.rollout, o, d); }; });
    auto* s_var = app.add_subcommand("variants", "Variants of an exercise: scenario files, keys, a sheet, Moodle XML");
    s_var->add_option("file", p.variants.file, "Scenario file, or chapter14");
    s_var->add_option("--exercise", p.variants.exercise, "The exercise's id (or exercise-<id>)")->required();
    auto* count = s_var->add_option("--count", p.variants.count, "Number of variants (1-1000)");
    auto* seed = s_var->add_option("--seed", p.variants.seed, "Master seed (0 to 2^64 - 1; default 0)");
    auto* vseed = s_var->add_option("--variant-seed", p.variants.variant_seed,
                                    "Re-create the one variant of this seed (printed in its key)");
    vseed->excludes(seed);
    vseed->excludes(count);
    s_var->callback([&p, &d] {
        // A refusal while the variants are drawn, keyed or printed names the scenario file.
        p.command = [&p, &d](std::ostream& o) {
            return limits_placed_in_file(p.variants.file, [&] { return cmd_variants(p.variants, o, d); });
        };
    });
    auto* s_figure = app.add_subcommand("figure", "One declared figure of a scenario, as SVG or TikZ");
    s_figure->add_option("file", p.figure.file, "Scenario file, or chapter14")->required();
    s_figure->add_option("--figure", p.figure.figure, "The figure's name or number, e.g. 14.1")->required();
    s_figure->add_option("--format", p.figure.format, "svg|tikz")->check(CLI::IsMember({"svg", "tikz"}));
    s_figure->callback([&p] { p.command = [&p](std::ostream& o) { return cmd_figure(p.figure, o); }; });
    auto* s_pointers =
        app.add_subcommand("pointers", "Every quantity of a scenario's report: pointer, value, what it is");
    add_pointers_options(*s_pointers, p.pointers);
    s_pointers->callback(
        [&p, &d] { p.command = [&p, &d](std::ostream& o) { return cmd_pointers(p.pointers, o, d); }; });
    add_oracle_command(app, p.command, d);

    add_manuscript_command(app, p.command);
}

/// The options every subcommand shares, added once every subcommand exists.
void add_shared_options(CLI::App& app, Parsed& p) {
    // Shared options, added once every subcommand exists: each subcommand gets its own copy,
    // so `-o` is accepted after any of them, and before them (the built-in run).
    const char* output_help = "Write the output to FILE (atomically: the old file stays on failure)";
    app.add_option("-o,--output", p.output, output_help);
    const char* warnings_help = "The first warning (author TeX kept verbatim in HTML) is an error: exit 2, no output";
    app.add_flag("--warnings-as-errors", p.warnings_as_errors, warnings_help);
    const char* work_help = "The work budget of the command, in work units (docs/limits.md; default 2^37)";
    const auto work_range = CLI::Range(std::int64_t{1}, std::int64_t{1} << 62);
    app.add_option("--max-work", p.max_work, work_help)->check(work_range);
    for (auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
        sub->add_option("-o,--output", p.output, output_help);
        sub->add_option("--max-work", p.max_work, work_help)->check(work_range);
        sub->add_flag("--standalone", p.render.standalone, "LaTeX: a complete document with its preamble");
        sub->add_option("--preamble", p.preamble_file,
                        "LaTeX with --standalone: add the lines of FILE to the preamble");
        sub->add_flag("--latex-floats", p.render.latex_floats,
                      "LaTeX: tables as floats (default: placed where they stand)");
        sub->add_flag(
            "--no-markdown-math", [&p](std::int64_t) { p.render.markdown_math = false; },
            "Markdown: Unicode values instead of $...$ math");
        sub->add_flag("--warnings-as-errors", p.warnings_as_errors, warnings_help);
        if (sub->get_name() != "eval") {
            sub->add_option("--max-width", p.render.max_width,
                            "Elide long integers so each value fits N columns (0: every digit)")
                ->check(CLI::Range(std::size_t{0}, std::size_t{100000}));
        }
    }
    app.add_flag("--standalone", p.render.standalone, "LaTeX: a complete document with its preamble");
}

}  // namespace

void make_app(CLI::App& app, Parsed& p, Delivery& d) {
    app.set_version_flag("--version", "exactattn " EXACTATTN_VERSION_STRING);
    app.require_subcommand(0, 1);
    add_report_commands(app, p, d);
    add_book_commands(app, p, d);
    add_check_command(app, p, d);
    add_scenario_commands(app, p, d);
    add_shared_options(app, p);
}

// --preamble FILE: the author's preamble lines, read whole (valid UTF-8) before any work; they
// belong in a complete document, so the option goes with --standalone.
std::string read_preamble(const std::string& path, bool standalone) {
    const Location where = option_place("--preamble");
    if (!standalone) throw usage_error("--preamble adds to a complete document's preamble: give --standalone", where);
    return placed(
        where,
        [&] {
            std::string text = read_input_file(path);  // the one reader: no FIFO, device or oversized file
            check_utf8(text, "the preamble");
            return text;
        },
        KeepPlace::Nothing);
}

Location option_place(const std::string& option) { return Location::named(option); }

std::optional<long long> whole_number(const std::string& text) {
    std::size_t used = 0;
    long long n = 0;
    try {
        n = std::stoll(text, &used);
    } catch (const std::exception&) {  // no digits, or out of range
        return std::nullopt;
    }
    if (used != text.size()) return std::nullopt;
    return n;
}

}  // namespace exactattn::cli
