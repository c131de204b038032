// SPDX-License-Identifier: MIT
// exactattn: encoder and costs (the read is read.cpp).
#include "exactattn/encoder.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "exactattn/error.hpp"
#include "exactattn/linalg.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/print.hpp"

namespace exactattn {

void Encoder::check() const {
    const std::size_t d = initial.size();
    if (d == 0) throw shape_error("the encoder's initial state h_0 is empty");
    if (recurrent.size() != d) {
        throw shape_error(
            fmt::format("the recurrent matrix W_h has {} rows; the state width is {}", recurrent.size(), d));
    }
    for (std::size_t i = 0; i < recurrent.size(); ++i) {
        if (recurrent[i].size() != d) {
            throw shape_error(
                fmt::format("row {} of W_h has {} entries; the state width is {}", i + 1, recurrent[i].size(), d));
        }
    }
    if (input.empty()) throw shape_error("the input matrix W_x has no rows");
    for (std::size_t i = 0; i < input.size(); ++i) {
        if (input[i].size() != d) {
            throw shape_error(
                fmt::format("row {} of W_x has {} entries; the state width is {}", i + 1, input[i].size(), d));
        }
    }
    if (bias.size() != d) {
        throw shape_error(fmt::format("the bias has {} entries; the state width is {}", bias.size(), d));
    }
}

Matrix encode(const Encoder& enc, const std::vector<Vector>& inputs, Matrix* pre_activations, const Vector* from) {
    enc.check();
    if (pre_activations != nullptr) pre_activations->clear();
    if (from != nullptr && from->size() != enc.width()) {
        throw shape_error(
            fmt::format("the state to go on from has width {}; the encoder's is {}", from->size(), enc.width()));
    }
    Matrix states;
    states.reserve(inputs.size());
    Vector h = from != nullptr ? *from : enc.initial;
    for (std::size_t t = 0; t < inputs.size(); ++t) {
        if (inputs[t].size() != enc.input.size()) {
            throw shape_error(
                fmt::format("input {} has width {}; W_x expects {}", t + 1, inputs[t].size(), enc.input.size()));
        }
        Vector pre = vec_mat(h, enc.recurrent, "h", "W_h");
        const Vector x = vec_mat(inputs[t], enc.input, "x", "W_x");
        for (std::size_t j = 0; j < pre.size(); ++j) {
            pre[j] += x[j];
            pre[j] += enc.bias[j];
        }
        if (pre_activations != nullptr) pre_activations->push_back(pre);
        if (enc.activation == Activation::Relu) {
            for (auto& x : pre) x = relu(x);
        }
        h = pre;
        states.push_back(std::move(pre));
    }
    return states;
}

Costs count_costs(const CostInput& in) {
    if (in.positions < 1 || in.width < 1 || in.target_steps < 1 || in.bytes_per_number < 1) {
        throw shape_error(
            fmt::format("cost counts need positive n, d, T and bytes per number "
                        "(got n={}, d={}, T={}, bytes={})",
                        in.positions, in.width, in.target_steps, in.bytes_per_number));
    }
    auto mul = [](std::int64_t x, std::int64_t y) {
        std::int64_t r = 0;
        if (__builtin_mul_overflow(x, y, &r)) {
            throw limit_error("cost count overflows a 64-bit integer");
        }
        return r;
    };
    const std::int64_t n = in.positions;
    const std::int64_t d = in.width;
    const std::int64_t t = in.target_steps;
    Costs c;
    c.input = in;
    c.stored_numbers = mul(n, d);
    c.stored_bytes = mul(c.stored_numbers, in.bytes_per_number);
    c.fixed_context_numbers = d;
    c.fixed_context_bytes = mul(d, in.bytes_per_number);
    c.dot_products = mul(n, t);
    c.multiplications_per_dot_product = d;
    c.additions_per_dot_product = d - 1;
    c.multiplications = mul(mul(2, c.stored_numbers), t);
    c.additions = mul(mul(n, d - 1) + (n - 1) + mul(n - 1, d), t);
    c.exponentials = mul(n, t);
    c.divisions = mul(n, t);
    c.sequential_encoder_steps = n;
    c.sequential_decoder_steps = t;
    return c;
}

}  // namespace exactattn
