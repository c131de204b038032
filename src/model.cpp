// SPDX-License-Identifier: MIT
// exactattn: encoder, attention read, readout and costs.
#include "exactattn/model.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "exactattn/error.hpp"
#include "exactattn/fastpath.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/print.hpp"

namespace exactattn {

void Encoder::check() const {
    const std::size_t d = initial.size();
    if (d == 0) throw shape_error("the encoder's initial state h_0 is empty");
    if (recurrent.size() != d) {
        throw shape_error(fmt::format("the recurrent matrix W_h has {} rows; the state width is {}",
                                      recurrent.size(), d));
    }
    for (std::size_t i = 0; i < recurrent.size(); ++i) {
        if (recurrent[i].size() != d) {
            throw shape_error(fmt::format("row {} of W_h has {} entries; the state width is {}",
                                          i + 1, recurrent[i].size(), d));
        }
    }
    if (input.empty()) throw shape_error("the input matrix W_x has no rows");
    for (std::size_t i = 0; i < input.size(); ++i) {
        if (input[i].size() != d) {
            throw shape_error(fmt::format("row {} of W_x has {} entries; the state width is {}",
                                          i + 1, input[i].size(), d));
        }
    }
    if (bias.size() != d) {
        throw shape_error(fmt::format("the bias has {} entries; the state width is {}", bias.size(), d));
    }
}

namespace {

// row · M for a row vector and a matrix given by rows.
Vector times(const Vector& row, const Matrix& m) {
    const std::size_t d = m.empty() ? 0 : m[0].size();
    Vector out(d);
    for (std::size_t i = 0; i < row.size(); ++i) {
        if (row[i].is_zero()) continue;
        for (std::size_t j = 0; j < d; ++j) {
            if (!m[i][j].is_zero()) out[j] += row[i] * m[i][j];
        }
    }
    return out;
}

}  // namespace

Matrix encode(const Encoder& enc, const std::vector<Vector>& inputs, Matrix* pre_activations) {
    enc.check();
    if (pre_activations != nullptr) pre_activations->clear();
    Matrix states;
    states.reserve(inputs.size());
    Vector h = enc.initial;
    for (std::size_t t = 0; t < inputs.size(); ++t) {
        if (inputs[t].size() != enc.input.size()) {
            throw shape_error(fmt::format("input {} has width {}; W_x expects {}", t + 1,
                                          inputs[t].size(), enc.input.size()));
        }
        Vector pre = times(h, enc.recurrent);
        const Vector x = times(inputs[t], enc.input);
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

std::vector<std::size_t> ReadTrace::included() const {
    std::vector<std::size_t> out;
    for (std::size_t j = 0; j < marks.size(); ++j) {
        if (marks[j] != Mark::Removed) out.push_back(j + 1);
    }
    return out;
}

Value apply_readout(const Vector& coeffs, const Vector& context) {
    if (coeffs.size() != context.size()) {
        throw shape_error(fmt::format("the readout has {} coefficients; the context has width {}",
                                      coeffs.size(), context.size()));
    }
    Value r;
    for (std::size_t i = 0; i < coeffs.size(); ++i) r += coeffs[i] * context[i];
    return r;
}

namespace {

// Shape checks shared by both paths; returns the marks (all included when none given).
std::vector<Mark> checked_marks(const Memory& memory, const ReadRequest& request) {
    const std::size_t n = memory.rows();
    if (n == 0) throw shape_error("the memory is empty: a read needs at least one position");
    const std::size_t d = request.query.size();
    if (memory.width() != d) {
        throw shape_error(fmt::format("memory rows have width {}; the query has width {}",
                                      memory.width(), d));
    }
    if (!request.marks.empty() && request.marks.size() != n) {
        throw shape_error(fmt::format("{} position marks for {} memory rows",
                                      request.marks.size(), n));
    }
    if (request.readout && request.readout->size() != d) {
        throw shape_error(fmt::format("the readout has {} coefficients; the context has width {}",
                                      request.readout->size(), d));
    }
    std::vector<Mark> marks = request.marks.empty() ? std::vector<Mark>(n, Mark::Included)
                                                    : request.marks;
    if (std::all_of(marks.begin(), marks.end(), [](Mark m) { return m == Mark::Removed; })) {
        throw reference_error(fmt::format(
            "every one of the {} positions is removed: a read needs at least one included "
            "position (no positive normalization total, so no distribution)",
            n));
    }
    return marks;
}

// Runs f, placing an error without a place at memory position j (1-based in the message).
template <class F>
void at_position(std::size_t j, F&& f) {
    try {
        f();
    } catch (const Error& e) {
        if (!e.where().empty()) throw;
        Location where;
        where.context = fmt::format("position {}", j + 1);
        throw e.located(where);
    }
}

}  // namespace

ReadTrace attend(const Memory& memory, const ReadRequest& request) {
    const std::vector<Mark> marks = checked_marks(memory, request);
    if (auto fast = detail::fast_attend(memory, request, marks)) return std::move(*fast);
    return attend_general(memory, request);
}

ReadTrace attend_general(const Memory& memory, const ReadRequest& request) {
    const std::vector<Mark> marks = checked_marks(memory, request);
    const std::size_t n = memory.rows();
    const std::size_t d = request.query.size();
    ReadTrace t;
    t.query = request.query;
    t.marks = marks;
    Value scale(1);
    if (request.rule == ScoreRule::ScaledDot) {
        scale = pow(Value(static_cast<long>(d)), Value(mpq_class(-1, 2)));
    }
    std::vector<std::optional<Value>> scores(n);
    std::vector<std::optional<Value>> exps(n);
    std::vector<Vector> rows(n);
    for (std::size_t j = 0; j < n; ++j) {
        if (marks[j] == Mark::Removed) continue;
        rows[j] = memory.row(j);
        Value s;
        if (marks[j] == Mark::Included) {
            for (std::size_t i = 0; i < d; ++i) {
                if (!request.query[i].is_zero() && !rows[j][i].is_zero()) {
                    s += request.query[i] * rows[j][i];
                }
            }
            s *= scale;
        }
        Value e;
        try {
            e = exp(s);
        } catch (const Error& err) {
            throw Error(err.kind(), err.where(),
                        fmt::format("position {}: the score {} has no exact exponential: {}", j + 1,
                                    detail::brief_ascii(s), err.reason()));
        }
        at_position(j, [&] { t.denominator += e; });
        scores[j] = std::move(s);
        exps[j] = std::move(e);
    }
    const Value inv = Value(1) / t.denominator;
    std::vector<std::optional<Value>> weights(n, Value());
    t.context.assign(d, Value());
    for (std::size_t j = 0; j < n; ++j) {
        if (!exps[j]) continue;
        at_position(j, [&] {
            weights[j] = *exps[j] * inv;
            for (std::size_t i = 0; i < d; ++i) {
                if (!rows[j][i].is_zero()) t.context[i] += *weights[j] * rows[j][i];
            }
        });
    }
    t.scores = Column(std::move(scores));
    t.exponentials = Column(std::move(exps));
    t.weights = Column(std::move(weights));
    if (request.readout) t.readout = apply_readout(*request.readout, t.context);
    return t;
}

Costs count_costs(const CostInput& in) {
    if (in.positions < 1 || in.width < 1 || in.target_steps < 1 || in.bytes_per_number < 1) {
        throw shape_error(fmt::format("cost counts need positive n, d, T and bytes per number "
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
