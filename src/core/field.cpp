// SPDX-License-Identifier: MIT
// exactattn: arithmetic in K_m = Q(2^(1/m)).
#include "exactattn/field.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <numeric>

#include "exactattn/error.hpp"
#include "core/field_cost.hpp"
#include "core/field_detail.hpp"
#include "core/interval.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/print.hpp"
#include "core/assert.hpp"
#include "core/print_detail.hpp"

namespace exactattn {

namespace detail {

Cleared clear_denominators(const std::vector<mpq_class>& c) {
    Cleared r;
    for (const auto& q : c) mpz_lcm(r.den.get_mpz_t(), r.den.get_mpz_t(), q.get_den_mpz_t());
    r.num.resize(c.size());
    for (std::size_t i = 0; i < c.size(); ++i) {
        if (sgn(c[i]) == 0) continue;
        r.num[i] = c[i].get_num() * (r.den / c[i].get_den());
    }
    return r;
}

double product_work(const Sizes& a, const Sizes& b, bool kronecker) {
    if (kronecker) return 3 * multiplication_work(a.total + b.total);
    return 3 * a.terms * b.terms * multiplication_work(a.largest + b.largest);
}

void check_bits(const mpq_class& q) {
    const auto limit = limits().max_bits;
    const auto nb = static_cast<std::int64_t>(mpz_sizeinbase(q.get_num_mpz_t(), 2));
    const auto db = static_cast<std::int64_t>(mpz_sizeinbase(q.get_den_mpz_t(), 2));
    if (nb > limit || db > limit) {
        throw over_limit(Limit::max_bits, fmt::format("a number would need {} bits", std::max(nb, db)));
    }
}

int lcm_root(int m1, int m2) {
    const long long l = std::lcm(static_cast<long long>(m1), static_cast<long long>(m2));
    if (l > limits().max_root) {
        throw over_limit(
            Limit::max_root,
            fmt::format("combining 2^(1/{}) and 2^(1/{}) needs Q(2^(1/{})), of root degree {}", m1, m2, l, l));
    }
    return static_cast<int>(l);
}

}  // namespace detail

namespace {

using detail::bits_of;
using detail::clear_denominators;
using detail::Cleared;
using detail::product_work;
using detail::Sizes;

void check_root(int m) {
    if (m < 1) throw domain_error(fmt::format("root degree {} must be at least 1", m));
    if (m > limits().max_root) {
        throw over_limit(Limit::max_root, fmt::format("2^(1/{}) needs root degree {}", m, m));
    }
}

// Σ_i a_i t^i · Σ_j b_j t^j for integer coefficients by Kronecker substitution: both
// polynomials are packed into one integer each (coefficient i at bit i·w, w a whole number of
// limbs wide enough for every product coefficient with its sign), multiplied once by GMP, and
// unpacked. Dense products of megabit coefficients take one FFT multiplication instead of m²
// schoolbook ones.
std::vector<mpz_class> kronecker_product(const std::vector<mpz_class>& a, const std::vector<mpz_class>& b) {
    std::int64_t ba = 0;
    std::int64_t bb = 0;
    for (const auto& z : a) ba = std::max(ba, bits_of(z));
    for (const auto& z : b) bb = std::max(bb, bits_of(z));
    const auto shortest = static_cast<std::int64_t>(std::min(a.size(), b.size()));
    std::int64_t lg = 0;
    while ((std::int64_t{1} << lg) < shortest) ++lg;
    const std::int64_t need = ba + bb + lg + 2;  // |product coefficient| < 2^(need − 1)
    const auto limb_bits = static_cast<std::int64_t>(GMP_NUMB_BITS);
    const auto w = static_cast<std::size_t>((need + limb_bits - 1) / limb_bits);
    auto pack = [w](const std::vector<mpz_class>& p) {
        mpz_class pos;
        mpz_class neg;
        const std::size_t total = p.size() * w;
        mp_limb_t* lp = mpz_limbs_write(pos.get_mpz_t(), static_cast<mp_size_t>(total));
        mp_limb_t* ln = mpz_limbs_write(neg.get_mpz_t(), static_cast<mp_size_t>(total));
        std::fill(lp, lp + total, mp_limb_t{0});
        std::fill(ln, ln + total, mp_limb_t{0});
        for (std::size_t i = 0; i < p.size(); ++i) {
            const int s = sgn(p[i]);
            if (s == 0) continue;
            const mp_limb_t* src = mpz_limbs_read(p[i].get_mpz_t());
            std::copy(src, src + mpz_size(p[i].get_mpz_t()), (s > 0 ? lp : ln) + i * w);
        }
        mpz_limbs_finish(pos.get_mpz_t(), static_cast<mp_size_t>(total));
        mpz_limbs_finish(neg.get_mpz_t(), static_cast<mp_size_t>(total));
        return mpz_class(pos - neg);
    };
    mpz_class prod = pack(a) * pack(b);
    const bool negative = sgn(prod) < 0;
    if (negative) prod = -prod;
    const std::size_t len = a.size() + b.size() - 1;
    std::vector<mpz_class> out(len);
    const mp_limb_t* limbs = mpz_limbs_read(prod.get_mpz_t());
    const std::size_t size = mpz_size(prod.get_mpz_t());
    mpz_class half;
    mpz_setbit(half.get_mpz_t(), static_cast<mp_bitcnt_t>(w * GMP_NUMB_BITS - 1));
    const mpz_class full = half * 2;
    int carry = 0;
    for (std::size_t k = 0; k < len; ++k) {
        mpz_class& c = out[k];
        const std::size_t from = std::min(k * w, size);
        const std::size_t to = std::min(from + w, size);
        if (to > from) {
            mp_limb_t* dst = mpz_limbs_write(c.get_mpz_t(), static_cast<mp_size_t>(to - from));
            std::copy(limbs + from, limbs + to, dst);
            mpz_limbs_finish(c.get_mpz_t(), static_cast<mp_size_t>(to - from));
        }
        if (carry != 0) c += carry;
        if (c >= half) {
            c -= full;
            carry = 1;
        } else {
            carry = 0;
        }
        if (negative) c = -c;
    }
    return out;
}

// Above this many limb products a multiplication in K_m goes through kronecker_product.
constexpr std::int64_t kKroneckerThreshold = 1 << 14;

Sizes sizes_of(const std::vector<mpq_class>& v) {
    Sizes s;
    for (const auto& c : v) {
        if (sgn(c) == 0) continue;
        const auto bits = 64.0 * static_cast<double>(mpz_size(c.get_num_mpz_t()) + mpz_size(c.get_den_mpz_t()));
        s.terms += 1;
        s.largest = std::max(s.largest, bits);
        s.total += bits;
    }
    return s;
}

void charge_step(double units, const std::function<std::string()>& what) {
    if (!charge_work(units)) throw over_work(units, what());
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

FieldElem FieldElemAccess::make(int m, std::vector<mpq_class> coeffs) {
    FieldElem x;
    x.m_ = m;
    x.c_ = std::move(coeffs);
    return x;
}

FieldElem detail::from_canonical_unchecked(int m, std::vector<mpq_class> coeffs) {
    check_root(m);
    for (const auto& c : coeffs) detail::check_bits(c);
    FieldElem x = FieldElemAccess::make(m, std::move(coeffs));
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
         mpz_cmpabs(mpz_class(p / q).get_mpz_t(), mpz_class(static_cast<long>(limits().max_exponent)).get_mpz_t()) >
             0)) {
        throw over_limit(Limit::max_exponent,
                         fmt::format("2^({}) has an exponent of absolute value {}", detail::brief(r.get_str()),
                                     detail::brief(mpz_class(abs(p) / q).get_str())));
    }
    if (!mpz_fits_slong_p(q.get_mpz_t()) || q > limits().max_root) {
        throw over_limit(Limit::max_root, fmt::format("2^({}) needs root degree {}", detail::brief(r.get_str()),
                                                      detail::brief(q.get_str())));
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
    return i >= 0 && i < static_cast<int>(c_.size()) ? c_[static_cast<std::size_t>(i)] : mpq_class(0);
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

namespace {

// The canonical form's shape: no trailing zero coefficient (zero as m = 1 with none), and the
// smallest root degree: when only the indices that are multiples of g are nonzero, θ_m^g is
// θ_(m/g), so the element lives in K_(m/g). The one place this rule is written.
void trim_and_shrink(int& m, std::vector<mpq_class>& c) {
    while (!c.empty() && sgn(c.back()) == 0) c.pop_back();
    if (c.empty()) {
        m = 1;
        return;
    }
    int g = m;
    for (std::size_t i = 1; i < c.size() && g > 1; ++i) {
        if (sgn(c[i]) != 0) g = std::gcd(g, static_cast<int>(i));
    }
    if (g > 1) {
        const auto step = static_cast<std::size_t>(g);
        std::vector<mpq_class> shrunk((c.size() - 1) / step + 1);
        for (std::size_t i = 0; i < c.size(); i += step) shrunk[i / step] = std::move(c[i]);
        c = std::move(shrunk);
        m /= g;
    }
}

}  // namespace

void FieldElem::canonicalize() {
    trim_and_shrink(m_, c_);
    EXACTATTN_ASSERT(is_canonical());
}

FieldElem detail::from_reduced_unchecked(int m, std::vector<mpq_class> coeffs) {
    trim_and_shrink(m, coeffs);
    return from_canonical_unchecked(m, std::move(coeffs));
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
    {
        // A sum of fractions: the products over the common denominator and the gcd that
        // reduces the result, about four products of the larger size per term.
        const Sizes a = sizes_of(c_);
        const Sizes b = sizes_of(y.c_);
        charge_step(4 * std::max(a.terms, b.terms) * multiplication_work(a.largest + b.largest),
                    [&] { return fmt::format("adding numbers of {} and {} bits", a.largest, b.largest); });
    }
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

namespace {

// When x is one term ±2^k·θ_m^j (what pow2 gives: the exponentials of a read, 2^(p/q)), its index
// j and the exponent k; otherwise false.
// (A nonzero canonical element has no trailing zero: a single term is its last coefficient.)
bool power_of_two_term(const std::vector<mpq_class>& c, std::size_t& j, long& k) {
    j = c.size() - 1;
    for (std::size_t i = 0; i < j; ++i) {
        if (sgn(c[i]) != 0) return false;
    }
    const mpz_srcptr num = c[j].get_num_mpz_t();
    const mpz_srcptr den = c[j].get_den_mpz_t();
    const auto power = [](mpz_srcptr z, long& e) {
        const auto bits = mpz_sizeinbase(z, 2);
        if (mpz_scan1(z, 0) != bits - 1) return false;  // |z| = 2^(bits - 1) only
        e = static_cast<long>(bits - 1);
        return true;
    };
    long e = 0;
    if (mpz_cmp_ui(den, 1) == 0 && power(num, e)) {
        k = e;
        return true;
    }
    if (mpz_cmpabs_ui(num, 1) == 0 && power(den, e)) {
        k = -e;
        return true;
    }
    return false;
}

// x · (±2^k θ_n^j) over K_n (x's coefficients over K_n in `a`): the coefficients move up j
// places, those that wrap past θ^n = 2 doubled, and each is scaled by 2^k. Scaling a reduced
// fraction by a power of two only cancels twos (mpq_mul_2exp, mpq_div_2exp), so every
// coefficient stays reduced and no gcd is taken: the general product's gcds were most of a
// rollout's time (issue 32).
std::vector<mpq_class> rotated(const std::vector<mpq_class>& a, int n, std::size_t j, long k, bool negative) {
    std::vector<mpq_class> out(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (sgn(a[i]) == 0) continue;
        std::size_t t = i + j;
        long e = k;
        if (t >= static_cast<std::size_t>(n)) {
            t -= static_cast<std::size_t>(n);
            ++e;
        }
        if (e >= 0) {
            mpq_mul_2exp(out[t].get_mpq_t(), a[i].get_mpq_t(), static_cast<mp_bitcnt_t>(e));
        } else {
            mpq_div_2exp(out[t].get_mpq_t(), a[i].get_mpq_t(), static_cast<mp_bitcnt_t>(-e));
        }
        if (negative) mpq_neg(out[t].get_mpq_t(), out[t].get_mpq_t());
        detail::check_bits(out[t]);
    }
    return out;
}

}  // namespace

FieldElem& FieldElem::operator*=(const FieldElem& y) {
    if (is_zero() || y.is_zero()) return *this = FieldElem();
    const Sizes sa = sizes_of(c_);
    const Sizes sb = sizes_of(y.c_);
    {
        std::size_t j = 0;
        long k = 0;
        const bool mine = power_of_two_term(c_, j, k);
        if (mine || power_of_two_term(y.c_, j, k)) {
            const FieldElem& term = mine ? *this : y;
            const FieldElem& other = mine ? y : *this;
            // Charged as the product it replaces, so that the budget does not depend on the path.
            charge_step(product_work(sa, sb, false),
                        [&] { return fmt::format("multiplying numbers of {} and {} bits", sa.largest, sb.largest); });
            const int n = m_ == y.m_ ? m_ : detail::lcm_root(m_, y.m_);
            const bool negative = sgn(term.c_[j]) < 0;
            const std::size_t lifted_j = j * static_cast<std::size_t>(n / term.m_);
            auto out = rotated(other.m_ == n ? other.c_ : other.lifted(n), n, lifted_j, k, negative);
            c_ = std::move(out);
            m_ = n;
            canonicalize();
            return *this;
        }
    }
    if (y.m_ == 1 && this != &y) {
        // A rational factor scales every coefficient; the canonical form (which coefficients are
        // zero, the root degree) does not change.
        charge_step(product_work(sa, sb, false),
                    [&] { return fmt::format("multiplying numbers of {} and {} bits", sa.largest, sb.largest); });
        for (auto& c : c_) {
            if (sgn(c) == 0) continue;
            c *= y.c_[0];
            detail::check_bits(c);
        }
        return *this;
    }
    const int n = m_ == y.m_ ? m_ : detail::lcm_root(m_, y.m_);
    const auto a = m_ == n ? c_ : lifted(n);
    const auto b = y.m_ == n ? y.c_ : y.lifted(n);
    const auto limbs = [](const std::vector<mpq_class>& v) {
        std::int64_t l = 0;
        for (const auto& c : v) {
            l += static_cast<std::int64_t>(mpz_size(c.get_num_mpz_t()) + mpz_size(c.get_den_mpz_t()));
        }
        return l;
    };
    const bool kronecker = a.size() > 1 && b.size() > 1 && limbs(a) * limbs(b) > kKroneckerThreshold;
    charge_step(product_work(sa, sb, kronecker), [&] {
        return fmt::format("multiplying elements of Q(2^(1/{})) with numbers of {} and {} bits", n, sa.largest,
                           sb.largest);
    });
    if (kronecker) {
        const Cleared ca = clear_denominators(a);
        const Cleared cb = clear_denominators(b);
        const auto p = kronecker_product(ca.num, cb.num);
        const mpz_class den = ca.den * cb.den;
        std::vector<mpq_class> out(static_cast<std::size_t>(n));
        for (std::size_t k = 0; k < p.size(); ++k) {
            const std::size_t i = k < static_cast<std::size_t>(n) ? k : k - static_cast<std::size_t>(n);
            if (k < static_cast<std::size_t>(n)) {
                out[i].get_num() += p[k];
            } else {
                out[i].get_num() += p[k] * 2;  // θ^n = 2
            }
        }
        for (auto& c : out) {
            c.get_den() = den;
            if (den != 1) c.canonicalize();
            detail::check_bits(c);
        }
        c_ = std::move(out);
        m_ = n;
        canonicalize();
        return *this;
    }
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
