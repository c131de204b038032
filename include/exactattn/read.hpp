// SPDX-License-Identifier: MIT
// exactattn: the one attention read (docs/model.md, "Read") that the encoder's reads, interventions,
// self-attention rows and heads all go through: a request (query, marks, score rule and an
// exact scale) in, the full trace out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "exactattn/deferred.hpp"
#include "exactattn/error.hpp"
#include "exactattn/memory.hpp"
#include "exactattn/value.hpp"

namespace exactattn {

/// Score rule between a query and a key row.
enum class ScoreRule {
    Dot,        ///< e_j = q·k_j (the chapter's unscaled dot product)
    ScaledDot,  ///< e_j = q·k_j / √d_k (exact when it stays in the domain, refused otherwise)
    Scaled,     ///< e_j = s · q·k_j with an author-declared exact scale s (ReadRequest::scale)
};

/// One read's request: query, marks per position (empty: all included), optional readout, the
/// score rule and, for ScoreRule::Scaled, the declared scale. A masked position is a Removed
/// mark: it is excluded from the denominator exactly as a removed state is.
struct ReadRequest {
    Vector query;
    std::vector<Mark> marks;
    std::optional<Vector> readout;  ///< coefficients of r = Σ_i readout_i c_i
    ScoreRule rule = ScoreRule::Dot;
    Value scale = Value(1);                   ///< used by ScoreRule::Scaled only
    std::string query_label = "q";            ///< how messages name the query ("q_2" in a layer)
    std::string position_label = "position";  ///< how messages name a position ("key" in a layer)
};

/// The full trace of a read, with one entry per original position.
struct ReadTrace {
    Vector query;
    std::vector<Mark> marks;
    Column scores;        ///< none where removed
    Column exponentials;  ///< none where removed
    Value denominator;    ///< Σ of the included exponentials
    Column weights;       ///< 0 where removed; they sum to exactly 1
    /// Σ_j weight_j v_j, width d_v. The fast path reduces it to canonical form when it is first
    /// looked at (deferred.hpp); every entry is exact either way.
    DeferredVector context;
    std::optional<Value> readout;
    bool fast_path = false;  ///< computed by the shifted-integer path (fastpath.hpp)

    [[nodiscard]] std::vector<std::size_t> included() const;  ///< 1-based positions
};

/// The factor every dot product is multiplied by under `rule` for key width `d_k`: 1 for Dot,
/// 1/√d_k for ScaledDot, `declared` for Scaled. 1/√d_k is exact when d_k is a perfect square
/// (1/s) or twice one (2^(1/2)/(2s)); otherwise DomainError saying why and naming the exact
/// designs (a d_k that is a perfect square, or a declared scale).
Value score_scale(ScoreRule rule, std::size_t d_k, const Value& declared);

/// How a score rule's scale reads in a formula: "" (Dot), "/√4", "·(1/2)".
std::string scale_suffix(ScoreRule rule, std::size_t d_k, const Value& declared);

/// The attention read with keys and values in one memory (the chapter's form: the memory rows
/// are both). Throws ShapeError for a width mismatch or an empty memory, ReferenceError for no
/// included position left ("every position removed"), and DomainError when a score is not a
/// rational multiple of a (its exponential would leave the domain; the message names the
/// position, the score and why). Uses the fast path automatically when the structure allows.
ReadTrace attend(const Memory& memory, const ReadRequest& request);

/// The 1-based position `p` among the `n` positions of a `holder` ("memory", "source"):
/// ReferenceError at `where`, "position P is out of range: the HOLDER has positions 1 to N",
/// when p is outside 1..n. The one check of a position that the loader, `read --remove/--zero`
/// and the Python module's remove=/zero= make.
std::size_t checked_position(const mpz_class& p, std::size_t n, const char* holder, const Location& where = {});
inline ReadTrace attend(const Matrix& memory, const ReadRequest& request) { return attend(Memory(memory), request); }
/// The read with separate keys (scored against the query) and values (averaged): the
/// Transformer form. `keys` and `values` have the same number of rows.
ReadTrace attend(const Memory& keys, const Memory& values, const ReadRequest& request);
/// The general path only (value arithmetic throughout); the reference for the fast path.
ReadTrace attend_general(const Memory& memory, const ReadRequest& request);
ReadTrace attend_general(const Memory& keys, const Memory& values, const ReadRequest& request);

/// r = Σ_i coeffs_i c_i. ShapeError when the widths differ.
Value apply_readout(const Vector& coeffs, const Vector& context);

}  // namespace exactattn
