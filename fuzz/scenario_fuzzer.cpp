// SPDX-License-Identifier: MIT
// libFuzzer target: scenario files (parse_scenario), then everything a valid one computes:
// run_scenario, verify_report and every report format, the writer's round trip and the
// variants of its exercises; and the same bytes as a memory file (`read --memory @FILE`) read
// with a query of ones. Any input must succeed or throw exactattn::Error.
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

#include "exactattn/figures.hpp"
#include "exactattn/answer_key.hpp"
#include "exactattn/error.hpp"
#include "exactattn/report.hpp"
#include "exactattn/scenario.hpp"
#include "exactattn/variants.hpp"
#include "exactattn/verify.hpp"
#include "fuzz_common.hpp"
#include "scenario/json.hpp"
#include "scenario/load.hpp"
#include "scenario/memory_file.hpp"
#include "report/report_json.hpp"

using namespace exactattn;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text = fuzz::input_text(data, size);
    // Memory sources read by the memory reader, the rest as a tree: the same scenario, or the
    // same error, as the whole document tree (the reference).
    std::optional<Scenario> streamed;
    std::optional<Scenario> reference;
    std::string streamed_error;
    std::string reference_error;
    try {
        streamed = parse_scenario(text, "fuzz.json");
    } catch (const Error& e) {
        streamed_error = e.what();
    }
    try {
        reference = detail::parse_scenario_reference(text, "fuzz.json");
    } catch (const Error& e) {
        reference_error = e.what();
    }
    if (streamed_error != reference_error || streamed.has_value() != reference.has_value()) __builtin_trap();
    if (streamed && !(*streamed == *reference)) __builtin_trap();
    if (streamed) try {
            const Scenario& s = *streamed;
            const Report r = run_scenario(s);
            // One format per input (chosen by its size), so that a large report stays within the
            // watchdog's 2 s in this sanitized build; the mutator reaches every format.
            constexpr Format formats[] = {Format::Text, Format::Markdown, Format::Latex,
                                          Format::Html, Format::Csv,      Format::Json};
            const Format f = formats[size % std::size(formats)];
            const std::string rendered = render_report(r, f);
            // JSON is written without the whole tree: the same text as the tree's.
            if (f == Format::Json && rendered != detail::report_to_json(r).dump(2) + "\n") __builtin_trap();
            if (f == Format::Csv)
                (void)csv_files(run_document(r));
            else
                (void)render_answers(r, f);
            (void)verify_report(r);
            // The writer is the loader's inverse (docs/scenario.md, "Written scenarios").
            if (!(parse_scenario(write_scenario(s), s.file) == s)) __builtin_trap();
            // Variants of every exercise that declares a variation, and all their outputs.
            for (const auto& e : s.exercises) {
                if (!e.variation) continue;
                try {
                    VariantRequest q;
                    q.exercise = e.id;
                    q.count = 2;
                    q.seed = size;
                    (void)variant_files(draw_variants(s, q));
                } catch (const Error&) {
                }
            }
            for (const auto& rr : r.reads) {
                const Memory& m = s.source(rr.spec.source).states;
                (void)read_json(m, rr.trace);
                (void)read_text(m, rr.trace);
            }
        } catch (const Error&) {
        }
    try {
        const Memory m = detail::load_memory_json(text, "fuzz.json");
        ReadRequest req;
        req.query.assign(m.width(), Value(1));
        req.marks.assign(m.rows(), Mark::Included);
        if (m.rows() > 1) req.marks[0] = Mark::Removed;
        const ReadTrace t = attend(m, req);
        (void)read_json(m, t);
        (void)read_text(m, t);
        // The compact form and the general path agree.
        const ReadTrace g = attend_general(Memory(m.matrix()), req);
        if (g.context != t.context || g.denominator != t.denominator) __builtin_trap();
    } catch (const Error&) {
    }
    return 0;
}
