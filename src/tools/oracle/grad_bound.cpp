// SPDX-License-Identifier: MIT
// exactattn oracle, backward pass: the running bound on a kernel's dQ, dK and dV for the standard
// backward and FlashAttention-2's, from the problem's actual magnitudes, and the verdict
// (docs/oracle.md, "Bounds for the backward"). Each step's error is propagated forward in
// doubles: a computed x̂ with |x̂ − x| ≤ e_x, |x| ≤ X; a product adds X e_y + Y e_x + e_x e_y, a
// sum of n terms in any order γ_n Σ |terms|, a rounding u(X + e) + η.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arith.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/oracle_grad.hpp"
#include "fp8.hpp"
#include "grad_wide.hpp"

namespace exactattn::oracle {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A format's unit roundoff, least subnormal and largest finite value; `exact` when rounding a
// value of the accumulator to it changes nothing (no rounding is charged).
struct Fmt {
    double u = 0, eta = 0, max = kInf;
    bool exact = false;
};

bool nests(FloatFormat inner, FloatFormat outer) {
    const auto &a = info(inner), &b = info(outer);
    return a.precision <= b.precision && a.emin >= b.emin && a.emax <= b.emax;
}

Fmt fmt_of(FloatFormat f, FloatFormat acc) {
    Fmt r{unit_roundoff(f), least_subnormal(f), max_finite(f), nests(acc, f)};
    if (r.exact) r.u = r.eta = 0;
    return r;
}

// γ_n = nu/(1 − nu), +inf when nu ≥ 1.
double gam(double n, double u) { return n * u >= 1 ? kInf : n * u / (1 - n * u); }
// A computed value of magnitude ≤ x and error ≤ e after one more rounding to f.
double rnd(double x, double e, const Fmt& f) { return f.exact ? e : e + f.u * (x + e) + f.eta; }
double mag(double lo, double hi) { return std::max(std::fabs(lo), std::fabs(hi)); }
// |y − x| ≤ this for every x in [lo, hi], rounded up (0 when y is the exact value).
double dist(double y, double lo, double hi) {
    const double m = std::max(std::fabs(y - lo), std::fabs(y - hi));
    return m == 0 ? 0 : detail::up(m);
}

// Σ_x a_x b_jx and Σ_x |a_x b_jx| (x < len, b_j = b + j·len) into dot[j] and adot[j] for every key j
// of js, four keys at a time: each key's sums in the order x = 0, 1, … (the same bits as one key
// at a time), the four keys' chains of additions independent so that they overlap (a key at a
// time, each addition waited for the one before: most of the bounds' time).
void key_sums(const std::vector<std::int64_t>& js, const double* a, const double* b, std::int64_t len, double* dot,
              double* adot) {
    std::size_t y = 0;
    for (; y + 4 <= js.size(); y += 4) {
        const double *b0 = b + js[y] * len, *b1 = b + js[y + 1] * len, *b2 = b + js[y + 2] * len,
                     *b3 = b + js[y + 3] * len;
        double d0 = 0, d1 = 0, d2 = 0, d3 = 0, a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        for (std::int64_t x = 0; x < len; ++x) {
            const double p0 = a[x] * b0[x], p1 = a[x] * b1[x], p2 = a[x] * b2[x], p3 = a[x] * b3[x];
            d0 += p0, d1 += p1, d2 += p2, d3 += p3;
            a0 += std::fabs(p0), a1 += std::fabs(p1), a2 += std::fabs(p2), a3 += std::fabs(p3);
        }
        dot[js[y]] = d0, dot[js[y + 1]] = d1, dot[js[y + 2]] = d2, dot[js[y + 3]] = d3;
        adot[js[y]] = a0, adot[js[y + 1]] = a1, adot[js[y + 2]] = a2, adot[js[y + 3]] = a3;
    }
    for (; y < js.size(); ++y) {
        double d0 = 0, a0 = 0;
        for (std::int64_t x = 0; x < len; ++x) {
            const double p0 = a[x] * b[js[y] * len + x];
            d0 += p0, a0 += std::fabs(p0);
        }
        dot[js[y]] = d0, adot[js[y]] = a0;
    }
}

class Bounder {
  public:
    // `wide`: g's P and dP are there (a batch's arrays), not in g.p and g.dp.
    Bounder(const Problem& p, const Tensor& d_out, const GradReference& g, const GradSpec& s,
            const detail::WideOut* wide = nullptr)
        : p_(p), do_(d_out), g_(g), s_(s) {
        p_hi_ = wide != nullptr ? wide->p.hi : g.p.hi.data();
        dp_lo_ = wide != nullptr ? wide->dp.lo : g.dp.lo.data();
        dp_hi_ = wide != nullptr ? wide->dp.hi : g.dp.hi.data();
        nq_ = p.q.rows(), nk_ = p.k.rows(), d_ = p.q.cols(), dv_ = p.v.cols();
        a_ = fmt_of(s.accumulate, s.accumulate);
        a_.exact = false, a_.u = unit_roundoff(s.accumulate), a_.eta = least_subnormal(s.accumulate);
        st_ = fmt_of(s.storage_format(g.format), s.accumulate);
        out_ = fmt_of(g.format, s.accumulate);
        c_ = p.scale.kind == ScaleKind::None    ? 1.0
             : p.scale.kind == ScaleKind::Given ? std::fabs(p.scale.value)
                                                : detail::up(1 / std::sqrt(static_cast<double>(d_)));
        lambda_ = p.base == ExpBase::E ? 1.0 : detail::up(std::log(2.0));
        cap_ = p.softcap;
        tanh_.assign(static_cast<std::size_t>(p.k.rows()), 0.0);
        b_.dq.assign(static_cast<std::size_t>(nq_ * d_), 0);
        b_.dk.assign(static_cast<std::size_t>(nk_ * d_), 0);
        b_.dv.assign(static_cast<std::size_t>(nk_ * dv_), 0);
        dk_sum_ = dk_err_ = b_.dk;
        dv_sum_ = dv_err_ = b_.dv;
        seen_.assign(static_cast<std::size_t>(nk_), 0);
        bad_key_.assign(static_cast<std::size_t>(nk_), 0);
        if (s.p_format) {  // an 8-bit P for dV: the forward's online terms (docs/oracle.md, "8-bit floats")
            AlgorithmSpec online;
            online.algorithm = Algorithm::Online;
            online.accumulate = s.accumulate;
            online.p_format = *s.p_format;
            online.p_descale = s.p_descale;
            const PCastTerms t = p_cast_terms(online);
            p_rel_ = (1 + unit_roundoff(*s.p_format)) * (1 + t.relative) - 1;
            p_abs_ = t.absolute;
            p_why_ = t.why;
        }
    }

    GradBounds run() {
        for (std::int64_t i = 0; i < nq_; ++i) row(i);
        const double widen = 1 + std::ldexp(1.0, -20);  // the bound's own roundings in double
        // dK and dV: each key's sums over the rows that see it.
        const auto keys = [&](std::vector<double>& out, const std::vector<double>& err, const std::vector<double>& sum,
                              std::int64_t cols, const GradField& f, std::string& why) {
            for (std::int64_t j = 0; j < nk_; ++j) {
                const double n = static_cast<double>(seen_[j]);
                for (std::int64_t x = 0; x < cols; ++x) {
                    const auto at = static_cast<std::size_t>(j * cols + x);
                    out[at] = bad_key_[j]
                                  ? kInf
                                  : finish(err[at] + gam(n, a_.u) * sum[at] + n * a_.eta, sum[at], f, at, why) * widen;
                }
            }
        };
        keys(b_.dk, dk_err_, dk_sum_, d_, g_.dk, b_.why_dk);
        keys(b_.dv, dv_err_, dv_sum_, dv_, g_.dv, b_.why_dv);
        for (auto& x : b_.dq) x *= widen;
        if (b_.why_dk.empty() && !bad_reason_.empty()) b_.why_dk = bad_reason_;
        if (b_.why_dv.empty() && !bad_reason_.empty()) b_.why_dv = bad_reason_;
        return std::move(b_);
    }

  private:
    // A gradient's accumulated error `e` (terms' magnitudes summing to `sum`), rounded to the
    // gradients' format; +inf when the sum may overflow the accumulator or the output format.
    double finish(double e, double sum, const GradField& f, std::size_t at, std::string& why) const {
        if (sum + e >= a_.max || sum + e >= out_.max) {
            if (why.empty())
                why = fmt::format("{}: the sum of its terms' magnitudes {:.6g} may overflow {}", f.name, sum + e,
                                  info(sum + e >= a_.max ? s_.accumulate : g_.format).name);
            return kInf;
        }
        return rnd(mag(f.lo[at], f.hi[at]), e, out_);
    }
    double stored(double x, double e) const { return rnd(x, e, st_); }

    // dS cast to an 8-bit format with a descale (docs/oracle.md, "Gradients with 8-bit floats"):
    // each error e_S grows to e_S + (|dS| + e_S)((1 + u_8)(1 + u_a)² − 1) + η_8/(2σ), σ static or
    // the block's own, 2^⌊log2(max/M̂_b)⌋ > max/(2M_b) (M_b ≥ the block's largest computed |dS|), so
    // that η_8/(2σ_b) < η_8·M_b/max; nonempty: why a static σ guarantees nothing.
    std::string cast_ds(std::int64_t i, const std::vector<std::int64_t>& js, std::vector<double>& es,
                        std::vector<double>& sm) const {
        const FloatFormat f = *s_.ds_format;
        const double u8 = unit_roundoff(f), eta8 = least_subnormal(f), mx = max_finite(f);
        const double rel = (1 + u8) * (1 + a_.u) * (1 + a_.u) - 1;
        const std::int64_t b = std::max<std::int64_t>(1, s_.block);
        std::vector<double> block_max(static_cast<std::size_t>(nk_ / b + 1), 0), grow(es.size(), 0);
        for (auto j : js) block_max[j / b] = std::max(block_max[j / b], sm[j]);
        for (auto j : js) {
            const double sigma = s_.ds_descale.value;
            if (!s_.ds_descale.per_block && sm[j] * sigma * (1 + a_.u) >= mx)
                return fmt::format("dS[{}, {}]·{:g} may leave {}'s range (max {:g}): no guarantee", i, j, sigma,
                                   info(f).name, mx);
            grow[j] = sm[j] * rel + (s_.ds_descale.per_block ? eta8 * block_max[j / b] / mx : eta8 / (2 * sigma));
        }
        for (auto j : js) es[j] += grow[j], sm[j] += grow[j];
        return "";
    }
    bool standard() const { return s_.algorithm == GradAlgorithm::Standard; }

    void unbounded_row(std::int64_t i, const std::vector<std::uint8_t>& keep, const std::string& why) {
        for (std::int64_t x = 0; x < d_; ++x) b_.dq[i * d_ + x] = kInf;
        for (std::int64_t j = 0; j < nk_; ++j)
            if (keep[j]) bad_key_[j] = 1;
        if (b_.why_dq.empty()) b_.why_dq = fmt::format("query row {}: {}", i, why);
        if (bad_reason_.empty()) bad_reason_ = fmt::format("query row {} (which sees the key): {}", i, why);
    }

    void row(std::int64_t i) {
        const auto keep = visible_keys(p_, i);
        std::vector<std::int64_t> js;
        for (std::int64_t j = 0; j < nk_; ++j)
            if (keep[j]) js.push_back(j), ++seen_[j];
        if (js.empty()) return;  // a fully masked row: every gradient of it is exactly 0
        if (!p_why_.empty()) return unbounded_row(i, keep, p_why_);
        const double n = static_cast<double>(js.size()), ua = a_.u, ea = a_.eta;
        // Scores: their magnitudes a_j + |b_j|, approximate values (for the gaps) and errors ε_j.
        std::vector<double> s(static_cast<std::size_t>(nk_)), eps = s, big = s;
        double smax = -kInf, smin = kInf, eps_max = 0;
        const double gd = gam(static_cast<double>(d_ + 3), ua);
        std::vector<double> dots(static_cast<std::size_t>(nk_)), adots = dots;
        key_sums(js, &p_.q.data[i * d_], p_.k.data.data(), d_, dots.data(), adots.data());
        for (auto j : js) {
            const double dot = dots[j], adot = adots[j];
            if (adot * (1 + gd) >= a_.max)
                return unbounded_row(
                    i, keep, fmt::format("the dot product with key {} may overflow {}", j, info(s_.accumulate).name));
            const double b = bias_at(p_, i, j);
            big[j] = c_ * adot + std::fabs(b);
            s[j] = c_ * dot + b;
            eps[j] = gd * big[j] + static_cast<double>(d_ + 3) * ea;
            if (cap_ > 0) {  // docs/oracle.md, "The logit softcap": the forward's extra roundings
                tanh_[j] = std::tanh(c_ * dot / cap_);
                s[j] = cap_ * tanh_[j] + b;
                eps[j] +=
                    (1 + gd) * std::expm1(7 * std::log1p(ua / (1 - ua))) * (1 + 0x1p-30) * big[j] + (2 * cap_ + 1) * ea;
                if (standard())  // x/cap, tanh and the product stored too (the first two's η scaled by cap)
                    eps[j] += 3 * st_.u * (1 + st_.u) * (1 + st_.u) * (big[j] + eps[j]) + (2 * cap_ + 1) * st_.eta;
            }
            if (standard()) eps[j] += 3 * st_.u * (1 + st_.u) * (1 + st_.u) * (big[j] + eps[j]) + 3 * st_.eta;
            smax = std::max(smax, s[j]), smin = std::min(smin, s[j]), eps_max = std::max(eps_max, eps[j]);
        }
        const double slack = 1e-12;  // the approximate scores' own error, relative to a_j + |b_j|
        const double range = smax - smin + 2 * slack * (*std::max_element(big.begin(), big.end()));
        // The forward's exponentials relative to its computed max: argument error τ_j, relative r_j.
        std::vector<double> r(static_cast<std::size_t>(nk_), 0), pw = r, ep = r, epv = r;
        double r_max = 0, tau_max = 0;
        for (auto j : js) {
            const double gap = smax - s[j] + slack * big[j];
            const double tau = eps[j] + ua * (gap + eps[j] + eps_max);
            r[j] = (1 + 2 * ua) * std::exp(tau) - 1;
            r_max = std::max(r_max, r[j]), tau_max = std::max(tau_max, tau);
            pw[j] = p_hi_[i * nk_ + j];
        }
        const double d_lo = std::exp(-eps_max);  // Σ_j exp(s_j − m̂) ≥ exp(max s − m̂)
        if (r_max >= 1) return unbounded_row(i, keep, "an exponential's argument errs by more than ln 2");
        if (standard()) {
            const double phi = gam(n - 1, ua);
            double rd = n * ea * (1 + phi) / d_lo;
            for (auto j : js) rd += pw[j] * ((1 + r[j]) * (1 + phi) - 1);
            if (rd >= 1) return unbounded_row(i, keep, "the softmax's denominator may be off by a factor of 2");
            for (auto j : js) {
                // the division, or a reciprocal and a product (PyTorch's softmax): two roundings
                const double e0 = (pw[j] * (r[j] + rd) + ea / d_lo) / (1 - rd);
                ep[j] = stored(pw[j], rnd(pw[j], rnd(pw[j], e0, a_), a_));
                epv[j] = ep[j];
            }
        } else {
            // The saved LSE of an online forward: its sum within 1 ± R_L (each term's exponential,
            // up to n rescalings α, the sums and products), its log and additions.
            const double g3 = gam(3 * n, ua);
            const double rl = std::pow(1 + 2 * ua, n + 1) * std::exp(tau_max + ua * (range + 2 * eps_max)) * (1 + g3) -
                              1 + n * ea * (1 + g3) / d_lo;
            if (rl >= 1) return unbounded_row(i, keep, "the forward's sum of exponentials may be off by a factor of 2");
            const double l_hi = g_.lse.hi[i], l_lo = g_.lse.lo[i];
            const double eps_l = -std::log1p(-rl) / (p_.base == ExpBase::E ? 1.0 : std::log(2.0)) +
                                 3 * ua * (mag(l_lo, l_hi) + (l_hi - smax) + range + eps_max + 1);
            for (auto j : js) {
                const double tau = eps[j] + eps_l + ua * (l_hi - s[j] + slack * big[j] + eps[j] + eps_l);
                const double rr = (1 + 2 * ua) * std::exp(tau) - 1;
                if (rr >= 1) return unbounded_row(i, keep, "P = exp(S − LSE)'s argument errs by more than ln 2");
                ep[j] = rnd(pw[j], pw[j] * rr, a_);
                epv[j] = stored(pw[j], ep[j]);  // P in the storage format before dV = Pᵀ dO
            }
        }
        // P̃/σ = P̂(1 + δ_σ)(1 + δ_p)(1 + δ_/σ) + ζ, from the P the algorithm has (stored, or the
        // accumulator's), in place of P stored.
        if (s_.p_format)
            for (auto j : js) epv[j] = ep[j] + (pw[j] + ep[j]) * p_rel_ + p_abs_;
        // dP = dO Vᵀ, and D.
        std::vector<double> edp(static_cast<std::size_t>(nk_), 0), dpm = edp;
        const double gdv = gam(static_cast<double>(dv_), ua);
        key_sums(js, &do_.data[i * dv_], p_.v.data.data(), dv_, dots.data(), adots.data());  // Σ_c |dO_ic v_jc|
        for (auto j : js) {
            const double m = adots[j];
            dpm[j] = mag(dp_lo_[i * nk_ + j], dp_hi_[i * nk_ + j]);
            edp[j] = gdv * m + static_cast<double>(dv_) * ea;
            if (standard()) edp[j] = stored(dpm[j], edp[j]);
            if (m * (1 + gdv) >= a_.max || (standard() && dpm[j] + edp[j] >= st_.max))
                return unbounded_row(i, keep, fmt::format("dP[{}, {}] may overflow", i, j));
        }
        const double dmag = mag(g_.delta.lo[i], g_.delta.hi[i]);
        double ed = 0;
        if (s_.delta_from() == DeltaFrom::Out) {
            const double phi = gam(3 * n, ua), theta = (1 + st_.u) * (1 + phi) * (1 + ua) * (1 + ua) - 1,
                         kappa = 1 + r_max;
            const double dp_lo = (1 - r_max) * (1 - phi) * d_lo;
            if (dp_lo <= 2 * n * ea) return unbounded_row(i, keep, "the forward's denominator may underflow");
            double sum_m = 0;
            for (std::int64_t c = 0; c < dv_; ++c) {
                const double olo = g_.out.lo[i * dv_ + c], ohi = g_.out.hi[i * dv_ + c], om = mag(olo, ohi);
                double s1 = 0, ac = 0, vmax = 0;
                for (auto j : js) {
                    const double v = p_.v.data[j * dv_ + c];
                    s1 += pw[j] * r[j] * std::max(std::fabs(v - olo), std::fabs(v - ohi));
                    ac += pw[j] * std::fabs(v), vmax = std::max(vmax, std::fabs(v));
                }
                const double b0 = (s1 + om * phi * kappa + theta * kappa * ac) / ((1 - r_max) * (1 - phi));
                const double bu = (2 * n + 1) * (ea + st_.eta) * (vmax + om + b0 + 1) / (dp_lo - n * ea) + ea;
                const double eo = stored(om, b0 + bu);  // the forward's O, stored
                const double dc = std::fabs(do_.data[i * dv_ + c]);
                ed += dc * eo, sum_m += dc * (om + eo);
            }
            ed += gdv * sum_m + static_cast<double>(dv_) * ea;
        } else {
            double sum_m = 0;
            for (auto j : js) {
                ed += pw[j] * edp[j] + dpm[j] * ep[j] + ep[j] * edp[j];
                sum_m += (pw[j] + ep[j]) * (dpm[j] + edp[j]);
            }
            ed += gam(n, ua) * sum_m + n * ea;
        }
        if (standard()) ed = stored(dmag, ed);
        // dS' = c λ P ∘ (dP − D), then the products.
        const double cl = c_ * lambda_, g3 = gam(3, ua);
        std::vector<double> qs(static_cast<std::size_t>(d_), 0), qe = qs, es_v(static_cast<std::size_t>(nk_), 0),
                                                                 sm_v = es_v;
        for (auto j : js) {
            const double dif = std::max(std::fabs(dp_hi_[i * nk_ + j] - g_.delta.lo[i]),
                                        std::fabs(dp_lo_[i * nk_ + j] - g_.delta.hi[i]));
            double et = edp[j] + ed;
            et += ua * (dif + et);  // the subtraction (exact in the subnormals)
            if (standard()) et = stored(dif, et);
            double rm = pw[j] * dif;
            double er = rnd(rm, pw[j] * et + dif * ep[j] + ep[j] * et, a_);
            if (standard()) er = stored(rm, er);
            if (cap_ > 0) {  // times the kernel's 1 − t̂², t̂ within e_t of tanh(x/cap)
                const double tm = std::min(1.0, std::fabs(tanh_[j]) + 0x1p-40);
                const double et_ = eps[j] / cap_ + 3 * ua, tt = std::min(1.0, tm + et_);
                const double el = (2 * tm + et_) * et_ + ua * tt * tt + ua * (1 + tt * tt) + 2 * ea;
                const double lm = std::min(1.0, 1 - tanh_[j] * tanh_[j] + 0x1p-40);
                er = rnd(rm * (lm + el), er * (lm + el) + rm * el, a_);
                rm *= lm * (1 + 0x1p-40);
                if (standard()) er = stored(rm, er);
            }
            const double es = stored(cl * rm, cl * (er + g3 * (rm + er)) + 3 * ea), sm = cl * rm + es;
            if (sm >= a_.max || sm >= st_.max)
                return unbounded_row(i, keep, fmt::format("dS[{}, {}] may overflow", i, j));
            es_v[j] = es, sm_v[j] = sm;
        }
        if (s_.ds_format) {  // dS̃ = fl_8(fl(dS·σ)) before dQ and dK, σ divided out
            if (const std::string why = cast_ds(i, js, es_v, sm_v); !why.empty()) return unbounded_row(i, keep, why);
        }
        for (auto j : js) {
            const double es = es_v[j], sm = sm_v[j], div = s_.ds_format ? ea : 0;  // the division by σ
            for (std::int64_t x = 0; x < d_; ++x) {
                const double kx = std::fabs(p_.k.data[j * d_ + x]), qx = std::fabs(p_.q.data[i * d_ + x]);
                qe[x] += es * kx + div, qs[x] += sm * kx;
                dk_err_[j * d_ + x] += es * qx + div, dk_sum_[j * d_ + x] += sm * qx;
            }
            for (std::int64_t c = 0; c < dv_; ++c) {
                const double oc = std::fabs(do_.data[i * dv_ + c]);
                // (with P̃: the division by σ may fall into the accumulator's subnormals, η_a a term)
                dv_err_[j * dv_ + c] += epv[j] * oc + (s_.p_format ? ea : 0);
                dv_sum_[j * dv_ + c] += (pw[j] + epv[j]) * oc;
            }
        }
        for (std::int64_t x = 0; x < d_; ++x) {
            const auto at = static_cast<std::size_t>(i * d_ + x);
            b_.dq[at] = finish(qe[x] + gam(n, ua) * qs[x] + n * ea, qs[x], g_.dq, at, b_.why_dq);
        }
    }

    const Problem& p_;
    const Tensor& do_;
    const GradReference& g_;
    const double *p_hi_ = nullptr, *dp_lo_ = nullptr, *dp_hi_ = nullptr;  // g's P and dP (or a batch's)
    const GradSpec& s_;
    std::int64_t nq_ = 0, nk_ = 0, d_ = 0, dv_ = 0;
    Fmt a_, st_, out_;
    double c_ = 1, lambda_ = 1;
    double cap_ = 0;            // the softcap (0: none)
    std::vector<double> tanh_;  // per key of the row: tanh(c·q·k/cap), approximately
    GradBounds b_;
    std::vector<double> dk_sum_, dk_err_, dv_sum_, dv_err_;
    std::vector<std::int64_t> seen_;
    std::vector<std::uint8_t> bad_key_;
    std::string bad_reason_;
    double p_rel_ = 0, p_abs_ = 0;  ///< an 8-bit P's relative and absolute terms
    std::string p_why_;             ///< nonempty: the P cast guarantees nothing
};

}  // namespace

GradAlgorithm parse_grad_algorithm(std::string_view name, const Location& where) {
    if (name == "standard") return GradAlgorithm::Standard;
    if (name == "flash2" || name == "fa2") return GradAlgorithm::Flash2;
    throw usage_error(fmt::format("unknown backward algorithm '{}' (standard, flash2)", escape_controls(name)), where);
}

const char* grad_algorithm_name(GradAlgorithm a) { return a == GradAlgorithm::Standard ? "standard" : "flash2"; }

DeltaFrom parse_delta_from(std::string_view name, const Location& where) {
    if (name == "o" || name == "out") return DeltaFrom::Out;
    if (name == "p") return DeltaFrom::P;
    throw usage_error(fmt::format("unknown source of D '{}' (o: rowsum(dO∘O), p: rowsum(P∘dP))", escape_controls(name)),
                      where);
}

void check_grad_spec(const GradSpec& s) {
    if (s.algorithm == GradAlgorithm::Flash2 && s.delta_from() == DeltaFrom::P)
        throw usage_error(
            "flash2 computes D from O (its P is recomputed per key block): D from P is the standard "
            "algorithm's");
    refuse_fp8_accumulator(s.accumulate);
}

GradBounds grad_bounds(const Problem& p, const Tensor& d_out, const GradReference& g, const GradSpec& s) {
    detail::check_d_out(p, d_out);
    check_grad_spec(s);
    return Bounder(p, d_out, g, s).run();
}

namespace detail {

GradBounds grad_bounds(const Problem& p, const Tensor& d_out, const GradReference& g, const GradSpec& s,
                       const WideOut& wide) {
    detail::check_d_out(p, d_out);
    check_grad_spec(s);
    return Bounder(p, d_out, g, s, &wide).run();
}

}  // namespace detail

GradComparison judge_grad(const GradReference& g, const GradBounds& b, const std::string& name, const Tensor& actual) {
    GradComparison c = compare_grad(g, name, actual);
    const GradField& f = name == "dq" ? g.dq : name == "dk" ? g.dk : g.dv;
    const std::vector<double>& bound = name == "dq" ? b.dq : name == "dk" ? b.dk : b.dv;
    const std::string& why = name == "dq" ? b.why_dq : name == "dk" ? b.why_dk : b.why_dv;
    c.judged = true;
    for (std::size_t at = 0; at < f.val.size(); ++at) {
        const double y = actual.data[at], lo = f.lo[at], hi = f.hi[at], bd = bound[at];
        const auto idx = static_cast<std::int64_t>(at);
        bool within = false;
        if (std::isnan(f.val[at])) {
            within = std::isnan(y);
        } else if (!std::isinf(bd)) {
            const double e = std::isfinite(y) ? dist(y, lo, hi) : kInf;
            within = e <= bd;
            const double fr = bd > 0 ? e / bd : (e > 0 ? kInf : 0);
            if (c.worst_fraction < 0 || fr > c.max_fraction)
                c.max_fraction = fr, c.worst_fraction = idx, c.worst_bound = bd;
        } else {
            ++c.unbounded;
            if (c.unbounded_reason.empty()) c.unbounded_reason = why;
        }
        if (!within) {
            ++c.over;
            if (c.first_over < 0) c.first_over = idx;
        }
    }
    return c;
}

bool grads_passed(const std::vector<GradComparison>& compared) {
    return std::all_of(compared.begin(), compared.end(), [](const GradComparison& c) { return c.over == 0; });
}

GradVerdict judge_grads(const Problem& p, const Tensor& d_out, FloatFormat f,
                        const std::vector<std::pair<std::string, Tensor>>& actual, const GradSpec& spec,
                        Fp8Events& events) {
    GradVerdict v{grad_reference(p, d_out, f), std::nullopt, {}, {}};
    if (actual.empty()) return v;
    v.bounds = grad_bounds(p, d_out, v.g, spec);
    for (const auto& [name, t] : actual) v.compared.push_back(judge_grad(v.g, *v.bounds, name, t));
    v.diagnosis = diagnose_grads(p, d_out, v.g, *v.bounds, spec, actual, v.compared);
    // a claim with an 8-bit P: where the format costs accuracy, from its emulation (as judge)
    if (spec.casts_fp8()) events.merge(grad_emulate(p, d_out, spec, f, false).fp8);
    return v;
}

const Fp8Events* reported_fp8(const Fp8Events& events, const GradSpec& spec, bool judged) {
    return events.any() || (spec.casts_fp8() && judged) ? &events : nullptr;
}

}  // namespace exactattn::oracle
