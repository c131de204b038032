// SPDX-License-Identifier: MIT
// libFuzzer target: one attention layer (`exactattn attend`, Python's attend). The input is
// up to six lines: X, then W_Q, W_K, W_V of one head, an optional W_O and an optional mask,
// each a matrix in the engine's notation ([[1,a],[0,1]]); the first byte's bits choose causal
// masking, the residual, the scaled score rule and how many times the head repeats (1 to 4).
// The layer's trace is predicted before the work (max_report_cells) and every step charged to
// the work budget (max_work), so any input must finish or throw exactattn::Error within the
// watchdog of scripts/fuzz.sh, its JSON and its tables included. Seeded with the issue-27 bombs
// (2400 rows of X, 1000 heads, a continued fraction in a weight).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "exactattn/attention.hpp"
#include "exactattn/attention_report.hpp"
#include "exactattn/document.hpp"
#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/parse.hpp"
#include "fuzz_common.hpp"

using namespace exactattn;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto input = fuzz::flagged_input(data, size);
    if (!input) return 0;
    const unsigned flags = input->flags;
    const std::string_view text = input->text;
    std::vector<std::string_view> lines;
    for (std::size_t i = 0; i <= text.size() && lines.size() < 6;) {
        const std::size_t end = std::min(text.find('\n', i), text.size());
        lines.push_back(text.substr(i, end - i));
        i = end + 1;
    }
    if (lines.size() < 4) return 0;
    try {
        const WorkBudget job;  // one input, one job, as one command
        const Matrix x = parse_matrix(lines[0]);
        AttentionHead head{parse_matrix(lines[1]), parse_matrix(lines[2]), parse_matrix(lines[3])};
        AttentionLayer layer;
        layer.heads.assign(1 + ((flags >> 3U) & 3U), head);
        layer.causal = (flags & 1U) != 0;
        layer.residual = (flags & 2U) != 0;
        if ((flags & 4U) != 0) {
            layer.rule = ScoreRule::Scaled;
            layer.scale = Value(1) / Value(2);
        }
        if (lines.size() > 4 && !lines[4].empty()) layer.wo = parse_matrix(lines[4]);
        if (lines.size() > 5 && !lines[5].empty()) {
            for (const auto& row : parse_matrix(lines[5])) {
                std::vector<bool> r;
                for (const auto& v : row) r.push_back(!v.is_zero());
                layer.mask.push_back(r);
            }
        }
        const LayerTrace t = attend_layer(layer, x);
        (void)layer_json(t);
        Document doc;
        add_layer(doc, t);
        (void)render(doc, (flags & 0x20U) != 0 ? Format::Text : Format::Latex, RenderOptions{});
    } catch (const Error&) {
    }
    return 0;
}
