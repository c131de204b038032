// SPDX-License-Identifier: MIT
// libFuzzer target: manuscripts (`exactattn manuscript check|fill|audit`, docs/manuscript.md).
// The input is a Markdown or (first byte odd) LaTeX manuscript checked, filled and audited
// against the built-in chapter scenario: marks, pointers, written values (expressions,
// decimals, chains), placeholders. Any input must finish or throw exactattn::Error within the
// watchdog of scripts/fuzz.sh; the written values are parsed under the small limits and the
// work budget like every other input.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/manuscript.hpp"
#include "fuzz_common.hpp"

using namespace exactattn;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto input = fuzz::flagged_input(data, size);
    if (!input) return 0;
    const ManuscriptFormat format = (input->flags & 1U) != 0 ? ManuscriptFormat::Latex : ManuscriptFormat::Markdown;
    const std::string_view text = input->text;
    ManuscriptOptions options;
    options.scenario = "chapter14";
    const auto step = [&](auto&& f) {
        try {
            const WorkBudget job;  // one input, one job, as one command
            f();
        } catch (const Error&) {
        }
    };
    step([&] { (void)check_manuscript_text(text, "fuzz.md", format, options); });
    step([&] { (void)fill_manuscript_text(text, "fuzz.md", format, options); });
    step([&] { (void)audit_manuscript_text(text, "fuzz.md", format, options); });
    return 0;
}
