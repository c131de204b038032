// SPDX-License-Identifier: MIT
// libFuzzer target: decoder rollouts (`exactattn rollout`). The input is a scenario file whose
// decoder and rollouts are run (run_scenario) and printed as text and JSON (one format per
// input), the way the rollout command prints them. Steps, the target vocabulary, the work of
// every step and every printed character are bounded (max_decoder_steps,
// max_target_vocabulary, max_work), so any input must finish or throw exactattn::Error within
// the watchdog of scripts/fuzz.sh. Seeded with data/'s decoders and the issue-27 bombs (1024
// steps over a vocabulary whose distributions are large elements of Q(2^(1/64))).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "exactattn/error.hpp"
#include "exactattn/figures.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/report.hpp"
#include "exactattn/scenario.hpp"
#include "fuzz_common.hpp"

using namespace exactattn;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text = fuzz::input_text(data, size);
    try {
        const WorkBudget job;  // one input, one job, as one command
        const Scenario s = parse_scenario(text, "fuzz.json");
        if (!s.decoder || s.rollouts.empty()) return 0;
        const Report r = run_scenario(s);
        (void)render_report(r, size % 2 == 0 ? Format::Text : Format::Json);
    } catch (const Error&) {
    }
    return 0;
}
