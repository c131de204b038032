// SPDX-License-Identifier: MIT
// exactattn._exactattn: exact values — the Value class with Python's number protocol (exact with
// int, Fraction and Value; floats compared exactly, refused in arithmetic), exp, ln and pow.
#include <pybind11/stl.h>

#include <fmt/format.h>

#include <cmath>

#include "bindings.hpp"
#include "convert.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "exactattn/value.hpp"

namespace exactattn::python {

namespace {

// Python's hash of a rational p/q (docs.python.org, "Hashing of numeric types"), so that
// hash(Value("1/2")) == hash(Fraction(1, 2)) == hash(0.5).
Py_hash_t rational_hash(const mpq_class& q) {
    const mpz_class modulus = (mpz_class(1) << 61) - 1;  // sys.hash_info.modulus on 64 bits
    mpz_class den = q.get_den() % modulus;
    mpz_class h;
    if (den == 0) {
        h = 314159;  // sys.hash_info.inf
    } else {
        mpz_class inv;
        mpz_powm(inv.get_mpz_t(), den.get_mpz_t(), mpz_class(modulus - 2).get_mpz_t(), modulus.get_mpz_t());
        mpz_class num = abs(q.get_num()) % modulus;
        h = num * inv % modulus;
    }
    Py_hash_t r = static_cast<Py_hash_t>(h.get_si());
    if (q < 0) r = -r;
    return r == -1 ? -2 : r;
}

py::object not_implemented() { return py::reinterpret_borrow<py::object>(Py_NotImplemented); }

// x op y (or y op x when reflected) for an exact y; NotImplemented otherwise, so that Python
// raises its TypeError (floats are refused: they are not exact).
py::object arith(const Value& x, py::handle y, char op, bool reflected) {
    const Call call;  // each call is one job with one work budget (docs/limits.md)
    const auto v = exact_number(y);
    if (!v) return not_implemented();
    const Value& l = reflected ? *v : x;
    const Value& r = reflected ? x : *v;
    Value out;
    {
        py::gil_scoped_release release;
        switch (op) {
            case '+':
                out = l + r;
                break;
            case '-':
                out = l - r;
                break;
            case '*':
                out = l * r;
                break;
            case '/':
                out = l / r;
                break;
            default:
                out = pow(l, r);
                break;
        }
    }
    return py::cast(out);
}

// An exact comparison with an exact number or a float (compared as the dyadic rational it is,
// as fractions.Fraction does; nan compares false, ±inf beyond every value).
template <class Test>
py::object compared(const Value& x, py::handle y, Test test) {
    const Call call;  // each call is one job with one work budget (docs/limits.md)
    std::optional<Value> v = exact_number(y);
    if (!v) v = exact_float(y);
    if (v) {
        int c = 0;
        {
            py::gil_scoped_release release;
            c = compare(x, *v);
        }
        return py::bool_(test(c));
    }
    if (PyFloat_Check(y.ptr())) {
        const double d = PyFloat_AsDouble(y.ptr());
        return py::bool_(!std::isnan(d) && test(d > 0 ? -1 : 1));
    }
    return not_implemented();
}

// x == y (`equal`) or x != y with an exact number or a float (the dyadic rational it is); inf
// and nan equal no value; anything else is NotImplemented, for Python to try y's side.
py::object equality(const Value& x, py::handle y, bool equal) {
    std::optional<Value> v = exact_number(y);
    if (!v) v = exact_float(y);
    if (v) return py::bool_((x == *v) == equal);
    if (PyFloat_Check(y.ptr())) return py::bool_(!equal);
    return not_implemented();
}

// The constructor, the written forms and the parts of a value.
void add_forms(py::class_<Value>& cls) {
    cls.def(py::init([](py::object x) {
                const Call call;  // each call is one job with one work budget (docs/limits.md)
                // A string keeps the engine's place ("expression column 4"), as `eval` prints it.
                if (py::isinstance<py::str>(x)) return parse_value(text_of(x, "Value"));
                return to_value(x, "Value");
            }),
            py::arg("x") = 0)
        .def_static("ln2", &Value::ln2, "a = ln 2")
        .def("__str__", [](const Value& v) { return to_ascii(v); })
        .def("__repr__", [](const Value& v) { return "Value('" + to_ascii(v) + "')"; })
        .def("__format__",
             [](const Value& v, const std::string& spec) {
                 if (spec.empty()) return to_ascii(v);
                 return py::str(py::float_(to_double(v))).attr("__format__")(spec).cast<std::string>();
             })
        .def(
            "unicode", [](const Value& v) { return to_unicode(v); }, "Terminal form: √2 − 1, a².")
        .def(
            "latex", [](const Value& v) { return to_display(v, Notation::Latex); },
            "LaTeX math in the display form an author prints: \\tfrac{(\\sqrt{2} - 1)a}{3}.")
        .def("_repr_latex_", [](const Value& v) { return "$" + to_display(v, Notation::Latex) + "$"; })
        .def(
            "decimal",
            [](const Value& v, int digits) {
                const Call call;  // each call is one job with one work budget (docs/limits.md)
                if (digits < 1 || digits > 100000) throw usage("digits", "digits must be from 1 to 100000");
                py::gil_scoped_release release;
                return to_significant(v, digits);
            },
            py::arg("digits") = 20, "Correctly rounded decimal with `digits` significant digits.")
        .def(
            "fixed",
            [](const Value& v, int places) {
                const Call call;  // each call is one job with one work budget (docs/limits.md)
                if (places < 0 || places > 100000) throw usage("places", "places must be from 0 to 100000");
                py::gil_scoped_release release;
                return to_fixed(v, places);
            },
            py::arg("places") = 6, "Correctly rounded decimal with `places` digits after the point.")
        .def("__float__", [](const Value& v) { return to_double(v); })
        .def("__bool__", [](const Value& v) { return !v.is_zero(); })
        .def("sign", &Value::sign, "Exact sign: -1, 0 or 1.")
        .def_property_readonly("degree", &Value::degree, "Highest power of a (-1 for zero).")
        .def("is_rational", &Value::is_rational)
        .def("_rational",
             [](const Value& v) {
                 const mpq_class q = v.checked_rational();
                 return py::make_tuple(to_pyint(q.get_num()), to_pyint(q.get_den()));
             })
        .def("_terms", [](const Value& v) {
            py::list out;
            for (const auto& f : v.terms()) {
                py::list coeffs;
                for (const auto& c : f.coefficients()) {
                    coeffs.append(py::make_tuple(to_pyint(c.get_num()), to_pyint(c.get_den())));
                }
                out.append(py::make_tuple(f.root(), coeffs));
            }
            return out;
        });
}

// Hashing, exact comparisons and arithmetic, as Python numbers have them.
void add_number_protocol(py::class_<Value>& cls) {
    cls.def("__hash__",
            [](const Value& v) -> Py_hash_t {
                if (v.is_rational()) return rational_hash(v.rational());
                const auto h = static_cast<Py_hash_t>(py::hash(py::str(to_ascii(v))));
                return h == -1 ? -2 : h;
            })
        .def("__eq__", [](const Value& x, py::object y) { return equality(x, y, true); })
        .def("__ne__", [](const Value& x, py::object y) { return equality(x, y, false); })
        .def("__lt__", [](const Value& x, py::object y) { return compared(x, y, [](int c) { return c < 0; }); })
        .def("__le__", [](const Value& x, py::object y) { return compared(x, y, [](int c) { return c <= 0; }); })
        .def("__gt__", [](const Value& x, py::object y) { return compared(x, y, [](int c) { return c > 0; }); })
        .def("__ge__", [](const Value& x, py::object y) { return compared(x, y, [](int c) { return c >= 0; }); })
        .def("__neg__", [](const Value& x) { return -x; })
        .def("__pos__", [](const Value& x) { return x; })
        .def("__abs__", [](const Value& x) { return x.sign() < 0 ? -x : x; })
        .def("__add__", [](const Value& x, py::object y) { return arith(x, y, '+', false); })
        .def("__radd__", [](const Value& x, py::object y) { return arith(x, y, '+', true); })
        .def("__sub__", [](const Value& x, py::object y) { return arith(x, y, '-', false); })
        .def("__rsub__", [](const Value& x, py::object y) { return arith(x, y, '-', true); })
        .def("__mul__", [](const Value& x, py::object y) { return arith(x, y, '*', false); })
        .def("__rmul__", [](const Value& x, py::object y) { return arith(x, y, '*', true); })
        .def("__truediv__", [](const Value& x, py::object y) { return arith(x, y, '/', false); })
        .def("__rtruediv__", [](const Value& x, py::object y) { return arith(x, y, '/', true); })
        .def("__pow__", [](const Value& x, py::object y) { return arith(x, y, '^', false); })
        .def("__rpow__", [](const Value& x, py::object y) { return arith(x, y, '^', true); })
        .def("__reduce__", [](const Value& v) {
            return py::make_tuple(py::module_::import("exactattn").attr("Value"), py::make_tuple(to_ascii(v)));
        });
}

}  // namespace

void bind_values(py::module_& m) {
    py::class_<Value> cls(m, "Value", R"doc(An exact value: a polynomial in a = ln 2 with coefficients in Q(2^(1/m)).

Value("2a/3") parses the engine's notation (the CLI's `eval` grammar); Value(3) and
Value(Fraction(1, 2)) convert exactly. Arithmetic with int, Fraction and Value is exact;
floats are refused (they are not exact) except in comparisons, where they compare exactly.)doc");
    add_forms(cls);
    add_number_protocol(cls);

    m.def("exp", [](const Value& x) {
        const Call call;  // each call is one job with one work budget (docs/limits.md)
        py::gil_scoped_release r;
        return exp(x);
    });
    m.def("ln", [](const Value& x) {
        const Call call;  // each call is one job with one work budget (docs/limits.md)
        py::gil_scoped_release r;
        return ln(x);
    });
    m.def("pow", [](const Value& x, const Value& y) {
        const Call call;  // each call is one job with one work budget (docs/limits.md)
        py::gil_scoped_release r;
        return pow(x, y);
    });
    m.def("to_value", [](py::object x) { return to_value(x, "value"); });
}

}  // namespace exactattn::python
