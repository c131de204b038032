// SPDX-License-Identifier: MIT
// exactattn oracle, backward pass: the builder of a certified gradient reference and its stages
// (the exact entries, then enclosures in doubles, double-doubles and MPFR), private to
// oracle_grad.cpp (which runs it) and oracle_grad_exact.cpp (its exact stage).
#pragma once

#include <fmt/format.h>
#include <gmpxx.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <type_traits>

#include "arg.hpp"
#include "arith.hpp"
#include "grad_arith.hpp"
#include "grad_wide.hpp"
#include "kernels.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/oracle_grad.hpp"

namespace exactattn::oracle::detail::grad {

using detail::DoubleArith;
using detail::MpfrArith;
using Iv = MpfrArith::Iv;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
// Base-2 rows whose scores differ by whole numbers have rational weights 2^(s_j − m)/Σ; past this
// many binades the exact weights are left to the enclosures (they are far from any midpoint).
constexpr long kMaxExactShift = 4096;

using detail::arg;

class Builder {
  public:
    // `wide`: P, dP and dS written there (a batch's arrays), not into the reference's own fields.
    Builder(const Problem& p, const Tensor& d_out, FloatFormat f, const detail::WideOut* wide = nullptr)
        : p_(p), do_(d_out), f_(f) {
        nq_ = p.q.rows(), nk_ = p.k.rows(), d_ = p.q.cols(), dv_ = p.v.cols();
        g_.format = f;
        g_.base = p.base;
        g_.n_q = nq_, g_.n_k = nk_, g_.d = d_, g_.d_v = dv_;
        g_.dq = make_field("dq", {nq_, d_});
        g_.dk = make_field("dk", {nk_, d_});
        g_.dv = make_field("dv", {nk_, dv_});
        g_.p = make_field("p", {nq_, nk_}, wide == nullptr);
        g_.dp = make_field("dp", {nq_, nk_}, wide == nullptr);
        g_.delta = make_field("d", {nq_});
        g_.ds = make_field("ds", {nq_, nk_}, wide == nullptr);
        g_.lse = make_field("lse", {nq_});
        g_.out = make_field("out", {nq_, dv_});
        const std::array<GradField*, kFields> fields = {&g_.dq,    &g_.dk, &g_.dv, &g_.out, &g_.lse,
                                                        &g_.delta, &g_.p,  &g_.dp, &g_.ds};
        for (std::size_t y = 0; y < kFields; ++y) {
            GradField& x = *fields[y];
            Slot& s = sl_[y];
            s.f = &x;
            s.n = 1;
            for (const auto e : x.shape) s.n *= e;
            s.val = x.val.data(), s.lo = x.lo.data(), s.hi = x.hi.data(), s.exact = x.exact.data();
            s.done.assign(static_cast<std::size_t>(s.n), 0);
        }
        if (wide != nullptr)
            for (const auto& [y, to] : {std::pair{kP, &wide->p}, {kDp, &wide->dp}, {kDs, &wide->ds}})
                sl_[y].val = to->val, sl_[y].lo = to->lo, sl_[y].hi = to->hi, sl_[y].exact = to->exact;
        for (std::int64_t i = 0; i < nq_; ++i) keep_.push_back(visible_keys(p, i));
        kt_.resize(static_cast<std::size_t>(d_ * nk_));
        vt_.resize(static_cast<std::size_t>(dv_ * nk_));
        for (std::int64_t j = 0; j < nk_; ++j) {
            for (std::int64_t x = 0; x < d_; ++x) kt_[x * nk_ + j] = k(j, x);
            for (std::int64_t c = 0; c < dv_; ++c) vt_[c * nk_ + j] = v(j, c);
        }
    }

    GradReference run() {
        charge(2000, "the exact entries");
        exact_entries();
        if (undecided() != 0) {
            // The double stage (the forward's DoubleArith, rounded outward): decides about every
            // entry of a 16- or 32-bit format at a few percent of the first MPFR pass's cost.
            charge(40, "the enclosures in doubles");
            DoubleArith da;
            da.base = p_.base;
            da.scale = detail::double_scale(p_.scale, d_);
            enclose(da);
        }
        if (undecided() != 0 && f_ != FloatFormat::Float64 && !(p_.softcap > 0)) {
            // The double-double stage (dd_arith.hpp): the same passes at about 94 bits, without
            // MPFR; what it leaves (a log-sum-exp, a value within 2^−90 of a rounding boundary)
            // goes on to MPFR. Not for float64 (its doubles cannot decide a float64 rounding) nor
            // under a softcap (whose tanh it does not have).
            charge(300, "the enclosures in double-doubles");
            const std::int64_t before = undecided();
            enclose(detail::DdArith(p_.base, p_.scale, d_));
            if (undecided() != before) g_.max_precision = std::max<std::int64_t>(g_.max_precision, 106);
        }
        for (mpfr_prec_t prec = 128;; prec *= 2) {
            if (undecided() == 0) break;
            if (prec > limits().max_precision)
                throw over_limit(Limit::max_precision,
                                 fmt::format("{}: a rounding needs more bits of working precision", first_undecided()));
            charge(2000.0 * (1 + static_cast<double>(prec) / 256), fmt::format("the enclosures at {} bits", prec));
            g_.max_precision = std::max<std::int64_t>(g_.max_precision, prec);
            enclose(MpfrArith(prec, p_.base, p_.scale, d_));
        }
        for (const Slot& x : sl_) g_.exact_entries += std::count(x.exact, x.exact + x.n, std::uint8_t{1});
        return std::move(g_);
    }

  private:
    // The fields in report order (GradReference::fields), and where each one's entries go: its
    // own vectors, or for P, dP and dS of a batch's head the batch's arrays (grad_wide.hpp).
    enum Field : std::size_t { kDq, kDk, kDv, kOut, kLse, kDelta, kP, kDp, kDs, kFields };
    struct Slot {
        GradField* f = nullptr;  // its name and shape
        std::int64_t n = 0;
        double *val = nullptr, *lo = nullptr, *hi = nullptr;
        std::uint8_t* exact = nullptr;
        std::vector<std::uint8_t> done;  // 1 once the entry is decided
    };

    std::int64_t undecided() {
        std::int64_t n = 0;
        for (const Slot& x : sl_) n += std::count(x.done.begin(), x.done.end(), std::uint8_t{0});
        return n;
    }
    std::string first_undecided() {
        for (Slot& s : sl_) {
            const GradField* x = s.f;
            const auto& d = s.done;
            const auto it = std::find(d.begin(), d.end(), std::uint8_t{0});
            if (it == d.end()) continue;
            const auto at = it - d.begin();
            if (x->shape.size() == 1) return fmt::format("{}[{}]", x->name, at);
            return fmt::format("{}[{}, {}]", x->name, at / x->shape[1], at % x->shape[1]);
        }
        return "an entry";
    }
    // One pass over the problem costs about `per` work units a multiply-add.
    void charge(double per, const std::string& what) const {
        const double units =
            static_cast<double>(nq_) * static_cast<double>(nk_) * static_cast<double>(2 * d_ + 3 * dv_ + 8) * per;
        if (!charge_work(units))
            throw over_work(units, fmt::format("{} of the gradients of {} queries over {} keys (d = {}, d_v = {})",
                                               what, nq_, nk_, d_, dv_));
    }

    void put_exact(Slot& x, std::int64_t at, const mpq_class& v) {
        auto& done = x.done;
        if (done[at]) return;
        x.val[at] = round_exact(v, f_);
        const auto [t, exact] = detail::toward_zero(v);  // within one ulp of a double
        if (exact)
            x.lo[at] = x.hi[at] = t;
        else
            x.lo[at] = detail::down(t), x.hi[at] = detail::up(t);
        x.exact[at] = 1;
        done[at] = 1;
    }
    // put_exact(x, at, Σ_c a_c b_c) without a rational where toward_zero_dot gives the sum toward
    // zero t (and whether it is t): then the sum lies in [t, t + ulp) away from zero, and rounds to
    // f as t does when t and its neighbour away from zero round alike (monotone rounding). False
    // (nothing stored) otherwise, a float64 rounding of an inexact t included.
    bool put_exact_dot(Slot& x, std::int64_t at, const std::optional<std::pair<double, bool>>& tz) {
        auto& done = x.done;
        if (done[at]) return true;
        if (!tz) return false;
        const auto [t, exact] = *tz;
        double r = round_to(t, f_);
        if (!exact) {
            if (f_ == FloatFormat::Float64 || round_to(t > 0 ? detail::up(t) : detail::down(t), f_) != r) return false;
            x.lo[at] = detail::down(t), x.hi[at] = detail::up(t);
        } else {
            x.lo[at] = x.hi[at] = t;
        }
        x.val[at] = r;
        x.exact[at] = 1;
        done[at] = 1;
        return true;
    }
    void put_value(Slot& x, std::int64_t at, double v) {  // a declared value (masked rows)
        x.val[at] = x.lo[at] = x.hi[at] = v;
        x.exact[at] = 1;
        x.done[at] = 1;
    }
    template <class A>
    void put_iv(Slot& x, std::int64_t at, const A& a, const typename A::Iv& v) {
        auto& done = x.done;
        if (done[at]) return;
        const auto r = a.decide(v, f_);
        if (!r) return;
        x.val[at] = *r;
        std::tie(x.lo[at], x.hi[at]) = a.bounds(v);
        x.exact[at] = 0;  // (a batch's arrays are not zeroed for each head)
        done[at] = 1;
    }

    [[nodiscard]] double q(std::int64_t i, std::int64_t x) const { return p_.q.data[i * d_ + x]; }
    [[nodiscard]] double k(std::int64_t j, std::int64_t x) const { return p_.k.data[j * d_ + x]; }
    [[nodiscard]] double v(std::int64_t j, std::int64_t c) const { return p_.v.data[j * dv_ + c]; }
    [[nodiscard]] double o(std::int64_t i, std::int64_t c) const { return do_.data[i * dv_ + c]; }
    [[nodiscard]] bool masked_row(std::int64_t i) const {
        return std::count(keep_[i].begin(), keep_[i].end(), std::uint8_t{1}) == 0;
    }

    // The exact stage (oracle_grad_exact.cpp, docs/oracle.md, "Exact entries"): the exact scores
    // c·q·k + b of row i's visible keys when c is rational and they differ by whole numbers; row
    // i's weights when rational (`lse` set when the log-sum-exp is too); every entry that is rational.
    std::optional<std::vector<mpq_class>> exact_scores(std::int64_t i, const mpq_class& c) const;
    std::optional<std::vector<mpq_class>> rational_weights(std::int64_t i, std::optional<mpq_class>& lse) const;
    void exact_entries();

    // A fully masked row: its output and log-sum-exp are the declared constants, which depend on
    // no input, so its weights, dS and dQ are 0 and it adds nothing to dK and dV.
    void masked(std::int64_t i) {
        if (p_.masked_rows == MaskedRows::Error)
            throw domain_error(
                fmt::format("query row {}: every key is masked (declare what such a row gives: nan or zeros)", i));
        for (std::int64_t c = 0; c < dv_; ++c)
            put_value(sl_[kOut], i * dv_ + c, p_.masked_rows == MaskedRows::NaN ? kNaN : 0.0);
        put_value(sl_[kLse], i, p_.masked_lse == MaskedLse::PosInf ? kInf : -kInf);
        put_value(sl_[kDelta], i, 0.0);
        for (std::int64_t j = 0; j < nk_; ++j)
            put_value(sl_[kP], i * nk_ + j, 0.0), put_value(sl_[kDs], i * nk_ + j, 0.0);
        for (std::int64_t x = 0; x < d_; ++x) put_value(sl_[kDq], i * d_ + x, 0.0);
    }

    // Whether any entry of `x` in [from, from + count) is still undecided.
    bool open(Slot& x, std::int64_t from, std::int64_t count) {
        const auto& d = x.done;
        return std::find(d.begin() + from, d.begin() + from + count, std::uint8_t{0}) != d.begin() + from + count;
    }
    // The columns c < count of the entries from + c of `x` still undecided.
    std::vector<std::int64_t> open_columns(Slot& x, std::int64_t from, std::int64_t count) {
        const auto& d = x.done;
        std::vector<std::int64_t> cols;
        for (std::int64_t c = 0; c < count; ++c)
            if (d[from + c] == 0) cols.push_back(c);
        return cols;
    }

    // Every entry still undecided, enclosed in the arithmetic `a` (doubles rounded outward, or
    // MPFR at its precision). Only what the undecided entries need is computed again: a row's
    // softmax where one of its entries is open or where a key some row sees has an open dK or
    // dV (they gather every row), its O only where O is open, dS where its row or key needs it.
    // D = Σ_j P_j dP_j (the same as Σ_c dO_c O_c, and enclosed far more tightly: one sum of
    // tight products instead of two levels of cancellation).
    template <class A>
    void enclose(const A& a) {
        using AIv = typename A::Iv;
        using Acc = typename A::Acc;
        std::vector<std::uint8_t> need_key(static_cast<std::size_t>(nk_));
        std::vector<std::vector<std::int64_t>> open_dk(static_cast<std::size_t>(nk_)), open_dv = open_dk;
        bool any_key = false;
        for (std::int64_t j = 0; j < nk_; ++j) {
            open_dk[j] = open_columns(sl_[kDk], j * d_, d_);
            open_dv[j] = open_columns(sl_[kDv], j * dv_, dv_);
            need_key[j] = !open_dk[j].empty() || !open_dv[j].empty();
            any_key = any_key || need_key[j] != 0;
        }
        const AIv lambda = lambda_of(a);
        // In doubles the sums over keys (O, dQ) and over rows (dK, dV) are Dot2 accumulators held
        // column by column and formed every column at once (kernels.cpp's accumulate_numerators:
        // per column the operations of DoubleArith::add_mul in the same order, so the same
        // enclosures); in MPFR one accumulator an open entry.
        constexpr bool kDouble = std::is_same_v<A, DoubleArith>;
        std::vector<Acc> dk, dv;
        Columns dk_cols, dv_cols, row_cols;
        std::vector<std::int64_t> key_rows(static_cast<std::size_t>(nk_), 0);  // the add_mul calls of key j's sums
        std::vector<double> e_lo(static_cast<std::size_t>(nk_)), e_hi = e_lo;
        const std::uint8_t one = 1;
        if constexpr (kDouble) {
            dk_cols.reset(static_cast<std::size_t>(nk_ * d_));
            dv_cols.reset(static_cast<std::size_t>(nk_ * dv_));
        } else {
            for (std::int64_t x = 0; x < nk_ * d_; ++x) dk.emplace_back(a.make_acc());
            for (std::int64_t x = 0; x < nk_ * dv_; ++x) dv.emplace_back(a.make_acc());
        }
        std::vector<AIv> s, w, ds, dp, slope;  // slope: ∂(capped score)/∂(scaled score) under a softcap
        for (std::int64_t j = 0; j < nk_; ++j) {
            s.emplace_back(a.make()), w.emplace_back(a.make()), ds.emplace_back(a.make()), dp.emplace_back(a.make());
            slope.emplace_back(a.make());
        }
        // A row's Dot2 accumulators of its scores and of dP, every key at once (dot2_keys).
        std::vector<double> s2(nk_), c2(nk_), abs2(nk_), ps2(nk_), pc2(nk_), pabs2(nk_);
        // In doubles, a row's scores (dot_of and the product by the scale) and its exponentials
        // (sub and exp) every key at once too (kernels.cpp's scores_keys and exp_keys, as the
        // forward's reference forms them: the same operations per key, the same enclosures).
        std::vector<double> k_lo(kDouble ? nk_ : 0), k_hi = k_lo, k_abs = k_lo;
        const auto acc_of = [](double sum, double err, double abs, std::int64_t n) {
            DoubleArith::Acc r;
            r.s = sum, r.c = err, r.abs = abs, r.n = n;
            return r;
        };
        // In doubles, row i's sums Σ_j e_j·m_jc over its visible keys for every column c < cols
        // (O = Σ P·V, and dQ's Σ dS·K) into row_cols: the enclosures' ends copied out, one Dot2
        // accumulator a column (generic, so only the double stage instantiates it).
        const auto row_sums = [&](std::int64_t i, const auto& e, const double* m, std::int64_t cols) {
            for (std::int64_t j = 0; j < nk_; ++j) e_lo[j] = e[j].lo, e_hi[j] = e[j].hi;
            row_cols.reset(static_cast<std::size_t>(cols));
            detail::accumulate_numerators(e_lo.data(), e_hi.data(), keep_[i].data(), m, nk_, cols, row_cols.s.data(),
                                          row_cols.c.data(), row_cols.abs.data(), row_cols.rad.data());
        };
        AIv t = a.make(), den = a.make(), x = a.make(), sum = a.make(), dd = a.make();
        Acc den_acc = a.make_acc(), acc = a.make_acc(), dd_acc = a.make_acc();
        for (std::int64_t i = 0; i < nq_; ++i) {
            if (masked_row(i)) continue;
            const std::vector<std::int64_t> open_dq = open_columns(sl_[kDq], i * d_, d_);
            const std::vector<std::int64_t> open_out = open_columns(sl_[kOut], i * dv_, dv_);
            const bool need_row = !open_dq.empty() || !open_out.empty() || open(sl_[kLse], i, 1) ||
                                  open(sl_[kDelta], i, 1) || open(sl_[kP], i * nk_, nk_) ||
                                  open(sl_[kDs], i * nk_, nk_);
            if (!need_row && !any_key) continue;
            auto m = a.make_shift();
            bool first = true;
            detail::dot2_keys(&p_.q.data[i * d_], kt_.data(), nk_, d_, s2.data(), c2.data(), abs2.data());
            detail::dot2_keys(&do_.data[i * dv_], vt_.data(), nk_, dv_, ps2.data(), pc2.data(), pabs2.data());
            if constexpr (kDouble) {
                const auto [c_lo, c_hi] = a.bounds(a.scale);
                detail::scores_keys(s2.data(), c2.data(), abs2.data(), nk_, d_, c_lo, c_hi, k_lo.data(), k_hi.data(),
                                    k_abs.data());
            }
            for (std::int64_t j = 0; j < nk_; ++j) {
                if (!keep_[i][j]) continue;
                if constexpr (kDouble) {
                    s[j] = {k_lo[j], k_hi[j]};
                } else {
                    dot_from(a, s[j], acc_of(s2[j], c2[j], abs2[j], d_), &p_.q.data[i * d_], &p_.k.data[j * d_]);
                    a.mul(s[j], s[j], a.scale);
                }
                if (p_.softcap > 0) {  // cap·tanh(x/cap), whose derivative is 1 − tanh²(x/cap)
                    a.softcap(s[j], p_.softcap);
                    a.softcap_slope(slope[j], s[j], p_.softcap);
                }
                if (!p_.bias.empty()) a.add_const(s[j], bias_at(p_, i, j));
                a.pick(m, s[j], first);
                first = false;
            }
            set_zero(den_acc);
            if constexpr (kDouble) {
                for (std::int64_t j = 0; j < nk_; ++j) k_lo[j] = s[j].lo, k_hi[j] = s[j].hi;
                detail::exp_keys(k_lo.data(), k_hi.data(), nk_, m, p_.base == ExpBase::Two, e_lo.data(), e_hi.data());
            }
            for (std::int64_t j = 0; j < nk_; ++j) {
                set_zero(w[j]);
                if (!keep_[i][j]) continue;
                if constexpr (kDouble) {
                    w[j] = {e_lo[j], e_hi[j]};
                } else {
                    a.sub(t, s[j], m);
                    a.exp(w[j], t);
                }
                a.add(den_acc, w[j]);
            }
            a.finish(den, den_acc);
            set_zero(dd_acc);
            for (std::int64_t j = 0; j < nk_; ++j) {
                if (!keep_[i][j]) continue;
                a.div(w[j], w[j], den);
                dot_from(a, dp[j], acc_of(ps2[j], pc2[j], pabs2[j], dv_), &do_.data[i * dv_],
                         &p_.v.data[j * dv_]);  // dP, exact from 256 bits
                mul_iv(a, t, w[j], dp[j]);
                a.add(dd_acc, t);
            }
            a.finish(dd, dd_acc);
            a.log_plus(x, den, m);
            put_iv(sl_[kLse], i, a, x);
            put_iv(sl_[kDelta], i, a, dd);
            const auto visible = static_cast<std::int64_t>(std::count(keep_[i].begin(), keep_[i].end(), 1));
            if constexpr (kDouble) {
                if (!open_out.empty()) row_sums(i, w, p_.v.data.data(), dv_);
            }
            for (const std::int64_t c : open_out) {
                if constexpr (kDouble) {
                    a.finish(sum, row_cols.at(static_cast<std::size_t>(c), visible));
                } else {
                    set_zero(acc);
                    for (std::int64_t j = 0; j < nk_; ++j)
                        if (keep_[i][j]) a.add_mul(acc, w[j], v(j, c));
                    a.finish(sum, acc);
                }
                put_iv(sl_[kOut], i * dv_ + c, a, sum);
            }
            for (std::int64_t j = 0; j < nk_; ++j) {
                put_iv(sl_[kP], i * nk_ + j, a, w[j]);
                set_zero(ds[j]);
                if (!keep_[i][j]) {
                    put_iv(sl_[kDs], i * nk_ + j, a, ds[j]);
                    continue;
                }
                if (!need_row && need_key[j] == 0) continue;
                sub_iv(a, t, dp[j], dd);
                mul_iv(a, ds[j], w[j], t);
                mul_iv(a, ds[j], ds[j], lambda);
                if (p_.softcap > 0) mul_iv(a, ds[j], ds[j], slope[j]);
                put_iv(sl_[kDs], i * nk_ + j, a, ds[j]);
                if (need_key[j] == 0) continue;
                if constexpr (kDouble) {  // every column of the key's sums (those not open are not read)
                    ++key_rows[j];
                    detail::accumulate_numerators(&ds[j].lo, &ds[j].hi, &one, &p_.q.data[i * d_], 1, d_,
                                                  dk_cols.s.data() + j * d_, dk_cols.c.data() + j * d_,
                                                  dk_cols.abs.data() + j * d_, dk_cols.rad.data() + j * d_);
                    detail::accumulate_numerators(&w[j].lo, &w[j].hi, &one, &do_.data[i * dv_], 1, dv_,
                                                  dv_cols.s.data() + j * dv_, dv_cols.c.data() + j * dv_,
                                                  dv_cols.abs.data() + j * dv_, dv_cols.rad.data() + j * dv_);
                } else {
                    for (const std::int64_t y : open_dk[j]) a.add_mul(dk[j * d_ + y], ds[j], q(i, y));
                    for (const std::int64_t c : open_dv[j]) a.add_mul(dv[j * dv_ + c], w[j], o(i, c));
                }
            }
            if constexpr (kDouble) {
                if (!open_dq.empty()) row_sums(i, ds, p_.k.data.data(), d_);
            }
            for (const std::int64_t y : open_dq) {
                if constexpr (kDouble) {
                    a.finish(sum, row_cols.at(static_cast<std::size_t>(y), visible));
                } else {
                    set_zero(acc);
                    for (std::int64_t j = 0; j < nk_; ++j)
                        if (keep_[i][j]) a.add_mul(acc, ds[j], k(j, y));
                    a.finish(sum, acc);
                }
                mul_iv(a, sum, sum, a.scale);
                put_iv(sl_[kDq], i * d_ + y, a, sum);
            }
        }
        for (std::int64_t j = 0; j < nk_; ++j) {
            for (const std::int64_t y : open_dk[j]) {
                if constexpr (kDouble)
                    a.finish(sum, dk_cols.at(static_cast<std::size_t>(j * d_ + y), key_rows[j]));
                else
                    a.finish(sum, dk[j * d_ + y]);
                mul_iv(a, sum, sum, a.scale);
                put_iv(sl_[kDk], j * d_ + y, a, sum);
            }
            for (const std::int64_t c : open_dv[j]) {
                if constexpr (kDouble)
                    a.finish(sum, dv_cols.at(static_cast<std::size_t>(j * dv_ + c), key_rows[j]));
                else
                    a.finish(sum, dv[j * dv_ + c]);
                put_iv(sl_[kDv], j * dv_ + c, a, sum);
            }
        }
    }

    const Problem& p_;
    const Tensor& do_;
    FloatFormat f_;
    std::int64_t nq_ = 0, nk_ = 0, d_ = 0, dv_ = 0;
    GradReference g_;
    std::array<Slot, kFields> sl_;
    std::vector<std::vector<std::uint8_t>> keep_;
    std::vector<double> kt_, vt_;  // K and V transposed: kt_[x·n_k + j] = k_jx (dot2_keys)
};

}  // namespace exactattn::oracle::detail::grad
