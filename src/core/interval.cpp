// SPDX-License-Identifier: MIT
// exactattn: certified interval evaluation with exact integer arithmetic.
#include "core/interval.hpp"

#include <fmt/format.h>
#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>

#include "core/field_detail.hpp"
#include "exactattn/error.hpp"
#include "exactattn/field.hpp"
#include "exactattn/limits.hpp"

namespace exactattn::detail {

namespace {

// An interval [lo, hi] of integers scaled by 2^-prec (prec fixed for one evaluation).
struct Iv {
    mpz_class lo;
    mpz_class hi;
};

// floor and ceiling of x / 2^s.
mpz_class shr_floor(const mpz_class& x, std::int64_t s) {
    mpz_class r;
    mpz_fdiv_q_2exp(r.get_mpz_t(), x.get_mpz_t(), static_cast<mp_bitcnt_t>(s));
    return r;
}
mpz_class shr_ceil(const mpz_class& x, std::int64_t s) {
    mpz_class r;
    mpz_cdiv_q_2exp(r.get_mpz_t(), x.get_mpz_t(), static_cast<mp_bitcnt_t>(s));
    return r;
}

// ln 2 · 2^prec enclosed. MPFR's constant is correctly rounded, so rounding it down and up
// gives certified bounds in O(M(n) log n) time; the plain series Σ 1/(k 2^k) costs O(n²) and
// took minutes at the megabit precisions that values with large coefficients need. One
// enclosure (the most precise so far) is cached; lower precisions are derived from it by
// outward rounding. The cache is per thread: files verified in parallel (verify -j) neither
// wait for one another's lock nor evict one another's precision.
Iv ln2_enclosure(std::int64_t prec) {
    thread_local std::int64_t cached_prec = -1;
    thread_local Iv cached;
    if (cached_prec < prec) {
        const std::int64_t big_p = prec + 64;  // compute ahead, so doubling loops reuse it
        mpfr_t x;
        mpfr_init2(x, static_cast<mpfr_prec_t>(big_p + 8));
        Iv r;
        mpfr_const_log2(x, MPFR_RNDD);
        mpfr_mul_2si(x, x, static_cast<long>(big_p), MPFR_RNDD);  // exact (power of two)
        mpfr_get_z(r.lo.get_mpz_t(), x, MPFR_RNDD);
        mpfr_const_log2(x, MPFR_RNDU);
        mpfr_mul_2si(x, x, static_cast<long>(big_p), MPFR_RNDU);
        mpfr_get_z(r.hi.get_mpz_t(), x, MPFR_RNDU);
        mpfr_clear(x);
        cached = std::move(r);
        cached_prec = big_p;
    }
    return Iv{shr_floor(cached.lo, cached_prec - prec), shr_ceil(cached.hi, cached_prec - prec)};
}

// Nonnegative [lo, hi] · [lo', hi'] scaled by 2^prec, rounded outward: two products, not four.
Iv mul_nonnegative(const Iv& x, const Iv& y, std::int64_t prec) {
    Iv r{x.lo * y.lo, x.hi * y.hi};
    mpz_fdiv_q_2exp(r.lo.get_mpz_t(), r.lo.get_mpz_t(), static_cast<mp_bitcnt_t>(prec));
    mpz_cdiv_q_2exp(r.hi.get_mpz_t(), r.hi.get_mpz_t(), static_cast<mp_bitcnt_t>(prec));
    return r;
}

// Powers of θ_m · 2^prec for a baby-step giant-step evaluation of Σ_{i<count} c_i θ^i =
// Σ_j θ^(r·j) · Σ_{k<r} c_(r·j+k) θ^k (Paterson–Stockmeyer): baby[k] = θ^k for k < r and
// giant[j] = θ^(r·j), about 2√count products at full precision instead of count (at megabit
// precision each product takes tens of milliseconds).
struct ThetaTable {
    std::size_t r = 1;
    std::vector<Iv> baby;
    std::vector<Iv> giant;
};

// 2^(1/m) comes from MPFR's correctly rounded m-th root, rounded down and up. The most precise
// table for the last m is kept, and lower precisions are derived from it by outward rounding: a
// sign decision followed by a decimal rounding at the same precision computes it once. Per
// thread, as ln2_enclosure's: two threads with different m would otherwise evict each other.
ThetaTable theta_table(int m, std::size_t count, std::int64_t prec) {
    thread_local int cached_m = 0;
    thread_local std::int64_t cached_prec = -1;
    thread_local ThetaTable cached;
    std::size_t r = 1;
    while (r * r < count) ++r;
    const std::size_t giants = (count + r - 1) / r;
    if (cached_m != m || cached_prec < prec || cached.r != r || cached.giant.size() < giants) {
        const std::int64_t p = std::max(prec, cached_m == m ? cached_prec : prec);
        ThetaTable t;
        t.r = r;
        const mpz_class one = mpz_class(1) << static_cast<mp_bitcnt_t>(p);
        Iv theta;
        {
            // m = 2^k·q, q odd: 2^(1/q) from MPFR's correctly rounded root (rounded down, so
            // the true value is below the next number up), then k square roots rounded down and
            // up. MPFR's rootn takes an integer root of a (q·p)-bit number, a second at
            // megabit precision for q = 63; square roots are quasi-linear.
            int q = m;
            int halvings = 0;
            while (q % 2 == 0) {
                q /= 2;
                ++halvings;
            }
            mpfr_t lo;
            mpfr_t hi;
            mpfr_init2(lo, static_cast<mpfr_prec_t>(p + 8));
            mpfr_init2(hi, static_cast<mpfr_prec_t>(p + 8));
            mpfr_set_ui(lo, 2, MPFR_RNDN);
            if (q > 1) {
                mpfr_rootn_ui(lo, lo, static_cast<unsigned long>(q), MPFR_RNDD);
                mpfr_set(hi, lo, MPFR_RNDN);
                mpfr_nextabove(hi);
            } else {
                mpfr_set(hi, lo, MPFR_RNDN);
            }
            for (int h = 0; h < halvings; ++h) {
                mpfr_sqrt(lo, lo, MPFR_RNDD);
                mpfr_sqrt(hi, hi, MPFR_RNDU);
            }
            mpfr_mul_2si(lo, lo, static_cast<long>(p), MPFR_RNDD);  // exact
            mpfr_get_z(theta.lo.get_mpz_t(), lo, MPFR_RNDD);
            mpfr_mul_2si(hi, hi, static_cast<long>(p), MPFR_RNDU);
            mpfr_get_z(theta.hi.get_mpz_t(), hi, MPFR_RNDU);
            mpfr_clear(lo);
            mpfr_clear(hi);
        }
        t.baby.push_back(Iv{one, one});
        while (t.baby.size() <= r) {  // θ^r too: the giant step
            t.baby.push_back(t.baby.size() == 1 ? theta : mul_nonnegative(t.baby.back(), theta, p));
        }
        const Iv step = t.baby.back();
        t.baby.pop_back();
        t.giant.push_back(Iv{one, one});
        while (t.giant.size() < giants) t.giant.push_back(mul_nonnegative(t.giant.back(), step, p));
        cached = std::move(t);
        cached_m = m;
        cached_prec = p;
    }
    auto lower = [&](const std::vector<Iv>& v) {
        std::vector<Iv> out(v.size());
        for (std::size_t i = 0; i < v.size(); ++i) {
            out[i] = cached_prec == prec
                         ? v[i]
                         : Iv{shr_floor(v[i].lo, cached_prec - prec), shr_ceil(v[i].hi, cached_prec - prec)};
        }
        return out;
    };
    ThetaTable out;
    out.r = r;
    out.baby = lower(cached.baby);
    out.giant = lower(cached.giant);
    return out;
}

// [x] · [y] for scaled intervals (result scaled by 2^prec again), rounded outward.
Iv mul(const Iv& x, const Iv& y, std::int64_t prec) {
    const mpz_class p1 = x.lo * y.lo;
    const mpz_class p2 = x.lo * y.hi;
    const mpz_class p3 = x.hi * y.lo;
    const mpz_class p4 = x.hi * y.hi;
    const mpz_class mn = std::min({p1, p2, p3, p4});
    const mpz_class mx = std::max({p1, p2, p3, p4});
    return Iv{shr_floor(mn, prec), shr_ceil(mx, prec)};
}

void check_precision(std::int64_t prec) {
    if (prec > limits().max_precision) {
        throw over_limit(Limit::max_precision, "deciding this value needs more bits of working precision");
    }
}

// True when every coefficient of every F_k has one sign: then no cancellation is possible and
// the value is at least its largest term.
bool one_signed(const std::vector<FieldElem>& coeffs) {
    int s = 0;
    for (const auto& f : coeffs) {
        for (const auto& c : f.coefficients()) {
            const int cs = sgn(c);
            if (cs == 0) continue;
            if (s != 0 && cs != s) return false;
            s = cs;
        }
    }
    return true;
}

// −log2 of a lower bound on |x| for a one-signed x: its largest term c·θ^i·a^k is at least
// 2^(bits(num) − bits(den) − 1) · (ln 2)^k, and ln 2 > 2^(−1).
std::int64_t tiny_bits(const std::vector<FieldElem>& coeffs) {
    std::int64_t best = std::numeric_limits<std::int64_t>::min();
    for (std::size_t k = 0; k < coeffs.size(); ++k) {
        for (const auto& c : coeffs[k].coefficients()) {
            if (sgn(c) == 0) continue;
            const auto l = static_cast<std::int64_t>(mpz_sizeinbase(c.get_num_mpz_t(), 2)) -
                           static_cast<std::int64_t>(mpz_sizeinbase(c.get_den_mpz_t(), 2)) - 1 -
                           static_cast<std::int64_t>(k);
            best = std::max(best, l);
        }
    }
    return best == std::numeric_limits<std::int64_t>::min() ? 0 : std::max<std::int64_t>(0, -best);
}

// A value whose coefficients are all below 2^-64, times 2^shift so that its largest coefficient
// is about 1 (otherwise nothing, shift 0). An enclosure's precision counts bits past the point,
// so unscaled, 2^-5000000·(√2 − 1) cannot be told apart from 0 below five million bits (over
// max_precision), although its sign needs a few dozen: the sign and a relative approximation of
// x·2^shift are those of x, exactly. Multiplying by 2^shift keeps each fraction canonical.
std::optional<std::vector<FieldElem>> scaled_up(const std::vector<FieldElem>& coeffs, std::int64_t& shift) {
    shift = 0;
    std::int64_t top = std::numeric_limits<std::int64_t>::min();
    for (const auto& f : coeffs) {
        for (const auto& c : f.coefficients()) {
            if (sgn(c) == 0) continue;
            top = std::max(top, static_cast<std::int64_t>(mpz_sizeinbase(c.get_num_mpz_t(), 2)) -
                                    static_cast<std::int64_t>(mpz_sizeinbase(c.get_den_mpz_t(), 2)));
        }
    }
    if (top >= -64) return std::nullopt;  // also a structural zero (no coefficient at all)
    shift = -top;
    std::vector<FieldElem> out;
    out.reserve(coeffs.size());
    for (const auto& f : coeffs) {
        std::vector<mpq_class> c = f.coefficients();
        for (auto& q : c) mpq_mul_2exp(q.get_mpq_t(), q.get_mpq_t(), static_cast<mp_bitcnt_t>(shift));
        out.push_back(f.is_zero() ? FieldElem() : from_canonical_unchecked(f.root(), std::move(c)));
    }
    return out;
}

// The first precision to try. With mixed signs, cancellation down to about the square of the
// numbers' size is common (twice their bits); a one-signed value needs only `need` bits more
// than its magnitude (none more for a fixed-point rounding). Never above max_precision, so that
// the refusal comes after a try at the limit, not before.
// Doubles a precision, but tries max_precision itself before refusing past it, and goes
// straight there from within a factor 3/4 of it (a try at 0.95·max_precision followed by one
// at max_precision would cost nearly two of the most expensive tries).
std::int64_t next_precision(std::int64_t prec) {
    const std::int64_t top = limits().max_precision;
    return prec < top && 2 * prec > top - top / 4 ? top : 2 * prec;
}

std::int64_t start_precision(const std::vector<FieldElem>& coeffs, std::int64_t need = 64, bool relative = true) {
    std::int64_t start = 0;
    if (one_signed(coeffs)) {
        start = need + (relative ? tiny_bits(coeffs) : 0);
    } else {
        // Enough to see the largest term; how far the terms cancel is found by doubling (the
        // total cost is then at most about twice that of the last, decisive, precision).
        std::int64_t big = 0;
        for (const auto& f : coeffs) {
            for (const auto& c : f.coefficients()) {
                if (sgn(c) == 0) continue;
                big = std::max<std::int64_t>(big, static_cast<std::int64_t>(mpz_sizeinbase(c.get_num_mpz_t(), 2)) -
                                                      static_cast<std::int64_t>(mpz_sizeinbase(c.get_den_mpz_t(), 2)) +
                                                      1);
            }
        }
        start = need + big;
    }
    return std::clamp<std::int64_t>(start, 64, std::max<std::int64_t>(64, limits().max_precision));
}

}  // namespace

Enclosure enclose(const std::vector<FieldElem>& coeffs, std::int64_t prec) {
    check_precision(prec);
    const std::int64_t wp = prec + 16 + 4 * static_cast<std::int64_t>(coeffs.size());
    {
        // The work of this evaluation (docs/limits.md): each term a product of its coefficient
        // and a power of θ at wp bits, 2√m more for the table of θ's powers, and ln 2.
        double units = 0;
        std::int64_t largest = 0;
        for (const auto& f : coeffs) {
            if (f.is_zero()) continue;
            const auto bits = f.max_bits();
            largest = std::max(largest, bits);
            units += (static_cast<double>(f.term_count()) + 2 * std::sqrt(static_cast<double>(f.root())) + 2) * 3 *
                     multiplication_work(static_cast<double>(wp + 2 * bits));
        }
        if (!charge_work(units)) {
            throw over_work(units,
                            fmt::format("deciding a value with {}-bit numbers at {} bits of precision", largest, prec));
        }
    }
    // Each F_k first (they need no ln 2), then Σ F_k·a^k with ln 2 at the precision the F_k's
    // magnitudes ask for (below).
    std::vector<std::optional<Iv>> fks(coeffs.size());
    // Tables of θ_m powers · 2^wp for the roots in use (outward rounding costs a few of the
    // guard bits).
    std::map<int, ThetaTable> tables;
    auto table = [&](int m) -> const ThetaTable& {
        auto it = tables.find(m);
        if (it == tables.end()) {
            std::size_t count = 0;
            for (const auto& f : coeffs) {
                if (f.root() == m) count = std::max(count, f.coefficients().size());
            }
            it = tables.emplace(m, theta_table(m, count, wp)).first;
        }
        return it->second;
    };
    for (std::size_t k = 0; k < coeffs.size(); ++k) {
        const FieldElem& f = coeffs[k];
        if (f.is_zero()) continue;
        const auto& c = f.coefficients();
        const ThetaTable& t = table(f.root());
        // Over a common denominator D (when it is not much larger than the largest one, as
        // after an inversion): Σ (c_i·D) θ^i / D, one division instead of one per coefficient.
        mpz_class den = 1;
        std::size_t den_bits = 0;
        for (const auto& q : c) {
            mpz_lcm(den.get_mpz_t(), den.get_mpz_t(), q.get_den_mpz_t());
            den_bits = std::max(den_bits, mpz_sizeinbase(q.get_den_mpz_t(), 2));
        }
        const bool common = den != 1 && mpz_sizeinbase(den.get_mpz_t(), 2) <= den_bits + 64;
        if (!common) den = 1;
        // The inner sums S_j = Σ_k c_(rj+k) θ^k (times D), then Σ_j θ^(rj) · S_j, in
        // midpoint-radius form: each enclosure [lo, hi] of a power is lo + [0, hi − lo] with a
        // radius of a few units, so every term costs one full-size product (its radius is a
        // product with a small number, or a shift), not two.
        mpz_class acc_mid = 0;
        mpz_class acc_rad = 0;
        mpz_class x;
        mpz_class prod;
        for (std::size_t j = 0; j * t.r < c.size(); ++j) {
            mpz_class mid = 0;
            mpz_class rad = 0;
            for (std::size_t kk = 0; kk < t.r && j * t.r + kk < c.size(); ++kk) {
                const mpq_class& q = c[j * t.r + kk];
                if (sgn(q) == 0) continue;
                const Iv& b = t.baby[kk];
                const mpz_class width = b.hi - b.lo;
                if (common || q.get_den() == 1) {
                    if (common) {
                        mpz_divexact(x.get_mpz_t(), den.get_mpz_t(), q.get_den_mpz_t());
                        x *= q.get_num();
                    } else {
                        x = q.get_num();
                    }
                    mid += x * b.lo;  // x·θ^k ∈ x·lo ± |x|·(hi − lo)
                    rad += abs(x) * width;
                } else {
                    // num·θ^k / den ∈ ⌊num·lo / den⌋ ± (1 + ⌈|num|·(hi − lo) / den⌉)
                    prod = q.get_num() * b.lo;
                    mpz_fdiv_q(prod.get_mpz_t(), prod.get_mpz_t(), q.get_den_mpz_t());
                    mid += prod;
                    prod = abs(q.get_num()) * width;
                    mpz_cdiv_q(prod.get_mpz_t(), prod.get_mpz_t(), q.get_den_mpz_t());
                    rad += prod + 1;
                }
            }
            if (j == 0) {
                acc_mid += mid << static_cast<mp_bitcnt_t>(wp);
                acc_rad += rad << static_cast<mp_bitcnt_t>(wp);
            } else {
                // (mid ± rad)·[L, H] ⊂ mid·L ± (|mid|·(H − L) + rad·H), and H < 2^bits(H).
                const Iv& g = t.giant[j];
                acc_mid += mid * g.lo;
                acc_rad += abs(mid) * mpz_class(g.hi - g.lo);
                acc_rad += rad << static_cast<mp_bitcnt_t>(mpz_sizeinbase(g.hi.get_mpz_t(), 2));
            }
        }
        // The sum is scaled by 2^(2·wp) (and D): back to 2^wp, rounding outward.
        const mpz_class dd = den << static_cast<mp_bitcnt_t>(wp);
        Iv fk;
        prod = acc_mid - acc_rad;
        mpz_fdiv_q(fk.lo.get_mpz_t(), prod.get_mpz_t(), dd.get_mpz_t());
        prod = acc_mid + acc_rad;
        mpz_cdiv_q(fk.hi.get_mpz_t(), prod.get_mpz_t(), dd.get_mpz_t());
        fks[k] = std::move(fk);
    }
    // a^k enters as F_k·a^k, so its error is |F_k|·2^-q at precision q: q = bits(|F_k|·2^wp) + 16
    // + 2k keeps that under a unit of 2^-wp. A tiny F_k (a value decided only at megabits of
    // precision by cancellation inside F_k) then needs ln 2 to far fewer bits than wp: MPFR's
    // ln 2 at 4 Mbit takes over a second. Never more than wp (as before).
    std::int64_t q = 64;
    for (std::size_t k = 1; k < fks.size(); ++k) {
        if (!fks[k]) continue;
        const auto bits = static_cast<std::int64_t>(
            std::max(mpz_sizeinbase(fks[k]->lo.get_mpz_t(), 2), mpz_sizeinbase(fks[k]->hi.get_mpz_t(), 2)));
        q = std::max(q, bits + 16 + 2 * static_cast<std::int64_t>(k));
    }
    q = std::min(q, wp);
    // Degree 0 (no a) needs no ln 2 at all.
    const Iv ln2 = fks.size() > 1 ? ln2_enclosure(q) : Iv{};
    const mpz_class one = mpz_class(1) << static_cast<mp_bitcnt_t>(q);
    Iv apow{one, one};
    Iv total{0, 0};
    for (std::size_t k = 0; k < fks.size(); ++k) {
        if (k > 0) apow = mul(apow, ln2, q);
        if (!fks[k]) continue;
        const Iv term = k == 0 ? *fks[k] : mul(*fks[k], apow, q);  // 2^wp · 2^q / 2^q
        total.lo += term.lo;
        total.hi += term.hi;
    }
    const std::int64_t drop = wp - prec;
    return Enclosure{shr_floor(total.lo, drop), shr_ceil(total.hi, drop), prec};
}

int certified_sign(const std::vector<FieldElem>& coeffs) {
    bool any = false;
    for (const auto& f : coeffs) any = any || !f.is_zero();
    if (!any) return 0;
    std::int64_t shift = 0;
    const auto scaled = scaled_up(coeffs, shift);
    const std::vector<FieldElem>& x = scaled ? *scaled : coeffs;  // same sign
    for (std::int64_t prec = start_precision(x);; prec = next_precision(prec)) {
        const Enclosure e = enclose(x, prec);
        if (sgn(e.lo) > 0) return 1;
        if (sgn(e.hi) < 0) return -1;
    }
}

namespace {

// Runs f(mpfr_t) on lo/2^prec and hi/2^prec held exactly, returns whether both agree.
template <class F>
auto with_exact_mpfr(const mpz_class& v, std::int64_t prec, F&& f) {
    mpfr_t x;
    const auto bits = static_cast<mpfr_prec_t>(std::max<std::size_t>(mpz_sizeinbase(v.get_mpz_t(), 2), 2));
    mpfr_init2(x, bits);
    mpfr_set_z_2exp(x, v.get_mpz_t(), -static_cast<mpfr_exp_t>(prec), MPFR_RNDN);  // exact
    auto out = f(x);
    mpfr_clear(x);
    return out;
}

double round_to_double(const mpz_class& v, std::int64_t prec) {
    return with_exact_mpfr(v, prec, [](mpfr_t x) {
        // Round once to 53 bits in the double exponent range, subnormals included.
        const mpfr_exp_t emin = mpfr_get_emin();
        const mpfr_exp_t emax = mpfr_get_emax();
        mpfr_set_emin(-1073);
        mpfr_set_emax(1024);
        mpfr_t y;
        mpfr_init2(y, 53);
        const int t = mpfr_set(y, x, MPFR_RNDN);
        mpfr_subnormalize(y, mpfr_check_range(y, t, MPFR_RNDN), MPFR_RNDN);
        const double d = mpfr_get_d(y, MPFR_RNDN);
        mpfr_clear(y);
        mpfr_set_emin(emin);
        mpfr_set_emax(emax);
        return d;
    });
}

std::string round_to_decimal(const mpz_class& v, std::int64_t prec, int digits, bool fixed) {
    return with_exact_mpfr(v, prec, [&](mpfr_t x) {
        char* buf = nullptr;
        const int n = fixed ? mpfr_asprintf(&buf, "%.*RNf", digits, x) : mpfr_asprintf(&buf, "%#.*RNg", digits, x);
        std::string s = n >= 0 && buf != nullptr ? std::string(buf) : std::string("?");
        if (buf != nullptr) mpfr_free_str(buf);
        // '#' keeps the trailing zeros that show the significance (0.50 to two digits), but
        // also a point with no digit after it ("10.", "1.e+02"): that point goes.
        const auto point = s.find('.');
        if (!fixed && point != std::string::npos && (point + 1 == s.size() || s[point + 1] == 'e')) {
            s.erase(point, 1);
        }
        return s;
    });
}

bool structurally_zero(const std::vector<FieldElem>& coeffs) {
    for (const auto& f : coeffs) {
        if (!f.is_zero()) return false;
    }
    return true;
}

}  // namespace

double certified_double(const std::vector<FieldElem>& coeffs) {
    if (structurally_zero(coeffs)) return 0.0;
    // Below 2^-1075 every value rounds to ±0 or the smallest subnormal: 1200 bits past the
    // binary point always suffice for the rounding, however tiny the value.
    for (std::int64_t prec = start_precision(coeffs, 128, false);; prec = next_precision(prec)) {
        const Enclosure e = enclose(coeffs, prec);
        if (e.contains_zero()) {
            // Inside (−2^-1075, 2^-1075), under half the smallest subnormal, every point rounds
            // to a zero; which one is the value's sign, decided relative to its size.
            if (prec > 1075) {
                const mpz_class half_tiny = mpz_class(1) << static_cast<mp_bitcnt_t>(prec - 1075);
                if (-e.lo < half_tiny && e.hi < half_tiny) return certified_sign(coeffs) < 0 ? -0.0 : 0.0;
            }
            continue;
        }
        const double lo = round_to_double(e.lo, prec);
        const double hi = round_to_double(e.hi, prec);
        if (lo == hi) return lo;  // rounding is monotone: every point between rounds alike
    }
}

mpq_class pow10q(std::int64_t k) {
    mpz_class p;
    mpz_ui_pow_ui(p.get_mpz_t(), 10, static_cast<unsigned long>(k < 0 ? -k : k));
    return k < 0 ? mpq_class(mpz_class(1), p) : mpq_class(p);
}

std::int64_t decimal_exponent_guess(const mpq_class& q) {
    return static_cast<std::int64_t>(mpz_sizeinbase(q.get_num_mpz_t(), 10)) -
           static_cast<std::int64_t>(mpz_sizeinbase(q.get_den_mpz_t(), 10));
}

namespace {

// A rational q exactly halfway between two decimals of the requested form has enclosures that
// straddle the tie at every precision. Rounded exactly here (to nearest, ties to even), it is
// replaced by the decimal it rounds to, r, which sits in the middle of its rounding interval, so
// the enclosures of r decide at the first precision and print r. nullopt: q is not a tie.
std::optional<mpq_class> decimal_tie(const mpq_class& q, int digits, bool fixed) {
    if (sgn(q) == 0) return std::nullopt;
    const mpq_class aq = abs(q);
    std::int64_t k = digits;  // the scale: q·10^k is rounded to an integer
    if (!fixed) {
        // E = ⌊log10 |q|⌋, from the sizes in base 10 and corrected by exact comparison.
        std::int64_t e = decimal_exponent_guess(aq);
        while (aq < pow10q(e)) --e;
        while (aq >= pow10q(e + 1)) ++e;
        k = digits - 1 - e;
    }
    const mpq_class t = aq * pow10q(k);
    mpz_class fl;
    mpz_fdiv_q(fl.get_mpz_t(), t.get_num_mpz_t(), t.get_den_mpz_t());
    if (t - mpq_class(fl) != mpq_class(1, 2)) return std::nullopt;
    if (mpz_odd_p(fl.get_mpz_t())) fl += 1;  // ties to even
    mpq_class r = mpq_class(fl) / pow10q(k);
    r.canonicalize();
    return sgn(q) < 0 ? mpq_class(-r) : r;
}

}  // namespace

std::string certified_decimal(const std::vector<FieldElem>& coeffs, int digits, bool fixed) {
    if (digits < 0 || digits > 100000) {
        throw usage_error(fmt::format("{} digits requested; give 0 to 100000", digits));
    }
    if (!fixed && digits == 0) digits = 1;
    if (structurally_zero(coeffs)) return round_to_decimal(mpz_class(0), 0, digits, fixed);
    if (coeffs.size() == 1 && coeffs[0].is_rational()) {
        if (const auto r = decimal_tie(coeffs[0].rational(), digits, fixed)) {
            if (sgn(*r) != 0) return certified_decimal({FieldElem(*r)}, digits, fixed);
            // Fixed places, a tie that rounds to 0 (0.005 to 2 places): the zero keeps q's sign.
            const std::string zero = round_to_decimal(mpz_class(0), 0, digits, fixed);
            return sgn(coeffs[0].rational()) < 0 ? "-" + zero : zero;
        }
    }
    // Significant digits need the value's magnitude; fixed digits only `need` bits past the
    // point (a tiny value rounds to 0.000… once its enclosure is that narrow).
    const auto need = static_cast<std::int64_t>(digits * 3.33) + 64;
    for (std::int64_t prec = start_precision(coeffs, need, !fixed);; prec = next_precision(prec)) {
        const Enclosure e = enclose(coeffs, prec);
        if (!fixed && e.contains_zero()) continue;
        std::string lo = round_to_decimal(e.lo, prec, digits, fixed);
        std::string hi = round_to_decimal(e.hi, prec, digits, fixed);
        if (lo == hi) return lo;
        // Fixed places around 0, under half a unit in the last place: "-0.00" and "0.00" differ
        // only in the sign of the zero, which is the value's (decided relative to its size).
        if (fixed && lo == "-" + hi && hi.find_first_not_of("0.") == std::string::npos) {
            return certified_sign(coeffs) < 0 ? lo : hi;
        }
    }
}

mpq_class approximate(const std::vector<FieldElem>& coeffs, std::int64_t bits) {
    if (structurally_zero(coeffs)) return mpq_class(0);
    std::int64_t shift = 0;
    const auto scaled = scaled_up(coeffs, shift);
    const std::vector<FieldElem>& x = scaled ? *scaled : coeffs;  // x = value · 2^shift
    for (std::int64_t prec = start_precision(x, bits + 8);; prec = next_precision(prec)) {
        const Enclosure e = enclose(x, prec);
        if (e.contains_zero()) continue;
        // Relative accuracy: (hi − lo) · 2^bits ≤ min(|lo|, |hi|).
        const mpz_class width = e.hi - e.lo;
        const mpz_class smallest = sgn(e.lo) > 0 ? mpz_class(e.lo) : mpz_class(-e.hi);
        if (mpz_class(width << static_cast<mp_bitcnt_t>(bits)) > smallest) continue;
        mpq_class mid(mpz_class(e.lo + e.hi), mpz_class(1));
        mid /= mpq_class(mpz_class(1) << static_cast<mp_bitcnt_t>(e.prec + 1 + shift));
        mid.canonicalize();
        return mid;
    }
}

}  // namespace exactattn::detail
