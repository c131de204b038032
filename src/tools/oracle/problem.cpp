// SPDX-License-Identifier: MIT
// exactattn oracle (include/exactattn/oracle.hpp): the problem itself, apart from its reference:
// its validation, its mask and bias, the keys each query sees, and the options and texts it is
// built from (docs/oracle.md).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "arg.hpp"
#include "exactattn/oracle.hpp"
#include "exactattn/print.hpp"

namespace exactattn::oracle {

namespace {

using detail::arg;

std::string shape_text(const Tensor& t) {
    if (t.shape.size() == 2) return fmt::format("{} × {}", t.shape[0], t.shape[1]);
    std::string s = fmt::format("of rank {}", t.shape.size());
    if (!t.shape.empty()) {
        s += " (";
        for (std::size_t x = 0; x < t.shape.size(); ++x) s += fmt::format("{}{}", x ? " × " : "", t.shape[x]);
        s += ")";
    }
    return s;
}

}  // namespace

void validate(const Problem& p) {
    const std::pair<const char*, const Tensor*> ts[] = {{"q", &p.q}, {"k", &p.k}, {"v", &p.v}};
    const char* role[] = {"n_q × d", "n_k × d", "n_k × d_v"};
    for (int x = 0; x < 3; ++x) {
        const Tensor& t = *ts[x].second;
        if (t.shape.size() != 2)
            throw shape_error(fmt::format("{} must be a matrix ({}), not {}", ts[x].first, role[x], shape_text(t)),
                              arg(ts[x].first));
        if (t.shape[0] < 1 || t.shape[1] < 1)
            throw shape_error(fmt::format("{} is empty ({})", ts[x].first, shape_text(t)), arg(ts[x].first));
        if (static_cast<std::int64_t>(t.data.size()) != t.shape[0] * t.shape[1])
            throw shape_error(
                fmt::format("{} has {} values for a shape of {}", ts[x].first, t.data.size(), shape_text(t)),
                arg(ts[x].first));
    }
    if (p.q.cols() != p.k.cols())
        throw shape_error(fmt::format("k has {} columns but q has {} (both are … × d)", p.k.cols(), p.q.cols()),
                          arg("k"));
    if (p.k.rows() != p.v.rows())
        throw shape_error(fmt::format("v has {} rows but k has {} (both are n_k × …)", p.v.rows(), p.k.rows()),
                          arg("v"));
    if (!p.mask.empty() && static_cast<std::int64_t>(p.mask.size()) != p.q.rows() * p.k.rows())
        throw shape_error(fmt::format("the mask must be n_q × n_k = {} × {}", p.q.rows(), p.k.rows()), arg("mask"));
    if (!p.bias.empty() && static_cast<std::int64_t>(p.bias.size()) != p.q.rows() * p.k.rows())
        throw shape_error(fmt::format("the bias must be n_q × n_k = {} × {}", p.q.rows(), p.k.rows()), arg("bias"));
    for (std::size_t x = 0; x < p.bias.size(); ++x)
        if (std::isnan(p.bias[x]) || p.bias[x] == std::numeric_limits<double>::infinity())
            throw domain_error(fmt::format("bias[{}, {}]: {} (a bias is finite, or −inf for a masked key)",
                                           static_cast<std::int64_t>(x) / p.k.rows(),
                                           static_cast<std::int64_t>(x) % p.k.rows(), p.bias[x]),
                               arg("bias"));
    if (p.window_left < -1)
        throw usage_error("the window's left size is a whole number from 0 (or −1: all)", arg("window"));
    if (p.window_right < -1)
        throw usage_error("the window's right size is a whole number from 0 (or −1: all)", arg("window"));
    for (const auto& [name, t] : ts) {
        for (std::size_t x = 0; x < t->data.size(); ++x) {
            const double v = t->data[x];
            const auto where = fmt::format("{}[{}, {}]", name, static_cast<std::int64_t>(x) / t->cols(),
                                           static_cast<std::int64_t>(x) % t->cols());
            if (!std::isfinite(v))
                throw domain_error(fmt::format("{}: {} in an input (refused: no exact value)", where, v));
            if (!representable(v, t->format))
                throw domain_error(fmt::format("{}: {}", where, not_a_value(v, t->format)));
        }
    }
    if (p.scale.kind == ScaleKind::Given && !std::isfinite(p.scale.value))
        throw usage_error("the scale is not finite", arg("scale"));
    checked_softcap(p.softcap, arg("softcap"));
}

namespace {

// A mask or bias is n_q × n_k for p's q and k (a transposed one of the same size is refused).
void check_pair_shape(const Problem& p, const Tensor& m, const char* what, const Location& where) {
    const bool known = p.q.shape.size() == 2 && p.k.shape.size() == 2;
    if (m.shape.size() != 2 || (known && (m.shape[0] != p.q.rows() || m.shape[1] != p.k.rows())) ||
        static_cast<std::int64_t>(m.data.size()) != m.rows() * m.cols())
        throw shape_error(known ? fmt::format("the {} must be n_q × n_k = {} × {}, not {}", what, p.q.rows(),
                                              p.k.rows(), shape_text(m))
                                : fmt::format("the {} must be a matrix (n_q × n_k), not {}", what, shape_text(m)),
                          where);
}

}  // namespace

void set_mask(Problem& p, const Tensor& m, const Location& where) {
    check_pair_shape(p, m, "mask", where);
    p.mask.clear();
    p.mask.reserve(m.data.size());
    for (std::size_t x = 0; x < m.data.size(); ++x) {
        const double v = m.data[x];
        if (v != 0 && v != 1)
            throw domain_error(
                fmt::format("mask[{}, {}]: {} is neither 0 (visible) nor 1 (masked); an additive "
                            "score bias such as ALiBi, or −inf for masked keys, is given as the bias",
                            static_cast<std::int64_t>(x) / m.cols(), static_cast<std::int64_t>(x) % m.cols(), v),
                where);
        p.mask.push_back(v != 0 ? 1 : 0);
    }
}

void set_bias(Problem& p, const Tensor& b, const Location& where) {
    check_pair_shape(p, b, "bias", where);
    for (std::size_t x = 0; x < b.data.size(); ++x)
        if (std::isnan(b.data[x]) || b.data[x] == std::numeric_limits<double>::infinity())
            throw domain_error(fmt::format("bias[{}, {}]: {} (a bias is finite, or −inf for a masked key)",
                                           static_cast<std::int64_t>(x) / b.cols(),
                                           static_cast<std::int64_t>(x) % b.cols(), b.data[x]),
                               where);
    p.bias = b.data;
}

std::vector<std::uint8_t> visible_keys(const Problem& p, std::int64_t i) {
    const std::int64_t nq = p.q.rows(), nk = p.k.rows();
    // The diagonal of query i: key i, or key i + n_k − n_q (bottom-right).
    const std::int64_t diag = i + (p.align == Align::BottomRight ? nk - nq : 0);
    const std::int64_t right =
        p.causal ? (p.window_right < 0 ? 0 : std::min<std::int64_t>(p.window_right, 0)) : p.window_right;
    std::vector<std::uint8_t> keep(static_cast<std::size_t>(nk), 1);
    for (std::int64_t j = 0; j < nk; ++j) {
        if (right >= 0 && j > diag + right) keep[j] = 0;
        if (p.window_left >= 0 && j < diag - p.window_left) keep[j] = 0;
        if (!p.mask.empty() && p.mask[i * nk + j]) keep[j] = 0;
        if (!p.bias.empty() && p.bias[i * nk + j] == -std::numeric_limits<double>::infinity()) keep[j] = 0;
    }
    return keep;
}

std::int64_t visible_key_count(const Problem& p, std::int64_t i) {
    if (!p.mask.empty() || !p.bias.empty()) {
        const auto keep = visible_keys(p, i);
        return std::count(keep.begin(), keep.end(), std::uint8_t{1});
    }
    // visible_keys' window, as an interval of keys: diag − left ≤ j ≤ diag + right
    const std::int64_t nq = p.q.rows(), nk = p.k.rows();
    const std::int64_t diag = i + (p.align == Align::BottomRight ? nk - nq : 0);
    const std::int64_t right =
        p.causal ? (p.window_right < 0 ? 0 : std::min<std::int64_t>(p.window_right, 0)) : p.window_right;
    const std::int64_t hi = right >= 0 ? std::min(nk - 1, diag + right) : nk - 1;
    const std::int64_t lo = p.window_left >= 0 ? std::max<std::int64_t>(0, diag - p.window_left) : 0;
    return std::max<std::int64_t>(0, hi - lo + 1);
}

Problem problem_options(const ProblemOptions& o) {
    Problem p;
    p.scale = o.scale_value ? given_scale(*o.scale_value, arg("scale")) : parse_scale(o.scale, arg("scale"));
    p.base = parse_base(o.base, arg("base"));
    p.masked_rows = parse_masked_rows(o.masked_rows, arg("masked_rows"));
    p.masked_lse = parse_masked_lse(o.masked_lse, arg("masked_lse"));
    p.align = parse_align(o.align, arg("align"));
    p.causal = o.causal;
    if (o.window_left < -1 || o.window_right < -1)
        throw usage_error(fmt::format("a window of ({}, {}) keys: each side a whole number from 0, or −1 for all",
                                      o.window_left, o.window_right),
                          arg("window"));
    p.window_left = o.window_left;
    p.window_right = o.window_right;
    p.softcap = checked_softcap(o.softcap, arg("softcap"));
    return p;
}

Align parse_align(std::string_view text, const Location& where) {
    if (text == "top-left") return Align::TopLeft;
    if (text == "bottom-right") return Align::BottomRight;
    throw usage_error(fmt::format("unknown alignment '{}' (top-left, bottom-right)", escape_controls(text)), where);
}

MaskedLse parse_masked_lse(std::string_view text, const Location& where) {
    if (text == "-inf") return MaskedLse::NegInf;
    if (text == "inf" || text == "+inf") return MaskedLse::PosInf;
    throw usage_error(fmt::format("unknown log-sum-exp '{}' for fully masked rows (-inf, inf)", escape_controls(text)),
                      where);
}

Scale given_scale(double c, const Location& where) {
    if (!std::isfinite(c)) throw usage_error(fmt::format("the scale {} is not a finite number", c), where);
    return {ScaleKind::Given, c};
}

Scale parse_scale(std::string_view text, const Location& where) {
    if (text == "sqrt-dk") return {ScaleKind::SqrtDk, 1};
    if (text == "none") return {ScaleKind::None, 1};
    const std::string s(text);
    char* end = nullptr;
    const double c = s.empty() || std::isspace(static_cast<unsigned char>(s[0])) ? 0 : std::strtod(s.c_str(), &end);
    if (end == nullptr || end == s.c_str() || *end != '\0' || s.size() != text.size() || !std::isfinite(c))
        throw usage_error(fmt::format("'{}' is not sqrt-dk, none or a finite number", escape_controls(text)), where);
    return {ScaleKind::Given, c};
}

ExpBase parse_base(std::string_view text, const Location& where) {
    if (text == "e") return ExpBase::E;
    if (text == "2") return ExpBase::Two;
    throw usage_error(fmt::format("unknown base '{}' (e or 2)", escape_controls(text)), where);
}

MaskedRows parse_masked_rows(std::string_view text, const Location& where) {
    if (text == "error") return MaskedRows::Error;
    if (text == "nan") return MaskedRows::NaN;
    if (text == "zeros") return MaskedRows::Zeros;
    throw usage_error(
        fmt::format("unknown semantics '{}' for fully masked rows (error, nan, zeros)", escape_controls(text)), where);
}

double checked_softcap(double cap, const Location& where) {
    if (!(cap >= 0) || !std::isfinite(cap))
        throw usage_error(fmt::format("the softcap {} is not a finite number > 0 (or 0: none)", cap), where);
    return cap;
}

double checked_tolerance(double ulps, const Location& where) {
    if (!(ulps >= 0) || !std::isfinite(ulps))
        throw usage_error(fmt::format("the tolerance {} ULPs is not a finite number from 0", ulps), where);
    return ulps;
}

}  // namespace exactattn::oracle
