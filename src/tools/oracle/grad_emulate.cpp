// SPDX-License-Identifier: MIT
// exactattn oracle, backward pass: the standard backward and FlashAttention-2's emulated with
// every operation correctly rounded in the accumulator format (the forward's MPFR arithmetic,
// ieee.hpp), the stored tensors rounded to the storage format, and a trace (docs/oracle.md,
// "Emulating the backward").
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "arith.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/oracle_grad.hpp"
#include "fp8.hpp"
#include "ieee.hpp"

namespace exactattn::oracle {

namespace {

using detail::Ieee;
constexpr double kInf = std::numeric_limits<double>::infinity();

class GradEmulator {
  public:
    GradEmulator(const Problem& p, const Tensor& d_out, const GradSpec& s, FloatFormat output, bool trace)
        : p_(p), do_(d_out), s_(s), a_(s.accumulate), store_(s.storage_format(output)), output_(output), trace_(trace) {
        nq_ = p.q.rows(), nk_ = p.k.rows(), d_ = p.q.cols(), dv_ = p.v.cols();
        if (p.scale.kind == ScaleKind::SqrtDk) c_ = a_.div(1, a_.sqrt(static_cast<double>(d_)));
        if (p.scale.kind == ScaleKind::Given) c_ = round_to(p.scale.value, s.accumulate);
        if (p.base == ExpBase::Two) lambda_ = a_.log(2, ExpBase::E);
        if (p.softcap > 0) cap_ = round_to(p.softcap, s.accumulate);
        slope_.assign(static_cast<std::size_t>(p.q.rows() * p.k.rows()), 1.0);
        for (std::int64_t i = 0; i < nq_; ++i) keep_.push_back(visible_keys(p, i));
        e_.out = Tensor{{nq_, dv_}, std::vector<double>(static_cast<std::size_t>(nq_ * dv_), 0), store_};
        e_.lse = Tensor{{nq_}, std::vector<double>(static_cast<std::size_t>(nq_), 0), s.accumulate};
        e_.dq = Tensor{{nq_, d_}, std::vector<double>(static_cast<std::size_t>(nq_ * d_), 0), output};
        e_.dk = Tensor{{nk_, d_}, std::vector<double>(static_cast<std::size_t>(nk_ * d_), 0), output};
        e_.dv = Tensor{{nk_, dv_}, std::vector<double>(static_cast<std::size_t>(nk_ * dv_), 0), output};
        p_s_.assign(static_cast<std::size_t>(nq_ * nk_), 0);
    }

    GradEmulation run() {
        for (std::int64_t i = 0; i < nq_; ++i) {
            charge(i);
            if (masked(i)) continue;
            s_.algorithm == GradAlgorithm::Standard ? standard_forward(i) : online_forward(i);
        }
        if (s_.algorithm == GradAlgorithm::Standard)
            for (std::int64_t i = 0; i < nq_; ++i) standard_backward(i);
        else
            flash2_backward();
        if (s_.p_format && !s_.p_descale.per_block && s_.p_descale.value != 1)
            for (double& x : e_.dv.data) x = a_.div(x, s_.p_descale.value);  // the static descale undone
        if (s_.ds_format && !s_.ds_descale.per_block && s_.ds_descale.value != 1)
            for (Tensor* t : {&e_.dq, &e_.dk})
                for (double& x : t->data) x = a_.div(x, s_.ds_descale.value);
        for (const auto& [name, t] : {std::pair{"dq", &e_.dq}, {"dk", &e_.dk}, {"dv", &e_.dv}})
            for (std::size_t at = 0; at < t->data.size(); ++at) {
                const auto x = static_cast<std::int64_t>(at);
                t->data[at] =
                    cast_counted(t->data[at], output_, s_.fp8_overflow, e_.fp8, name, x / t->cols(), x % t->cols());
            }
        return std::move(e_);
    }

  private:
    void note(const std::string& m) {
        if (trace_) e_.trace.push_back(m);
    }
    double st(double x) const { return round_to(x, store_); }
    bool stored_s() const { return s_.algorithm == GradAlgorithm::Standard; }
    void charge(std::int64_t i) const {
        const double keys = static_cast<double>(std::count(keep_[i].begin(), keep_[i].end(), std::uint8_t{1}));
        const double units = 3000.0 * keys * static_cast<double>(4 * d_ + 4 * dv_ + 12);
        if (!charge_work(units)) throw over_work(units, fmt::format("emulating the backward of query row {}", i));
    }
    bool masked(std::int64_t i) {
        if (std::find(keep_[i].begin(), keep_[i].end(), std::uint8_t{1}) != keep_[i].end()) return false;
        if (p_.masked_rows == MaskedRows::Error)
            throw domain_error(
                fmt::format("query row {}: every key is masked (declare what such a row gives: nan or zeros)", i));
        const double v = p_.masked_rows == MaskedRows::NaN ? std::numeric_limits<double>::quiet_NaN() : 0.0;
        for (std::int64_t c = 0; c < dv_; ++c) e_.out.data[i * dv_ + c] = v;
        e_.lse.data[i] = p_.masked_lse == MaskedLse::PosInf ? kInf : -kInf;
        note(fmt::format("row {}: every key masked: O = {}, its gradients 0", i, v));
        return true;
    }

    // fl(fl(Σ_x q_x k_x) · c) + bias, the dot product from x = 0 up.
    double score(std::int64_t i, std::int64_t j) {
        double acc = 0;
        for (std::int64_t x = 0; x < d_; ++x) acc = a_.add(acc, a_.mul(p_.q.data[i * d_ + x], p_.k.data[j * d_ + x]));
        double s = c_ == 1 ? acc : a_.mul(acc, c_);
        if (cap_ > 0) {  // cap·tanh(s/cap), and the slope 1 − t² its dS is multiplied by
            const double t = a_.tanh(a_.div(s, cap_));
            s = a_.mul(t, cap_);
            slope_[i * nk_ + j] = a_.sub(1, a_.mul(t, t));
        }
        if (!p_.bias.empty()) s = a_.add(s, bias_at(p_, i, j));
        return s;
    }
    double dot_dp(std::int64_t i, std::int64_t j) {
        double acc = 0;
        for (std::int64_t c = 0; c < dv_; ++c) acc = a_.add(acc, a_.mul(do_.data[i * dv_ + c], p_.v.data[j * dv_ + c]));
        return acc;
    }
    double delta_from_out(std::int64_t i) {
        double acc = 0;
        for (std::int64_t c = 0; c < dv_; ++c)
            acc = a_.add(acc, a_.mul(do_.data[i * dv_ + c], e_.out.data[i * dv_ + c]));
        return acc;
    }
    // dS' = fl(fl(P · fl(dP − D)) · c) (· λ under base 2), each step stored when the algorithm
    // stores it (standard).
    double ds(double p, double dp, double dd, double slope) {
        const auto keep = [&](double x) { return stored_s() ? st(x) : x; };
        double r = keep(a_.mul(p, keep(a_.sub(dp, dd))));
        if (cap_ > 0) r = keep(a_.mul(r, slope));  // the softcap's 1 − tanh²
        if (c_ != 1) r = a_.mul(r, c_);
        if (p_.base == ExpBase::Two) r = a_.mul(r, lambda_);
        return st(r);
    }
    void count_flushed(std::int64_t i, const std::vector<double>& e, const char* what) {
        std::int64_t under = 0, flushed = 0;
        for (std::int64_t j = 0; j < nk_; ++j) {
            if (!keep_[i][j]) continue;
            if (e[j] == 0) ++under;
            if (e[j] != 0 && st(e[j]) == 0) ++flushed;
        }
        if (under > 0) note(fmt::format("row {}: {} of its exponentials underflow to 0 ({})", i, under, what));
        if (flushed > 0)
            note(fmt::format("row {}: {} nonzero probabilities flushed to 0 when P is stored as {}", i, flushed,
                             info(store_).name));
    }

    // P̃ = fl_p(fl(P·σ)) for the keys [start, end) of row i, the probabilities the kernel has in
    // `p` (docs/oracle.md, "8-bit floats"): σ static or the block's own, kept in `sigma`; without
    // an 8-bit P claimed, P as the algorithm keeps it (`kept`) and σ = 1.
    void cast_p(std::int64_t i, std::int64_t start, std::int64_t end, const std::vector<double>& p,
                const std::vector<double>& kept, std::vector<double>& pt, std::vector<double>& sigma) {
        double largest = 0;
        for (std::int64_t j = start; j < end; ++j)
            if (keep_[i][j]) largest = std::max(largest, p[j]);
        const double sg = !s_.p_format             ? 1
                          : s_.p_descale.per_block ? block_descale(largest, *s_.p_format)
                                                   : s_.p_descale.value;
        std::int64_t collapsed = 0;
        for (std::int64_t j = start; j < end; ++j) {
            if (!keep_[i][j]) continue;
            sigma[j] = sg;
            if (!s_.p_format) {
                pt[j] = kept[j];
                continue;
            }
            const double x = sg == 1 ? p[j] : a_.mul(p[j], sg);
            pt[j] = cast_counted(x, *s_.p_format, s_.fp8_overflow, e_.fp8, "P", i, j);
            if (p[j] > 0 && pt[j] == 0) e_.fp8.collapse(p[j], i, j), ++collapsed;
        }
        if (collapsed > 0)
            note(fmt::format("row {}, keys {} to {}: {} probabilities flushed to 0 by the cast of P·{} to {}", i, start,
                             end - 1, collapsed, sg, info(*s_.p_format).name));
    }
    // dS̃ = fl_8(fl(dS·σ)) for the keys [start, end) of row i (docs/oracle.md, "Gradients with
    // 8-bit floats"), in place in `g`, σ in `sigma`: static, or from the block's largest |dS|.
    void cast_ds(std::int64_t i, std::int64_t start, std::int64_t end, std::vector<double>& g,
                 std::vector<double>& sigma) {
        double largest = 0;
        for (std::int64_t j = start; j < end; ++j)
            if (keep_[i][j]) largest = std::max(largest, std::fabs(g[j]));
        const double sg = !s_.ds_format             ? 1
                          : s_.ds_descale.per_block ? block_descale(largest, *s_.ds_format)
                                                    : s_.ds_descale.value;
        std::int64_t flushed = 0;
        for (std::int64_t j = start; j < end; ++j) {
            sigma[j] = sg;
            if (!keep_[i][j] || !s_.ds_format) continue;
            const double y =
                cast_counted(sg == 1 ? g[j] : a_.mul(g[j], sg), *s_.ds_format, s_.fp8_overflow, e_.fp8, "dS", i, j);
            if (g[j] != 0 && y == 0) ++flushed;
            g[j] = y;
        }
        if (flushed > 0)
            note(fmt::format("row {}, keys {} to {}: {} nonzero dS flushed to 0 by the cast of dS·{} to {}", i, start,
                             end - 1, flushed, sg, info(*s_.ds_format).name));
    }
    // A term of dQ or dK: fl(dS̃·x), divided by its block's σ under the per-block descale.
    double ds_term(double g, double sigma, double x) {
        const double t = a_.mul(g, x);
        return s_.ds_descale.per_block && s_.ds_format ? a_.div(t, sigma) : t;
    }
    // A term of dV: fl(P̃·dO), divided by its block's σ under the per-block descale (the static
    // one is divided out of the sum at the end).
    double dv_term(double pt, double sigma, double g) {
        const double t = a_.mul(pt, g);
        return s_.p_descale.per_block && s_.p_format ? a_.div(t, sigma) : t;
    }

    // Safe softmax with S and P stored, O = Σ_j fl(P_j v_j) in key order, stored.
    void standard_forward(std::int64_t i) {
        std::vector<double> s(static_cast<std::size_t>(nk_), -kInf), e(static_cast<std::size_t>(nk_), 0);
        double m = -kInf, den = 0;
        for (std::int64_t j = 0; j < nk_; ++j)
            if (keep_[i][j]) s[j] = st(score(i, j)), m = std::max(m, s[j]);
        for (std::int64_t j = 0; j < nk_; ++j)
            if (keep_[i][j]) e[j] = a_.exp(a_.sub(s[j], m), p_.base), den = a_.add(den, e[j]);
        count_flushed(i, e, "the forward");
        for (std::int64_t j = 0; j < nk_; ++j)
            if (keep_[i][j]) p_s_[i * nk_ + j] = st(a_.div(e[j], den));
        for (std::int64_t c = 0; c < dv_; ++c) {
            double acc = 0;
            for (std::int64_t j = 0; j < nk_; ++j)
                if (keep_[i][j]) acc = a_.add(acc, a_.mul(p_s_[i * nk_ + j], p_.v.data[j * dv_ + c]));
            e_.out.data[i * dv_ + c] = st(acc);
        }
        e_.lse.data[i] = a_.add(m, a_.log(den, p_.base));
    }

    // FlashAttention-2's forward: blocks of keys, running max m, ℓ and O rescaled by
    // α = exp(m − m_new), P stored before P·V, O = O/ℓ stored, LSE = m + log ℓ kept.
    void online_forward(std::int64_t i) {
        const std::int64_t b = std::max<std::int64_t>(1, s_.block);
        double m = -kInf, ell = 0;
        std::vector<double> o(static_cast<std::size_t>(dv_), 0), e(static_cast<std::size_t>(nk_), 0);
        for (std::int64_t start = 0; start < nk_; start += b) {
            const std::int64_t end = std::min(nk_, start + b);
            double m_new = m;
            std::vector<double> s(static_cast<std::size_t>(end - start), -kInf);
            for (std::int64_t j = start; j < end; ++j)
                if (keep_[i][j]) s[j - start] = score(i, j), m_new = std::max(m_new, s[j - start]);
            if (m_new == -kInf) continue;
            const double alpha = m == -kInf ? 0 : a_.exp(a_.sub(m, m_new), p_.base);
            double sum = 0;
            std::vector<double> blk(static_cast<std::size_t>(dv_), 0);
            for (std::int64_t j = start; j < end; ++j) {
                if (!keep_[i][j]) continue;
                e[j] = a_.exp(a_.sub(s[j - start], m_new), p_.base);
                sum = a_.add(sum, e[j]);
                const double pj = st(e[j]);
                for (std::int64_t c = 0; c < dv_; ++c) blk[c] = a_.add(blk[c], a_.mul(pj, p_.v.data[j * dv_ + c]));
            }
            ell = a_.add(a_.mul(alpha, ell), sum);
            for (std::int64_t c = 0; c < dv_; ++c) o[c] = a_.add(a_.mul(alpha, o[c]), blk[c]);
            m = m_new;
        }
        for (std::int64_t c = 0; c < dv_; ++c) e_.out.data[i * dv_ + c] = st(a_.div(o[c], ell));
        e_.lse.data[i] = a_.add(m, a_.log(ell, p_.base));
        note(fmt::format("row {}: the forward saves lse = {:a}", i, e_.lse.data[i]));
    }

    void standard_backward(std::int64_t i) {
        if (std::find(keep_[i].begin(), keep_[i].end(), std::uint8_t{1}) == keep_[i].end()) return;
        std::vector<double> dp(static_cast<std::size_t>(nk_), 0);
        double dd = 0;
        for (std::int64_t j = 0; j < nk_; ++j)
            if (keep_[i][j]) dp[j] = st(dot_dp(i, j));
        if (s_.delta_from() == DeltaFrom::Out) {
            dd = delta_from_out(i);
        } else {
            for (std::int64_t j = 0; j < nk_; ++j)
                if (keep_[i][j]) dd = a_.add(dd, a_.mul(p_s_[i * nk_ + j], dp[j]));
        }
        dd = st(dd);
        const std::vector<double> prow(p_s_.begin() + i * nk_, p_s_.begin() + (i + 1) * nk_);
        std::vector<double> pt(static_cast<std::size_t>(nk_), 0), sigma(static_cast<std::size_t>(nk_), 1);
        const std::int64_t b = std::max<std::int64_t>(1, s_.block);
        std::vector<double> g(static_cast<std::size_t>(nk_), 0), gsig = sigma;
        for (std::int64_t j = 0; j < nk_; ++j) {
            if (!keep_[i][j]) continue;
            g[j] = ds(prow[j], dp[j], dd, slope_[i * nk_ + j]);
            if (std::isinf(g[j])) note(fmt::format("dS[{}, {}] overflows {}", i, j, info(store_).name));
        }
        for (std::int64_t start = 0; start < nk_; start += b) {
            cast_p(i, start, std::min(nk_, start + b), prow, prow, pt, sigma);
            cast_ds(i, start, std::min(nk_, start + b), g, gsig);
        }
        for (std::int64_t j = 0; j < nk_; ++j) {
            if (!keep_[i][j]) continue;
            for (std::int64_t x = 0; x < d_; ++x) {
                e_.dq.data[i * d_ + x] = a_.add(e_.dq.data[i * d_ + x], ds_term(g[j], gsig[j], p_.k.data[j * d_ + x]));
                e_.dk.data[j * d_ + x] = a_.add(e_.dk.data[j * d_ + x], ds_term(g[j], gsig[j], p_.q.data[i * d_ + x]));
            }
            for (std::int64_t c = 0; c < dv_; ++c)
                e_.dv.data[j * dv_ + c] =
                    a_.add(e_.dv.data[j * dv_ + c], dv_term(pt[j], sigma[j], do_.data[i * dv_ + c]));
        }
    }

    // Key blocks outside, query rows inside (FlashAttention-2's loop order): P = exp(S − LSE)
    // recomputed, dS in the accumulator then stored, P stored before dV; dQ gathers one partial
    // sum per key block.
    void flash2_backward() {
        std::vector<double> dd(static_cast<std::size_t>(nq_), 0);
        for (std::int64_t i = 0; i < nq_; ++i) dd[i] = delta_from_out(i);
        const std::int64_t b = std::max<std::int64_t>(1, s_.block);
        std::vector<double> blk(static_cast<std::size_t>(d_));
        std::vector<double> pr(static_cast<std::size_t>(nk_), 0), ps = pr, pt = pr, sigma = pr, g = pr, gsig = pr;
        for (std::int64_t start = 0; start < nk_; start += b) {
            const std::int64_t end = std::min(nk_, start + b);
            for (std::int64_t i = 0; i < nq_; ++i) {
                std::fill(blk.begin(), blk.end(), 0.0);
                std::int64_t flushed = 0;
                bool any = false;
                for (std::int64_t j = start; j < end; ++j) {
                    if (!keep_[i][j]) continue;
                    pr[j] = a_.exp(a_.sub(score(i, j), e_.lse.data[i]), p_.base), ps[j] = st(pr[j]);
                    if (pr[j] != 0 && ps[j] == 0) ++flushed;
                    g[j] = ds(pr[j], dot_dp(i, j), dd[i], slope_[i * nk_ + j]);
                }
                cast_p(i, start, end, pr, ps, pt, sigma);
                cast_ds(i, start, end, g, gsig);
                for (std::int64_t j = start; j < end; ++j) {
                    if (!keep_[i][j]) continue;
                    any = true;
                    for (std::int64_t x = 0; x < d_; ++x) {
                        blk[x] = a_.add(blk[x], ds_term(g[j], gsig[j], p_.k.data[j * d_ + x]));
                        e_.dk.data[j * d_ + x] =
                            a_.add(e_.dk.data[j * d_ + x], ds_term(g[j], gsig[j], p_.q.data[i * d_ + x]));
                    }
                    for (std::int64_t c = 0; c < dv_; ++c)
                        e_.dv.data[j * dv_ + c] =
                            a_.add(e_.dv.data[j * dv_ + c], dv_term(pt[j], sigma[j], do_.data[i * dv_ + c]));
                }
                if (flushed > 0)
                    note(fmt::format(
                        "key block {}, row {}: {} nonzero probabilities flushed to 0 when P is stored as {}", start / b,
                        i, flushed, info(store_).name));
                if (any)
                    for (std::int64_t x = 0; x < d_; ++x)
                        e_.dq.data[i * d_ + x] = a_.add(e_.dq.data[i * d_ + x], blk[x]);
            }
        }
    }

    const Problem& p_;
    const Tensor& do_;
    const GradSpec& s_;
    Ieee a_;
    FloatFormat store_, output_;
    bool trace_ = false;
    std::int64_t nq_ = 0, nk_ = 0, d_ = 0, dv_ = 0;
    double c_ = 1, lambda_ = 1;
    double cap_ = 0;             // the softcap rounded to the accumulator (0: none)
    std::vector<double> slope_;  // n_q × n_k: fl(1 − fl(t²)) of the last score computed
    std::vector<std::vector<std::uint8_t>> keep_;
    std::vector<double> p_s_;  ///< the standard forward's stored P
    GradEmulation e_;
};

std::string spec_text(const GradSpec& s, FloatFormat output) {
    std::string p;
    if (s.p_format)
        p = fmt::format(", P in {} for dV (descale {}{})", info(*s.p_format).name,
                        s.p_descale.per_block ? fmt::format("per block of {} keys", s.block)
                                              : fmt::format("{:g}", s.p_descale.value),
                        is_fp8(*s.p_format) ? fmt::format(", overflow {}", fp8_overflow_name(s.fp8_overflow)) : "");
    if (s.ds_format)
        p += fmt::format(", dS in {} for dQ and dK (descale {})", info(*s.ds_format).name,
                         s.ds_descale.per_block ? fmt::format("per block of {} keys", s.block)
                                                : fmt::format("{:g}", s.ds_descale.value));
    return fmt::format("{} backward, accumulate {}, storage {}, D from {}{}{}", grad_algorithm_name(s.algorithm),
                       info(s.accumulate).name, info(s.storage_format(output)).name,
                       s.delta_from() == DeltaFrom::Out ? "O" : "P∘dP",
                       s.algorithm == GradAlgorithm::Flash2 ? fmt::format(", key blocks of {}", s.block) : "", p);
}

}  // namespace

std::string grad_spec_text(const GradSpec& s, FloatFormat output) { return spec_text(s, output); }

GradEmulation grad_emulate(const Problem& p, const Tensor& d_out, const GradSpec& s, FloatFormat output, bool trace) {
    validate(p);
    detail::check_d_out(p, d_out);
    check_grad_spec(s);
    return GradEmulator(p, d_out, s, output, trace).run();
}

std::string grad_emulation_text(const GradEmulation& e, const GradSpec& s) {
    std::string out =
        fmt::format("oracle grad-emulate: {}, gradients in {}\n", spec_text(s, e.dq.format), info(e.dq.format).name);
    for (const auto& [name, t] : {std::pair{"dq", &e.dq}, {"dk", &e.dk}, {"dv", &e.dv}, {"out", &e.out}})
        for (std::size_t at = 0; at < t->data.size(); ++at)
            out += fmt::format("{}[{}, {}] = {:.9g} ({:a})\n", name, static_cast<std::int64_t>(at) / t->shape[1],
                               static_cast<std::int64_t>(at) % t->shape[1], t->data[at], t->data[at]);
    for (std::size_t at = 0; at < e.lse.data.size(); ++at)
        out += fmt::format("lse[{}] = {:.9g} ({:a})\n", at, e.lse.data[at], e.lse.data[at]);
    out += fp8_events_text(e.fp8);
    for (const auto& line : e.trace) out += "trace: " + line + "\n";
    return out;
}

std::string grad_emulation_json(const GradEmulation& e, const GradSpec& s) {
    nlohmann::ordered_json j;
    j["algorithm"] = grad_algorithm_name(s.algorithm);
    j["accumulate"] = info(s.accumulate).name;
    j["storage"] = info(s.storage_format(e.dq.format)).name;
    j["dtype"] = info(e.dq.format).name;
    j["delta_from"] = s.delta_from() == DeltaFrom::Out ? "o" : "p";
    j["block"] = s.block;
    j["p_dtype"] = s.p_format ? nlohmann::json(info(*s.p_format).name) : nlohmann::json();
    j["p_descale"] = s.p_descale.per_block ? nlohmann::json("block") : nlohmann::json(s.p_descale.value);
    j["ds_dtype"] = s.ds_format ? nlohmann::json(info(*s.ds_format).name) : nlohmann::json();
    j["ds_descale"] = s.ds_descale.per_block ? nlohmann::json("block") : nlohmann::json(s.ds_descale.value);
    j["fp8_overflow"] = fp8_overflow_name(s.fp8_overflow);
    const auto values = [](const Tensor& t) {
        nlohmann::json a = nlohmann::json::array();
        for (double x : t.data)
            a.push_back(std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(fmt::format("{}", x)));
        return a;
    };
    for (const auto& [name, t] :
         {std::pair{"dq", &e.dq}, {"dk", &e.dk}, {"dv", &e.dv}, {"out", &e.out}, {"lse", &e.lse}})
        j[name] = {{"shape", t->shape}, {"values", values(*t)}};
    j["fp8"] = nlohmann::json(fp8_events_object(e.fp8));
    j["trace"] = e.trace;
    return j.dump() + '\n';
}

}  // namespace exactattn::oracle
