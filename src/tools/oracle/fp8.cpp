// SPDX-License-Identifier: MIT
// exactattn oracle: the 8-bit floats of OCP FP8 (E4M3 without infinities, E5M2), their casts
// with a declared overflow, P's descale and the failure modes of FP8 attention (docs/oracle.md,
// "8-bit floats").
#include "fp8.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace exactattn::oracle {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

bool is_fp8(FloatFormat f) { return f == FloatFormat::Float8E4M3FN || f == FloatFormat::Float8E5M2; }

// The layout from the format's parameters: 1 sign bit, then the exponent (bias 1 − emin), then
// p − 1 fraction bits; E4M3 has 4 exponent bits, E5M2 5.
double decode_fp8(std::uint64_t bits, FloatFormat f) {
    const auto& fi = info(f);
    const int fbits = fi.precision - 1, ebits = 7 - fbits, bias = 1 - fi.emin;
    const int sign = (bits >> 7) & 1, expo = static_cast<int>((bits >> fbits) & ((1u << ebits) - 1));
    const int frac = static_cast<int>(bits & ((1u << fbits) - 1));
    const int top = (1 << ebits) - 1;
    double mag;
    if (f == FloatFormat::Float8E4M3FN && expo == top && frac == (1 << fbits) - 1)
        mag = kNaN;  // S.1111.111, the only NaN; S.1111.000 to S.1111.110 are 256 to 448
    else if (f == FloatFormat::Float8E5M2 && expo == top)
        mag = frac ? kNaN : kInf;
    else if (expo == 0)
        mag = std::ldexp(frac, fi.emin - fbits);
    else
        mag = std::ldexp((1 << fbits) + frac, expo - bias - fbits);
    return sign ? -mag : mag;
}

std::uint64_t encode_fp8(double x, FloatFormat f) {
    const auto& fi = info(f);
    const int fbits = fi.precision - 1, bias = 1 - fi.emin;
    const std::uint64_t sign = std::signbit(x) ? 0x80u : 0u;
    // E4M3 has no infinity: a value past its range (round_to's ±inf) is written as its NaN, as
    // PyTorch's cast writes it.
    if (std::isnan(x) || (std::isinf(x) && f == FloatFormat::Float8E4M3FN))
        return f == FloatFormat::Float8E4M3FN ? sign | 0x7Fu : 0x7Eu;
    if (std::isinf(x)) return sign | 0x7Cu;
    const double a = std::fabs(x);
    if (a < std::ldexp(1.0, fi.emin)) return sign | static_cast<std::uint64_t>(std::ldexp(a, fbits - fi.emin));
    const int e = std::ilogb(a);
    const auto frac = static_cast<std::uint64_t>(std::ldexp(a, fbits - e)) - (1u << fbits);
    return sign | (static_cast<std::uint64_t>(e + bias) << fbits) | frac;
}

Fp8Overflow parse_fp8_overflow(std::string_view text, const Location& where) {
    if (text == "error") return Fp8Overflow::Error;
    if (text == "saturate") return Fp8Overflow::Saturate;
    throw usage_error(fmt::format("unknown fp8 overflow '{}' (error, saturate)", escape_controls(text)), where);
}

const char* fp8_overflow_name(Fp8Overflow o) { return o == Fp8Overflow::Saturate ? "saturate" : "error"; }

double cast_fp8(double x, FloatFormat f, Fp8Overflow o) {
    const double r = round_to(x, f);
    if (!is_fp8(f) || !std::isinf(r) || std::isinf(x)) return r;
    if (o == Fp8Overflow::Saturate) return std::copysign(max_finite(f), x);
    return f == FloatFormat::Float8E4M3FN ? kNaN : r;  // E4M3 has no infinity: its NaN
}

std::string not_a_value(double x, FloatFormat f) {
    if (is_fp8(f) && std::fabs(x) > max_finite(f))
        return fmt::format("{:.17g} is out of {}'s range (±{}; declare the overflow saturate to clamp it)", x,
                           info(f).name, max_finite(f));
    return fmt::format("{:.17g} is not a {} value", x, info(f).name);
}

PDescale parse_p_descale(std::string_view text, const Location& where) {
    if (text == "block") return PDescale{1, true};
    const std::string t(text);
    char* stop = nullptr;
    const double v = t.empty() ? 0 : std::strtod(t.c_str(), &stop);
    if (t.empty() || stop != t.c_str() + t.size() || !std::isfinite(v) || !(v > 0))
        throw usage_error(
            fmt::format("the P descale '{}' is not a positive finite number or 'block'", escape_controls(text)), where);
    return PDescale{v, false};
}

void Fp8Events::saturate(const std::string& where) {
    if (saturated++ == 0) saturated_first = where;
}
void Fp8Events::overflow(const std::string& where) {
    if (overflowed++ == 0) overflowed_first = where;
}
void Fp8Events::collapse(double p, std::int64_t row, std::int64_t key) {
    if (collapsed++ == 0 || p > collapsed_max) {
        collapsed_max = p;
        collapsed_row = row;
        collapsed_key = key;
    }
}
void Fp8Events::merge(const Fp8Events& o) {
    if (o.collapsed > 0 && (collapsed == 0 || o.collapsed_max > collapsed_max)) {
        collapsed_max = o.collapsed_max;
        collapsed_row = o.collapsed_row;
        collapsed_key = o.collapsed_key;
        collapsed_batch = o.collapsed_batch;
        collapsed_head = o.collapsed_head;
    }
    collapsed += o.collapsed;
    if (saturated == 0) saturated_first = o.saturated_first;
    saturated += o.saturated;
    if (overflowed == 0) overflowed_first = o.overflowed_first;
    overflowed += o.overflowed;
}

void Fp8Events::in_head(std::int64_t b, std::int64_t h) {
    if (collapsed > 0) collapsed_batch = b, collapsed_head = h;
    const std::string head = fmt::format("head (b={}, h={}): ", b, h);
    if (saturated > 0) saturated_first = head + saturated_first;
    if (overflowed > 0) overflowed_first = head + overflowed_first;
}

std::string fp8_events_text(const Fp8Events& e) {
    std::string t;
    if (e.collapsed > 0)
        t += fmt::format(
            "fp8: P-collapse: {} probabilities flushed to zero by the 8-bit cast of P (the largest lost: P = {:.6g} "
            "at {}query {}, key {})\n",
            e.collapsed, e.collapsed_max,
            e.collapsed_head >= 0 ? fmt::format("head (b={}, h={}), ", e.collapsed_batch, e.collapsed_head) : "",
            e.collapsed_row, e.collapsed_key);
    if (e.saturated > 0)
        t += fmt::format("fp8: saturation: {} values clamped to the largest finite value (the first: {})\n",
                         e.saturated, e.saturated_first);
    if (e.overflowed > 0)
        t += fmt::format(
            "fp8: overflow: {} values past the 8-bit range under --fp8-overflow error, cast to "
            "NaN/inf (the first: {})\n",
            e.overflowed, e.overflowed_first);
    return t;
}

nlohmann::ordered_json fp8_events_object(const Fp8Events& e) {
    nlohmann::ordered_json j;
    j["p_collapse"] = {{"count", e.collapsed},
                       {"largest_lost", e.collapsed_max},
                       {"row", e.collapsed > 0 ? nlohmann::json(e.collapsed_row) : nlohmann::json()},
                       {"key", e.collapsed > 0 ? nlohmann::json(e.collapsed_key) : nlohmann::json()}};
    if (e.collapsed_head >= 0) {  // a batch's: the head of the largest, as (b, h)
        j["p_collapse"]["batch"] = e.collapsed_batch;
        j["p_collapse"]["head"] = e.collapsed_head;
    }
    j["saturated"] = {{"count", e.saturated},
                      {"first", e.saturated > 0 ? nlohmann::json(e.saturated_first) : nlohmann::json()}};
    j["overflowed"] = {{"count", e.overflowed},
                       {"first", e.overflowed > 0 ? nlohmann::json(e.overflowed_first) : nlohmann::json()}};
    return j;
}

std::string fp8_events_json(const Fp8Events& e) { return fp8_events_object(e).dump(); }

void saturate_tensor(Tensor& t, const char* name, Fp8Overflow o, Fp8Events& events) {
    if (o != Fp8Overflow::Saturate || !is_fp8(t.format)) return;
    const double m = max_finite(t.format);
    for (std::size_t x = 0; x < t.data.size(); ++x) {
        double& v = t.data[x];
        if (!std::isfinite(v) || std::fabs(v) <= m) continue;
        v = std::copysign(m, v);
        if (t.shape.size() <= 2) {
            events.saturate(fmt::format("{}[{}, {}]", name, static_cast<std::int64_t>(x) / t.cols(),
                                        static_cast<std::int64_t>(x) % t.cols()));
            continue;
        }
        std::vector<std::int64_t> index(t.shape.size());  // a 4-D batch's entry by its every index
        auto rest = static_cast<std::int64_t>(x);
        for (std::size_t d = t.shape.size(); d-- > 0;) index[d] = rest % t.shape[d], rest /= t.shape[d];
        events.saturate(fmt::format("{}[{}]", name, fmt::join(index, ", ")));
    }
}

Fp8Events saturate_inputs(Tensor& q, Tensor& k, Tensor& v, Fp8Overflow o) {
    Fp8Events e;
    for (auto [name, t] : {std::pair{"q", &q}, {"k", &k}, {"v", &v}}) saturate_tensor(*t, name, o, e);
    return e;
}

Fp8Events saturate_inputs(Problem& p, Fp8Overflow o) { return saturate_inputs(p.q, p.k, p.v, o); }

std::optional<Fp8Events> claimed_fp8_events(const Problem& p, const AlgorithmSpec& spec, FloatFormat f) {
    if (spec.algorithm != Algorithm::Online || !is_fp8(spec.p_format) || is_fp8(spec.accumulate)) return std::nullopt;
    return emulate(p, emulation_of(spec, f), false).fp8;  // charged to the work budget as `emulate` is
}

void refuse_fp8_accumulator(FloatFormat f) {
    if (!is_fp8(f)) return;
    Location where;
    where.context = "accumulate";
    throw usage_error(fmt::format("no kernel accumulates in {} (its P, inputs and output may be 8-bit)", info(f).name),
                      where);
}

double block_descale(double largest, FloatFormat p_format) {
    if (largest == 0) return 1;
    return std::ldexp(1.0, std::min(std::ilogb(max_finite(p_format) / largest), 100));
}

double cast_counted(double x, FloatFormat f, Fp8Overflow o, Fp8Events& events, const char* tensor, std::int64_t i,
                    std::int64_t j) {
    const double y = cast_fp8(x, f, o);                                 // round_to unless 8-bit
    if (is_fp8(f) && std::isfinite(x) && std::isinf(round_to(x, f))) {  // past the range
        const std::string where = fmt::format("{}[{}, {}]", tensor, i, j);
        if (std::isfinite(y))
            events.saturate(where);
        else
            events.overflow(where);
    }
    return y;
}

PCastTerms p_cast_terms(const AlgorithmSpec& s) {
    PCastTerms t;
    const double eta_p = least_subnormal(s.p_format);
    if (s.algorithm != Algorithm::Online || (!s.p_descale.per_block && s.p_descale.value == 1)) {
        t.absolute = eta_p;  // P rounded to its format without a descale
        return t;
    }
    const double ua = unit_roundoff(s.accumulate);
    t.relative = (1 + ua) * (1 + ua) - 1;  // fl(P·σ), and the division by σ (at the end, or per block)
    // P·σ's rounding below the least normal errs by η_p/2, which is η_p/(2σ) of P: the least σ is
    // the static one, or 2^emax for the per-block descale (P ≤ 1 + 2u_a < max/2^emax).
    const double sigma_min = s.p_descale.per_block ? std::ldexp(1.0, info(s.p_format).emax) : s.p_descale.value;
    t.absolute = eta_p / sigma_min + (s.p_descale.per_block ? least_subnormal(s.accumulate) : 0);
    if (!s.p_descale.per_block && s.p_descale.value > max_finite(s.p_format))
        t.why = fmt::format("P·descale up to {:.6g} leaves {}'s range (max {:.6g}): no guarantee", s.p_descale.value,
                            info(s.p_format).name, max_finite(s.p_format));
    return t;
}

}  // namespace exactattn::oracle
