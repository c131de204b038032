// SPDX-License-Identifier: MIT
// exactattn: inverses and powers in K_m = Q(2^(1/m)) — Bareiss elimination with its cost and
// the size of its result bounded before it runs, and powers by squaring under a bound of ν(X)^n.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "exactattn/error.hpp"
#include "exactattn/field.hpp"
#include "exactattn/limits.hpp"
#include "core/assert.hpp"
#include "core/field_cost.hpp"
#include "core/field_detail.hpp"

namespace exactattn {

namespace {

using detail::bits_of;
using detail::clear_denominators;
using detail::Cleared;
using detail::product_work;
using detail::Sizes;

// log2 of ν(X) = Σ |X_i| · 2^(i/m), an upper bound for every coefficient of X and
// submultiplicative in K_m (θ^m = 2 wraps a product's term i + j ≥ m to 2·θ^(i+j−m), whose
// weight 2 · 2^((i+j−m)/m) is the unwrapped 2^((i+j)/m)). So every coefficient of X^n is at most
// ν(X)^n, and a power's size is boundable before it is computed.
double log2_nu(const std::vector<mpz_class>& x, int m) {
    double best = -1e300;
    std::vector<double> logs;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (sgn(x[i]) == 0) continue;
        long e = 0;
        const double d = mpz_get_d_2exp(&e, x[i].get_mpz_t());
        const double l = std::log2(std::fabs(d)) + static_cast<double>(e) + static_cast<double>(i) / m;
        logs.push_back(l);
        best = std::max(best, l);
    }
    double sum = 0;
    for (const double l : logs) sum += std::exp2(l - best);
    return best + std::log2(sum);
}

[[noreturn]] void size_bound_error(const std::string& what, std::int64_t per_number, std::int64_t total) {
    const auto& l = limits();
    if (per_number > l.max_bits) {
        throw over_limit(Limit::max_bits, fmt::format("{} may need numbers of up to {} bits (a bound from the "
                                                      "operands' sizes)",
                                                      what, per_number));
    }
    throw over_limit(Limit::max_value_bits,
                     fmt::format("{} may need up to {} bits in all (a bound from the operands' sizes)", what, total));
}

// Refuses when a bound on a result's numbers is over max_bits, or `count` numerators of up to
// num_bits and denominators of up to den_bits bits together are over max_value_bits.
void check_size_bound(const std::string& what, double num_bits, double den_bits, std::int64_t count) {
    const auto& l = limits();
    const double per = std::max(num_bits, den_bits);
    const double total = (num_bits + den_bits) * static_cast<double>(count);
    auto clamp = [](double v) {
        return v > 9e18 ? std::numeric_limits<std::int64_t>::max() : static_cast<std::int64_t>(v);
    };
    if (per > static_cast<double>(l.max_bits) || total > static_cast<double>(l.max_value_bits)) {
        size_bound_error(what, clamp(per), clamp(total));
    }
}

// The estimated cost of inverting x (odd m, integral, largest coefficient of b bits) by
// Bareiss elimination and fraction-free back substitution, in work units: each multiplication
// or exact division of s-bit numbers counts s^1.35 (GMP's products from schoolbook to FFT fit
// that within a factor 2 at these sizes; about 3·10^10 units take a second here). The entries
// after step k are (k + 1)-minors, at most (k + 1)·(b + 1) bits; which entries are nonzero
// (and so cost anything) is followed symbolically, with the same pivot choice as the
// elimination: a sparse element (3^6000 + 2^(1/63)) costs n² operations a step, not n³.
double elimination_work(const FieldElem& x, std::int64_t b) {
    const auto n = static_cast<std::size_t>(x.root());
    const auto& c = x.coefficients();
    std::vector<std::vector<char>> nz(n, std::vector<char>(n + 1, 0));
    for (std::size_t j = 0; j < n; ++j) {
        for (std::size_t i = 0; i < c.size(); ++i) {
            if (sgn(c[i]) != 0) nz[(i + j) % n][j] = 1;
        }
    }
    nz[0][n] = 1;
    const auto cost = [](double s) { return std::pow(s, 1.35); };
    double work = 0;
    for (std::size_t k = 0; k < n; ++k) {
        std::size_t piv = k;
        while (piv < n && nz[piv][k] == 0) ++piv;
        if (piv < n) std::swap(nz[piv], nz[k]);
        const double unit = cost(static_cast<double>(k + 1) * static_cast<double>(b + 1) + 1);
        for (std::size_t i = k + 1; i < n; ++i) {
            const bool lead = nz[i][k] != 0;
            for (std::size_t j = k + 1; j <= n; ++j) {
                const int products = (nz[i][j] != 0 ? 1 : 0) + (lead && nz[k][j] != 0 ? 1 : 0);
                if (products == 0) continue;
                work += unit * (products + 1);  // the products and one exact division
                nz[i][j] = 1;
            }
            nz[i][k] = 0;
        }
    }
    const double unit = cost(static_cast<double>(n) * static_cast<double>(b + 1) + 1);
    for (std::size_t i = 0; i < n; ++i) {
        double ops = 2;
        for (std::size_t j = i + 1; j < n; ++j) ops += nz[i][j] != 0 ? 1 : 0;
        work += unit * ops;
    }
    return work + unit * 4 * static_cast<double>(n);  // the final quotients by det (gcds)
}

}  // namespace

FieldElem FieldElem::inverse() const {
    if (is_zero()) throw domain_error("division by zero");
    if (m_ == 1) return FieldElem(mpq_class(1) / c_[0]);
    if (term_count() == 1) {
        // (c θ^i)^(-1) = θ^(m-i) / (2c): a single term inverts without linear algebra.
        std::size_t i = 0;
        while (sgn(c_[i]) == 0) ++i;
        std::vector<mpq_class> out(static_cast<std::size_t>(m_) - i + 1);
        out.back() = mpq_class(1) / (2 * c_[i]);
        return from_coefficients(m_, std::move(out));
    }
    {
        // x = (D / g)⁻¹ · X' with X' integral and primitive (g the gcd of the cleared
        // numerators): invert X' and scale, so that a large common factor (3^20000·(1 + θ))
        // does not enter the bound below as if it were a generic coefficient.
        const Cleared c0 = clear_denominators(c_);
        mpz_class g = 0;
        for (const auto& z : c0.num) mpz_gcd(g.get_mpz_t(), g.get_mpz_t(), z.get_mpz_t());
        if (g != 1 || c0.den != 1) {
            std::vector<mpq_class> prim(c_.size());
            for (std::size_t i = 0; i < c_.size(); ++i) {
                if (sgn(c0.num[i]) != 0) mpz_divexact(prim[i].get_num_mpz_t(), c0.num[i].get_mpz_t(), g.get_mpz_t());
            }
            mpq_class scale(c0.den, g);
            scale.canonicalize();
            return from_coefficients(m_, std::move(prim)).inverse() * FieldElem(scale);
        }
    }
    // x = X / D with X integral. The inverse is D · adj(M) e_0 / det M, M the matrix of
    // multiplication by X (entries |X_i| or 2|X_i|), so by Hadamard's bound every number of the
    // result has at most m·(B + 1) + (m/2)·log2 m + bits(D) bits, B the largest |X_i|: refuse
    // before any elimination when that is over the limits (it used to run minutes first).
    const auto n = static_cast<std::size_t>(m_);
    const Cleared cx = clear_denominators(c_);
    std::int64_t b = 0;
    for (const auto& z : cx.num) b = std::max(b, bits_of(z));
    const double lg = 0.5 * std::log2(static_cast<double>(m_));
    const double det_bits = static_cast<double>(m_) * (static_cast<double>(b + 1) + lg) + 1;
    const double cofactor_bits =
        static_cast<double>(m_ - 1) * (static_cast<double>(b + 1) + lg) + static_cast<double>(bits_of(cx.den)) + 1;
    const std::string what = fmt::format(
        "inverting a {}-term element of Q(2^(1/{})) with {}-bit "
        "coefficients",
        term_count(), m_, b);
    check_size_bound(what, cofactor_bits, det_bits, m_);
    if (m_ % 2 == 0) {
        // Tower step: with σ(θ) = −θ (also a root of t^m − 2 for even m), x·σ(x) has only even
        // powers of θ, so it lies in Q(2^(2/m)) = K_(m/2), and x⁻¹ = σ(x) · (x·σ(x))⁻¹. Halving
        // m each time costs a few products instead of an m×m elimination.
        FieldElem conj = *this;
        for (std::size_t i = 1; i < conj.c_.size(); i += 2) conj.c_[i] = -conj.c_[i];
        const FieldElem norm = *this * conj;
        EXACTATTN_ASSERT(norm.root() * 2 <= m_ || norm.root() == 1);
        return conj * norm.inverse();
    }
    // Odd m: solve M y = e_0 fraction-free (Bareiss: every division exact, entries stay
    // determinant-sized) and back-substitute fraction-free; x⁻¹ = D · X⁻¹. Bound that work
    // before starting (elimination_work).
    // Charged twice its estimate: measured, the elimination runs at about half the units per
    // second of the products the other charges count (docs/limits.md).
    const double work = 2 * elimination_work(*this, b);
    if (!charge_work(work)) throw over_work(work, what + " by elimination");
    const mpz_class& den = cx.den;
    std::vector<std::vector<mpz_class>> a(n, std::vector<mpz_class>(n + 1));
    for (std::size_t j = 0; j < n; ++j) {  // column j: X · θ^j
        for (std::size_t i = 0; i < c_.size(); ++i) {
            if (sgn(cx.num[i]) == 0) continue;
            std::size_t k = i + j;
            mpz_class v = cx.num[i];
            if (k >= n) {
                k -= n;
                v *= 2;
            }
            a[k][j] = v;
        }
    }
    a[0][n] = 1;
    mpz_class prev = 1;
    mpz_class t;
    for (std::size_t k = 0; k < n; ++k) {
        std::size_t piv = k;
        while (piv < n && sgn(a[piv][k]) == 0) ++piv;
        EXACTATTN_ASSERT(piv < n);  // x ≠ 0 and x^m − 2 irreducible: M is invertible
        if (piv >= n) throw domain_error("internal: singular multiplication matrix");
        std::swap(a[piv], a[k]);
        for (std::size_t i = k + 1; i < n; ++i) {
            for (std::size_t j = k + 1; j <= n; ++j) {
                t = a[k][k] * a[i][j];
                t -= a[i][k] * a[k][j];
                mpz_divexact(a[i][j].get_mpz_t(), t.get_mpz_t(), prev.get_mpz_t());
            }
            a[i][k] = 0;
        }
        prev = a[k][k];
    }
    // Fraction-free back substitution: det · X⁻¹ is integral (Cramer), and with the last pivot
    // det = a[n−1][n−1], w_i = (det · b_i − Σ_(j>i) a[i][j] · w_j) / a[i][i] divides exactly, so
    // no rational (and no gcd) is formed until the m quotients w_i / det at the end.
    const mpz_class& det = a[n - 1][n - 1];
    std::vector<mpz_class> w(n);
    for (std::size_t i = n; i-- > 0;) {
        mpz_class r = det * a[i][n];
        for (std::size_t j = i + 1; j < n; ++j) {
            if (sgn(a[i][j]) != 0 && sgn(w[j]) != 0) r -= a[i][j] * w[j];
        }
        mpz_divexact(w[i].get_mpz_t(), r.get_mpz_t(), a[i][i].get_mpz_t());
    }
    std::vector<mpq_class> z(n);  // X⁻¹
    for (std::size_t i = 0; i < n; ++i) {
        z[i] = mpq_class(w[i] * den, det);
        z[i].canonicalize();
    }
    return from_coefficients(m_, std::move(z));
}

FieldElem& FieldElem::operator/=(const FieldElem& y) {
    if (y.is_zero()) throw domain_error("division by zero");
    return *this *= y.inverse();
}

FieldElem FieldElem::pow(std::int64_t n) const {
    if (n < 0) {
        if (is_zero()) throw domain_error("division by zero: 0 raised to a negative power");
        if (n < -limits().max_exponent) {
            throw over_limit(Limit::max_exponent, fmt::format("power {} has absolute value {}", n, -n));
        }
        return inverse().pow(-n);
    }
    if (n == 0) return FieldElem(1);
    if (is_zero()) return FieldElem();
    if (n > limits().max_exponent) {
        throw over_limit(Limit::max_exponent, fmt::format("power {}", n));
    }
    // Refuse up front when the result cannot fit: x = X / D, and every coefficient of X^n is at
    // most ν(X)^n (log2_nu), every denominator at most D^n; a single term stays one term.
    if (n > 1) {
        const Cleared cx = clear_denominators(c_);
        const double num_bits = static_cast<double>(n) * std::max(log2_nu(cx.num, m_), 0.0) + 1;
        long e = 0;
        const double d = mpz_get_d_2exp(&e, cx.den.get_mpz_t());  // D = d · 2^e, d in [1/2, 1)
        const double den_bits = static_cast<double>(n) * (std::log2(d) + static_cast<double>(e)) + 1;
        check_size_bound(fmt::format("power {} of a {}-term element of Q(2^(1/{})) with {}-bit "
                                     "numbers",
                                     n, term_count(), m_, max_bits()),
                         num_bits, den_bits, term_count() == 1 ? 1 : m_);
        // The last squaring multiplies two halves of the result, the squarings before it about
        // as much again, and as much once more when n is not a power of two (the products into
        // the result). Each multiplication charges itself as it runs; this estimate refuses a
        // power that would not fit before its first multiplication, instead of after most of them.
        const double final_bits = (std::max(num_bits, 0.0) + std::max(den_bits, 0.0)) * (term_count() == 1 ? 1 : m_);
        const double last = term_count() == 1 ? 3 * multiplication_work(final_bits)
                                              : product_work(Sizes{1, final_bits / 2, final_bits / 2},
                                                             Sizes{1, final_bits / 2, final_bits / 2}, true);
        const bool power_of_two = (static_cast<std::uint64_t>(n) & (static_cast<std::uint64_t>(n) - 1)) == 0;
        const double whole = last * (power_of_two ? 1.8 : 3.5);
        if (!work_fits(whole)) {
            throw over_work(whole, fmt::format("power {} of a {}-term element of Q(2^(1/{})) with {}-bit numbers", n,
                                               term_count(), m_, max_bits()));
        }
    }
    FieldElem result(1);
    FieldElem base = *this;
    auto e = static_cast<std::uint64_t>(n);
    while (true) {
        if (e & 1U) result *= base;
        e >>= 1U;
        if (e == 0) break;
        base *= base;
    }
    return result;
}

}  // namespace exactattn
