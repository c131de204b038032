// SPDX-License-Identifier: MIT
// exactattn: arithmetic in K_m = Q(2^(1/m)).
#include "exactattn/field.hpp"

#include <fmt/format.h>

#include <functional>
#include <numeric>

#include "exactattn/error.hpp"
#include "exactattn/interval.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/print.hpp"

namespace exactattn {

namespace detail {

void check_bits(const mpq_class& q) {
    const auto limit = limits().max_bits;
    const auto nb = static_cast<std::int64_t>(mpz_sizeinbase(q.get_num_mpz_t(), 2));
    const auto db = static_cast<std::int64_t>(mpz_sizeinbase(q.get_den_mpz_t(), 2));
    if (nb > limit || db > limit) {
        throw limit_error(fmt::format(
            "a number would need {} bits, over the limit of {} bits (limits: max_bits)",
            std::max(nb, db), limit));
    }
}

int lcm_root(int m1, int m2) {
    const long long l = std::lcm(static_cast<long long>(m1), static_cast<long long>(m2));
    if (l > limits().max_root) {
        throw limit_error(fmt::format(
            "combining 2^(1/{}) and 2^(1/{}) needs Q(2^(1/{})), over the limit of root degree {} "
            "(limits: max_root)",
            m1, m2, l, limits().max_root));
    }
    return static_cast<int>(l);
}

}  // namespace detail

namespace {

void check_root(int m) {
    if (m < 1) throw domain_error(fmt::format("root degree {} must be at least 1", m));
    if (m > limits().max_root) {
        throw limit_error(fmt::format("2^(1/{}) needs root degree {}, over the limit of {} "
                                      "(limits: max_root)",
                                      m, m, limits().max_root));
    }
}

}  // namespace

FieldElem::FieldElem(const mpq_class& q) {
    if (sgn(q) != 0) {
        c_.push_back(q);
        c_.back().canonicalize();
        detail::check_bits(c_.back());
    }
}

FieldElem FieldElem::from_coefficients(int m, std::vector<mpq_class> coeffs) {
    check_root(m);
    if (static_cast<int>(coeffs.size()) > m) {
        throw domain_error(fmt::format("{} coefficients given for Q(2^(1/{}))", coeffs.size(), m));
    }
    FieldElem x;
    x.m_ = m;
    x.c_ = std::move(coeffs);
    for (auto& c : x.c_) {
        c.canonicalize();
        detail::check_bits(c);
    }
    x.canonicalize();
    return x;
}

FieldElem detail::from_canonical_unchecked(int m, std::vector<mpq_class> coeffs) {
    check_root(m);
    FieldElem x;
    x.m_ = m;
    x.c_ = std::move(coeffs);
    for (const auto& c : x.c_) detail::check_bits(c);
    EXACTATTN_ASSERT(x.is_canonical());
    return x;
}

FieldElem FieldElem::pow2(const mpq_class& r_in) {
    mpq_class r = r_in;
    r.canonicalize();
    const mpz_class& p = r.get_num();
    const mpz_class& q = r.get_den();
    if (mpz_cmpabs_ui(p.get_mpz_t(), 0) != 0 &&
        (!mpz_fits_slong_p(p.get_mpz_t()) ||
         mpz_cmpabs(mpz_class(p / q).get_mpz_t(), mpz_class(static_cast<long>(limits().max_exponent)).get_mpz_t()) > 0)) {
        throw limit_error(fmt::format("2^({}) has an exponent over the limit of {} in absolute "
                                      "value (limits: max_exponent)",
                                      detail::brief(r.get_str()), limits().max_exponent));
    }
    if (!mpz_fits_slong_p(q.get_mpz_t()) || q > limits().max_root) {
        throw limit_error(fmt::format("2^({}) needs root degree {}, over the limit of {} "
                                      "(limits: max_root)",
                                      detail::brief(r.get_str()), detail::brief(q.get_str()), limits().max_root));
    }
    const long m = q.get_si();
    mpz_class k;  // floor(p / q)
    mpz_class s;  // p mod q in [0, q)
    mpz_fdiv_qr(k.get_mpz_t(), s.get_mpz_t(), p.get_mpz_t(), q.get_mpz_t());
    const long kk = k.get_si();
    mpq_class coeff;
    if (kk >= 0) {
        mpz_class num;
        mpz_ui_pow_ui(num.get_mpz_t(), 2, static_cast<unsigned long>(kk));
        coeff = mpq_class(num);
    } else {
        mpz_class den;
        mpz_ui_pow_ui(den.get_mpz_t(), 2, static_cast<unsigned long>(-kk));
        coeff = mpq_class(mpz_class(1), den);
    }
    std::vector<mpq_class> coeffs(static_cast<std::size_t>(s.get_si()) + 1);
    coeffs.back() = coeff;
    return from_coefficients(static_cast<int>(m), std::move(coeffs));
}

mpq_class FieldElem::coefficient(int i) const {
    return i >= 0 && i < static_cast<int>(c_.size()) ? c_[static_cast<std::size_t>(i)]
                                                     : mpq_class(0);
}

mpq_class FieldElem::rational() const {
    EXACTATTN_ASSERT(m_ == 1);
    return c_.empty() ? mpq_class(0) : c_[0];
}

std::size_t FieldElem::term_count() const {
    std::size_t n = 0;
    for (const auto& c : c_) n += sgn(c) != 0 ? 1 : 0;
    return n;
}

bool FieldElem::is_canonical() const {
    if (m_ < 1 || static_cast<int>(c_.size()) > m_) return false;
    if (!c_.empty() && sgn(c_.back()) == 0) return false;
    if (c_.empty()) return m_ == 1;
    int g = m_;
    for (std::size_t i = 0; i < c_.size(); ++i) {
        const auto& c = c_[i];
        if (sgn(c.get_den()) <= 0) return false;
        mpz_class gg;
        mpz_gcd(gg.get_mpz_t(), c.get_num_mpz_t(), c.get_den_mpz_t());
        if (gg != 1) return false;
        if (sgn(c) != 0) g = std::gcd(g, static_cast<int>(i));
    }
    return g == 1;
}

void FieldElem::canonicalize() {
    while (!c_.empty() && sgn(c_.back()) == 0) c_.pop_back();
    if (c_.empty()) {
        m_ = 1;
        return;
    }
    int g = m_;
    for (std::size_t i = 0; i < c_.size() && g > 1; ++i) {
        if (sgn(c_[i]) != 0) g = std::gcd(g, static_cast<int>(i));
    }
    if (g > 1) {
        std::vector<mpq_class> shrunk((c_.size() - 1) / static_cast<std::size_t>(g) + 1);
        for (std::size_t i = 0; i < c_.size(); i += static_cast<std::size_t>(g)) {
            shrunk[i / static_cast<std::size_t>(g)] = c_[i];
        }
        c_ = std::move(shrunk);
        m_ /= g;
    }
    EXACTATTN_ASSERT(is_canonical());
}

std::vector<mpq_class> FieldElem::lifted(int n) const {
    EXACTATTN_ASSERT(n % m_ == 0);
    const int step = n / m_;
    std::vector<mpq_class> out(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < c_.size(); ++i) out[i * static_cast<std::size_t>(step)] = c_[i];
    return out;
}

FieldElem& FieldElem::operator+=(const FieldElem& y) {
    if (y.is_zero()) return *this;
    if (is_zero()) return *this = y;
    if (m_ == y.m_) {
        if (c_.size() < y.c_.size()) c_.resize(y.c_.size());
        for (std::size_t i = 0; i < y.c_.size(); ++i) c_[i] += y.c_[i];
    } else {
        const int n = detail::lcm_root(m_, y.m_);
        auto a = lifted(n);
        const auto b = y.lifted(n);
        for (std::size_t i = 0; i < a.size(); ++i) a[i] += b[i];
        c_ = std::move(a);
        m_ = n;
    }
    for (const auto& c : c_) detail::check_bits(c);
    canonicalize();
    return *this;
}

FieldElem& FieldElem::operator-=(const FieldElem& y) { return *this += -y; }

FieldElem FieldElem::operator-() const {
    FieldElem r = *this;
    for (auto& c : r.c_) c = -c;
    return r;
}

FieldElem& FieldElem::operator*=(const FieldElem& y) {
    if (is_zero() || y.is_zero()) return *this = FieldElem();
    const int n = m_ == y.m_ ? m_ : detail::lcm_root(m_, y.m_);
    const auto a = m_ == n ? c_ : lifted(n);
    const auto b = y.m_ == n ? y.c_ : y.lifted(n);
    std::vector<mpq_class> out(static_cast<std::size_t>(n));
    mpq_class t;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (sgn(a[i]) == 0) continue;
        for (std::size_t j = 0; j < b.size(); ++j) {
            if (sgn(b[j]) == 0) continue;
            t = a[i] * b[j];
            std::size_t k = i + j;
            if (k >= static_cast<std::size_t>(n)) {
                k -= static_cast<std::size_t>(n);
                t *= 2;  // θ^n = 2
            }
            out[k] += t;
        }
    }
    for (const auto& c : out) detail::check_bits(c);
    c_ = std::move(out);
    m_ = n;
    canonicalize();
    return *this;
}

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
    // Solve M y = e_0, M the matrix of multiplication by x on the basis θ^0..θ^(m-1). Over Q
    // (Gauss–Jordan on fractions) every step reduces by a gcd and the entries grow at each
    // of the m³ steps: a 12-term denominator of 2000-bit numbers took half a second, a
    // 64-term one minutes. Instead: clear denominators (x = X / D with X integral), eliminate
    // fraction-free (Bareiss: every division is exact, entries stay det-sized), and
    // back-substitute over Q once; x⁻¹ = D · X⁻¹.
    const auto n = static_cast<std::size_t>(m_);
    mpz_class den = 1;
    for (const auto& c : c_) mpz_lcm(den.get_mpz_t(), den.get_mpz_t(), c.get_den_mpz_t());
    std::vector<std::vector<mpz_class>> a(n, std::vector<mpz_class>(n + 1));
    for (std::size_t j = 0; j < n; ++j) {  // column j: X · θ^j
        for (std::size_t i = 0; i < c_.size(); ++i) {
            if (sgn(c_[i]) == 0) continue;
            std::size_t k = i + j;
            mpz_class v = c_[i].get_num() * (den / c_[i].get_den());
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
    std::vector<mpq_class> z(n);  // X⁻¹
    for (std::size_t i = n; i-- > 0;) {
        mpq_class r(a[i][n]);
        for (std::size_t j = i + 1; j < n; ++j) {
            if (sgn(a[i][j]) != 0) r -= mpq_class(a[i][j]) * z[j];
        }
        z[i] = r / mpq_class(a[i][i]);
    }
    for (auto& c : z) c *= den;
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
            throw limit_error(fmt::format("power {} is over the limit of {} in absolute value "
                                          "(limits: max_exponent)",
                                          n, limits().max_exponent));
        }
        return inverse().pow(-n);
    }
    if (n == 0) return FieldElem(1);
    if (is_zero()) return FieldElem();
    if (n > limits().max_exponent) {
        throw limit_error(fmt::format(
            "power {} is over the limit of {} (limits: max_exponent)", n, limits().max_exponent));
    }
    // Refuse up front when the result cannot fit: the size grows about linearly in n.
    const std::int64_t bits = std::max<std::int64_t>(max_bits() - 1, 0);
    if (bits > 0 && n > 1 && bits > limits().max_bits / n + 1) {
        throw limit_error(fmt::format("power {} of a {}-bit number needs about {} bits, over the "
                                      "limit of {} bits (limits: max_bits)",
                                      n, bits + 1, bits * n, limits().max_bits));
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

bool FieldElem::as_signed_power_of_two(int& sign_out, mpq_class& r) const {
    if (term_count() != 1) return false;
    std::size_t i = 0;
    while (sgn(c_[i]) == 0) ++i;
    const mpq_class& c = c_[i];
    const mpz_class num = abs(c.get_num());
    const mpz_class& den = c.get_den();
    // c = ±2^k: numerator and denominator are powers of two, one of them 1.
    if (num != 1 && den != 1) return false;
    const mpz_class& p = num != 1 ? num : den;
    if (mpz_popcount(p.get_mpz_t()) != 1) return false;
    const long k = static_cast<long>(mpz_sizeinbase(p.get_mpz_t(), 2)) - 1;
    sign_out = sgn(c);
    r = mpq_class(num != 1 ? k : -k) + mpq_class(static_cast<long>(i), m_);
    r.canonicalize();
    return true;
}

std::int64_t FieldElem::max_bits() const {
    std::int64_t b = 0;
    for (const auto& c : c_) {
        b = std::max<std::int64_t>(b, static_cast<std::int64_t>(mpz_sizeinbase(c.get_num_mpz_t(), 2)));
        b = std::max<std::int64_t>(b, static_cast<std::int64_t>(mpz_sizeinbase(c.get_den_mpz_t(), 2)));
    }
    return b;
}

int FieldElem::sign() const {
    if (c_.empty()) return 0;
    // All coefficients of one sign: θ^i > 0, so that is the sign.
    bool pos = false;
    bool neg = false;
    for (const auto& c : c_) {
        pos = pos || sgn(c) > 0;
        neg = neg || sgn(c) < 0;
    }
    if (!neg) return 1;
    if (!pos) return -1;
    return detail::certified_sign({*this});
}

std::size_t FieldElem::hash() const {
    std::size_t h = std::hash<int>{}(m_);
    for (const auto& c : c_) {
        const std::string s = c.get_str(16);
        h ^= std::hash<std::string>{}(s) + 0x9e3779b97f4a7c15ULL + (h << 6U) + (h >> 2U);
    }
    return h;
}

}  // namespace exactattn
