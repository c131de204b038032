// SPDX-License-Identifier: MIT
// exactattn oracle, the backward pass of a batch of heads (include/exactattn/oracle_grad_batch.hpp;
// docs/oracle.md, "Gradients of a batch of heads"): each query head certified and judged as a
// matrix problem, and a kv head's dK and dV the exact sum over its group of query heads (the
// reports both front ends print: grad_batch_report.cpp).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <thread>
#include <utility>

#ifdef __linux__
#include <sys/mman.h>
#endif

#include "exactattn/limits.hpp"
#include "exactattn/oracle_grad_batch.hpp"
#include "grad_batch_detail.hpp"
#include "grad_report.hpp"
#include "grad_wide.hpp"

namespace exactattn::oracle {

using namespace detail::batch;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double up(double x) { return std::nextafter(x, kInf); }
double down(double x) { return std::nextafter(x, -kInf); }

std::size_t jobs_of(int threads) {
    return threads > 0 ? static_cast<std::size_t>(threads)
                       : std::max<std::size_t>(1, std::thread::hardware_concurrency());
}

}  // namespace

namespace detail::batch {

Summed group_sum(const std::vector<const GradField*>& heads, const std::vector<const std::vector<double>*>& bounds,
                 FloatFormat f, FloatFormat acc) {
    Summed r;
    const GradField& first = *heads.at(0);
    r.field.name = first.name;
    r.field.shape = first.shape;
    if (heads.size() == 1) {  // a group of one: the head's own gradient, correctly rounded, and its bound
        r.field = first;
        if (!bounds.empty()) r.bound = *bounds[0];
        r.rounded.assign(first.val.size(), 1);
        return r;
    }
    const std::size_t n = first.val.size();
    const double g = static_cast<double>(heads.size());
    const FloatFormat coarse = unit_roundoff(acc) > unit_roundoff(f) ? acc : f;
    const double u = unit_roundoff(coarse), gamma = g * u >= 1 ? kInf : up(up(g * u) / down(1 - g * u));
    const double eta = std::max(least_subnormal(f), least_subnormal(coarse));
    r.field.val.resize(n), r.field.lo.resize(n), r.field.hi.resize(n), r.field.exact.assign(n, 0);
    r.rounded.assign(n, 1);
    if (!bounds.empty()) r.bound.resize(n);
    for (std::size_t at = 0; at < n; ++at) {
        double lo = 0, hi = 0, sum_b = 0, sum_mag = 0;
        bool nan = false;
        for (std::size_t x = 0; x < heads.size(); ++x) {
            const GradField& h = *heads[x];
            nan = nan || std::isnan(h.val[at]);
            lo = down(lo + h.lo[at]);  // round to nearest errs by half an ulp: one step outward encloses
            hi = up(hi + h.hi[at]);
            if (!bounds.empty()) {
                const double b = (*bounds[x])[at];
                sum_b = up(sum_b + b);
                sum_mag = up(sum_mag + up(std::max(std::fabs(h.lo[at]), std::fabs(h.hi[at])) + b));
            }
        }
        r.field.lo[at] = nan ? std::nan("") : lo;
        r.field.hi[at] = nan ? std::nan("") : hi;
        r.field.exact[at] = lo == hi ? 1 : 0;
        // Correctly rounded wherever the enclosure's ends round alike, and said where they do not
        // (`rounded`); the verdict uses the enclosure only.
        r.field.val[at] = nan ? std::nan("") : round_to(lo + (hi - lo) / 2, f);
        if (!nan && round_to(lo, f) != round_to(hi, f)) r.rounded[at] = 0;
        if (!bounds.empty()) r.bound[at] = up(up(sum_b + up(gamma * sum_mag)) + eta);
    }
    return r;
}

// The query heads of kv head k of batch b as one matrix problem: their rows stacked (each with
// the keys its own head sees, as a mask, and its bias), K and V the kv head's, dO stacked alike.
// Softmax is a row's own, so this problem's dK and dV are exactly the group's sums, certified and
// correctly rounded by grad_reference as a matrix problem's are.
std::pair<Problem, Tensor> group_problem(const Batch& batch, const BatchShape& s, const Tensor& d_out, std::int64_t b,
                                         std::int64_t k) {
    const std::int64_t group = s.h_q / s.h_kv, rows = group * s.n_q;
    Problem p;
    Tensor dot;
    dot.shape = {rows, s.d_v};
    std::vector<double> mask, bias;
    bool any_mask = false, any_bias = false;
    for (std::int64_t h = k * group; h < (k + 1) * group; ++h) {
        const Problem ph = head_problem(batch, s, b, h);
        const Tensor dh = head_slice(d_out, batch.layout, s, b, h, s.d_v, "do");
        if (h == k * group) {
            p = ph;
            p.q.data.clear();
            p.q.shape = {rows, s.d};
            p.causal = false, p.window_left = -1, p.window_right = -1, p.align = Align::TopLeft;
            p.mask.clear(), p.bias.clear();
            dot.format = dh.format;
        }
        p.q.data.insert(p.q.data.end(), ph.q.data.begin(), ph.q.data.end());
        dot.data.insert(dot.data.end(), dh.data.begin(), dh.data.end());
        any_bias = any_bias || !ph.bias.empty();
        for (std::int64_t i = 0; i < s.n_q; ++i) {
            const auto keep = visible_keys(ph, i);
            for (std::int64_t j = 0; j < s.n_k; ++j) {
                mask.push_back(keep[j] ? 0.0 : 1.0);
                any_mask = any_mask || keep[j] == 0;
                bias.push_back(bias_at(ph, i, j));
            }
        }
    }
    if (any_mask) set_mask(p, Tensor{{rows, s.n_k}, std::move(mask), FloatFormat::Float64});
    if (any_bias) set_bias(p, Tensor{{rows, s.n_k}, std::move(bias), FloatFormat::Float64});
    return {std::move(p), std::move(dot)};
}

}  // namespace detail::batch

namespace {

// Decides the straddling entries of kv head (b, k)'s summed dK and dV from the group's own
// problem: its correctly rounded value, the two enclosures intersected, `rounded` 1 (and every
// entry's `exact` flag from that problem, which knows the rational sums). Returns the
// entries decided; 0 when the group's problem is over a limit (its precision, its cells): the
// entries then stay `rounded` 0, their midpoints rounded (a refused work budget is the call's).
std::int64_t refine_group(const Batch& batch, const BatchShape& s, const Tensor& d_out, FloatFormat f, std::int64_t b,
                          std::int64_t k, Summed& dk, Summed& dv) {
    std::optional<GradReference> g;
    try {
        const auto [p, dot] = group_problem(batch, s, d_out, b, k);
        g = grad_reference(p, dot, f);
    } catch (const WorkRefusal&) {
        throw;
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::Limit) throw;
        return 0;
    }
    std::int64_t decided = 0;
    for (const auto& [sum, exact] : {std::pair{&dk, &g->dk}, {&dv, &g->dv}})
        for (std::size_t at = 0; at < sum->rounded.size(); ++at) {
            GradField& x = sum->field;
            x.exact[at] = x.exact[at] | exact->exact[at];  // the group's problem knows which sums are rational
            if (sum->rounded[at] != 0) continue;
            x.val[at] = exact->val[at];
            x.lo[at] = std::max(x.lo[at], exact->lo[at]);
            x.hi[at] = std::min(x.hi[at], exact->hi[at]);
            x.exact[at] = exact->exact[at];
            sum->rounded[at] = 1;
            ++decided;
        }
    return decided;
}

// Head x's matrices (rows × cols each, x = b·heads + h) as one tensor in the layout: (B, H, rows,
// cols), or (B, rows, H, cols) for bnhd.
template <class T>
std::vector<T> in_layout(const std::vector<const std::vector<T>*>& parts, std::int64_t heads, std::int64_t rows,
                         std::int64_t cols, Layout l) {
    std::vector<T> out;
    std::size_t n = 0;
    for (const auto* p : parts) n += p->size();
    if (l == Layout::BHND) {  // head x's rows·cols entries at x·rows·cols: the parts one after another
        out.reserve(n);       // (not zeroed first: that was a tenth of stacking the n² fields)
        for (const auto* p : parts) out.insert(out.end(), p->begin(), p->end());
        return out;
    }
    out.resize(n);
    for (std::size_t x = 0; x < parts.size(); ++x) {
        const auto b = static_cast<std::int64_t>(x) / heads, h = static_cast<std::int64_t>(x) % heads;
        for (std::int64_t i = 0; i < rows; ++i)
            std::copy_n(parts[x]->begin() + i * cols, cols,
                        out.begin() + (l == Layout::BHND ? ((b * heads + h) * rows + i) * cols
                                                         : ((b * rows + i) * heads + h) * cols));
    }
    return out;
}

// One field of every head (or kv head) as one tensor: in the layout when `layout` (dq, dk, dv,
// out), else (B, H, …) with the heads' shape.
GradField stacked(const std::vector<const GradField*>& parts, const std::vector<const std::vector<std::uint8_t>*>& rnd,
                  std::int64_t batch, std::int64_t heads, const Layout* layout, std::vector<std::uint8_t>& rounded) {
    const GradField& f0 = *parts.at(0);
    GradField f;
    f.name = f0.name;
    const std::int64_t rows = f0.shape.at(0), cols = f0.shape.size() > 1 ? f0.shape[1] : 1;
    const Layout l = layout != nullptr ? *layout : Layout::BHND;
    std::vector<const std::vector<double>*> val, lo, hi;
    std::vector<const std::vector<std::uint8_t>*> exact;
    for (const GradField* p : parts) val.push_back(&p->val), lo.push_back(&p->lo), hi.push_back(&p->hi);
    for (const GradField* p : parts) exact.push_back(&p->exact);
    f.val = in_layout(val, heads, rows, cols, l);
    f.lo = in_layout(lo, heads, rows, cols, l);
    f.hi = in_layout(hi, heads, rows, cols, l);
    f.exact = in_layout(exact, heads, rows, cols, l);
    if (rnd.empty())
        rounded.assign(f.val.size(), 1);
    else
        rounded = in_layout(rnd, heads, rows, cols, l);
    f.shape = l == Layout::BHND ? std::vector<std::int64_t>{batch, heads, rows}
                                : std::vector<std::int64_t>{batch, rows, heads};
    if (f0.shape.size() > 1) f.shape.push_back(cols);
    return f;
}

// The comparisons of every head (or kv head) of one tensor as one, entries named (b, h, i, j).
GradBatchJudgement merged(const std::string& name, const std::vector<GradComparison>& parts,
                          const std::vector<const std::vector<double>*>& bounds, std::int64_t batch, std::int64_t heads,
                          std::int64_t rows, std::int64_t cols, Layout l) {
    GradBatchJudgement m;
    m.name = name;
    const auto where = [&](std::int64_t x, std::int64_t at) {
        return std::array<std::int64_t, 4>{x / heads, x % heads, at / cols, at % cols};
    };
    for (std::size_t x = 0; x < parts.size(); ++x) {
        const GradComparison& c = parts[x];
        const auto xi = static_cast<std::int64_t>(x);
        m.entries += c.entries, m.differing += c.differing, m.over += c.over, m.unbounded += c.unbounded;
        if (c.worst >= 0 && (m.worst[0] < 0 || c.max_ulps > m.max_ulps))
            m.max_ulps = c.max_ulps, m.worst = where(xi, c.worst);
        if (c.worst_fraction >= 0 && (m.worst_fraction[0] < 0 || c.max_fraction > m.max_fraction))
            m.max_fraction = c.max_fraction, m.worst_fraction = where(xi, c.worst_fraction);
        if (m.first_over[0] < 0 && c.first_over >= 0) m.first_over = where(xi, c.first_over);
        if (m.unbounded_reason.empty() && !c.unbounded_reason.empty())
            m.unbounded_reason = fmt::format("head (b={}, h={}): {}", xi / heads, xi % heads, c.unbounded_reason);
    }
    m.bound = in_layout(bounds, heads, rows, cols, l);
    m.shape = l == Layout::BHND ? std::vector<std::int64_t>{batch, heads, rows, cols}
                                : std::vector<std::int64_t>{batch, rows, heads, cols};
    return m;
}

using detail::in_caller_layout;

}  // namespace

bool GradBatch::passed() const {
    return std::all_of(judged.begin(), judged.end(), [](const GradBatchJudgement& j) { return j.over == 0; });
}

const GradField& GradBatch::field(const std::string& name) const {
    for (const GradField& f : fields)
        if (f.name == name) return f;
    throw usage_error(fmt::format("'{}' is not a field of the gradients", name));
}

namespace {

// The shapes before any work: d_out and every gradient given.
void check_given(BatchWork& w, const std::vector<std::pair<std::string, Tensor>>& actual) {
    (void)head_slice(w.d_out, w.batch.layout, w.s, 0, 0, w.s.d_v, "do");
    for (const auto& [name, t] : actual) {
        if (name == "dq") {
            w.dq_t = &t;
            (void)head_slice(t, w.batch.layout, w.s, 0, 0, w.s.d, "dq");
        } else if (name == "dk" || name == "dv") {
            w.kv_t.emplace_back(name, &t);
            (void)head_slice(t, w.batch.layout, w.kv, 0, 0, name == "dk" ? w.s.d : w.s.d_v, name.c_str());
        } else {
            throw usage_error(fmt::format("'{}' is not a gradient that is judged (dq, dk, dv)", name));
        }
    }
    w.judged = w.dq_t != nullptr || !w.kv_t.empty();
}

// The n_q × n_k fields of a head, the largest: certify_heads has each head's builder write them
// straight into the batch's (B, H, n_q, n_k) arrays, instead of into the head's own (a copy of
// the largest arrays, and their pages faulted in anew for every head) to be copied there.
constexpr std::array<const char*, 3> kWide = {"p", "dp", "ds"};

// `n` zeros in `v`, its storage backed by 2 MiB pages where the kernel allows it (Linux's
// transparent huge pages on request, `madvise`): the batch's n² arrays run to hundreds of MB, and
// the first touch of each 4 KiB page is a fault that costs microseconds on a virtual machine (a
// seventh of the benchmark's judgement before). The values are the same either way.
template <class T>
void zeros(std::vector<T>& v, std::size_t n) {
    v.reserve(n);
#ifdef __linux__
    constexpr std::uintptr_t kHuge = std::uintptr_t{1} << 21;
    const auto begin = reinterpret_cast<std::uintptr_t>(v.data());
    const std::uintptr_t first = (begin + kHuge - 1) & ~(kHuge - 1), last = (begin + n * sizeof(T)) & ~(kHuge - 1);
    if (last > first) (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);  // advice only
#endif
    v.resize(n);
}

// Head x's blocks of w.wide (x·n_q·n_k: the (B, H, …) order).
detail::WideOut wide_of(BatchWork& w, std::size_t x) {
    const std::size_t at = x * static_cast<std::size_t>(w.s.n_q * w.s.n_k);
    const auto part = [&](GradField& f) {
        return detail::FieldOut{f.val.data() + at, f.lo.data() + at, f.hi.data() + at, f.exact.data() + at};
    };
    return {part(w.wide[0]), part(w.wide[1]), part(w.wide[2])};
}

// Every query head certified as a matrix problem, in parallel: its gradients, and when judged
// its bounds, its dQ's judgement and the 8-bit events of the claim's emulation.
void certify_heads(BatchWork& w) {
    const std::size_t cells = w.heads * static_cast<std::size_t>(w.s.n_q * w.s.n_k);
    for (const char* name : kWide) {
        GradField f;
        f.name = name;
        f.shape = {w.s.b, w.s.h_q, w.s.n_q, w.s.n_k};
        zeros(f.val, cells), zeros(f.lo, cells), zeros(f.hi, cells), zeros(f.exact, cells);
        w.wide.push_back(std::move(f));
    }
    w.g.resize(w.heads);
    w.gb.resize(w.judged ? w.heads : 0);
    w.dq_c.resize(w.dq_t != nullptr ? w.heads : 0);
    const bool fp8 = w.judged && w.spec.casts_fp8();  // as a single head's: the claim's emulation names the events
    w.events.resize(fp8 ? w.heads : 0);
    const BatchShape& s = w.s;
    for_each_head(s, w.threads, [&](std::int64_t b, std::int64_t h) {
        in_head(b, h, [&] {
            const auto x = static_cast<std::size_t>(b * s.h_q + h);
            const Problem p = head_problem(w.batch, s, b, h);
            const Tensor dot = head_slice(w.d_out, w.batch.layout, s, b, h, s.d_v, "do");
            const detail::WideOut wide = wide_of(w, x);
            w.g[x] = detail::grad_reference(p, dot, w.f, wide);
            if (w.judged) w.gb[x] = detail::grad_bounds(p, dot, w.g[x], w.spec, wide);
            if (w.dq_t != nullptr) w.dq_c[x] = judge_grad(w.g[x], w.gb[x], "dq", w.dq_slice(b, h));
            if (fp8) {
                w.events[x] = grad_emulate(p, dot, w.spec, w.f, false).fp8;
                w.events[x].in_head(b, h);
            }
        });
    });
}

// Each kv head's dK and dV, the sums over its group of query heads; the sums that straddle a
// rounding boundary decided by their group's own problem, kv heads in parallel.
void sum_groups(BatchWork& w, GradBatch& r) {
    const BatchShape& s = w.s;
    for (int t = 0; t < 2; ++t) {
        w.sums[t].resize(w.kv_heads);
        for (std::size_t kx = 0; kx < w.kv_heads; ++kx) {
            const auto [b, k] = w.kv_head(kx);
            std::vector<const GradField*> parts;
            std::vector<const std::vector<double>*> bounds;
            for (std::int64_t h = k * w.group; h < (k + 1) * w.group; ++h) {
                const auto x = static_cast<std::size_t>(b * s.h_q + h);
                parts.push_back(t == 0 ? &w.g[x].dk : &w.g[x].dv);
                if (w.judged) bounds.push_back(t == 0 ? &w.gb[x].dk : &w.gb[x].dv);
            }
            w.sums[t][kx] = group_sum(parts, bounds, w.f, w.spec.accumulate);
        }
    }
    std::vector<std::size_t> open;
    for (std::size_t kx = 0; kx < w.kv_heads; ++kx) {
        const auto n = std::count(w.sums[0][kx].rounded.begin(), w.sums[0][kx].rounded.end(), std::uint8_t{0}) +
                       std::count(w.sums[1][kx].rounded.begin(), w.sums[1][kx].rounded.end(), std::uint8_t{0});
        r.straddled += n;
        if (n > 0) open.push_back(kx);
    }
    std::vector<std::int64_t> decided(open.size(), 0);
    run_parallel(open.size(), jobs_of(w.threads), [&](std::size_t y) {
        const std::size_t kx = open[y];
        // not a structured binding: clang 14 does not let the lambda below capture one
        const std::int64_t b = w.kv_head(kx).first, k = w.kv_head(kx).second;
        in_head(b, k * w.group,
                [&] { decided[y] = refine_group(w.batch, s, w.d_out, w.f, b, k, w.sums[0][kx], w.sums[1][kx]); });
    });
    for (auto n : decided) r.refined += n;
}

// Each kv head's summed dK and dV given, judged as a matrix's under the sum's bound.
void judge_kv_heads(BatchWork& w) {
    const BatchShape& s = w.s;
    for (const auto& [name, tensor] : w.kv_t) {
        const int t = name == "dk" ? 0 : 1;
        std::vector<Tensor> slices;
        for (std::size_t kx = 0; kx < w.kv_heads; ++kx) {
            const auto [b, k] = w.kv_head(kx);
            Tensor y = head_slice(*tensor, w.batch.layout, w.kv, b, k, t == 0 ? s.d : s.d_v, name.c_str());
            y.format = w.f;
            GradReference one;  // the kv head's summed field, judged as a matrix's
            one.format = w.f;
            GradBounds ob;
            (t == 0 ? one.dk : one.dv) = w.sums[t][kx].field;
            (t == 0 ? ob.dk : ob.dv) = w.sums[t][kx].bound;
            const GradBounds& first = w.gb[static_cast<std::size_t>(b * s.h_q + k * w.group)];
            (t == 0 ? ob.why_dk : ob.why_dv) = t == 0 ? first.why_dk : first.why_dv;
            w.kv_c[t].push_back(judge_grad(one, ob, name, y));
            slices.push_back(std::move(y));
        }
        w.kv_slices.emplace_back(name, std::move(slices));
    }
}

// The fields, every head's as one tensor, and the judgements, every head's of a tensor as one.
void collect(BatchWork& w, GradBatch& r) {
    const BatchShape& s = w.s;
    for (std::size_t y = 0; y < w.g.at(0).fields().size(); ++y) {
        const std::string name = w.g[0].fields()[y]->name;
        const auto wide =
            std::find_if(w.wide.begin(), w.wide.end(), [&](const GradField& f) { return f.name == name; });
        if (wide != w.wide.end()) {  // stacked by certify_heads
            r.rounded.emplace_back(wide->val.size(), std::uint8_t{1});
            r.fields.push_back(std::move(*wide));
            continue;
        }
        std::vector<const GradField*> parts;
        std::vector<const std::vector<std::uint8_t>*> rnd;
        std::int64_t h = s.h_q;
        if (name == "dk" || name == "dv") {
            for (const Summed& x : w.sums[name == "dk" ? 0 : 1]) parts.push_back(&x.field), rnd.push_back(&x.rounded);
            h = s.h_kv;
        } else {
            for (const GradReference& x : w.g) parts.push_back(x.fields()[y]);
        }
        r.rounded.emplace_back();
        r.fields.push_back(
            stacked(parts, rnd, s.b, h, in_caller_layout(name) ? &w.batch.layout : nullptr, r.rounded.back()));
    }
    for (const GradReference& x : w.g) r.max_precision = std::max(r.max_precision, x.max_precision);
    for (const GradField& x : r.fields) r.exact_entries += std::count(x.exact.begin(), x.exact.end(), std::uint8_t{1});
    if (w.dq_t != nullptr) {
        std::vector<const std::vector<double>*> bounds;
        for (const auto& x : w.gb) bounds.push_back(&x.dq);
        r.judged.push_back(merged("dq", w.dq_c, bounds, s.b, s.h_q, s.n_q, s.d, w.batch.layout));
    }
    for (const auto& [name, unused] : w.kv_slices) {
        const int t = name == "dk" ? 0 : 1;
        std::vector<const std::vector<double>*> bounds;
        for (const auto& x : w.sums[t]) bounds.push_back(&x.bound);
        r.judged.push_back(merged(name, w.kv_c[t], bounds, s.b, s.h_kv, s.n_k, t == 0 ? s.d : s.d_v, w.batch.layout));
    }
}

}  // namespace

GradBatch grad_batch(const Batch& batch, const Tensor& d_out, FloatFormat f,
                     const std::vector<std::pair<std::string, Tensor>>& actual, const GradSpec& spec, int threads) {
    BatchWork w(batch, d_out, f, spec, threads);
    check_given(w, actual);
    certify_heads(w);
    GradBatch r;
    r.shape = w.s;
    r.layout = batch.layout;
    r.format = f;
    r.base = batch.options.base;
    r.spec = spec;
    for (const Fp8Events& e : w.events) r.fp8.merge(e);  // in head order: the first named is the first head's
    sum_groups(w, r);
    judge_kv_heads(w);
    r.diagnosis = batch_diagnosis(w);
    collect(w, r);
    return r;
}

}  // namespace exactattn::oracle
