// SPDX-License-Identifier: MIT
// exactattn._exactattn: the oracle's binding (docs/oracle.md). Arrays arrive as float64 (every
// float16, bfloat16 and float32 value is one, exactly) with the name of the format they were
// in; python/exactattn/oracle.py converts NumPy arrays and torch tensors and builds messages.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "convert.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/oracle.hpp"
#include "exactattn/oracle_grad.hpp"
#include "exactattn/oracle_grad_batch.hpp"

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
    if (opts.contains("softcap")) o.softcap = opts["softcap"].cast<double>();
    const Problem base = problem_options(o);
    const py::object in_fmt = opts["in_fmt"];  // the declared format of q, k, v (8-bit values in float arrays)
    const auto declared = [&](std::size_t x) { return in_fmt.is_none() ? dtypes.at(x) : in_fmt.cast<std::string>(); };
    Tensor tq = tensor(q, declared(0), "q"), tk = tensor(k, declared(1), "k"), tv = tensor(v, declared(2), "v");
    std::optional<Tensor> tm, tb;
    if (mask) tm = tensor(*mask, "float64", "mask");
    if (bias) tb = tensor(*bias, "float64", "bias");
    if (tq.shape.size() == 4) {
        a.fp8 = saturate_inputs(tq, tk, tv, fp8_overflow_of(opts));
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

// The same, the array owning the doubles themselves (moved, not copied: a batch's n² fields are
// hundreds of megabytes).
py::array_t<double> shaped(std::vector<double>&& v, const std::vector<std::int64_t>& shape) {
    if (v.empty()) return shaped(v, shape);
    auto* owned = new std::vector<double>(std::move(v));
    const py::capsule owner(owned, [](void* x) { delete static_cast<std::vector<double>*>(x); });
    std::vector<py::ssize_t> s(shape.begin(), shape.end());
    return py::array_t<double>(s, owned->data(), owner);
}

// A per-entry flag (exact, rounded, within) as a NumPy bool array of the given shape.
template <class Flags>
py::array_t<bool> flags(const Flags& v, const std::vector<std::int64_t>& shape) {
    std::vector<py::ssize_t> s(shape.begin(), shape.end());
    py::array_t<bool> a(s);
    std::copy(v.begin(), v.end(), a.mutable_data());
    return a;
}

py::object json_loads(const std::string& text) { return py::module_::import("json").attr("loads")(text); }

py::dict reference_dict(const std::vector<Reference>& refs, std::int64_t batch, std::int64_t heads, bool report) {
    const auto dims = [&](std::int64_t r, std::int64_t c) {
        return heads > 0 ? std::vector<std::int64_t>{batch, heads, r, c} : std::vector<std::int64_t>{r, c};
    };
    const Reference r = concat_heads(refs);
    py::dict d;
    d["out"] = shaped(r.out, dims(r.n_q, r.d_v));
    d["out_lo"] = shaped(r.out_lo, dims(r.n_q, r.d_v));
    d["out_hi"] = shaped(r.out_hi, dims(r.n_q, r.d_v));
    d["out_exact"] = flags(r.out_exact, dims(r.n_q, r.d_v));
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
    std::vector<double> cols_[8];
    for (auto& c : cols_) c.reserve(n);
    std::vector<bool> within, exact;
    within.reserve(n), exact.reserve(n);
    for (const auto& e : j.entries) {
        const double v[8] = {e.value, e.rounded, e.lo, e.hi, e.ulp_error, e.abs_error, e.rel_error, e.bound};
        for (int x = 0; x < 8; ++x) cols_[x].push_back(v[x]);
        within.push_back(e.within), exact.push_back(e.exact);
    }
    const char* names[8] = {"value", "rounded", "lo", "hi", "ulp_error", "abs_error", "rel_error", "bound"};
    for (int x = 0; x < 8; ++x) d[names[x]] = shaped(cols_[x], shape);
    d["within"] = flags(within, shape), d["exact"] = flags(exact, shape);
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
    saturate_tensor(t, "do", fp8_overflow_of(opts), events);  // a batch's 4-D dO as a head's
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
        x["exact"] = flags(f->exact, f->shape);
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

py::object at4(const std::array<std::int64_t, 4>& at) {
    return at[0] < 0 ? py::object(py::none()) : py::object(py::make_tuple(at[0], at[1], at[2], at[3]));
}

// The library's judgement of a batch (grad_batch) as Python's dict: every field's parts as arrays
// (dq, dk, dv, out in the caller's layout), the judged tensors with (b, h, i, j) indices, the
// summary as `text` (after it the lines of the 8-bit events `fp8`, as a single head's).
py::dict grad_batch_dict(GradBatch&& r, const Fp8Events* fp8) {
    py::dict d;
    const std::string text =
        grad_batch_summary(r) + (fp8 != nullptr ? fp8_events_text(*fp8) : "");  // before the fields move
    for (std::size_t y = 0; y < r.fields.size(); ++y) {
        GradField& f = r.fields[y];
        py::dict x;
        x["values"] = shaped(std::move(f.val), f.shape), x["lo"] = shaped(std::move(f.lo), f.shape);
        x["hi"] = shaped(std::move(f.hi), f.shape);
        x["exact"] = flags(f.exact, f.shape);
        x["rounded"] = flags(r.rounded[y], f.shape);
        d[py::str(f.name)] = x;
    }
    py::dict j;
    for (const GradBatchJudgement& c : r.judged) {
        py::dict x;
        x["entries"] = c.entries, x["differing"] = c.differing, x["max_ulps"] = c.max_ulps, x["over"] = c.over;
        x["unbounded"] = c.unbounded, x["unbounded_reason"] = c.unbounded_reason;
        x["max_bound_fraction"] = c.max_fraction, x["bound"] = shaped(c.bound, c.shape);
        x["worst"] = at4(c.worst), x["worst_fraction"] = at4(c.worst_fraction), x["first_over"] = at4(c.first_over);
        j[py::str(c.name)] = x;
    }
    d["judged"] = j;
    d["passed"] = r.passed();
    d["diagnosis"] = r.diagnosis;
    d["heads"] = py::make_tuple(r.shape.b, r.shape.h_q, r.shape.h_kv);
    d["straddled"] = r.straddled, d["refined"] = r.refined;
    d["text"] = text;
    d["json"] = py::none();
    d["fp8"] = fp8 != nullptr ? json_loads(fp8_events_json(*fp8)) : py::object(py::none());
    return d;
}

// exactattn.oracle's grad_reference and judge_grads: the exact gradients and, given a kernel's
// dQ, dK and dV, their judgement and diagnosis.
py::dict oracle_grad(const Array& q, const Array& k, const Array& v, const std::vector<std::string>& dtypes,
                     const std::string& dtype, const std::optional<Array>& mask, const std::optional<Array>& bias,
                     const py::dict& opts, const Array& d_out, const std::string& do_dtype, const py::dict& actual,
                     const std::string& backward, const std::string& accumulate,
                     const std::optional<std::string>& storage, const std::optional<std::string>& delta_from,
                     std::int64_t block, int threads) {
    const exactattn::python::Call call;  // each call is one job with one work budget (docs/limits.md)
    const ProblemArgs a = problem(q, k, v, dtypes, dtype, mask, bias, opts);
    Fp8Events events = a.fp8;
    const Tensor dot = grad_d_out(d_out, do_dtype, opts, events);
    GradSpec spec = grad_claim(backward, accumulate, storage, delta_from, block);
    grad_fp8(spec, opts);
    std::vector<std::pair<std::string, Tensor>> given;
    for (const char* name : {"dq", "dk", "dv"})
        if (actual.contains(name)) given.emplace_back(name, tensor(actual[name].cast<Array>(), dtype, name));
    if (a.batch) {
        std::optional<GradBatch> r;
        {
            py::gil_scoped_release release;
            r = grad_batch(*a.batch, dot, a.f, given, spec, threads);
        }
        events.merge(r->fp8);  // every head's 8-bit events, named by head
        const bool report = events.any() || (spec.casts_fp8() && !given.empty());
        return grad_batch_dict(std::move(*r), report ? &events : nullptr);
    }
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
}

// exactattn.oracle.grad_emulate: the claimed backward, rounding as the kernel does.
py::dict oracle_grad_emulate(const Array& q, const Array& k, const Array& v, const std::vector<std::string>& dtypes,
                             const std::string& dtype, const std::optional<Array>& mask,
                             const std::optional<Array>& bias, const py::dict& opts, const Array& d_out,
                             const std::string& do_dtype, const std::string& backward, const std::string& accumulate,
                             const std::optional<std::string>& storage, const std::optional<std::string>& delta_from,
                             std::int64_t block, bool trace) {
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
}

// exactattn.oracle.emulate: the claimed forward, rounding as the kernel does.
py::dict oracle_emulate(const Array& q, const Array& k, const Array& v, const std::vector<std::string>& dtypes,
                        const std::string& dtype, const std::optional<Array>& mask, const std::optional<Array>& bias,
                        const py::dict& opts, const std::string& algorithm, const std::string& accumulate,
                        const std::string& p_dtype, std::int64_t block, bool trace, bool report,
                        const std::optional<std::string>& stored, int threads) {
    const exactattn::python::Call call;  // each call is one job with one work budget (docs/limits.md)
    const ProblemArgs a = problem(q, k, v, dtypes, dtype, mask, bias, opts);
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
        e = a.batch ? emulate_batch(*a.batch, s, trace, threads) : emulate(a.p, s, trace);
    }
    Fp8Events events = a.fp8;  // the inputs' first, then the kernel's
    events.merge(e.fp8);
    e.fp8 = events;
    py::dict d;
    d["out"] = a.batch ? py::object(shaped(e.out.data, e.out.shape))
                       : py::object(array(e.out.data, e.out.rows(), e.out.cols()));
    d["trace"] = e.trace;
    d["fp8"] = json_loads(fp8_events_json(e.fp8));
    if (report) {
        d["text"] = emulation_text(e, s);
        d["json"] = emulation_json(e, s);
    }
    return d;
}

// exactattn.oracle.reference: the exact output (and weights) of a matrix or a batch.
py::dict oracle_reference(const Array& q, const Array& k, const Array& v, const std::vector<std::string>& dtypes,
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
}

// exactattn.oracle.judge: a kernel's output (and weights, LSE) against its claim's bound.
py::dict oracle_judge(const Array& actual, const Array& q, const Array& k, const Array& v,
                      const std::vector<std::string>& dtypes, const std::string& dtype,
                      const std::optional<Array>& mask, const std::optional<Array>& bias, const py::dict& opts,
                      const std::string& algorithm, const std::string& accumulate, const std::string& p_dtype,
                      std::int64_t block, std::optional<double> tolerance, const std::optional<Array>& weights,
                      const std::optional<Array>& lse, const std::string& bound, int threads,
                      const std::optional<std::string>& stored) {
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
}

}  // namespace

void bind_oracle(py::module_& m) {
    m.def("_oracle_grad", &oracle_grad);
    m.def("_oracle_grad_emulate", &oracle_grad_emulate);
    m.def("_oracle_emulate", &oracle_emulate);
    m.def("_oracle_reference", &oracle_reference);
    m.def("_oracle_judge", &oracle_judge);
}
