// SPDX-License-Identifier: MIT
// exactattn run / encode / verify: scenario files through the library.
#include <fmt/format.h>

#include <memory>
#include <ostream>

#include "commands.hpp"
#include "delivery.hpp"
#include "exactattn/wording.hpp"
#include "exactattn/figures.hpp"
#include "exactattn/book.hpp"
#include "exactattn/error.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/report.hpp"
#include "exactattn/scenario.hpp"
#include "exactattn/verify.hpp"

namespace exactattn::cli {

namespace {

int run_file(const RunOptions& o, std::ostream& out, Delivery& delivery) {
    const Scenario s = load_scenario(o.file);
    const Format f = parse_format(o.format);
    if (f == Format::Json) {
        // Written by the caller after the command succeeded, in chunks, as `read` does: the
        // report over 10^5 positions is tens of megabytes of text. What can fail is computed
        // now, so that a failure writes nothing.
        auto rep = std::make_shared<const Report>(run_scenario(s, ReportUse::Values));
        delivery.deferred = [rep, write = json_report_writer(*rep)](std::ostream& os) { write(os); };
        return 0;
    }
    // Tables: refused before the reads are computed when their cells are over the limit.
    emit(run_document(run_scenario(s, ReportUse::Tables)), f, o.render, out, delivery);
    return 0;
}

}  // namespace

int cmd_run(const RunOptions& o, std::ostream& out, Delivery& delivery) {
    return placed_in_file(o.file, [&] { return run_file(o, out, delivery); });
}

int cmd_encode(const EncodeOptions& o, std::ostream& out, Delivery& delivery) {
    const Scenario s = load_scenario(o.scenario);
    Location where;
    where.context = "--tokens";
    // Tokens are compared with the scenario's UTF-8 vocabulary; invalid bytes would otherwise
    // be echoed raw in "unknown token" messages.
    if (const auto fault = find_invalid_utf8(o.tokens)) {
        where.column = fault->column;
        throw parse_error(where, fault->reason());
    }
    where.column = 0;
    const auto tokens = split_tokens(o.tokens);
    placed(
        where,
        [&] {
            const Format f = parse_format(o.format);
            if (f == Format::Json)
                out << render_encoding(s, tokens, f);
            else
                emit(encoding_document(s, tokens), f, o.render, out, delivery);
        },
        KeepPlace::Any);
    return 0;
}

int cmd_verify(const FilesOptions& o, std::ostream& out) {
    const std::vector<std::string> files = scenario_files(o.files);
    std::vector<VerifyResult> results(files.size());
    run_parallel(files.size(), o.jobs == 0 ? default_jobs() : o.jobs, [&](std::size_t i) {
        results[i] = placed_in_file(
            files[i], [&] { return verify_report(run_scenario(load_scenario(files[i]), ReportUse::Values)); });
    });
    std::size_t passed = 0;
    std::size_t failed = 0;
    std::vector<Annotation> notes;
    for (const auto& r : results) {
        passed += r.passed;
        failed += r.failures.size();
        // A file name is shown with its controls and invalid bytes escaped (<U+000A>, <0xFF>): a
        // line break in it must not forge a line of this report, an ESC must not reach the
        // terminal.
        const std::string file = escape_controls(r.file);
        const std::string text = r.failures.empty() ? std::string() : read_input_file(r.file);
        for (const auto& m : r.failures) {
            notes.push_back(
                {r.file, expect_line(text, m.pointer), 0, "expect-mismatch",
                 escape_controls(fmt::format("{}: expected {}, computed {}", m.pointer, m.expected, m.computed))});
            if (o.format == "github") {
                out << github_annotation(notes.back()) << '\n';
            } else {
                out << fmt::format("{}: {}\n", file, notes.back().message);
            }
        }
        if (files.size() > 1) out << fmt::format("{}: {} passed, {} failed\n", file, r.passed, r.failures.size());
    }
    if (!o.junit.empty()) write_output_file(o.junit, junit_xml(results, "exactattn verify"), "--junit");
    // The manuscripts of a directory (docs/manuscript.md) before the total, which stays last.
    std::vector<std::string> checked = files;
    const std::size_t wrong_claims =
        check_manuscripts_below(o.files, o.jobs == 0 ? default_jobs() : o.jobs, out, o.format, notes, checked);
    if (!o.sarif.empty()) write_output_file(o.sarif, sarif_log(notes, checked, "verify"), "--sarif");
    out << fmt::format("verify: {} passed, {} failed", passed, failed);
    out << (files.size() > 1 ? " in " + counted(files.size(), "file") + "\n" : std::string("\n"));
    return failed == 0 && wrong_claims == 0 ? 0 : 1;
}

}  // namespace exactattn::cli
