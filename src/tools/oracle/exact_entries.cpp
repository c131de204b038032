// SPDX-License-Identifier: MIT
// exactattn oracle (private): the entries of a reference row decided exactly (exact_entries.hpp).
#include "exact_entries.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "arith.hpp"
#include "core/interval.hpp"  // private: certified enclosures of a Value, for its rounding
#include "exactattn/limits.hpp"
#include "exactattn/print.hpp"
#include "exactattn/value.hpp"

namespace exactattn::oracle::detail {

namespace {

// Exact values of a row where they are rational (docs/oracle.md, "Exact entries"): by
// Lindemann–Weierstrass, Σ_g e^(t_g) (Σ_{j∈g} (v_jc − x)) = 0 over the distinct scores g holds
// only when every group's coefficient is 0, so o_c is rational exactly when every group of
// equal scores has the same mean of v_jc, and then it is that mean; a weight is rational only
// when all scores are equal (1/n). For base 2 the same test is sufficient, not necessary; so is
// it under a softcap (scores cap·tanh(x/cap) + b: equal pairs (x, b) give equal scores, and an
// entry it leaves is decided by its enclosures or refused at max_precision, never misjudged).
struct ExactRow {
    bool all_equal = false;
    std::vector<std::optional<mpq_class>> out;
};

ExactRow exact_row(const Problem& p, std::int64_t i, const std::vector<std::uint8_t>& keep) {
    const std::int64_t nk = p.k.rows(), d = p.q.cols(), dv = p.v.cols();
    // Keys of equal scores c·q·k + b: with a rational c the exact score itself; with an
    // irrational c, c·x + b = c·y + b' for rationals only when x = y and b = b'. Under a softcap
    // the pair (c·q·k, b), whose equality makes the capped scores equal.
    const auto c = p.softcap > 0 ? std::nullopt : rational_scale(p);
    std::map<std::pair<mpq_class, mpq_class>, std::vector<std::int64_t>> groups;
    for (std::int64_t j = 0; j < nk; ++j) {
        if (!keep[j]) continue;
        mpq_class dot = 0;
        for (std::int64_t x = 0; x < d; ++x) dot += mpq_class(p.q.data[i * d + x]) * mpq_class(p.k.data[j * d + x]);
        const mpq_class b(bias_at(p, i, j));
        if (c)
            groups[{mpq_class(*c * dot + b), mpq_class(0)}].push_back(j);
        else
            groups[{dot, b}].push_back(j);
    }
    ExactRow r;
    r.all_equal = groups.size() == 1;
    for (std::int64_t col = 0; col < dv; ++col) {
        std::optional<mpq_class> mean;
        bool same = true;
        for (auto& [key, js] : groups) {
            mpq_class sum = 0;
            for (auto j : js) sum += mpq_class(p.v.data[j * dv + col]);
            const mpq_class g = sum / static_cast<long>(js.size());
            if (mean && *mean != g) same = false;
            mean = g;
        }
        r.out.push_back(same ? mean : std::nullopt);
    }
    return r;
}

// x correctly rounded to f: exact for a rational, else by enclosures at doubling precision.
double round_value(const Value& x, FloatFormat f) {
    if (x.is_rational()) return round_exact(x.rational(), f);
    for (std::int64_t prec = 64;; prec *= 2) {
        if (prec > limits().max_precision)
            throw over_limit(Limit::max_precision, "an exact output's rounding needs more bits of working precision");
        const Enclosure e = exactattn::detail::enclose(x.terms(), prec);
        mpq_class lo(e.lo), hi(e.hi);
        lo /= mpq_class(mpz_class(1) << static_cast<mp_bitcnt_t>(prec));
        hi /= mpq_class(mpz_class(1) << static_cast<mp_bitcnt_t>(prec));
        const double a = round_exact(lo, f), b = round_exact(hi, f);
        if (a == b) return a;
    }
}

}  // namespace

std::optional<mpq_class> rational_scale(const Problem& p) {
    if (p.scale.kind == ScaleKind::None) return mpq_class(1);
    if (p.scale.kind == ScaleKind::Given) return mpq_class(p.scale.value);
    const auto d = static_cast<long>(p.q.cols());
    const auto r = static_cast<long>(std::llround(std::sqrt(static_cast<double>(d))));
    if (r * r != d) return std::nullopt;
    return mpq_class(1, r);
}

// A cheap exact decision for an output whose enclosure [lo, hi] straddles the one rounding
// boundary x between two neighbours of the format: o_c − x = Σ_j E_j (v_jc − x) / D with every
// E_j > 0, so when no visible key has v_jc − x of the other sign than another, the sign of
// o_c − x is known exactly (0 when every v_jc = x), and with it the rounding, at any distance
// from x: an output 2^−4000000 above a float32 midpoint is rounded at once, not after
// 69 s of rising precision.
std::optional<double> decide_by_sign(const Problem& p, std::int64_t c, const std::vector<std::uint8_t>& keep, double lo,
                                     double hi, FloatFormat f) {
    if (!std::isfinite(lo) || !std::isfinite(hi)) return std::nullopt;
    const mpq_class qlo(lo), qhi(hi);
    const double a = round_exact(qlo, f), b = round_exact(qhi, f);
    if (!std::isfinite(a) || !std::isfinite(b) || !(a < b)) return std::nullopt;
    // x = (a + b)/2 is the boundary when a and b are neighbours in f; a value of f strictly
    // between them would be nearer to x than both, so they are neighbours when x rounds to one.
    const mpq_class x = (mpq_class(a) + mpq_class(b)) / 2;
    const double tie = round_exact(x, f);
    if (tie != a && tie != b) return std::nullopt;
    const std::int64_t nk = p.k.rows(), dv = p.v.cols();
    int sign = 0;
    for (std::int64_t j = 0; j < nk; ++j) {
        if (!keep[j]) continue;
        const int sj = cmp(mpq_class(p.v.data[j * dv + c]), x);
        if (sj == 0) continue;
        if (sign != 0 && sj != sign) return std::nullopt;
        sign = sj;
    }
    return sign > 0 ? b : sign < 0 ? a : tie;
}

// The exact rational entries of row i, where the certified ones would never decide a tie.
void store_exact(const Problem& p, std::int64_t i, const std::vector<std::uint8_t>& keep, Reference& ref,
                 std::vector<std::uint8_t>& done) {
    const ExactRow ex = exact_row(p, i, keep);
    const std::int64_t nk = p.k.rows(), dv = p.v.cols();
    for (std::int64_t c = 0; c < dv; ++c) {
        if (!ex.out[c]) continue;
        const double r = round_exact(*ex.out[c], ref.format);
        ref.out[i * dv + c] = r;
        ref.out_lo[i * dv + c] = detail::down(ex.out[c]->get_d());
        ref.out_hi[i * dv + c] = detail::up(ex.out[c]->get_d());
        if (mpq_class(ex.out[c]->get_d()) == *ex.out[c])
            ref.out_lo[i * dv + c] = ref.out_hi[i * dv + c] = ex.out[c]->get_d();
        ref.out_exact[i * dv + c] = 1;
        if (!ref.out_resid.empty()) ref.out_resid[i * dv + c] = mpq_class(*ex.out[c] - mpq_class(r)).get_d();
        done[c] = 1;
    }
    if (!ex.all_equal) return;
    const mpq_class w(1, static_cast<long>(std::count(keep.begin(), keep.end(), 1)));
    for (std::int64_t j = 0; j < nk && !ref.w.empty(); ++j) {
        if (!keep[j]) continue;
        ref.w[i * nk + j] = round_exact(w, ref.format);
        ref.w_lo[i * nk + j] = detail::down(w.get_d());
        ref.w_hi[i * nk + j] = detail::up(w.get_d());
        done[dv + 1 + j] = 1;
    }
}

// The exact domain of an exp2 kernel (docs/oracle.md): with a rational scale, 2^(s_j − s_max)
// is an element of Q(2^(1/m)) when every difference has a denominator m ≤ max_root, and the
// engine's Value arithmetic gives the weights and outputs exactly. False when out of reach.
bool store_exact_base2(const Problem& p, std::int64_t i, const std::vector<std::uint8_t>& keep, Reference& ref,
                       std::vector<std::uint8_t>& done) {
    const auto c = rational_scale(p);
    if (p.base != ExpBase::Two || !c || p.softcap > 0) return false;  // capped scores are irrational
    const std::int64_t nk = p.k.rows(), d = p.q.cols(), dv = p.v.cols();
    std::vector<mpq_class> s(static_cast<std::size_t>(nk));
    std::optional<mpq_class> smax;
    for (std::int64_t j = 0; j < nk; ++j) {
        if (!keep[j]) continue;
        for (std::int64_t x = 0; x < d; ++x) s[j] += mpq_class(p.q.data[i * d + x]) * mpq_class(p.k.data[j * d + x]);
        s[j] *= *c;
        s[j] += mpq_class(bias_at(p, i, j));
        if (!smax || s[j] > *smax) smax = s[j];
    }
    std::vector<Value> e(static_cast<std::size_t>(nk));
    Value den;
    for (std::int64_t j = 0; j < nk; ++j) {
        if (!keep[j]) continue;
        const mpq_class t = s[j] - *smax;
        if (cmp(t.get_den(), limits().max_root) > 0 || cmp(abs(t), limits().max_exponent) > 0) return false;
        e[j] = Value::exp2(t);
        den += e[j];
    }
    if (ref.out_exact_text.empty()) ref.out_exact_text.assign(ref.out.size(), "");
    for (std::int64_t col = 0; col < dv; ++col) {
        Value num;
        for (std::int64_t j = 0; j < nk; ++j)
            if (keep[j]) num += e[j] * Value(mpq_class(p.v.data[j * dv + col]));
        const Value o = num / den;
        const std::size_t at = static_cast<std::size_t>(i * dv + col);
        ref.out[at] = round_value(o, ref.format);
        const double x = to_double(o);  // correctly rounded: one step each way encloses o
        const bool is_double = o.is_rational() && mpq_class(x) == o.rational();
        ref.out_lo[at] = is_double ? x : detail::down(x);
        ref.out_hi[at] = is_double ? x : detail::up(x);
        ref.out_exact[at] = 1;
        ref.out_exact_text[at] = to_ascii(o);
        done[col] = 1;
    }
    return true;
}

}  // namespace exactattn::oracle::detail
