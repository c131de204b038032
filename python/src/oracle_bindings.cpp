// SPDX-License-Identifier: MIT
// exactattn._exactattn: the oracle's binding (docs/oracle.md). Arrays arrive as float64 (every
// float16, bfloat16 and float32 value is one, exactly) with the name of the format they were
// in; python/exactattn/oracle.py converts NumPy arrays and torch tensors and builds messages.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "convert.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/oracle.hpp"
#include "exactattn/oracle_grad.hpp"

namespace py = pybind11;
using namespace exactattn;
using namespace exactattn::oracle;

namespace {

using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

Location arg(const char* name) {
    Location where;
    where.context = name;
    return where;
}

Tensor tensor(const Array& a, const std::string& dtype, const char* name) {
    Tensor t;
    for (py::ssize_t x = 0; x < a.ndim(); ++x) t.shape.push_back(a.shape(x));
    t.data.assign(a.data(), a.data() + a.size());
    t.format = parse_format(dtype, arg(name));
    return t;
}

py::array_t<double> array(const std::vector<double>& v, std::int64_t r, std::int64_t c) {
    py::array_t<double> a({static_cast<py::ssize_t>(r), static_cast<py::ssize_t>(c)});
    std::copy(v.begin(), v.end(), a.mutable_data());
    return a;
}

// The problem of a call: a matrix problem, or a batch of heads when q is 4-D. The option
// strings are parsed by the library, as for the command line (one refusal each, at its keyword).
struct ProblemArgs {
    Problem p;
    std::optional<Batch> batch;
    FloatFormat f = FloatFormat::Float32;
    Fp8Events fp8;  ///< inputs saturated under fp8_overflow="saturate"
};

// The 8-bit options of a call (docs/oracle.md, "8-bit floats"), each refusal at its keyword.
Fp8Overflow fp8_overflow_of(const py::dict& opts) {
    return parse_fp8_overflow(opts["fp8_overflow"].cast<std::string>(), arg("fp8_overflow"));
}
PDescale p_descale_of(const py::dict& opts) {
    const py::object d = opts["p_descale"];
    const std::string text = py::isinstance<py::str>(d) ? d.cast<std::string>() : py::str(d).cast<std::string>();
    return parse_p_descale(text, arg("p_descale"));
}

ProblemArgs problem(const Array& q, const Array& k, const Array& v, const std::vector<std::string>& dtypes,
                    const std::string& dtype, const std::optional<Array>& mask, const std::optional<Array>& bias,
                    const py::dict& opts) {
    ProblemArgs a;
    a.f = parse_format(dtype, arg("fmt"));
    ProblemOptions o;
    const py::object scale = opts["scale"];
    if (py::isinstance<py::str>(scale))
        o.scale = scale.cast<std::string>();
    else if (py::isinstance<py::float_>(scale) || py::isinstance<py::int_>(scale))
        o.scale_value = scale.cast<double>();
    else
        throw usage_error("not 'sqrt-dk', 'none' or a number", arg("scale"));
    o.base = opts["base"].cast<std::string>();
    o.masked_rows = opts["masked_rows"].cast<std::string>();
    o.masked_lse = opts["masked_lse"].cast<std::string>();
    o.align = opts["align"].cast<std::string>();
    o.causal = opts["causal"].cast<bool>();
    o.window_left = opts["window_left"].cast<std::int64_t>();
    o.window_right = opts["window_right"].cast<std::int64_t>();
    const Problem base = problem_options(o);
    const py::object in_fmt = opts["in_fmt"];  // the declared format of q, k, v (8-bit values in float arrays)
    const auto declared = [&](std::size_t x) { return in_fmt.is_none() ? dtypes.at(x) : in_fmt.cast<std::string>(); };
    Tensor tq = tensor(q, declared(0), "q"), tk = tensor(k, declared(1), "k"), tv = tensor(v, declared(2), "v");
    std::optional<Tensor> tm, tb;
    if (mask) tm = tensor(*mask, "float64", "mask");
    if (bias) tb = tensor(*bias, "float64", "bias");
    if (tq.shape.size() == 4) {
        a.batch = Batch{std::move(tq), std::move(tk), std::move(tv),
                        std::move(tm), std::move(tb), parse_layout(opts["layout"].cast<std::string>(), arg("layout")),
                        base};
        (void)batch_shape(*a.batch);
        return a;
    }
    a.p = base;
    a.p.q = std::move(tq);
    a.p.k = std::move(tk);
    a.p.v = std::move(tv);
    if (tm) set_mask(a.p, *tm, arg("mask"));
    if (tb) set_bias(a.p, *tb, arg("bias"));
    a.fp8 = saturate_inputs(a.p, fp8_overflow_of(opts));
    validate(a.p);
    return a;
}

py::array_t<double> shaped(const std::vector<double>& v, const std::vector<std::int64_t>& shape) {
    std::vector<py::ssize_t> s(shape.begin(), shape.end());
    py::array_t<double> a(s);
    std::copy(v.begin(), v.end(), a.mutable_data());
    return a;
}

py::object json_loads(const std::string& text) { return py::module_::import("json").attr("loads")(text); }

py::dict reference_dict(const std::vector<Reference>& refs, std::int64_t batch, std::int64_t heads, bool report) {
    const auto dims = [&](std::int64_t r, std::int64_t c) {
        return heads > 0 ? std::vector<std::int64_t>{batch, heads, r, c} : std::vector<std::int64_t>{r, c};
    };
    const Reference r = concat_heads(refs);
    const std::vector<double> exact(r.out_exact.begin(), r.out_exact.end());
    py::dict d;
    d["out"] = shaped(r.out, dims(r.n_q, r.d_v));
    d["out_lo"] = shaped(r.out_lo, dims(r.n_q, r.d_v));
    d["out_hi"] = shaped(r.out_hi, dims(r.n_q, r.d_v));
    d["out_exact"] = shaped(exact, dims(r.n_q, r.d_v));
    d["out_exact_text"] = r.out_exact_text;  // the exact values in the engine's notation, or ""
    d["lse"] = shaped(r.lse, dims(r.n_q, 1));
    d["weights"] = r.w.empty() ? py::object(py::none()) : py::object(shaped(r.w, dims(r.n_q, r.n_k)));
    d["max_precision"] = r.max_precision;
    if (report) {
        d["text"] = reference_text(refs, batch, heads);
        d["json"] = reference_json(refs, batch, heads);
    }
    return d;
}

// One tensor's judgement: the report's summary (the same keys as the command line's JSON) and
// every entry's figures as arrays of the judged tensor's shape.
py::dict judgement_dict(const Judgement& j, const std::vector<std::int64_t>& shape) {
    py::dict d = json_loads(judgement_json(j));
    const std::size_t n = j.entries.size();
    std::vector<double> cols_[10];
    for (auto& c : cols_) c.reserve(n);
    for (const auto& e : j.entries) {
        const double v[10] = {e.value,
                              e.rounded,
                              e.lo,
                              e.hi,
                              e.ulp_error,
                              e.abs_error,
                              e.rel_error,
                              e.bound,
                              e.within ? 1.0 : 0.0,
                              e.exact ? 1.0 : 0.0};
        for (int x = 0; x < 10; ++x) cols_[x].push_back(v[x]);
    }
    const char* names[10] = {"value",     "rounded",   "lo",    "hi",     "ulp_error",
                             "abs_error", "rel_error", "bound", "within", "exact"};
    for (int x = 0; x < 10; ++x) d[names[x]] = shaped(cols_[x], shape);
    return d;
}

// The algorithm, accumulator and P format a kernel claims, each refusal placed at its keyword.
std::tuple<Algorithm, FloatFormat, FloatFormat> claim(const std::string& algorithm, const std::string& accumulate,
                                                      const std::string& p_dtype) {
    return {parse_algorithm(algorithm, arg("algorithm")), parse_format(accumulate, arg("accumulate")),
            parse_format(p_dtype, arg("p_fmt"))};
}

// Unfused attention's stored format, or none.
std::optional<FloatFormat> stored_format(const std::optional<std::string>& stored) {
    if (!stored) return std::nullopt;
    return parse_format(*stored, arg("stored"));
}

// The backward claim, each refusal placed at its keyword.
GradSpec grad_claim(const std::string& backward, const std::string& accumulate,
                    const std::optional<std::string>& storage, const std::optional<std::string>& delta_from,
                    std::int64_t block) {
    GradSpec s;
    s.algorithm = parse_grad_algorithm(backward, arg("backward"));
    s.accumulate = parse_format(accumulate, arg("accumulate"));
    if (storage) s.storage = parse_format(*storage, arg("storage"));
    if (delta_from) s.delta = parse_delta_from(*delta_from, arg("delta_from"));
    if (s.algorithm == GradAlgorithm::Flash2 && s.delta_from() == DeltaFrom::P)
        throw usage_error("flash2 computes D from O ('o')", arg("delta_from"));
    s.block = block;
    return s;
}

// The claim's 8-bit P (p_fmt, p_descale, fp8_overflow; docs/oracle.md, "8-bit floats") and the
// upstream gradient in in_fmt (an 8-bit dO past the range clamped under fp8_overflow="saturate").
void grad_fp8(GradSpec& s, const py::dict& opts) {
    if (opts.contains("p_fmt") && !opts["p_fmt"].is_none())
        s.p_format = parse_format(opts["p_fmt"].cast<std::string>(), arg("p_fmt"));
    s.p_descale = p_descale_of(opts);
    s.fp8_overflow = fp8_overflow_of(opts);
    if (opts.contains("ds_fmt") && !opts["ds_fmt"].is_none())
        s.ds_format = parse_format(opts["ds_fmt"].cast<std::string>(), arg("ds_fmt"));
    if (opts.contains("ds_descale"))
        s.ds_descale = parse_p_descale(opts["ds_descale"].cast<std::string>(), arg("ds_descale"));
}
Tensor grad_d_out(const Array& d_out, const std::string& do_dtype, const py::dict& opts, Fp8Events& events) {
    const py::object in_fmt = opts["in_fmt"];
    Tensor t = tensor(d_out, in_fmt.is_none() ? do_dtype : in_fmt.cast<std::string>(), "do");
    if (t.shape.size() == 2) saturate_tensor(t, "do", fp8_overflow_of(opts), events);
    return t;
}

// The certified gradients (every field's values, enclosure and exactness) and, for the actual
// gradients given, their bounds and judgements.
py::dict grad_dict(const GradReference& g, const GradBounds* b, const std::vector<GradComparison>& compared,
                   const GradSpec& spec, const std::string& diagnosis, const Fp8Events* fp8 = nullptr) {
    py::dict d;
    for (const GradField* f : g.fields()) {
        py::dict x;
        x["values"] = shaped(f->val, f->shape);
        x["lo"] = shaped(f->lo, f->shape);
        x["hi"] = shaped(f->hi, f->shape);
        x["exact"] = shaped(std::vector<double>(f->exact.begin(), f->exact.end()), f->shape);
        d[py::str(f->name)] = x;
    }
    py::dict judged;
    for (const GradComparison& c : compared) {
        const GradField& f = c.name == "dq" ? g.dq : c.name == "dk" ? g.dk : g.dv;
        const std::vector<double>& bound = c.name == "dq" ? b->dq : c.name == "dk" ? b->dk : b->dv;
        py::dict x;
        x["entries"] = c.entries, x["differing"] = c.differing, x["max_ulps"] = c.max_ulps;
        x["over"] = c.over, x["unbounded"] = c.unbounded, x["unbounded_reason"] = c.unbounded_reason;
        x["max_bound_fraction"] = c.max_fraction, x["bound"] = shaped(bound, f.shape);
        const auto at = [&](std::int64_t i) {
            return i < 0 ? py::object(py::none()) : py::object(py::make_tuple(i / f.shape[1], i % f.shape[1]));
        };
        x["worst"] = at(c.worst), x["worst_fraction"] = at(c.worst_fraction), x["first_over"] = at(c.first_over);
        judged[py::str(c.name)] = x;
    }
    d["judged"] = judged;
    d["passed"] = grads_passed(compared);
    d["diagnosis"] = diagnosis;
    d["text"] = grad_reference_text(g, compared, compared.empty() ? nullptr : &spec, diagnosis, fp8);
    d["json"] = grad_reference_json(g, compared, compared.empty() ? nullptr : &spec, diagnosis, fp8);
    d["fp8"] = fp8 != nullptr ? json_loads(fp8_events_json(*fp8)) : py::object(py::none());
    return d;
}

// --- the gradients of a batch of heads (docs/oracle.md, "Gradients of a batch of heads") -------

// An error of head (b, h), the head named first (as the forward's batch names it).
template <class F>
void in_head(std::int64_t b, std::int64_t h, F&& f) {
    try {
        f();
    } catch (const Error& e) {
        throw Error(e.kind(), e.where(),
                    "head (b=" + std::to_string(b) + ", h=" + std::to_string(h) + "): " + e.reason());
    }
}

double up(double x) { return std::nextafter(x, std::numeric_limits<double>::infinity()); }
double down(double x) { return std::nextafter(x, -std::numeric_limits<double>::infinity()); }

// The kv tensors' shape as a BatchShape whose "query" heads are the kv heads (for head_slice).
BatchShape kv_shape(const BatchShape& s) {
    BatchShape k = s;
    k.h_q = s.h_kv;
    k.n_q = s.n_k;
    return k;
}

// The true dK (or dV) of a kv head: the sum over the query heads of its group of each head's,
// enclosed by the sum of their enclosures rounded outward, and the bound of a kernel that sums
// the heads' gradients (each within its own bound b_h) with G − 1 additions and one rounding to
// the gradients' format: Σ b_h + γ_G(u) Σ (|x_h| + b_h) + η, u and η of the coarser of the
// gradients' format and the accumulator (docs/oracle.md, "Gradients of a batch of heads").
struct Summed {
    GradField field;
    std::vector<double> bound;
    /// 1 where field.val is the correctly rounded sum (both ends of its enclosure round alike),
    /// 0 where the enclosure straddles a rounding boundary of the format: there val is the
    /// enclosure's midpoint rounded, an ulp from the correctly rounded sum at most.
    std::vector<std::uint8_t> rounded;
};
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
    const double u = unit_roundoff(coarse),
                 gamma = g * u >= 1 ? std::numeric_limits<double>::infinity() : up(up(g * u) / down(1 - g * u));
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

// Where entry `at` of head x's matrix (cols wide) is: (b, h, i, j).
py::tuple where4(std::int64_t x, std::int64_t heads, std::int64_t at, std::int64_t cols) {
    return py::make_tuple(x / heads, x % heads, at / cols, at % cols);
}

// The comparisons of every head (or kv head) of one tensor as one, indices as (b, h, i, j).
py::dict merged_judgement(const std::vector<GradComparison>& parts, const std::vector<std::vector<double>>& bounds,
                          std::int64_t heads, std::int64_t rows, std::int64_t cols) {
    std::int64_t entries = 0, differing = 0, over = 0, unbounded = 0;
    double max_ulps = 0, max_fraction = 0;
    py::object worst = py::none(), worst_fraction = py::none(), first_over = py::none();
    std::string reason;
    std::vector<double> bound;
    for (std::size_t x = 0; x < parts.size(); ++x) {
        const GradComparison& c = parts[x];
        const auto xi = static_cast<std::int64_t>(x);
        entries += c.entries, differing += c.differing, over += c.over, unbounded += c.unbounded;
        if (c.worst >= 0 && (worst.is_none() || c.max_ulps > max_ulps))
            max_ulps = c.max_ulps, worst = where4(xi, heads, c.worst, cols);
        if (c.worst_fraction >= 0 && (worst_fraction.is_none() || c.max_fraction > max_fraction))
            max_fraction = c.max_fraction, worst_fraction = where4(xi, heads, c.worst_fraction, cols);
        if (first_over.is_none() && c.first_over >= 0) first_over = where4(xi, heads, c.first_over, cols);
        if (reason.empty() && !c.unbounded_reason.empty())
            reason = "head (b=" + std::to_string(xi / heads) + ", h=" + std::to_string(xi % heads) +
                     "): " + c.unbounded_reason;
        bound.insert(bound.end(), bounds[x].begin(), bounds[x].end());
    }
    py::dict d;
    d["entries"] = entries, d["differing"] = differing, d["max_ulps"] = max_ulps, d["over"] = over;
    d["unbounded"] = unbounded, d["unbounded_reason"] = reason, d["max_bound_fraction"] = max_fraction;
    d["bound"] = shaped(bound, {static_cast<std::int64_t>(parts.size()) / heads, heads, rows, cols});
    d["worst"] = worst, d["worst_fraction"] = worst_fraction, d["first_over"] = first_over;
    return d;
}

// One field of every head (or kv head) as one (B, H, ...) array of each of its parts.
py::dict stacked(const std::vector<const GradField*>& parts, std::int64_t heads,
                 const std::vector<const std::vector<std::uint8_t>*>& rounded_parts = {}) {
    std::vector<double> val, lo, hi, exact, rounded;
    for (std::size_t p = 0; p < parts.size(); ++p) {
        const GradField* f = parts[p];
        if (rounded_parts.empty()) {  // a head's own field: correctly rounded by the reference
            rounded.insert(rounded.end(), f->val.size(), 1.0);
        } else {
            rounded.insert(rounded.end(), rounded_parts[p]->begin(), rounded_parts[p]->end());
        }
        val.insert(val.end(), f->val.begin(), f->val.end());
        lo.insert(lo.end(), f->lo.begin(), f->lo.end());
        hi.insert(hi.end(), f->hi.begin(), f->hi.end());
        exact.insert(exact.end(), f->exact.begin(), f->exact.end());
    }
    std::vector<std::int64_t> shape{static_cast<std::int64_t>(parts.size()) / heads, heads};
    shape.insert(shape.end(), parts.at(0)->shape.begin(), parts.at(0)->shape.end());
    py::dict x;
    x["values"] = shaped(val, shape), x["lo"] = shaped(lo, shape), x["hi"] = shaped(hi, shape);
    x["exact"] = shaped(exact, shape);
    x["rounded"] = shaped(rounded, shape);
    return x;
}

// The "wrong GQA group" hypothesis (docs/oracle.md, "Diagnoses of the backward"): a kernel that
// sums kv head k's dK or dV over the query heads h with h mod H_kv = k (the heads interleaved)
// instead of h div G = k. Named (with the tensors it explains: "dK/dV", "dK" or "dV") when, in
// every failing kv tensor, the gradients it gives fit at least 99% of the entries within their
// (wrong group's) bound and fit 4 times better in all than the true sums; else "".
std::string wrong_group(const BatchShape& s, const std::vector<GradReference>& g, const std::vector<GradBounds>& gb,
                        const std::vector<std::pair<std::string, std::vector<Tensor>>>& kv_given,
                        const std::vector<GradComparison>* kv_c, FloatFormat f, FloatFormat acc,
                        const std::vector<Summed>* sums) {
    const std::int64_t group = s.h_q / s.h_kv;
    if (group == 1 || s.h_kv == 1) return "";  // the two mappings agree
    const auto misfit = [](double y, double lo, double hi, double bd) {
        if (!std::isfinite(y) || !std::isfinite(bd)) return 1e300;
        const double e = std::max(std::fabs(y - lo), std::fabs(y - hi));
        return bd > 0 ? e / bd : (e > 0 ? 1e300 : 0.0);
    };
    std::string names;
    for (const auto& [name, slices] : kv_given) {
        const int t = name == "dk" ? 0 : 1;
        bool failed = false;
        for (const auto& c : kv_c[t]) failed = failed || c.over > 0;
        if (!failed) continue;
        std::int64_t entries = 0, fit = 0;
        double misfit_wrong = 0, misfit_true = 0;
        for (std::int64_t b = 0; b < s.b; ++b)
            for (std::int64_t k = 0; k < s.h_kv; ++k) {
                std::vector<const GradField*> heads;
                std::vector<const std::vector<double>*> bounds;
                for (std::int64_t h = k; h < s.h_q; h += s.h_kv) {
                    const auto x = static_cast<std::size_t>(b * s.h_q + h);
                    heads.push_back(t == 0 ? &g[x].dk : &g[x].dv);
                    bounds.push_back(t == 0 ? &gb[x].dk : &gb[x].dv);
                }
                const Summed wrong = group_sum(heads, bounds, f, acc);
                const auto kx = static_cast<std::size_t>(b * s.h_kv + k);
                const Summed& right = sums[t][kx];
                const Tensor& y = slices[kx];
                for (std::size_t at = 0; at < y.data.size(); ++at) {
                    const double mw = misfit(y.data[at], wrong.field.lo[at], wrong.field.hi[at], wrong.bound[at]);
                    ++entries;
                    fit += mw <= 1 ? 1 : 0;
                    misfit_wrong += mw;
                    misfit_true += misfit(y.data[at], right.field.lo[at], right.field.hi[at], right.bound[at]);
                }
            }
        if (entries == 0 || 100 * fit < 99 * entries || !(4 * misfit_wrong < misfit_true)) return "";
        names += names.empty() ? (t == 0 ? "dK" : "dV") : (t == 0 ? "/dK" : "/dV");
    }
    if (names.empty()) return "";
    return names + " gathered over the wrong GQA group: kv head k summed the query heads h with h mod " +
           std::to_string(s.h_kv) + " = k instead of h div " + std::to_string(group) + " = k";
}

// The gradients of every head of a batch, judged in one call: dq per query head; dk and dv per
// kv head, the true value the sum over the kv head's group of query heads.
py::dict grad_batch(const Batch& batch, const Tensor& d_out, FloatFormat f, const py::dict& actual,
                    const std::string& dtype, const GradSpec& spec, int threads) {
    const BatchShape s = batch_shape(batch), kv = kv_shape(batch_shape(batch));
    const std::int64_t group = s.h_q / s.h_kv;
    // The shapes before any work: d_out and every gradient given.
    (void)head_slice(d_out, batch.layout, s, 0, 0, s.d_v, "d_out");
    Tensor dq_t;
    std::vector<std::pair<std::string, Tensor>> kv_t;
    const bool has_dq = actual.contains("dq");
    if (has_dq) {
        dq_t = tensor(actual["dq"].cast<Array>(), dtype, "dq");
        (void)head_slice(dq_t, batch.layout, s, 0, 0, s.d, "dq");
    }
    for (const char* name : {"dk", "dv"})
        if (actual.contains(name)) {
            kv_t.emplace_back(name, tensor(actual[name].cast<Array>(), dtype, name));
            (void)head_slice(kv_t.back().second, batch.layout, kv, 0, 0, name[1] == 'k' ? s.d : s.d_v, name);
        }
    const bool judged = has_dq || !kv_t.empty();
    const auto heads = static_cast<std::size_t>(s.b * s.h_q), kv_heads = static_cast<std::size_t>(s.b * s.h_kv);
    std::vector<GradReference> g(heads);
    std::vector<GradBounds> gb(judged ? heads : 0);
    std::vector<GradComparison> dq_c(has_dq ? heads : 0);
    std::vector<Summed> sums[2];  // dk, dv of each kv head
    std::vector<GradComparison> kv_c[2];
    std::vector<std::pair<std::string, std::vector<Tensor>>> kv_slices;
    std::string diagnosis;
    {
        py::gil_scoped_release release;
        for_each_head(s, threads, [&](std::int64_t b, std::int64_t h) {
            in_head(b, h, [&] {
                const auto x = static_cast<std::size_t>(b * s.h_q + h);
                const Problem p = head_problem(batch, s, b, h);
                Tensor dot = head_slice(d_out, batch.layout, s, b, h, s.d_v, "d_out");
                g[x] = grad_reference(p, dot, f);
                if (judged) gb[x] = grad_bounds(p, dot, g[x], spec);
                if (has_dq) {
                    Tensor y = head_slice(dq_t, batch.layout, s, b, h, s.d, "dq");
                    y.format = f;
                    dq_c[x] = judge_grad(g[x], gb[x], "dq", y);
                }
            });
        });
        for (int t = 0; t < 2; ++t) {
            sums[t].resize(kv_heads);
            for (std::size_t kx = 0; kx < kv_heads; ++kx) {
                const auto b = static_cast<std::int64_t>(kx) / s.h_kv, k = static_cast<std::int64_t>(kx) % s.h_kv;
                std::vector<const GradField*> parts;
                std::vector<const std::vector<double>*> bounds;
                for (std::int64_t h = k * group; h < (k + 1) * group; ++h) {
                    const auto x = static_cast<std::size_t>(b * s.h_q + h);
                    parts.push_back(t == 0 ? &g[x].dk : &g[x].dv);
                    if (judged) bounds.push_back(t == 0 ? &gb[x].dk : &gb[x].dv);
                }
                sums[t][kx] = group_sum(parts, bounds, f, spec.accumulate);
            }
        }
        for (const auto& [name, tensor_] : kv_t) {
            const int t = name == "dk" ? 0 : 1;
            std::vector<Tensor> slices;
            for (std::size_t kx = 0; kx < kv_heads; ++kx) {
                const auto b = static_cast<std::int64_t>(kx) / s.h_kv, k = static_cast<std::int64_t>(kx) % s.h_kv;
                Tensor y = head_slice(tensor_, batch.layout, kv, b, k, t == 0 ? s.d : s.d_v, name.c_str());
                y.format = f;
                GradReference one;  // the kv head's summed field, judged as a matrix's
                one.format = f;
                GradBounds ob;
                (t == 0 ? one.dk : one.dv) = sums[t][kx].field;
                (t == 0 ? ob.dk : ob.dv) = sums[t][kx].bound;
                const std::string& why = t == 0 ? gb[static_cast<std::size_t>(b * s.h_q + k * group)].why_dk
                                                : gb[static_cast<std::size_t>(b * s.h_q + k * group)].why_dv;
                (t == 0 ? ob.why_dk : ob.why_dv) = why;
                kv_c[t].push_back(judge_grad(one, ob, name, y));
                slices.push_back(std::move(y));
            }
            kv_slices.emplace_back(name, std::move(slices));
        }
        // The diagnosis: the wrong GQA group first (it is the batch's, not a head's), else that of
        // the first query head that fails, named (dk and dv are a head's own only in groups of one).
        diagnosis = wrong_group(s, g, gb, kv_slices, kv_c, f, spec.accumulate, sums);
        for (std::size_t x = 0; x < heads && diagnosis.empty(); ++x) {
            const auto b = static_cast<std::int64_t>(x) / s.h_q, h = static_cast<std::int64_t>(x) % s.h_q;
            const auto kx = static_cast<std::size_t>(b * s.h_kv + h / group);
            std::vector<std::pair<std::string, Tensor>> given;
            std::vector<GradComparison> compared;
            bool failed = false;
            if (has_dq) {
                Tensor y = head_slice(dq_t, batch.layout, s, b, h, s.d, "dq");
                y.format = f;
                given.emplace_back("dq", std::move(y));
                compared.push_back(dq_c[x]);
                failed = failed || dq_c[x].over > 0;
            }
            if (group == 1)
                for (std::size_t t = 0; t < kv_slices.size(); ++t) {
                    const int which = kv_slices[t].first == "dk" ? 0 : 1;
                    given.emplace_back(kv_slices[t].first, kv_slices[t].second[kx]);
                    compared.push_back(kv_c[which][kx]);
                    failed = failed || kv_c[which][kx].over > 0;
                }
            if (!failed) continue;
            const Problem p = head_problem(batch, s, b, h);
            const Tensor dot = head_slice(d_out, batch.layout, s, b, h, s.d_v, "d_out");
            const std::string d = diagnose_grads(p, dot, g[x], gb[x], spec, given, compared);
            if (!d.empty()) diagnosis = "head (b=" + std::to_string(b) + ", h=" + std::to_string(h) + "): " + d;
            break;
        }
    }
    py::dict d;
    const auto field_of = [&](const char* name, std::size_t x) -> const GradField* {
        for (const GradField* f_ : g[x].fields())
            if (f_->name == name) return f_;
        return nullptr;
    };
    for (const GradField* f0 : g.at(0).fields()) {
        const std::string name = f0->name;
        std::vector<const GradField*> parts;
        if (name == "dk" || name == "dv") {
            std::vector<const std::vector<std::uint8_t>*> rounded;
            for (const Summed& x : sums[name == "dk" ? 0 : 1]) {
                parts.push_back(&x.field);
                rounded.push_back(&x.rounded);
            }
            d[py::str(name)] = stacked(parts, s.h_kv, rounded);
        } else {
            for (std::size_t x = 0; x < heads; ++x) parts.push_back(field_of(name.c_str(), x));
            d[py::str(name)] = stacked(parts, s.h_q);
        }
    }
    py::dict j;
    std::vector<GradComparison> all;
    if (has_dq) {
        std::vector<std::vector<double>> bounds;
        for (const auto& x : gb) bounds.push_back(x.dq);
        j["dq"] = merged_judgement(dq_c, bounds, s.h_q, s.n_q, s.d);
        all.insert(all.end(), dq_c.begin(), dq_c.end());
    }
    for (const auto& [name, unused] : kv_slices) {
        const int t = name == "dk" ? 0 : 1;
        std::vector<std::vector<double>> bounds;
        for (const auto& x : sums[t]) bounds.push_back(x.bound);
        j[py::str(name)] = merged_judgement(kv_c[t], bounds, s.h_kv, s.n_k, t == 0 ? s.d : s.d_v);
        all.insert(all.end(), kv_c[t].begin(), kv_c[t].end());
    }
    d["judged"] = j;
    d["passed"] = grads_passed(all);
    d["diagnosis"] = diagnosis;
    d["heads"] = py::make_tuple(s.b, s.h_q, s.h_kv);
    return d;
}

}  // namespace

void bind_oracle(py::module_& m) {
    m.def("_oracle_grad",
          [](const Array& q, const Array& k, const Array& v, const std::vector<std::string>& dtypes,
             const std::string& dtype, const std::optional<Array>& mask, const std::optional<Array>& bias,
             const py::dict& opts, const Array& d_out, const std::string& do_dtype, const py::dict& actual,
             const std::string& backward, const std::string& accumulate, const std::optional<std::string>& storage,
             const std::optional<std::string>& delta_from, std::int64_t block, int threads) {
              const exactattn::python::Call call;  // each call is one job with one work budget (docs/limits.md)
              const ProblemArgs a = problem(q, k, v, dtypes, dtype, mask, bias, opts);
              Fp8Events events = a.fp8;
              const Tensor dot = grad_d_out(d_out, do_dtype, opts, events);
              GradSpec spec = grad_claim(backward, accumulate, storage, delta_from, block);
              grad_fp8(spec, opts);
              if (a.batch) return grad_batch(*a.batch, dot, a.f, actual, dtype, spec, threads);
              std::vector<std::pair<std::string, Tensor>> given;
              for (const char* name : {"dq", "dk", "dv"})
                  if (actual.contains(name)) given.emplace_back(name, tensor(actual[name].cast<Array>(), dtype, name));
              std::optional<GradReference> g;
              std::optional<GradBounds> b;
              std::vector<GradComparison> compared;
              std::string diagnosis;
              {
                  py::gil_scoped_release release;
                  g = grad_reference(a.p, dot, a.f);
                  if (!given.empty()) b = grad_bounds(a.p, dot, *g, spec);
                  for (const auto& [name, t] : given) compared.push_back(judge_grad(*g, *b, name, t));
                  if (!given.empty()) diagnosis = diagnose_grads(a.p, dot, *g, *b, spec, given, compared);
                  if (!given.empty() && spec.casts_fp8())  // as the command line
                      events.merge(grad_emulate(a.p, dot, spec, a.f, false).fp8);
              }
              const bool report = events.any() || (spec.casts_fp8() && !given.empty());
              return grad_dict(*g, b ? &*b : nullptr, compared, spec, diagnosis, report ? &events : nullptr);
          });
    m.def("_oracle_grad_emulate",
          [](const Array& q, const Array& k, const Array& v, const std::vector<std::string>& dtypes,
             const std::string& dtype, const std::optional<Array>& mask, const std::optional<Array>& bias,
             const py::dict& opts, const Array& d_out, const std::string& do_dtype, const std::string& backward,
             const std::string& accumulate, const std::optional<std::string>& storage,
             const std::optional<std::string>& delta_from, std::int64_t block, bool trace) {
              const exactattn::python::Call call;
              const ProblemArgs a = problem(q, k, v, dtypes, dtype, mask, bias, opts);
              if (a.batch) throw usage_error("the gradients take matrices (n × d); q is 4-D", arg("q"));
              Fp8Events events = a.fp8;  // the inputs' first, then the kernel's
              const Tensor dot = grad_d_out(d_out, do_dtype, opts, events);
              GradSpec spec = grad_claim(backward, accumulate, storage, delta_from, block);
              grad_fp8(spec, opts);
              GradEmulation e;
              {
                  py::gil_scoped_release release;
                  e = grad_emulate(a.p, dot, spec, a.f, trace);
              }
              events.merge(e.fp8);
              e.fp8 = events;
              py::dict d;
              for (const auto& [name, t] :
                   {std::pair{"dq", &e.dq}, {"dk", &e.dk}, {"dv", &e.dv}, {"out", &e.out}, {"lse", &e.lse}})
                  d[name] = shaped(t->data, t->shape);
              d["trace"] = e.trace;
              d["fp8"] = json_loads(fp8_events_json(e.fp8));
              d["text"] = grad_emulation_text(e, spec);
              return d;
          });
    m.def("_oracle_emulate", [](const Array& q, const Array& k, const Array& v, const std::vector<std::string>& dtypes,
                                const std::string& dtype, const std::optional<Array>& mask,
                                const std::optional<Array>& bias, const py::dict& opts, const std::string& algorithm,
                                const std::string& accumulate, const std::string& p_dtype, std::int64_t block,
                                bool trace, bool report, const std::optional<std::string>& stored) {
        const exactattn::python::Call call;  // each call is one job with one work budget (docs/limits.md)
        const ProblemArgs a = problem(q, k, v, dtypes, dtype, mask, bias, opts);
        if (a.batch) throw usage_error("emulate takes matrices (n × d); q is 4-D", arg("q"));
        EmulationSpec s;
        std::tie(s.algorithm, s.format, s.p_format) = claim(algorithm, accumulate, p_dtype);
        s.output = a.f;
        s.block = block;
        s.stored = stored_format(stored);
        s.p_descale = p_descale_of(opts);
        s.fp8_overflow = fp8_overflow_of(opts);
        Emulation e;
        {
            py::gil_scoped_release release;
            e = emulate(a.p, s, trace);
        }
        Fp8Events events = a.fp8;  // the inputs' first, then the kernel's
        events.merge(e.fp8);
        e.fp8 = events;
        py::dict d;
        d["out"] = array(e.out.data, e.out.rows(), e.out.cols());
        d["trace"] = e.trace;
        d["fp8"] = json_loads(fp8_events_json(e.fp8));
        if (report) {
            d["text"] = emulation_text(e, s);
            d["json"] = emulation_json(e, s);
        }
        return d;
    });
    m.def("_oracle_reference",
          [](const Array& q, const Array& k, const Array& v, const std::vector<std::string>& dtypes,
             const std::string& dtype, const std::optional<Array>& mask, const std::optional<Array>& bias,
             const py::dict& opts, bool weights, int threads, bool report) {
              const exactattn::python::Call call;  // each call is one job with one work budget (docs/limits.md)
              const ProblemArgs a = problem(q, k, v, dtypes, dtype, mask, bias, opts);
              std::vector<Reference> refs;
              std::int64_t batch = 0, heads = 0;
              {
                  py::gil_scoped_release release;
                  if (a.batch) {
                      const BatchShape s = batch_shape(*a.batch);
                      batch = s.b;
                      heads = s.h_q;
                      refs = reference_batch(*a.batch, a.f, weights, threads);
                  } else {
                      refs.push_back(reference(a.p, a.f, weights));
                  }
              }
              return reference_dict(refs, batch, heads, report);
          });
    m.def("_oracle_judge",
          [](const Array& actual, const Array& q, const Array& k, const Array& v,
             const std::vector<std::string>& dtypes, const std::string& dtype, const std::optional<Array>& mask,
             const std::optional<Array>& bias, const py::dict& opts, const std::string& algorithm,
             const std::string& accumulate, const std::string& p_dtype, std::int64_t block,
             std::optional<double> tolerance, const std::optional<Array>& weights, const std::optional<Array>& lse,
             const std::string& bound, int threads, const std::optional<std::string>& stored) {
              const exactattn::python::Call call;  // each call is one job with one work budget (docs/limits.md)
              const ProblemArgs a = problem(q, k, v, dtypes, dtype, mask, bias, opts);
              AlgorithmSpec s;
              std::tie(s.algorithm, s.accumulate, s.p_format) = claim(algorithm, accumulate, p_dtype);
              if (tolerance) checked_tolerance(*tolerance, arg("tolerance_ulps"));
              s.block = block;
              s.bound = parse_bound(bound, arg("bound"));
              s.stored = stored_format(stored);
              s.p_descale = p_descale_of(opts);
              s.fp8_overflow = fp8_overflow_of(opts);
              const Tensor out = tensor(actual, dtype, "out");
              std::optional<Tensor> w, l;
              if (weights) w = tensor(*weights, dtype, "weights");
              if (lse) l = tensor(*lse, "float64", "lse");
              JudgeReport rep;
              {
                  py::gil_scoped_release release;
                  if (a.batch) {
                      if (w) throw usage_error("weights are judged for matrix problems only", arg("weights"));
                      rep = judge_batch(*a.batch, a.f, out, l ? &*l : nullptr, s, tolerance, threads);
                  } else {
                      rep = judge_problem(a.p, a.f, out, w ? &*w : nullptr, l ? &*l : nullptr, s, tolerance);
                  }
              }
              const auto dims = [&](std::int64_t c) {
                  return rep.heads > 0 ? std::vector<std::int64_t>{rep.batch, rep.heads, rep.n_q, c}
                                       : std::vector<std::int64_t>{rep.n_q, c};
              };
              py::dict d = judgement_dict(rep.tensors[0], dims(rep.d_v));
              d["fp8"] = rep.fp8 ? json_loads(fp8_events_json(*rep.fp8)) : py::object(py::none());
              py::object jw = py::none(), jl = py::none();
              for (std::size_t x = 1; x < rep.tensors.size(); ++x) {
                  const Judgement& j = rep.tensors[x];
                  if (j.tensor == "weights")
                      jw = judgement_dict(j, {rep.n_q, j.count / std::max<std::int64_t>(rep.n_q, 1)});
                  else
                      jl = judgement_dict(j, dims(1));
              }
              d["weights"] = jw;
              d["lse"] = jl;
              d["text"] = judge_text(rep);
              d["json"] = judge_json(rep);
              return d;
          });
}
