// SPDX-License-Identifier: MIT
// exactattn attend: one exact attention layer from the command line.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "exactattn/attention.hpp"
#include "exactattn/attention_report.hpp"
#include "exactattn/error.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "exactattn/scenario.hpp"

namespace exactattn::cli {

namespace {

Matrix matrix_argument(const std::string& text, const std::string& option) {
    return for_option(option, [&] { return load_memory_argument(text).matrix(); });
}

// One matrix per head: given once per head, or once and split by columns into equal blocks.
std::vector<Matrix> per_head(const std::vector<std::string>& args, std::size_t heads, const std::string& option) {
    std::vector<Matrix> out;
    for (const auto& a : args) out.push_back(matrix_argument(a, option));
    if (out.size() == heads) return out;
    if (out.size() != 1) {
        throw usage_error(fmt::format("{} is given {} times for {} heads: give it once per head, "
                                      "or once to be split by columns",
                                      option, out.size(), heads),
                          option_place(option));
    }
    const std::size_t cols = out[0].empty() ? 0 : out[0][0].size();
    if (cols % heads != 0) {
        throw shape_error(fmt::format("{} has {} columns, which do not split into {} heads of "
                                      "equal width",
                                      option, cols, heads),
                          option_place(option));
    }
    const std::size_t w = cols / heads;
    std::vector<Matrix> split(heads);
    for (const auto& row : out[0]) {
        for (std::size_t h = 0; h < heads; ++h) {
            split[h].emplace_back(row.begin() + static_cast<std::ptrdiff_t>(h * w),
                                  row.begin() + static_cast<std::ptrdiff_t>((h + 1) * w));
        }
    }
    return split;
}

std::vector<std::string> split_words(const std::string& s) {
    std::istringstream in(s);
    std::vector<std::string> out;
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}

std::vector<std::size_t> positions_argument(const std::vector<std::string>& args, const std::string& option) {
    std::vector<std::size_t> out;
    for (const auto& a : args) {
        std::string text = a;
        for (auto& c : text) c = c == ',' ? ' ' : c;
        for (const auto& w : split_words(text)) {
            const auto p = whole_number(w);
            if (!p || *p < 1) {
                throw usage_error(fmt::format("\"{}\" is not a position (a whole number from 1)", w),
                                  option_place(option));
            }
            out.push_back(static_cast<std::size_t>(*p));
        }
    }
    return out;
}

}  // namespace

void add_attend_options(CLI::App& sub, AttendOptions& o) {
    sub.add_option("--x", o.x, "The sequence X, rows of width d_model, e.g. [[1,0],[0,1]], or @FILE")->required();
    sub.add_option("--memory", o.memory, "Cross-attention: keys and values from this sequence");
    // allow_extra_args(false): one matrix per occurrence, and CLI11 must not split "[[..]]".
    sub.add_option("--wq", o.wq, "W_Q (d_model × d_k): once per head, or once split into heads")
        ->required()
        ->allow_extra_args(false);
    sub.add_option("--wk", o.wk, "W_K (d_model × d_k), as --wq")->required()->allow_extra_args(false);
    sub.add_option("--wv", o.wv, "W_V (d_model × d_v), as --wq")->required()->allow_extra_args(false);
    sub.add_option("--wo", o.wo, "Output projection W_O (h·d_v × d_out)");
    sub.add_option("--heads", o.heads, "Number of heads h")->check(CLI::Range(1, 4096));
    sub.add_flag("--causal", o.causal, "Query i attends to keys 1..i only");
    sub.add_option("--mask", o.mask, "Boolean matrix n_q × n_k, 1 = masked");
    // Several values after one --padding (`--padding 1 3`, as documented) or one list (`1,3`).
    sub.add_option("--padding", o.padding, "Key positions masked for every query (1-based): 1 3 or 1,3")
        ->allow_extra_args(true);
    sub.add_option("--scale", o.scale, "none | sqrt-dk | an exact value, e.g. 1/2");
    sub.add_option("--positions", o.positions, "Positions P added to X (a matrix), or sinusoidal");
    sub.add_flag("--residual", o.residual, "Add X to the output");
    sub.add_flag("--layer-norm", o.layer_norm, "Layer normalisation (refused: not exact)");
    sub.add_option("--tokens", o.tokens, "Row and column labels, separated by spaces");
    add_format_option(sub, o.format);
}

int cmd_attend(const AttendOptions& o, std::ostream& out, Delivery& delivery) {
    AttentionLayer layer;
    const auto h = static_cast<std::size_t>(o.heads);
    const auto wq = per_head(o.wq, h, "--wq");
    const auto wk = per_head(o.wk, h, "--wk");
    const auto wv = per_head(o.wv, h, "--wv");
    for (std::size_t i = 0; i < h; ++i) layer.heads.push_back(AttentionHead{wq[i], wk[i], wv[i]});
    if (!o.wo.empty()) layer.wo = matrix_argument(o.wo, "--wo");
    layer.causal = o.causal;
    layer.residual = o.residual;
    layer.layer_norm = o.layer_norm;
    if (o.scale == "none") {
        layer.rule = ScoreRule::Dot;
    } else if (o.scale == "sqrt-dk") {
        layer.rule = ScoreRule::ScaledDot;
    } else {
        layer.rule = ScoreRule::Scaled;
        layer.scale = for_option("--scale", [&] { return parse_value(o.scale); });
    }
    if (o.positions == "sinusoidal") {
        layer.positional = Positional::Sinusoidal;
    } else if (!o.positions.empty()) {
        layer.positional = Positional::Table;
        layer.positions = matrix_argument(o.positions, "--positions");
    }
    if (!o.mask.empty()) {
        const Matrix m = matrix_argument(o.mask, "--mask");
        for (std::size_t i = 0; i < m.size(); ++i) {
            layer.mask.emplace_back();
            for (std::size_t j = 0; j < m[i].size(); ++j) {
                if (m[i][j] != Value(0) && m[i][j] != Value(1)) {
                    throw usage_error(fmt::format("entry ({}, {}) is {}: mask entries are 0 "
                                                  "(attend) or 1 (masked)",
                                                  i + 1, j + 1, to_ascii(m[i][j])),
                                      option_place("--mask"));
                }
                layer.mask.back().push_back(m[i][j] == Value(1));
            }
        }
    }
    layer.padding = positions_argument(o.padding, "--padding");
    const Matrix x = matrix_argument(o.x, "--x");
    const auto labels = split_words(o.tokens);
    if (!labels.empty() && labels.size() != x.size()) {
        throw usage_error(fmt::format("{} tokens label {} rows of X", labels.size(), x.size()),
                          option_place("--tokens"));
    }
    const Matrix memory = o.memory.empty() ? Matrix{} : matrix_argument(o.memory, "--memory");
    LayerTrace t;
    try {
        // Every format prints the whole trace: its size is refused before the work.
        check_layer_trace_size(layer, x.size(), o.memory.empty() ? x.size() : memory.size());
        t = o.memory.empty() ? attend_layer(layer, x) : attend_layer(layer, x, memory);
    } catch (const Error& e) {
        // The library places an error in a part of the layer by the part's name (mask, wo,
        // memory, positions, residual, layer-norm, padding): here that is the option --NAME.
        const std::string& part = e.where().context;
        if (e.keeps_place(KeepPlace::AnyButName)) throw;
        static const std::vector<std::string> parts = {"x",      "mask",      "padding",  "wo",
                                                       "memory", "positions", "residual", "layer-norm"};
        if (std::find(parts.begin(), parts.end(), part) == parts.end()) throw;
        throw Error(e.kind(), option_place("--" + part), e.reason());
    }
    const auto key_labels = o.memory.empty() ? labels : std::vector<std::string>{};
    const Format f = parse_format(o.format);
    if (f == Format::Json) {
        out << layer_json(t);
    } else {
        Document doc;
        doc.title = "Attention layer";
        add_layer(doc, t, labels, key_labels);
        emit(doc, f, o.render, out, delivery);
    }
    return 0;
}

}  // namespace exactattn::cli
