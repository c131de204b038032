// SPDX-License-Identifier: MIT
// exactattn: the model of docs/model.md — recurrent encoder and cost counts, all exact; the
// attention read it uses is read.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "exactattn/memory.hpp"
#include "exactattn/read.hpp"
#include "exactattn/value.hpp"

namespace exactattn {

/// Encoder nonlinearity φ.
enum class Activation { Relu, Identity };

/// h_t = φ(h_{t-1} W_h + x_t W_x + b), row vectors, h_0 = `initial`.
struct Encoder {
    Activation activation = Activation::Relu;
    Matrix recurrent;  ///< W_h, d × d
    Matrix input;      ///< W_x, e × d (e = embedding width)
    Vector bias;       ///< b, width d
    Vector initial;    ///< h_0, width d

    [[nodiscard]] std::size_t width() const { return initial.size(); }
    /// Throws ShapeError when the shapes do not fit together.
    void check() const;
    bool operator==(const Encoder&) const = default;
};

/// h_1..h_n for inputs x_1..x_n (each of the embedding width). ShapeError on a width mismatch.
/// `pre_activations`, when given, receives h_{t-1} W_h + x_t W_x + b for every t (what φ saw).
/// `from`, when given, stands for h_0 instead of `initial`: the encoding goes on from a state
/// (a deleted token's successors continue from its predecessor's state).
Matrix encode(const Encoder& enc, const std::vector<Vector>& inputs, Matrix* pre_activations = nullptr,
              const Vector* from = nullptr);

/// Logical cost counts of §14.6 under declared assumptions (not measured memory).
struct CostInput {
    std::int64_t positions = 0;         ///< n
    std::int64_t width = 0;             ///< d
    std::int64_t target_steps = 1;      ///< T reads
    std::int64_t bytes_per_number = 8;  ///< declared storage size of one number
    bool operator==(const CostInput&) const = default;
};

struct Costs {
    CostInput input;
    std::int64_t stored_numbers = 0;         ///< n·d source-state numbers
    std::int64_t stored_bytes = 0;           ///< n·d·bytes
    std::int64_t fixed_context_numbers = 0;  ///< d, the one fixed summary
    std::int64_t fixed_context_bytes = 0;
    std::int64_t dot_products = 0;                     ///< n·T
    std::int64_t multiplications_per_dot_product = 0;  ///< d
    std::int64_t additions_per_dot_product = 0;        ///< d − 1
    std::int64_t multiplications = 0;                  ///< scores n·d·T + weighted sums n·d·T
    std::int64_t additions = 0;                        ///< n(d−1)T + (n−1)T + (n−1)d·T
    std::int64_t exponentials = 0;                     ///< n·T
    std::int64_t divisions = 0;                        ///< n·T (one per weight)
    std::int64_t sequential_encoder_steps = 0;         ///< n recurrent updates, in order
    std::int64_t sequential_decoder_steps = 0;         ///< T recurrent updates, in order
};

/// Counts for the given n, d, T and bytes per number. LimitError on overflow.
Costs count_costs(const CostInput& in);

}  // namespace exactattn
