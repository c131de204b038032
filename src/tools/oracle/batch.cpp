// SPDX-License-Identifier: MIT
// exactattn oracle: tensors as models hold them (docs/oracle.md, "Batches of heads"): 4-D
// (B, H, N, D) and (B, N, H, D) inputs split into one problem per head, grouped-query head
// mapping, masks and biases broadcast over batch and heads, heads judged in parallel, and the
// whole judgement of one kernel call that both front ends print.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <thread>

#include "arg.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/oracle.hpp"

namespace exactattn::oracle {

namespace {

using detail::arg;

std::string dims(const std::vector<std::int64_t>& shape) {
    std::string s = "(";
    for (std::size_t x = 0; x < shape.size(); ++x) s += fmt::format("{}{}", x ? ", " : "", shape[x]);
    return s + ")";
}

const char* layout_dims(Layout l) { return l == Layout::BHND ? "(B, H, N, D)" : "(B, N, H, D)"; }

// (B, H, N, D) of a 4-D tensor in layout l.
std::array<std::int64_t, 4> bhnd(const Tensor& t, Layout l) {
    if (l == Layout::BHND) return {t.shape[0], t.shape[1], t.shape[2], t.shape[3]};
    return {t.shape[0], t.shape[2], t.shape[1], t.shape[3]};
}

// The flat index of (b, h, n, x) in a tensor of (B, H, N, X) held in layout l.
std::size_t flat(Layout l, const std::array<std::int64_t, 4>& e, std::int64_t b, std::int64_t h, std::int64_t n,
                 std::int64_t x) {
    const auto [B, H, N, X] = e;
    (void)B;
    return static_cast<std::size_t>(l == Layout::BHND ? ((b * H + h) * N + n) * X + x : ((b * N + n) * H + h) * X + x);
}

void check_rank4(const Tensor& t, const char* name, Layout l) {
    if (t.shape.size() != 4)
        throw shape_error(fmt::format("{} must be 4-D {}, not of rank {}", name, layout_dims(l), t.shape.size()),
                          arg(name));
    std::int64_t n = 1;
    for (auto d : t.shape) {
        if (d < 1) throw shape_error(fmt::format("{} is empty {}", name, dims(t.shape)), arg(name));
        n *= d;
    }
    if (static_cast<std::int64_t>(t.data.size()) != n)
        throw shape_error(fmt::format("{} has {} values for a shape of {}", name, t.data.size(), dims(t.shape)),
                          arg(name));
}

// The (n_q × n_k) slice (b, h) of a mask or bias: 2-D, or 4-D (B or 1, H or 1, n_q, n_k).
Tensor pair_slice(const Tensor& m, const BatchShape& s, std::int64_t b, std::int64_t h, const char* name) {
    if (m.shape.size() == 2) return m;
    const auto& sh = m.shape;
    if (sh.size() != 4 || (sh[0] != 1 && sh[0] != s.b) || (sh[1] != 1 && sh[1] != s.h_q) || sh[2] != s.n_q ||
        sh[3] != s.n_k)
        throw shape_error(fmt::format("the {} must be n_q × n_k = {} × {}, or 4-D (B or 1, H or 1, n_q, n_k) = ({} or "
                                      "1, {} or 1, {}, {}), not {}",
                                      name, s.n_q, s.n_k, s.b, s.h_q, s.n_q, s.n_k, dims(sh)),
                          arg(name));
    const std::int64_t bb = sh[0] == 1 ? 0 : b, hh = sh[1] == 1 ? 0 : h;
    Tensor t;
    t.shape = {s.n_q, s.n_k};
    t.format = m.format;
    const auto at = m.data.begin() + static_cast<std::ptrdiff_t>(((bb * sh[1] + hh) * s.n_q) * s.n_k);
    t.data.assign(at, at + s.n_q * s.n_k);
    return t;
}

// Head (b, h) of a 4-D input: its N × X matrix.
Tensor matrix_of(const Tensor& t, Layout l, std::int64_t b, std::int64_t h) {
    const auto e = bhnd(t, l);
    Tensor m;
    m.format = t.format;
    m.shape = {e[2], e[3]};
    m.data.resize(static_cast<std::size_t>(e[2] * e[3]));
    for (std::int64_t n = 0; n < e[2]; ++n)
        std::copy_n(t.data.begin() + static_cast<std::ptrdiff_t>(flat(l, e, b, h, n, 0)), e[3],
                    m.data.begin() + n * e[3]);
    return m;
}

// An error of head (b, h), the head named first.
template <class F>
auto in_head(std::int64_t b, std::int64_t h, F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (const Error& e) {
        throw Error(e.kind(), e.where(), fmt::format("head (b={}, h={}): {}", b, h, e.reason()));
    }
}

// The judgements of every head merged into one, entries in (b, h, i, j) order.
Judgement merge(std::vector<Judgement>& parts, const BatchShape& s) {
    Judgement m;
    m.tensor = parts.at(0).tensor;
    m.bound = parts.at(0).bound;
    m.failure_probability = parts.at(0).failure_probability;
    m.systematic.floor = parts.at(0).systematic.floor;
    std::size_t total = 0;
    for (const auto& p : parts) total += p.entries.size();
    m.entries.reserve(total);
    for (std::size_t x = 0; x < parts.size(); ++x) {
        Judgement& p = parts[x];
        const auto offset = static_cast<std::int64_t>(m.entries.size());
        m.count += p.count;
        m.over += p.over;
        m.unbounded += p.unbounded;
        m.exact_count += p.exact_count;
        auto& ms = m.systematic;  // the heads' rows as one family (docs/oracle.md, "Systematic errors")
        ms.rows += p.systematic.rows;
        ms.toward_zero += p.systematic.toward_zero;
        ms.signed_rows += p.systematic.signed_rows;
        ms.along += p.systematic.along;
        ms.eg += p.systematic.eg;
        ms.gg += p.systematic.gg;
        if (p.worst >= 0 && (m.worst < 0 || p.max_abs_ulp > m.max_abs_ulp ||
                             (std::isnan(p.max_abs_ulp) && !std::isnan(m.max_abs_ulp)))) {
            m.worst = offset + p.worst;
            m.max_abs_ulp = p.max_abs_ulp;
        }
        if (p.worst_fraction >= 0 && (m.worst_fraction < 0 || p.max_bound_fraction > m.max_bound_fraction)) {
            m.worst_fraction = offset + p.worst_fraction;
            m.max_bound_fraction = p.max_bound_fraction;
        }
        if (m.first_over < 0 && p.first_over >= 0) m.first_over = offset + p.first_over;
        const std::int64_t b = static_cast<std::int64_t>(x) / s.h_q, h = static_cast<std::int64_t>(x) % s.h_q;
        if (m.unbounded_reason.empty() && !p.unbounded_reason.empty())
            m.unbounded_reason = fmt::format("head (b={}, h={}): {}", b, h, p.unbounded_reason);
        // One bulk copy a head, then its (b, h): an entry at a time through push_back was 3% of a
        // judgement of 16 heads of 65 536 entries.
        m.entries.insert(m.entries.end(), p.entries.begin(), p.entries.end());
        for (auto e = m.entries.begin() + offset; e != m.entries.end(); ++e) {
            e->batch = b;
            e->head = h;
        }
        p.entries = {};
    }
    systematic_verdict(m.systematic);
    return m;
}

}  // namespace

Layout parse_layout(std::string_view text, const Location& where) {
    if (text == "bhnd") return Layout::BHND;
    if (text == "bnhd") return Layout::BNHD;
    throw usage_error(fmt::format("unknown layout '{}' (bhnd, bnhd)", escape_controls(text)), where);
}

BatchShape batch_shape(const Batch& batch) {
    check_rank4(batch.q, "q", batch.layout);
    check_rank4(batch.k, "k", batch.layout);
    check_rank4(batch.v, "v", batch.layout);
    const auto q = bhnd(batch.q, batch.layout), k = bhnd(batch.k, batch.layout), v = bhnd(batch.v, batch.layout);
    BatchShape s{q[0], q[1], k[1], q[2], k[2], q[3], v[3]};
    if (k[0] != s.b) throw shape_error(fmt::format("k has a batch of {} but q of {}", k[0], s.b), arg("k"));
    if (v[0] != s.b) throw shape_error(fmt::format("v has a batch of {} but q of {}", v[0], s.b), arg("v"));
    if (k[3] != s.d) throw shape_error(fmt::format("k has a head dimension d of {} but q of {}", k[3], s.d), arg("k"));
    if (v[1] != s.h_kv) throw shape_error(fmt::format("v has {} heads but k has {}", v[1], s.h_kv), arg("v"));
    if (v[2] != s.n_k)
        throw shape_error(fmt::format("v has {} keys but k has {} (both are n_k)", v[2], s.n_k), arg("v"));
    if (s.h_q % s.h_kv != 0)
        throw shape_error(fmt::format("q has {} heads, not a multiple of k's {} (grouped-query attention maps "
                                      "H_q / H_kv query heads to each key head)",
                                      s.h_q, s.h_kv),
                          arg("k"));
    for (const auto& [t, name] : {std::pair{&batch.mask, "mask"}, {&batch.bias, "bias"}})
        if (*t) (void)pair_slice(**t, s, 0, 0, name);
    return s;
}

Problem head_problem(const Batch& batch, const BatchShape& s, std::int64_t b, std::int64_t h) {
    Problem p = batch.options;
    const std::int64_t kv = h / (s.h_q / s.h_kv);
    p.q = matrix_of(batch.q, batch.layout, b, h);
    p.k = matrix_of(batch.k, batch.layout, b, kv);
    p.v = matrix_of(batch.v, batch.layout, b, kv);
    p.mask.clear();
    p.bias.clear();
    if (batch.mask) set_mask(p, pair_slice(*batch.mask, s, b, h, "mask"), arg("mask"));
    if (batch.bias) set_bias(p, pair_slice(*batch.bias, s, b, h, "bias"), arg("bias"));
    return p;
}

Tensor head_slice(const Tensor& out, Layout layout, const BatchShape& s, std::int64_t b, std::int64_t h,
                  std::int64_t cols, const char* name) {
    const std::vector<std::int64_t> want = layout == Layout::BHND ? std::vector<std::int64_t>{s.b, s.h_q, s.n_q, cols}
                                                                  : std::vector<std::int64_t>{s.b, s.n_q, s.h_q, cols};
    if (out.shape != want || static_cast<std::int64_t>(out.data.size()) != s.b * s.h_q * s.n_q * cols)
        throw shape_error(
            fmt::format("the {} must be {} = {}, not {}", name, layout_dims(layout), dims(want), dims(out.shape)),
            arg(name));
    return matrix_of(out, layout, b, h);
}

void for_each_head(const BatchShape& s, int threads, const std::function<void(std::int64_t, std::int64_t)>& f) {
    const auto heads = static_cast<std::size_t>(s.b * s.h_q);
    const std::size_t jobs =
        threads > 0 ? static_cast<std::size_t>(threads) : std::max<std::size_t>(1, std::thread::hardware_concurrency());
    run_parallel(heads, jobs,
                 [&](std::size_t x) { f(static_cast<std::int64_t>(x) / s.h_q, static_cast<std::int64_t>(x) % s.h_q); });
}

JudgeReport judge_problem(const Problem& p, FloatFormat f, const Tensor& out, const Tensor* weights, const Tensor* lse,
                          const AlgorithmSpec& spec, std::optional<double> tolerance_ulps) {
    if (tolerance_ulps) checked_tolerance(*tolerance_ulps, arg("tolerance_ulps"));
    const Reference r = reference(p, f, weights != nullptr, spec.bound);
    JudgeReport rep;
    rep.format = f;
    rep.spec = spec;
    rep.n_q = r.n_q;
    rep.d_v = r.d_v;
    rep.tensors.push_back(judge_output(r, out, spec, tolerance_ulps));
    if (!rep.tensors[0].passed()) rep.tensors[0].diagnosis = diagnose(p, out, spec, rep.tensors[0]);
    if (weights != nullptr) rep.tensors.push_back(judge_weights(r, *weights, spec, tolerance_ulps));
    if (lse != nullptr) rep.tensors.push_back(judge_lse(r, *lse, spec, tolerance_ulps));
    rep.fp8 = claimed_fp8_events(p, spec, f);
    return rep;
}

JudgeReport judge_batch(const Batch& batch, FloatFormat f, const Tensor& out, const Tensor* lse,
                        const AlgorithmSpec& spec, std::optional<double> tolerance_ulps, int threads) {
    if (tolerance_ulps) checked_tolerance(*tolerance_ulps, arg("tolerance_ulps"));
    const BatchShape s = batch_shape(batch);
    (void)head_slice(out, batch.layout, s, 0, 0, s.d_v, "out");  // the shapes before any work
    const std::vector<std::int64_t> lse_shape{s.b, s.h_q, s.n_q};
    if (lse != nullptr &&
        (lse->shape != lse_shape || static_cast<std::int64_t>(lse->data.size()) != s.b * s.h_q * s.n_q))
        throw shape_error(fmt::format("the lse must be (B, H, n_q) = {}, not {}", dims(lse_shape), dims(lse->shape)),
                          arg("lse"));
    const auto heads = static_cast<std::size_t>(s.b * s.h_q);
    std::vector<Judgement> outs(heads), lses(lse != nullptr ? heads : 0);
    std::vector<std::optional<Fp8Events>> events(heads);  // each head's claim's 8-bit events
    for_each_head(s, threads, [&](std::int64_t b, std::int64_t h) {
        in_head(b, h, [&] {
            const Problem p = head_problem(batch, s, b, h);
            Tensor o = head_slice(out, batch.layout, s, b, h, s.d_v, "out");
            o.format = f;
            const Reference r = reference(p, f, false, spec.bound);
            const auto x = static_cast<std::size_t>(b * s.h_q + h);
            outs[x] = judge_output(r, o, spec, tolerance_ulps);
            events[x] = claimed_fp8_events(p, spec, f);
            if (events[x]) events[x]->in_head(b, h);
            if (lse != nullptr) {
                Tensor l;
                l.shape = {s.n_q, 1};
                l.format = lse->format;
                const auto at = lse->data.begin() + static_cast<std::ptrdiff_t>(x) * s.n_q;
                l.data.assign(at, at + s.n_q);
                lses[x] = judge_lse(r, l, spec, tolerance_ulps);
            }
        });
    });
    JudgeReport rep;
    rep.format = f;
    rep.spec = spec;
    rep.n_q = s.n_q;
    rep.d_v = s.d_v;
    rep.batch = s.b;
    rep.heads = s.h_q;
    for (const auto& e : events)  // counts summed in head order, the events named by head
        if (e) {
            if (!rep.fp8) rep.fp8 = Fp8Events{};
            rep.fp8->merge(*e);
        }
    // The diagnosis of the first head that fails, named (a mistake of the kernel is usually every head's).
    std::string diagnosis;
    for (std::size_t x = 0; x < heads && diagnosis.empty(); ++x) {
        if (outs[x].passed()) continue;
        const std::int64_t b = static_cast<std::int64_t>(x) / s.h_q, h = static_cast<std::int64_t>(x) % s.h_q;
        const Problem p = head_problem(batch, s, b, h);
        Tensor o = head_slice(out, batch.layout, s, b, h, s.d_v, "out");
        o.format = f;
        const std::string d = diagnose(p, o, spec, outs[x]);
        if (!d.empty()) diagnosis = fmt::format("head (b={}, h={}): {}", b, h, d);
        break;
    }
    rep.tensors.push_back(merge(outs, s));
    rep.tensors[0].diagnosis = diagnosis;
    if (lse != nullptr) rep.tensors.push_back(merge(lses, s));
    return rep;
}

namespace {

// An output of the batch's shape in its layout, zeros, and the n_q × d_v rows of head (b, h) put
// in their places.
Tensor batch_tensor(const BatchShape& s, Layout layout, FloatFormat f) {
    Tensor t;
    t.format = f;
    t.shape = layout == Layout::BHND ? std::vector<std::int64_t>{s.b, s.h_q, s.n_q, s.d_v}
                                     : std::vector<std::int64_t>{s.b, s.n_q, s.h_q, s.d_v};
    t.data.resize(static_cast<std::size_t>(s.b * s.h_q * s.n_q * s.d_v));
    return t;
}
void put_head(Tensor& t, Layout layout, const BatchShape& s, std::int64_t b, std::int64_t h,
              const std::vector<double>& rows) {
    const std::array<std::int64_t, 4> e{s.b, s.h_q, s.n_q, s.d_v};
    for (std::int64_t i = 0; i < s.n_q; ++i)
        std::copy_n(rows.begin() + i * s.d_v, s.d_v,
                    t.data.begin() + static_cast<std::ptrdiff_t>(flat(layout, e, b, h, i, 0)));
}

// f(the problem of head (b, h)) for every head, in parallel, row-major over (b, h); an error
// names its head.
template <class T, class F>
std::vector<T> per_head(const Batch& batch, const BatchShape& s, int threads, F&& f) {
    std::vector<T> r(static_cast<std::size_t>(s.b * s.h_q));
    for_each_head(s, threads, [&](std::int64_t b, std::int64_t h) {
        in_head(b, h, [&] { r[static_cast<std::size_t>(b * s.h_q + h)] = f(head_problem(batch, s, b, h)); });
    });
    return r;
}

}  // namespace

Tensor batch_output(const std::vector<Reference>& refs, const BatchShape& s, Layout layout, FloatFormat f) {
    Tensor t = batch_tensor(s, layout, f);
    for (std::int64_t b = 0; b < s.b; ++b)
        for (std::int64_t h = 0; h < s.h_q; ++h)
            put_head(t, layout, s, b, h, refs.at(static_cast<std::size_t>(b * s.h_q + h)).out);
    return t;
}

Reference concat_heads(const std::vector<Reference>& heads) {
    Reference all = heads.at(0);
    const bool text =
        std::any_of(heads.begin(), heads.end(), [](const Reference& r) { return !r.out_exact_text.empty(); });
    if (text && all.out_exact_text.empty()) all.out_exact_text.assign(all.out.size(), "");
    for (std::size_t x = 1; x < heads.size(); ++x) {
        const Reference& r = heads[x];
        const auto append = [](auto& to, const auto& from) { to.insert(to.end(), from.begin(), from.end()); };
        append(all.out, r.out);
        append(all.out_lo, r.out_lo);
        append(all.out_hi, r.out_hi);
        append(all.out_exact, r.out_exact);
        append(all.lse, r.lse);
        append(all.w, r.w);
        if (text) {
            if (r.out_exact_text.empty())
                all.out_exact_text.insert(all.out_exact_text.end(), r.out.size(), "");
            else
                append(all.out_exact_text, r.out_exact_text);
        }
        all.max_precision = std::max(all.max_precision, r.max_precision);
    }
    return all;
}

std::vector<Reference> reference_batch(const Batch& batch, FloatFormat f, bool weights, int threads) {
    return per_head<Reference>(batch, batch_shape(batch), threads,
                               [&](const Problem& p) { return reference(p, f, weights, BoundKind::Running); });
}

Emulation emulate_batch(const Batch& batch, const EmulationSpec& s, bool trace, int threads) {
    const BatchShape sh = batch_shape(batch);
    std::vector<Emulation> heads =
        per_head<Emulation>(batch, sh, threads, [&](const Problem& p) { return emulate(p, s, trace); });
    Emulation all;
    all.out = batch_tensor(sh, batch.layout, s.output);
    for (std::int64_t b = 0; b < sh.b; ++b)
        for (std::int64_t h = 0; h < sh.h_q; ++h) {
            Emulation& one = heads[static_cast<std::size_t>(b * sh.h_q + h)];
            put_head(all.out, batch.layout, sh, b, h, one.out.data);
            for (const auto& line : one.trace) all.trace.push_back(fmt::format("head (b={}, h={}): {}", b, h, line));
            one.fp8.in_head(b, h);
            all.fp8.merge(one.fp8);
        }
    return all;
}

}  // namespace exactattn::oracle
