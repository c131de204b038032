// SPDX-License-Identifier: MIT
// exactattn: a declared recurrent decoder with attention (docs/decoder.md) and its rollouts —
// teacher forcing and generation, step by step, with certified argmax and exact ties. Every
// step's read is the one attention read of read.hpp; the output distribution is that same
// read's softmax over the output scores.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exactattn/memory.hpp"
#include "exactattn/encoder.hpp"
#include "exactattn/read.hpp"

namespace exactattn {

/// What decides an exact tie for the largest output score.
enum class TieRule {
    First,   ///< the tied token first in vocabulary order
    Refuse,  ///< no choice: the step reports the tie and generation stops there
};

/// s_t = φ(s_{t-1} U + E_y(y_{t-1}) E + c_t C + b), q_t = s_{t-1} (or s_{t-1} W_q),
/// o_t = [s_t, c_t] W_o + b_o (or s_t W_o + b_o) over the target vocabulary.
struct Decoder {
    Activation activation = Activation::Relu;
    Matrix recurrent;                                        ///< U, d × d
    Matrix input;                                            ///< E, e × d (e = target embedding width)
    Matrix context;                                          ///< C, d_c × d (d_c = source state width)
    Vector bias;                                             ///< b, width d
    std::optional<Vector> initial;                           ///< s_0; none: the encoder's last state of the source
    std::optional<Matrix> query;                             ///< W_q, d × d_c; none: q_t = s_{t-1} (then d = d_c)
    Matrix output;                                           ///< W_o, (d + d_c) × V, or d × V when !output_context
    bool output_context = true;                              ///< the output reads [s_t, c_t] (true) or s_t alone
    std::optional<Vector> output_bias;                       ///< b_o, width V
    std::vector<std::pair<std::string, Vector>> vocabulary;  ///< target tokens in order
    std::string start;                                       ///< y_0
    std::optional<std::string> end;                          ///< generation stops after choosing it
    TieRule ties = TieRule::First;
    bool operator==(const Decoder&) const = default;

    [[nodiscard]] std::size_t width() const { return recurrent.size(); }        ///< d
    [[nodiscard]] std::size_t context_width() const { return context.size(); }  ///< d_c
    /// Index of a target token; ReferenceError naming the target vocabulary otherwise.
    [[nodiscard]] std::size_t index(const std::string& token) const;
    /// ShapeError (with the matrix named) when the shapes do not fit together.
    void check() const;
};

/// One declared rollout (`rollouts`): a source, an optional reference (teacher forcing needs
/// it), the number of steps, and whether to print the cross-entropy of the reference.
struct RolloutSpec {
    std::string name;
    std::string source;
    std::vector<std::string> reference;  ///< y_1..y_T (empty: generation only)
    std::size_t steps = 0;               ///< T (default: the reference's length)
    bool cross_entropy = false;
    int digits = 6;  ///< decimals of the rounded cross-entropy (1-100; `digits`, `rollout --digits`)
    std::string note;
    std::string number;   ///< "15.2": the rollout's first table (the rest 15.2.2, 15.2.3, …; docs/output.md)
    std::string caption;  ///< Markdown: the first table's caption
    bool operator==(const RolloutSpec&) const = default;
};

enum class Regime { TeacherForcing, Generation };
/// "teacher-forcing" or "generation" (the JSON key and the CLI name).
const char* regime_name(Regime r);
/// The regimes by name, in that order: the one table of their names.
const std::vector<std::pair<const char*, Regime>>& regime_names();
/// The regime a name names, or none.
std::optional<Regime> regime_named(std::string_view name);

/// One decoder step's full trace.
struct DecoderStep {
    std::size_t step = 0;   ///< t, from 1
    std::string input;      ///< y_{t-1}
    Vector query;           ///< q_t
    ReadTrace read;         ///< the attention read over the source states (c_t = read.context)
    Vector pre_activation;  ///< s_{t-1} U + E_y(y_{t-1}) E + c_t C + b
    Vector state;           ///< s_t = φ(pre_activation)
    Vector scores;          ///< o_t, one per target token
    /// The output distribution softmax(o_t): the same read over the scores (a one-column memory
    /// with query [1]); none with `refusal` when a score is not a rational multiple of a.
    std::optional<ReadTrace> distribution;
    std::string refusal;
    std::vector<std::size_t> argmax;       ///< every token with the largest score (vocabulary indices)
    std::optional<std::size_t> chosen;     ///< none when the tie rule refuses a tie
    std::string chosen_token;              ///< its name ("" when refused)
    std::optional<std::string> reference;  ///< y_t of the reference, when declared
    /// Cross-entropy of the reference token, when asked and the distribution is exact: the exact
    /// probability p, −ln p exactly when p is a power of 2 (−ln 2^r = −r a), and −ln p correctly
    /// rounded to 6 decimals otherwise (marked as rounded).
    std::optional<Value> reference_probability;
    std::optional<Value> cross_entropy;
    std::string cross_entropy_decimal;

    [[nodiscard]] bool tie() const { return argmax.size() > 1; }
    /// The chosen token equals the reference token (false without either).
    [[nodiscard]] bool agrees() const { return chosen && reference && chosen_token == *reference; }
};

/// One regime of a rollout: s_0 and the steps in order.
struct RegimeTrace {
    Regime regime = Regime::Generation;
    Vector initial;  ///< s_0
    std::vector<DecoderStep> steps;
    std::string stopped;  ///< why it ended: "steps", "end token", "tie refused"
    Costs costs;          ///< of the reads (n, d_c, T = steps taken): the chapter's sequential steps
    /// The chosen tokens in order (refused steps are "").
    [[nodiscard]] std::vector<std::string> tokens() const;
    /// The chosen tokens in order, none at a tie the rule refused (the JSON `tokens`: null).
    [[nodiscard]] std::vector<std::optional<std::string>> choices() const;
};

/// Where generation leaves the reference and where the two regimes' choices part.
struct Divergence {
    std::optional<std::size_t> prefix_step;  ///< first t with generated y_t ≠ reference y_t
    std::optional<std::size_t> choice_step;  ///< first t whose chosen tokens differ between regimes
};

struct RolloutResult {
    RolloutSpec spec;
    std::optional<RegimeTrace> teacher_forcing;  ///< when a reference is declared
    RegimeTrace generation;
    Divergence divergence;
};

/// Runs one regime: `memory` is the source states, `initial` s_0. Teacher forcing needs
/// `reference` with at least `steps` tokens. Throws ShapeError/ReferenceError on bad shapes or
/// tokens and DomainError when a read's score leaves the exact domain (placed at the step).
/// `digits`: the decimals of each rounded cross-entropy.
RegimeTrace roll_out(const Decoder& dec, const Memory& memory, const Vector& initial, Regime regime, std::size_t steps,
                     const std::vector<std::string>& reference, bool cross_entropy, int digits = 6);

/// Both regimes of a declared rollout and their divergence.
RolloutResult run_rollout(const Decoder& dec, const RolloutSpec& spec, const Memory& memory, const Vector& initial);

/// −ln p for an exact 0 < p ≤ 1 of degree 0, correctly rounded to `digits` decimals (MPFR with
/// certified enclosures, doubling the precision; LimitError past limits().max_precision).
std::string neg_log_decimal(const Value& p, int digits);

}  // namespace exactattn
