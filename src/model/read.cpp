// SPDX-License-Identifier: MIT
// exactattn: the attention read (general value arithmetic, or the fast path when it applies).
#include "exactattn/read.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "exactattn/error.hpp"
#include "model/fastpath.hpp"
#include "exactattn/print.hpp"
#include "core/print_detail.hpp"

namespace exactattn {

std::vector<std::size_t> ReadTrace::included() const {
    std::vector<std::size_t> out;
    for (std::size_t j = 0; j < marks.size(); ++j) {
        if (marks[j] != Mark::Removed) out.push_back(j + 1);
    }
    return out;
}

Value apply_readout(const Vector& coeffs, const Vector& context) {
    if (coeffs.size() != context.size()) {
        throw shape_error(
            fmt::format("the readout has {} coefficients; the context has width {}", coeffs.size(), context.size()));
    }
    Value r;
    for (std::size_t i = 0; i < coeffs.size(); ++i) r += coeffs[i] * context[i];
    return r;
}

Value score_scale(ScoreRule rule, std::size_t d_k, const Value& declared) {
    switch (rule) {
        case ScoreRule::Dot:
            return Value(1);
        case ScoreRule::Scaled:
            return declared;
        case ScoreRule::ScaledDot:
            break;
    }
    // √d_k = s·√t with t squarefree: exact in Q(2^(1/m)) only for t = 1 or t = 2, since √t for
    // any other squarefree t > 1 has an odd prime under the root and no power of 2^(1/m) has.
    std::size_t s = 1;
    std::size_t t = d_k;
    for (std::size_t p = 2; p * p <= t; ++p) {
        while (t % (p * p) == 0) {
            t /= p * p;
            s *= p;
        }
    }
    if (d_k == 0) throw shape_error("the scaled dot product needs d_k ≥ 1");
    const Value inv_s = Value(mpq_class(1, static_cast<unsigned long>(s)));
    if (t == 1) return inv_s;
    if (t == 2) return inv_s * Value::exp2(mpq_class(-1, 2));
    throw domain_error(
        fmt::format("the scale 1/√d_k = 1/√{} is outside the exact domain: √{}{} is not in any Q(2^(1/m)) "
                    "(an odd prime stays under the root), so the scaled scores q·k/√{} cannot be represented; "
                    "exact designs: a d_k that is a perfect square (4, 16, 64) or twice one (2, 8, 32), or a "
                    "declared scale",
                    d_k, d_k, s == 1 ? std::string() : fmt::format(" = {}√{}", s, t), d_k));
}

std::string scale_suffix(ScoreRule rule, std::size_t d_k, const Value& declared) {
    switch (rule) {
        case ScoreRule::Dot:
            return "";
        case ScoreRule::ScaledDot:
            return fmt::format("/√{}", d_k);
        case ScoreRule::Scaled:
            break;
    }
    return fmt::format("·({})", detail::brief_ascii(declared));
}

namespace {

// Shape checks shared by both paths; returns the marks (all included when none given).
std::vector<Mark> checked_marks(const Memory& keys, const Memory& values, const ReadRequest& request) {
    const std::size_t n = keys.rows();
    if (n == 0) throw shape_error("the memory is empty: a read needs at least one position");
    if (values.rows() != n) {
        throw shape_error(fmt::format("{} key rows but {} value rows", n, values.rows()));
    }
    const std::size_t d = request.query.size();
    if (keys.width() != d) {
        throw shape_error(fmt::format("memory rows have width {}; the query has width {}", keys.width(), d));
    }
    if (!request.marks.empty() && request.marks.size() != n) {
        throw shape_error(fmt::format("{} position marks for {} memory rows", request.marks.size(), n));
    }
    if (request.readout && request.readout->size() != values.width()) {
        throw shape_error(fmt::format("the readout has {} coefficients; the context has width {}",
                                      request.readout->size(), values.width()));
    }
    std::vector<Mark> marks = request.marks.empty() ? std::vector<Mark>(n, Mark::Included) : request.marks;
    if (std::all_of(marks.begin(), marks.end(), [](Mark m) { return m == Mark::Removed; })) {
        throw reference_error(
            fmt::format("every one of the {} positions is removed: a read needs at least one included "
                        "position (no positive normalization total, so no distribution)",
                        n));
    }
    return marks;
}

// Runs f, placing an error without a place at memory position j (1-based in the message).
template <class F>
void at_position(std::size_t j, F&& f) {
    placed([j] { return Location::named(fmt::format("position {}", j + 1)); }, std::forward<F>(f), KeepPlace::Any);
}

// "3a" as is, "(a/2)" when the text would not read as one factor before "/√2".
std::string factor_text(const Value& v) {
    std::string s = detail::brief_ascii(v);
    if (s.find_first_of("/ +-") != std::string::npos) s = "(" + s + ")";
    return s;
}

}  // namespace

ReadTrace attend(const Memory& memory, const ReadRequest& request) { return attend(memory, memory, request); }

ReadTrace attend(const Memory& keys, const Memory& values, const ReadRequest& request) {
    const std::vector<Mark> marks = checked_marks(keys, values, request);
    const Value scale = score_scale(request.rule, keys.width(), request.scale);
    if (auto fast = detail::fast_attend(keys, values, request, marks, scale)) {
        return std::move(*fast);
    }
    return attend_general(keys, values, request);
}

ReadTrace attend_general(const Memory& memory, const ReadRequest& request) {
    return attend_general(memory, memory, request);
}

ReadTrace attend_general(const Memory& keys, const Memory& values, const ReadRequest& request) {
    const std::vector<Mark> marks = checked_marks(keys, values, request);
    const std::size_t n = keys.rows();
    const std::size_t d = request.query.size();
    const std::size_t dv = values.width();
    const Value scale = score_scale(request.rule, d, request.scale);
    ReadTrace t;
    t.query = request.query;
    t.marks = marks;
    std::vector<std::optional<Value>> scores(n);
    std::vector<std::optional<Value>> exps(n);
    for (std::size_t j = 0; j < n; ++j) {
        if (marks[j] == Mark::Removed) continue;
        Value dot;
        if (marks[j] == Mark::Included) {
            const Vector row = keys.row(j);
            for (std::size_t i = 0; i < d; ++i) {
                if (!request.query[i].is_zero() && !row[i].is_zero()) {
                    dot += request.query[i] * row[i];
                }
            }
        }
        Value s = dot * scale;
        Value e;
        try {
            e = exp(s);
        } catch (const Error& err) {
            std::string why = err.reason();
            if (request.rule != ScoreRule::Dot) {
                const std::string suffix = scale_suffix(request.rule, d, request.scale);
                const char* designs =
                    request.rule == ScoreRule::ScaledDot
                        ? "exact designs: a d_k that is a perfect square (4, 16, 64) so that 1/√d_k is "
                          "rational, or a declared scale that keeps every score a rational multiple of a"
                        : "exact designs: a rational declared scale (1/2, 1/4), which keeps a rational "
                          "multiple of a one, or --scale sqrt-dk with a d_k that is a perfect square";
                why = fmt::format("{}·k_{}{} = {}{}; {}; {}", request.query_label, j + 1, suffix, factor_text(dot),
                                  suffix, why, designs);
            }
            throw Error(err.kind(), err.where(),
                        fmt::format("{} {}: the score {} has no exact exponential: {}", request.position_label, j + 1,
                                    detail::brief_ascii(s), why));
        }
        at_position(j, [&] { t.denominator += e; });
        scores[j] = std::move(s);
        exps[j] = std::move(e);
    }
    // context_i = (Σ_j e_j v_ji) / denominator: the sums add exponentials (powers of 2^(1/M))
    // times entries, whose fractions have small denominators, and one multiplication by the
    // inverse ends each; adding weights e_j / denominator instead reduces a fraction over the
    // whole denominator at every addition (`read` of 10^5 rows × 16 with a column of two-term
    // entries k + a: 9.6 s against 15.6 s, the same output).
    const Value inv = Value(1) / t.denominator;
    std::vector<std::optional<Value>> weights(n, Value());
    std::vector<Value> sums(dv);
    Value term;
    for (std::size_t j = 0; j < n; ++j) {
        if (!exps[j]) continue;
        const Vector row = values.row(j);
        at_position(j, [&] {
            weights[j] = *exps[j] * inv;
            for (std::size_t i = 0; i < dv; ++i) {
                if (row[i].is_zero()) continue;
                term = *exps[j];
                term *= row[i];
                sums[i] += term;
            }
        });
    }
    Vector context(dv);
    for (std::size_t i = 0; i < dv; ++i) {
        if (!sums[i].is_zero()) context[i] = sums[i] * inv;
    }
    t.context = std::move(context);
    t.scores = Column(std::move(scores));
    t.exponentials = Column(std::move(exps));
    t.weights = Column(std::move(weights));
    if (request.readout) t.readout = apply_readout(*request.readout, t.context);
    return t;
}

std::size_t checked_position(const mpz_class& p, std::size_t n, const char* holder, const Location& where) {
    if (p < 1 || p > mpz_class(std::to_string(n))) {
        throw reference_error(
            fmt::format("position {} is out of range: the {} has positions 1 to {}", p.get_str(), holder, n), where);
    }
    return static_cast<std::size_t>(p.get_ui());
}

}  // namespace exactattn
