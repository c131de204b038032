// SPDX-License-Identifier: MIT
// exactattn oracle, backward pass: the exact stage of the gradient reference's builder
// (grad_builder.hpp): the entries that are rational, computed exactly (docs/oracle.md, "Exact
// entries").
#include "grad_builder.hpp"

namespace exactattn::oracle::detail::grad {

// The exact scores c·q·k + b of row i's visible keys, when c is rational and they differ by
// whole numbers (nothing as soon as two do not: the weights are then irrational).
std::optional<std::vector<mpq_class>> Builder::exact_scores(std::int64_t i, const mpq_class& c) const {
    std::vector<mpq_class> s(static_cast<std::size_t>(nk_));
    std::optional<std::int64_t> first;
    for (std::int64_t j = 0; j < nk_; ++j) {
        if (!keep_[i][j]) continue;
        const mpq_class dot = detail::exact_dot(&p_.q.data[i * d_], &p_.k.data[j * d_], d_);
        s[j] = c * dot + mpq_class(bias_at(p_, i, j));
        if (!first)
            first = j;
        else if (mpq_class(s[j] - s[*first]).get_den() != 1)
            return std::nullopt;
    }
    return s;
}

// Row i's weights as exact rationals when they are rational (docs/oracle.md, "Exact
// entries"): base e, only when every visible score is equal (1/n); base 2, when the scores
// differ by whole numbers (2^(s_j − m)/Σ). `lse` is set when the log-sum-exp is rational too.
std::optional<std::vector<mpq_class>> Builder::rational_weights(std::int64_t i, std::optional<mpq_class>& lse) const {
    // Under a softcap no row is taken as rational: its dS carries 1 − tanh², irrational
    // unless 0 (docs/oracle.md, "The logit softcap"); the enclosures decide every entry.
    if (p_.softcap > 0) return std::nullopt;
    const auto c = detail::rational_scale(p_);
    const long n = static_cast<long>(std::count(keep_[i].begin(), keep_[i].end(), std::uint8_t{1}));
    // The weights once the row is known rational: n_k rationals are n_k allocations, and
    // almost every row of real inputs is refused at its second key.
    std::vector<mpq_class> w;
    if (p_.base == ExpBase::E) {
        // With an irrational c, c·x + b = c·y + b' for rationals only when x = y and b = b'.
        std::map<std::pair<mpq_class, mpq_class>, int> groups;
        std::optional<mpq_class> s0;
        for (std::int64_t j = 0; j < nk_; ++j) {
            if (!keep_[i][j]) continue;
            const mpq_class dot = detail::exact_dot(&p_.q.data[i * d_], &p_.k.data[j * d_], d_);
            const mpq_class b(bias_at(p_, i, j));
            if (c) {
                s0 = mpq_class(*c * dot + b);
                groups[{*s0, mpq_class(0)}] = 1;
            } else {
                groups[{dot, b}] = 1;
            }
            if (groups.size() > 1) return std::nullopt;  // two scores differ: no need to see the rest
        }
        w.resize(static_cast<std::size_t>(nk_));
        for (std::int64_t j = 0; j < nk_; ++j)
            if (keep_[i][j]) w[j] = mpq_class(1, n);
        if (n == 1 && s0) lse = *s0;  // ln 1 = 0
        return w;
    }
    if (!c) return std::nullopt;
    const auto s = exact_scores(i, *c);
    if (!s) return std::nullopt;
    std::optional<mpq_class> m;
    for (std::int64_t j = 0; j < nk_; ++j)
        if (keep_[i][j] && (!m || (*s)[j] > *m)) m = (*s)[j];
    mpq_class sum = 0;
    w.resize(static_cast<std::size_t>(nk_));
    for (std::int64_t j = 0; j < nk_; ++j) {
        if (!keep_[i][j]) continue;
        const mpq_class t = (*s)[j] - *m;
        if (t.get_den() != 1 || t < -kMaxExactShift) return std::nullopt;
        const auto shift = static_cast<mp_bitcnt_t>(-t.get_num().get_si());
        w[j] = mpq_class(mpz_class(1), mpz_class(1) << shift);
        sum += w[j];
    }
    for (auto& x : w) x /= sum;
    if (power_of_two(sum.get_num()) && power_of_two(sum.get_den()))
        lse = *m + static_cast<long>(mpz_sizeinbase(sum.get_num().get_mpz_t(), 2)) -
              static_cast<long>(mpz_sizeinbase(sum.get_den().get_mpz_t(), 2));
    return w;
}

void Builder::exact_entries() {
    // dP = dO Vᵀ: products of floats, always rational. Each row of dO and of V as integers
    // times a power of two, so that most entries are one integer dot product in 128 bits;
    // where a row's exponents span too much, the factors split one by one; else a rational.
    std::vector<detail::FixedRow> do_fixed, v_fixed;
    for (std::int64_t i = 0; i < nq_; ++i) do_fixed.push_back(detail::fixed_row(&do_.data[i * dv_], dv_));
    for (std::int64_t j = 0; j < nk_; ++j) v_fixed.push_back(detail::fixed_row(&p_.v.data[j * dv_], dv_));
    std::vector<detail::Split> do_split, v_split;  // split once, when first needed
    for (std::int64_t i = 0; i < nq_; ++i)
        for (std::int64_t j = 0; j < nk_; ++j) {
            const double *x = &do_.data[i * dv_], *y = &p_.v.data[j * dv_];
            auto tz = detail::toward_zero_dot(do_fixed[i], v_fixed[j]);
            if (!tz) {
                if (do_split.empty()) {
                    for (const double z : do_.data) do_split.push_back(detail::split(z));
                    for (const double z : p_.v.data) v_split.push_back(detail::split(z));
                }
                tz = detail::toward_zero_dot(&do_split[i * dv_], &v_split[j * dv_], dv_);
            }
            if (!put_exact_dot(sl_[kDp], i * nk_ + j, tz))
                put_exact(sl_[kDp], i * nk_ + j, detail::exact_dot(x, y, dv_));
        }
    const auto c = detail::rational_scale(p_);
    // λ·c rational: dQ and dK of rational rows are rational; otherwise only their zeros are.
    const bool factor_rational = c && p_.base == ExpBase::E;
    std::vector<std::uint8_t> rational(static_cast<std::size_t>(nq_), 0);
    // P and P ∘ (dP − D) of the rational rows, allocated at the first (random inputs have none;
    // a key that no row sees reads none of them).
    std::vector<mpq_class> w, r;
    for (std::int64_t i = 0; i < nq_; ++i) {
        if (masked_row(i)) {
            masked(i);
            rational[i] = 1;
            continue;
        }
        std::optional<mpq_class> lse;
        const auto row = rational_weights(i, lse);
        if (!row) continue;
        rational[i] = 1;
        if (w.empty()) w.resize(static_cast<std::size_t>(nq_ * nk_)), r.resize(w.size());
        if (lse) put_exact(sl_[kLse], i, *lse);
        mpq_class dd = 0;
        for (std::int64_t col = 0; col < dv_; ++col) {
            mpq_class oc = 0;
            for (std::int64_t j = 0; j < nk_; ++j) oc += (*row)[j] * mpq_class(v(j, col));
            put_exact(sl_[kOut], i * dv_ + col, oc);
            dd += mpq_class(o(i, col)) * oc;
        }
        put_exact(sl_[kDelta], i, dd);
        for (std::int64_t j = 0; j < nk_; ++j) {
            const auto at = static_cast<std::size_t>(i * nk_ + j);
            w[at] = (*row)[j];
            put_exact(sl_[kP], i * nk_ + j, w[at]);
            const mpq_class dp = detail::exact_dot(&do_.data[i * dv_], &p_.v.data[j * dv_], dv_);
            r[at] = w[at] * (dp - dd);
            if (p_.base == ExpBase::E || r[at] == 0) put_exact(sl_[kDs], i * nk_ + j, r[at]);
        }
        for (std::int64_t x = 0; x < d_; ++x) {
            mpq_class s = 0;
            for (std::int64_t j = 0; j < nk_; ++j) s += r[i * nk_ + j] * mpq_class(k(j, x));
            if (factor_rational) put_exact(sl_[kDq], i * d_ + x, *c * s);
            if (s == 0) put_exact(sl_[kDq], i * d_ + x, s);
        }
    }
    for (std::int64_t j = 0; j < nk_; ++j) {
        bool all = true;  // every row that sees key j has rational weights
        for (std::int64_t i = 0; i < nq_; ++i) all = all && (!keep_[i][j] || rational[i]);
        if (!all) continue;
        for (std::int64_t x = 0; x < d_; ++x) {
            mpq_class s = 0;
            for (std::int64_t i = 0; i < nq_; ++i)
                if (keep_[i][j]) s += r[i * nk_ + j] * mpq_class(q(i, x));
            if (factor_rational) put_exact(sl_[kDk], j * d_ + x, *c * s);
            if (s == 0) put_exact(sl_[kDk], j * d_ + x, s);
        }
        for (std::int64_t col = 0; col < dv_; ++col) {
            mpq_class s = 0;
            for (std::int64_t i = 0; i < nq_; ++i)
                if (keep_[i][j]) s += w[i * nk_ + j] * mpq_class(o(i, col));
            put_exact(sl_[kDv], j * dv_ + col, s);
        }
    }
}

}  // namespace exactattn::oracle::detail::grad
