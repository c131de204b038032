// SPDX-License-Identifier: MIT
// exactattn: certified interval evaluation with exact integer arithmetic.
#include "exactattn/interval.hpp"

#include <fmt/format.h>
#include <mpfr.h>

#include <cstdlib>
#include <map>
#include <mutex>

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
// outward rounding.
Iv ln2_enclosure(std::int64_t prec) {
    static std::mutex mu;
    static std::int64_t cached_prec = -1;
    static Iv cached;
    std::lock_guard<std::mutex> lock(mu);
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

// 2^(1/m) · 2^prec enclosed by an exact integer root. The root of an (m·prec)-bit number is
// the costly step at megabit precision (seconds each), so the most precise enclosure of the
// last m is kept, and lower precisions are derived from it by outward rounding.
Iv root_enclosure(int m, std::int64_t prec) {
    static std::mutex mu;
    static int cached_m = 0;
    static std::int64_t cached_prec = -1;
    static Iv cached;
    std::lock_guard<std::mutex> lock(mu);
    if (cached_m != m || cached_prec < prec) {
        mpz_class x;
        mpz_ui_pow_ui(x.get_mpz_t(), 2, static_cast<unsigned long>(1 + m * prec));
        mpz_class r;
        const int exact = mpz_root(r.get_mpz_t(), x.get_mpz_t(), static_cast<unsigned long>(m));
        cached = Iv{r, exact != 0 ? r : mpz_class(r + 1)};
        cached_m = m;
        cached_prec = prec;
    }
    return Iv{shr_floor(cached.lo, cached_prec - prec), shr_ceil(cached.hi, cached_prec - prec)};
}

// q · [lo, hi] for rational q, rounded outward.
Iv scale(const Iv& x, const mpq_class& q) {
    mpz_class a = x.lo * q.get_num();
    mpz_class b = x.hi * q.get_num();
    if (sgn(q) < 0) std::swap(a, b);
    Iv r;
    mpz_fdiv_q(r.lo.get_mpz_t(), a.get_mpz_t(), q.get_den_mpz_t());
    mpz_cdiv_q(r.hi.get_mpz_t(), b.get_mpz_t(), q.get_den_mpz_t());
    return r;
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
        throw limit_error(fmt::format("deciding this value needs more than {} bits of working "
                                      "precision (limits: max_precision)",
                                      limits().max_precision));
    }
}

std::int64_t start_precision(const std::vector<FieldElem>& coeffs) {
    std::int64_t bits = 0;
    for (const auto& f : coeffs) bits = std::max(bits, f.max_bits());
    return std::max<std::int64_t>(64, 2 * bits + 32);
}

}  // namespace

Enclosure enclose(const std::vector<FieldElem>& coeffs, std::int64_t prec) {
    check_precision(prec);
    const std::int64_t wp = prec + 16 + 4 * static_cast<std::int64_t>(coeffs.size());
    // Degree 0 (no a) needs no ln 2 at all.
    const Iv ln2 = coeffs.size() > 1 ? ln2_enclosure(wp) : Iv{};
    Iv total{0, 0};
    const mpz_class one = mpz_class(1) << static_cast<mp_bitcnt_t>(wp);
    Iv apow{one, one};
    // θ_m^i · 2^wp for the roots in use: one root, then products (outward rounding costs a few
    // of the guard bits; a dense element of Q(2^(1/64)) used to take 63 roots).
    std::map<int, std::vector<Iv>> powers;
    auto theta = [&](int m, std::size_t i) -> const Iv& {
        auto& p = powers[m];
        if (p.empty()) p.push_back(Iv{one, one});
        while (p.size() <= i) p.push_back(p.size() == 1 ? root_enclosure(m, wp) : mul(p.back(), p[1], wp));
        return p[i];
    };
    for (std::size_t k = 0; k < coeffs.size(); ++k) {
        if (k > 0) apow = mul(apow, ln2, wp);
        const FieldElem& f = coeffs[k];
        if (f.is_zero()) continue;
        Iv fk{0, 0};
        const auto& c = f.coefficients();
        for (std::size_t i = 0; i < c.size(); ++i) {
            if (sgn(c[i]) == 0) continue;
            const Iv s = scale(theta(f.root(), i), c[i]);
            fk.lo += s.lo;
            fk.hi += s.hi;
        }
        const Iv term = k == 0 ? fk : mul(fk, apow, wp);
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
    for (std::int64_t prec = start_precision(coeffs);; prec *= 2) {
        const Enclosure e = enclose(coeffs, prec);
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
        const int n = fixed ? mpfr_asprintf(&buf, "%.*RNf", digits, x)
                            : mpfr_asprintf(&buf, "%#.*RNg", digits, x);
        std::string s = n >= 0 && buf != nullptr ? std::string(buf) : std::string("?");
        if (buf != nullptr) mpfr_free_str(buf);
        return s;
    });
}

}  // namespace

double certified_double(const std::vector<FieldElem>& coeffs) {
    if (certified_sign(coeffs) == 0) return 0.0;
    for (std::int64_t prec = std::max<std::int64_t>(start_precision(coeffs), 128);; prec *= 2) {
        const Enclosure e = enclose(coeffs, prec);
        const double lo = round_to_double(e.lo, prec);
        const double hi = round_to_double(e.hi, prec);
        if (lo == hi) return lo;  // rounding is monotone: every point between rounds alike
    }
}

std::string certified_decimal(const std::vector<FieldElem>& coeffs, int digits, bool fixed) {
    if (digits < 0 || digits > 100000) {
        throw usage_error(fmt::format("{} digits requested; give 0 to 100000", digits));
    }
    if (!fixed && digits == 0) digits = 1;
    if (certified_sign(coeffs) == 0) {
        return round_to_decimal(mpz_class(0), 0, digits, fixed);
    }
    const auto need = static_cast<std::int64_t>(digits * 3.33) + 64;
    for (std::int64_t prec = std::max(start_precision(coeffs), need);; prec *= 2) {
        const Enclosure e = enclose(coeffs, prec);
        std::string lo = round_to_decimal(e.lo, prec, digits, fixed);
        std::string hi = round_to_decimal(e.hi, prec, digits, fixed);
        if (lo == hi) return lo;
    }
}

mpq_class approximate(const std::vector<FieldElem>& coeffs, std::int64_t bits) {
    if (certified_sign(coeffs) == 0) return mpq_class(0);
    for (std::int64_t prec = std::max(start_precision(coeffs), bits + 8);; prec *= 2) {
        const Enclosure e = enclose(coeffs, prec);
        if (e.contains_zero()) continue;
        // Relative accuracy: (hi − lo) · 2^bits ≤ min(|lo|, |hi|).
        const mpz_class width = e.hi - e.lo;
        const mpz_class smallest = sgn(e.lo) > 0 ? mpz_class(e.lo) : mpz_class(-e.hi);
        if (mpz_class(width << static_cast<mp_bitcnt_t>(bits)) > smallest) continue;
        mpq_class mid(mpz_class(e.lo + e.hi), mpz_class(1));
        mid /= mpq_class(mpz_class(1) << static_cast<mp_bitcnt_t>(e.prec + 1));
        mid.canonicalize();
        return mid;
    }
}

}  // namespace exactattn::detail
