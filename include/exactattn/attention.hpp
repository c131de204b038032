// SPDX-License-Identifier: MIT
// exactattn: one Transformer attention layer (Chapter 15), exact: projections Q = X W_Q,
// K = X W_K, V = X W_V per head, scaled scores, masks, h heads, W_O, the residual. Every row of
// every head is one read of read.hpp (keys K, values V, a mask as Removed marks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exactattn/memory.hpp"
#include "exactattn/read.hpp"
#include "exactattn/value.hpp"

namespace exactattn {

/// One head's projections: W_Q (d_model × d_k), W_K (d_model × d_k), W_V (d_model × d_v).
struct AttentionHead {
    Matrix wq;
    Matrix wk;
    Matrix wv;
    bool operator==(const AttentionHead&) const = default;
};

/// Positional information. Only data is exact: a table added to X. Sinusoidal encodings are
/// refused (sin and cos of nonzero rational arguments are transcendental).
enum class Positional { None, Table, Sinusoidal };

/// One attention layer. Masks (all optional, combined): causal (query i sees keys j ≤ i),
/// padding (key positions masked for every query), and an explicit boolean matrix (true =
/// masked). A masked position is a Removed mark: weight 0, excluded from the denominator.
struct AttentionLayer {
    std::vector<AttentionHead> heads;
    std::optional<Matrix> wo;  ///< output projection (h·d_v × d_out); none: the concatenation
    ScoreRule rule = ScoreRule::Dot;
    Value scale = Value(1);  ///< the declared scale for ScoreRule::Scaled
    bool causal = false;
    std::vector<std::size_t> padding;     ///< 1-based key positions, masked everywhere
    std::vector<std::vector<bool>> mask;  ///< n_q × n_k, true = masked; empty: none
    bool residual = false;                ///< output + X (widths must agree)
    bool layer_norm = false;              ///< refused: needs √ of a variance
    Positional positional = Positional::None;
    Matrix positions;  ///< Positional::Table: added to X (same shape)
    bool operator==(const AttentionLayer&) const = default;
};

/// One head's trace: Q, K, V (compact when the inputs allow it), one read per query row
/// (its scores, exponentials, denominator, weights over the key positions; a fast read keeps
/// its row as exponents and one shared factor, never n big fractions), and the outputs.
struct HeadTrace {
    Memory queries;
    Memory keys;
    Memory values;
    std::vector<ReadTrace> rows;
    /// n_q × d_v: row i is the context of read i (kept once, in the rows: an exact context
    /// entry can hold thousands of bits, so the layer never stores it twice).
    [[nodiscard]] Matrix outputs() const;
};

struct LayerTrace {
    Matrix input;                           ///< X (after positions), the query sequence
    std::vector<std::vector<bool>> masked;  ///< n_q × n_k, true = masked
    std::vector<HeadTrace> heads;
    /// concat · W_O (if given), + X (if residual); none when the layer has neither, and then
    /// the output is the concatenation itself.
    std::optional<Matrix> projected;

    [[nodiscard]] Matrix concat() const;  ///< [head_1 | … | head_h], computed from the rows
    [[nodiscard]] Matrix output() const;  ///< `projected`, or the concatenation
};

/// X projected by W (n × c): exact, and compact (integers and one unit) when X and W are
/// integer multiples of one unit each and the products fit 62 bits. ShapeError naming both.
Memory project(const Memory& x, const Matrix& w, std::string_view x_name, std::string_view w_name);

/// The exact values of a layer's trace over `queries` and `keys` positions: per head a score,
/// an exponential and a weight per query and key, and Q, K, V and the outputs (the widest
/// head's). What a printed trace holds, or at most twice it (a causal mask's hidden half).
std::int64_t layer_trace_cells(const AttentionLayer& layer, std::size_t queries, std::size_t keys);

/// The size of the trace a caller prints whole (`attend` of the command line and Python, every
/// format): per head a row of scores, exponentials and weights per query over every key, and
/// Q, K, V and the outputs. Past max_report_cells it is refused (LimitError placed at the part
/// "x") before the mask or any projection is built, so that 2400 rows or 1000 heads are
/// refused at once. attend_layer itself does not check it: a program that keeps the trace
/// without printing it (the W6/W7 benchmark, 2048 and 8192 rows) is bounded by max_work.
void check_layer_trace_size(const AttentionLayer& layer, std::size_t queries, std::size_t keys);

/// Self-attention: queries, keys and values all from X. Throws ShapeError (shapes named),
/// ReferenceError for a row whose every position is masked (placed at the row), DomainError
/// for a score without an exact exponential (head, row, position pair, score and why),
/// sinusoidal positions and layer normalisation (with their reasons).
LayerTrace attend_layer(const AttentionLayer& layer, const Matrix& x);
/// Cross-attention: queries from X, keys and values from `memory` (Chapter 14's read with
/// projections).
LayerTrace attend_layer(const AttentionLayer& layer, const Matrix& x, const Matrix& memory);

}  // namespace exactattn
