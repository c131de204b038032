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
#include <vector>

#include "convert.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/oracle.hpp"
#include "exactattn/oracle_grad.hpp"
#include "exactattn/oracle_grad_batch.hpp"
#include "exactattn/oracle_options.hpp"

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

// The problem of a call: a matrix problem, or a batch of heads when q is 4-D, checked by the
// library (problem_inputs) as the command line's is (one refusal each, at its keyword).
struct ProblemArgs : ProblemInputs {
    FloatFormat f = FloatFormat::Float32;
};

// The overflow rule of an 8-bit input (docs/oracle.md, "8-bit floats"), refused at its keyword.
Fp8Overflow fp8_overflow_of(const py::dict& opts) {
    return parse_fp8_overflow(opts["fp8_overflow"].cast<std::string>(), arg("fp8_overflow"));
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
    static_cast<ProblemInputs&>(a) =
        problem_inputs(base, std::move(tq), std::move(tk), std::move(tv), std::move(tm), std::move(tb),
                       opts["layout"].cast<std::string>(), opts["fp8_overflow"].cast<std::string>());
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

// The option text Python passed (a descale may be a number: its str()).
std::string text_of(const py::object& x) {
    return py::isinstance<py::str>(x) ? x.cast<std::string>() : py::str(x).cast<std::string>();
}

// A kernel's claim, parsed by the library (parse_claim) as the command line's is.
ClaimText claim_text(const std::string& algorithm, const std::optional<std::string>& accumulate,
                     const std::string& p_dtype, std::int64_t block, const std::optional<std::string>& stored,
                     const py::dict& opts) {
    ClaimText c;
    c.algorithm = algorithm;
    c.accumulate = accumulate;
    c.p_format = p_dtype;
    c.block = block;
    c.stored = stored;
    c.p_descale = text_of(opts["p_descale"]);
    c.fp8_overflow = opts["fp8_overflow"].cast<std::string>();
    return c;
}

// The backward claim and its 8-bit options (p_fmt, p_descale, fp8_overflow, ds_fmt,
// ds_descale; docs/oracle.md, "8-bit floats"), parsed by the library (parse_grad_claim) as the
// command line's are.
GradSpec grad_claim(const std::string& backward, const std::optional<std::string>& accumulate,
                    const std::optional<std::string>& storage, const std::optional<std::string>& delta_from,
                    std::int64_t block, const py::dict& opts, FloatFormat f) {
    GradClaimText c;
    c.backward = backward;
    c.accumulate = accumulate;
    c.storage = storage;
    c.delta_from = delta_from;
    c.block = block;
    const auto optional_text = [&](const char* key) {
        return opts.contains(key) && !opts[key].is_none() ? std::optional<std::string>(opts[key].cast<std::string>())
                                                          : std::nullopt;
    };
    c.p_format = optional_text("p_fmt");
    c.p_descale = text_of(opts["p_descale"]);
    c.fp8_overflow = opts["fp8_overflow"].cast<std::string>();
    c.ds_format = optional_text("ds_fmt");
    if (opts.contains("ds_descale")) c.ds_descale = opts["ds_descale"].cast<std::string>();
    return parse_grad_claim(c, f);
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
                     const std::string& backward, const std::optional<std::string>& accumulate,
                     const std::optional<std::string>& storage, const std::optional<std::string>& delta_from,
                     std::int64_t block, int threads) {
    const exactattn::python::Call call;  // each call is one job with one work budget (docs/limits.md)
    const ProblemArgs a = problem(q, k, v, dtypes, dtype, mask, bias, opts);
    Fp8Events events = a.fp8;
    const Tensor dot = grad_d_out(d_out, do_dtype, opts, events);
    const GradSpec spec = grad_claim(backward, accumulate, storage, delta_from, block, opts, a.f);
    std::vector<std::pair<std::string, Tensor>> given;
    for (const char* name : {"dq", "dk", "dv"})
        if (actual.contains(name)) given.emplace_back(name, tensor(actual[name].cast<Array>(), dtype, name));
    std::optional<GradsJudged> j;
    {
        py::gil_scoped_release release;
        j = judge_grad_inputs(a, dot, events, a.f, given, spec, threads);  // as the command line
    }
    if (j->batch) return grad_batch_dict(std::move(*j->batch), j->fp8());
    const GradVerdict& verdict = *j->matrix;
    return grad_dict(verdict.g, verdict.bounds ? &*verdict.bounds : nullptr, verdict.compared, spec, verdict.diagnosis,
                     j->fp8());
}

// exactattn.oracle.grad_emulate: the claimed backward, rounding as the kernel does.
py::dict oracle_grad_emulate(const Array& q, const Array& k, const Array& v, const std::vector<std::string>& dtypes,
                             const std::string& dtype, const std::optional<Array>& mask,
                             const std::optional<Array>& bias, const py::dict& opts, const Array& d_out,
                             const std::string& do_dtype, const std::string& backward,
                             const std::optional<std::string>& accumulate, const std::optional<std::string>& storage,
                             const std::optional<std::string>& delta_from, std::int64_t block, bool trace) {
    const exactattn::python::Call call;
    const ProblemArgs a = problem(q, k, v, dtypes, dtype, mask, bias, opts);
    refuse_grad_emulate_batch(a);  // before d_out is read, as the command line
    Fp8Events events = a.fp8;
    const Tensor dot = grad_d_out(d_out, do_dtype, opts, events);
    const GradSpec spec = grad_claim(backward, accumulate, storage, delta_from, block, opts, a.f);
    GradEmulation e;
    {
        py::gil_scoped_release release;
        e = grad_emulate_inputs(a, dot, std::move(events), spec, a.f, trace);  // as the command line
    }
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
                        const py::dict& opts, const std::string& algorithm,
                        const std::optional<std::string>& accumulate, const std::string& p_dtype, std::int64_t block,
                        bool trace, bool report, const std::optional<std::string>& stored, int threads) {
    const exactattn::python::Call call;  // each call is one job with one work budget (docs/limits.md)
    const ProblemArgs a = problem(q, k, v, dtypes, dtype, mask, bias, opts);
    const EmulationSpec s =
        emulation_of(parse_claim(claim_text(algorithm, accumulate, p_dtype, block, stored, opts), a.f), a.f);
    Emulation e;
    {
        py::gil_scoped_release release;
        e = emulate_inputs(a, s, trace, threads);  // as the command line
    }
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
    References r;
    {
        py::gil_scoped_release release;
        r = reference_inputs(a, a.f, weights, threads);  // as the command line
    }
    return reference_dict(r.refs, r.batch, r.heads, report);
}

// exactattn.oracle.judge: a kernel's output (and weights, LSE) against its claim's bound.
py::dict oracle_judge(const Array& actual, const Array& q, const Array& k, const Array& v,
                      const std::vector<std::string>& dtypes, const std::string& dtype,
                      const std::optional<Array>& mask, const std::optional<Array>& bias, const py::dict& opts,
                      const std::string& algorithm, const std::optional<std::string>& accumulate,
                      const std::string& p_dtype, std::int64_t block, std::optional<double> tolerance,
                      const std::optional<Array>& weights, const std::optional<Array>& lse, const std::string& bound,
                      int threads, const std::optional<std::string>& stored) {
    const exactattn::python::Call call;  // each call is one job with one work budget (docs/limits.md)
    const ProblemArgs a = problem(q, k, v, dtypes, dtype, mask, bias, opts);
    ClaimText c = claim_text(algorithm, accumulate, p_dtype, block, stored, opts);
    c.bound = bound;
    const AlgorithmSpec s = parse_claim(c, a.f);
    if (tolerance) checked_tolerance(*tolerance, arg("tolerance_ulps"));
    const Tensor out = tensor(actual, dtype, "out");
    std::optional<Tensor> w, l;
    if (weights) w = tensor(*weights, dtype, "weights");
    if (lse) l = tensor(*lse, "float64", "lse");
    JudgeReport rep;
    {
        py::gil_scoped_release release;
        rep = judge_inputs(a, a.f, out, w ? &*w : nullptr, l ? &*l : nullptr, s, tolerance, threads);  // as the CLI
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
