// SPDX-License-Identifier: MIT
// exactattn._exactattn: the oracle's binding (docs/oracle.md). Arrays arrive as float64 (every
// float16, bfloat16 and float32 value is one, exactly) with the name of the format they were
// in; python/exactattn/oracle.py converts NumPy arrays and torch tensors and builds messages.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "convert.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/oracle.hpp"

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

struct ProblemArgs {
    Problem p;
    FloatFormat f = FloatFormat::Float32;
};

ProblemArgs problem(const Array& q, const Array& k, const Array& v, const std::vector<std::string>& dtypes,
                    const std::string& dtype, const std::optional<Array>& mask, bool causal, const py::object& scale,
                    const std::string& base, const std::string& masked_rows) {
    // The option strings are parsed by the library, as for the command line (one refusal each).
    ProblemArgs a;
    a.f = parse_format(dtype, arg("fmt"));
    if (py::isinstance<py::str>(scale))
        a.p.scale = parse_scale(scale.cast<std::string>(), arg("scale"));
    else if (py::isinstance<py::float_>(scale) || py::isinstance<py::int_>(scale))
        a.p.scale = given_scale(scale.cast<double>(), arg("scale"));
    else
        throw usage_error("not 'sqrt-dk', 'none' or a number", arg("scale"));
    a.p.base = parse_base(base, arg("base"));
    a.p.masked_rows = parse_masked_rows(masked_rows, arg("masked_rows"));
    a.p.q = tensor(q, dtypes.at(0), "q");
    a.p.k = tensor(k, dtypes.at(1), "k");
    a.p.v = tensor(v, dtypes.at(2), "v");
    a.p.causal = causal;
    if (mask) set_mask(a.p, tensor(*mask, "float64", "mask"), arg("mask"));
    validate(a.p);
    return a;
}

py::dict reference_dict(const Reference& r) {
    py::dict d;
    d["out"] = array(r.out, r.n_q, r.d_v);
    d["out_lo"] = array(r.out_lo, r.n_q, r.d_v);
    d["out_hi"] = array(r.out_hi, r.n_q, r.d_v);
    std::vector<double> exact(r.out_exact.begin(), r.out_exact.end());
    d["out_exact"] = array(exact, r.n_q, r.d_v);
    d["out_exact_text"] = r.out_exact_text;  // the exact values in the engine's notation, or ""
    d["lse"] = array(r.lse, r.n_q, 1);
    d["weights"] = r.w.empty() ? py::object(py::none()) : py::object(array(r.w, r.n_q, r.n_k));
    d["max_precision"] = r.max_precision;
    return d;
}

py::dict judgement_dict(const Judgement& j, std::int64_t rows, std::int64_t cols) {
    py::dict d;
    d["passed"] = j.passed();
    d["count"] = j.count;
    d["over"] = j.over;
    d["unbounded"] = j.unbounded;
    d["unbounded_reason"] = j.unbounded_reason;
    d["exact_count"] = j.exact_count;
    d["max_abs_ulp"] = j.max_abs_ulp;
    d["worst"] = j.worst;
    d["first_over"] = j.first_over;
    d["bound_name"] = j.bound;
    d["max_bound_fraction"] = j.max_bound_fraction;
    d["worst_fraction"] = j.worst_fraction;
    d["diagnosis"] = j.diagnosis;
    const std::size_t n = j.entries.size();
    std::vector<double> cols_[9];
    for (auto& c : cols_) c.reserve(n);
    for (const auto& e : j.entries) {
        const double v[9] = {e.value, e.rounded,           e.lo, e.hi, e.ulp_error, e.abs_error, e.rel_error,
                             e.bound, e.within ? 1.0 : 0.0};
        for (int x = 0; x < 9; ++x) cols_[x].push_back(v[x]);
    }
    const char* names[9] = {"value", "rounded", "lo", "hi", "ulp_error", "abs_error", "rel_error", "bound", "within"};
    for (int x = 0; x < 9; ++x) d[names[x]] = array(cols_[x], rows, cols);
    std::vector<double> exact;
    for (const auto& e : j.entries) exact.push_back(e.exact ? 1.0 : 0.0);
    d["exact"] = array(exact, rows, cols);
    d["tensor"] = j.tensor;
    return d;
}

// The algorithm, accumulator and P format a kernel claims, each refusal placed at its keyword.
std::tuple<Algorithm, FloatFormat, FloatFormat> claim(const std::string& algorithm, const std::string& accumulate,
                                                      const std::string& p_dtype) {
    return {parse_algorithm(algorithm, arg("algorithm")), parse_format(accumulate, arg("accumulate")),
            parse_format(p_dtype, arg("p_fmt"))};
}

}  // namespace

void bind_oracle(py::module_& m) {
    m.def("_oracle_emulate",
          [](const Array& q, const Array& k, const Array& v, const std::vector<std::string>& dtypes,
             const std::string& dtype, const std::optional<Array>& mask, bool causal, const py::object& scale,
             const std::string& base, const std::string& masked_rows, const std::string& algorithm,
             const std::string& accumulate, const std::string& p_dtype, std::int64_t block, bool trace) {
              const exactattn::python::Call call;  // each call is one job with one work budget (docs/limits.md)
              const ProblemArgs a = problem(q, k, v, dtypes, dtype, mask, causal, scale, base, masked_rows);
              EmulationSpec s;
              std::tie(s.algorithm, s.format, s.p_format) = claim(algorithm, accumulate, p_dtype);
              s.output = a.f;
              s.block = block;
              Emulation e;
              {
                  py::gil_scoped_release release;
                  e = emulate(a.p, s, trace);
              }
              py::dict d;
              d["out"] = array(e.out.data, e.out.rows(), e.out.cols());
              d["trace"] = e.trace;
              return d;
          });
    m.def("_oracle_reference",
          [](const Array& q, const Array& k, const Array& v, const std::vector<std::string>& dtypes,
             const std::string& dtype, const std::optional<Array>& mask, bool causal, const py::object& scale,
             const std::string& base, const std::string& masked_rows, bool weights) {
              const exactattn::python::Call call;  // each call is one job with one work budget (docs/limits.md)
              const ProblemArgs a = problem(q, k, v, dtypes, dtype, mask, causal, scale, base, masked_rows);
              Reference r;
              {
                  py::gil_scoped_release release;
                  r = reference(a.p, a.f, weights);
              }
              return reference_dict(r);
          });
    m.def("_oracle_judge",
          [](const Array& actual, const Array& q, const Array& k, const Array& v,
             const std::vector<std::string>& dtypes, const std::string& dtype, const std::optional<Array>& mask,
             bool causal, const py::object& scale, const std::string& base, const std::string& masked_rows,
             const std::string& algorithm, const std::string& accumulate, const std::string& p_dtype,
             std::int64_t block, std::optional<double> tolerance, const std::optional<Array>& weights,
             const std::optional<Array>& lse, const std::string& bound) {
              const exactattn::python::Call call;  // each call is one job with one work budget (docs/limits.md)
              const ProblemArgs a = problem(q, k, v, dtypes, dtype, mask, causal, scale, base, masked_rows);
              AlgorithmSpec s;
              std::tie(s.algorithm, s.accumulate, s.p_format) = claim(algorithm, accumulate, p_dtype);
              if (tolerance) checked_tolerance(*tolerance, arg("tolerance_ulps"));
              s.block = block;
              s.bound = parse_bound(bound, arg("bound"));
              Tensor out = tensor(actual, dtype, "out");
              std::optional<Tensor> w, l;
              if (weights) w = tensor(*weights, dtype, "weights");
              if (lse) l = tensor(*lse, "float64", "lse");
              Reference r;
              Judgement j, jw, jl;
              {
                  py::gil_scoped_release release;
                  r = reference(a.p, a.f, w.has_value());
                  j = judge_output(r, out, s, tolerance);
                  if (!j.passed()) j.diagnosis = diagnose(a.p, out, s, j);
                  if (w) jw = judge_weights(r, *w, s, tolerance);
                  if (l) jl = judge_lse(r, *l, s, tolerance);
              }
              py::dict d = judgement_dict(j, r.n_q, r.d_v);
              d["weights"] = w ? py::object(judgement_dict(jw, r.n_q, r.n_k)) : py::object(py::none());
              d["lse"] = l ? py::object(judgement_dict(jl, r.n_q, 1)) : py::object(py::none());
              return d;
          });
}
