// SPDX-License-Identifier: MIT
// exactattn._exactattn: the conversions every binding shares (convert.hpp).
#include "convert.hpp"

#include <pybind11/stl.h>

#include <fmt/format.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <optional>
#include <stdexcept>

#include "exactattn/out_of_memory.hpp"
#include "exactattn/parse.hpp"

namespace exactattn::python {

namespace {

// ---- errors ---------------------------------------------------------------------------------

// Raises the exactattn.<Kind> exception (python/exactattn/_errors.py) for a library error, with
// the library's message (`place: reason`, the CLI's stderr line without "exactattn: ").
// Names echoed from files and arguments may hold bytes that are not UTF-8 (a path with byte
// 0xFF) and controls: shown as the command line shows them (<0xFF>, <U+001B>), so that the
// message is a str and raising it cannot fail.
void raise_error(const Error& e, const char* class_name = nullptr) {
    const py::object cls = py::module_::import("exactattn._errors").attr(class_name ? class_name : kind_name(e.kind()));
    const py::object inst = cls(escape_controls(e.what()), kind_name(e.kind()), escape_controls(e.where().str()),
                                escape_controls(e.reason()));
    PyErr_SetObject(cls.ptr(), inst.ptr());
}

}  // namespace

Call::Call() { take_memory_reserve(); }

void install_error_translation() {
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const Error& e) {
            raise_error(e);
        } catch (const std::bad_alloc&) {
            // OutOfMemoryError: a LimitError and a MemoryError (python/exactattn/_errors.py).
            raise_error(limit_error(out_of_memory_reason()), "OutOfMemoryError");
            take_memory_reserve();
        } catch (const std::length_error&) {
            raise_error(limit_error(too_large_reason()), "OutOfMemoryError");
            take_memory_reserve();
        } catch (const py::cast_error& e) {
            // A conversion no helper above checked first: still the module's error, a ShapeError
            // (a TypeError and a ValueError), not pybind11's RuntimeError.
            raise_error(shape_error(fmt::format("an argument has the wrong type ({})", e.what())));
        }
    });
    install_memory_reserve();  // exactattn/out_of_memory.hpp, as the command line does
    // GMP's own allocation failures (inside a product, and MPFR's) become std::bad_alloc through
    // the same handler, hence a LimitError, instead of "GNU MP: Cannot allocate memory" and an
    // abort of the interpreter; unless another extension (gmpy2) owns GMP's memory functions.
    use_throwing_gmp_allocator_if_default();
}

void issue_warnings(const std::vector<Warning>& warnings) {
    if (warnings.empty()) return;
    const py::object cls = py::module_::import("exactattn._errors").attr("ExactattnWarning");
    const py::object warn = py::module_::import("warnings").attr("warn");
    for (const auto& w : warnings) {
        const py::object inst =
            cls(escape_controls(w.str()), escape_controls(w.where.str()), escape_controls(w.reason));
        warn(inst, py::arg("stacklevel") = 2);  // attributed to the caller of the module's Python wrapper
    }
}

Error at(const char* place, const Error& e) {
    Location where = e.where();
    where.context = where.context == "expression" || where.context.empty() ? std::string(place)
                                                                           : std::string(place) + " " + where.context;
    return Error(e.kind(), where, e.reason());
}

Error usage(const std::string& place, const std::string& reason) { return usage_error(reason, Location::named(place)); }

Location placed_at(const std::string& place) { return Location::named(place); }

// ---- Python objects -> C++ text --------------------------------------------------------------
// Every str, list of str and position crosses into C++ through these, so that a wrong type or
// text no UTF-8 can hold is the module's own error (ShapeError is a TypeError and a
// ValueError, ParseError a ValueError), never pybind11's "RuntimeError: Unable to cast".

// repr() of any object in ASCII (for messages: a lone surrogate cannot be printed as UTF-8).
std::string shown(py::handle h) {
    const py::object r = py::reinterpret_steal<py::object>(PyObject_ASCII(h.ptr()));
    if (!r) {
        PyErr_Clear();
        return "<unprintable object>";
    }
    return PyUnicode_AsUTF8(r.ptr());
}

std::string type_name(py::handle h) { return std::string(py::str(h.get_type().attr("__name__"))); }

// A str as UTF-8; a lone surrogate (U+D800 to U+DFFF, e.g. from bytes decoded with
// surrogateescape) is a ParseError naming its index, as invalid UTF-8 in a file is.
std::string text_of(py::handle h, const std::string& place) {
    if (!PyUnicode_Check(h.ptr())) {
        throw shape_error(fmt::format("expected a str, got {} {}", type_name(h), shown(h)), placed_at(place));
    }
    Py_ssize_t size = 0;
    const char* utf8 = PyUnicode_AsUTF8AndSize(h.ptr(), &size);
    if (utf8 != nullptr) return std::string(utf8, static_cast<std::size_t>(size));
    PyErr_Clear();
    const Py_ssize_t n = PyUnicode_GetLength(h.ptr());
    for (Py_ssize_t i = 0; i < n; ++i) {
        const Py_UCS4 c = PyUnicode_ReadChar(h.ptr(), i);
        if (c >= 0xD800 && c <= 0xDFFF) {
            throw parse_error(placed_at(place), fmt::format("invalid UTF-8: the string holds the lone surrogate "
                                                            "U+{:04X} at index {}, which is not a character",
                                                            static_cast<unsigned>(c), i));
        }
    }
    throw parse_error(placed_at(place), "invalid UTF-8: the string cannot be encoded");
}

// A file name: a str in the file system's encoding (os.fsencode: a name with byte 0xFF comes
// back as the surrogate U+DCFF and is encoded to 0xFF again), or bytes as they are.
std::string path_of(py::handle h, const std::string& place) {
    if (PyBytes_Check(h.ptr())) return std::string(PyBytes_AS_STRING(h.ptr()), PyBytes_GET_SIZE(h.ptr()));
    if (!PyUnicode_Check(h.ptr())) {
        throw shape_error(fmt::format("expected a path (a str), got {} {}", type_name(h), shown(h)), placed_at(place));
    }
    const py::object b = py::reinterpret_steal<py::object>(PyUnicode_EncodeFSDefault(h.ptr()));
    if (!b) {
        PyErr_Clear();
        return text_of(h, place);  // names the surrogate the file system encoding refused
    }
    return std::string(PyBytes_AS_STRING(b.ptr()), PyBytes_GET_SIZE(b.ptr()));
}

// A list of str (tokens): each entry named by its index.
std::vector<std::string> texts_of(py::handle h, const std::string& place) {
    if (PyUnicode_Check(h.ptr()) || !PySequence_Check(h.ptr())) {
        throw shape_error(fmt::format("expected a str or a list of str, got {} {}", type_name(h), shown(h)),
                          placed_at(place));
    }
    std::vector<std::string> out;
    std::size_t i = 0;
    for (py::handle x : py::iter(h)) {
        out.push_back(text_of(x, fmt::format("{}[{}]", place, i)));
        ++i;
    }
    return out;
}

// ---- Python numbers <-> exact values --------------------------------------------------------

// Python int -> mpz, through base 16 (no digit limit, unlike str() of a huge int).
mpz_class to_mpz(py::handle h) {
    int overflow = 0;
    const long long small = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
    if (small == -1 && PyErr_Occurred()) throw py::error_already_set();
    if (overflow == 0) {
        mpz_class z;
        mpz_set_si(z.get_mpz_t(), 0);
        const bool negative = small < 0;
        const unsigned long long mag =
            negative ? 0ULL - static_cast<unsigned long long>(small) : static_cast<unsigned long long>(small);
        mpz_import(z.get_mpz_t(), 1, 1, sizeof mag, 0, 0, &mag);
        if (negative) z = -z;
        return z;
    }
    const py::object hex = py::reinterpret_steal<py::object>(PyNumber_ToBase(h.ptr(), 16));
    if (!hex) throw py::error_already_set();
    std::string s = hex.cast<std::string>();  // "0x1f" or "-0x1f"
    const bool negative = s[0] == '-';
    mpz_class z(s.substr(negative ? 3 : 2), 16);
    return negative ? mpz_class(-z) : z;
}

py::object to_pyint(const mpz_class& z) {
    const std::string hex = z.get_str(16);
    PyObject* o = PyLong_FromString(hex.c_str(), nullptr, 16);
    if (o == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(o);
}

namespace {

bool is_rational_number(py::handle h) {
    static const py::object* rational = new py::object(py::module_::import("numbers").attr("Rational"));
    return py::isinstance(h, *rational);
}

}  // namespace

// An int, a fractions.Fraction (any numbers.Rational) or a Value; nullopt for anything else.
std::optional<Value> exact_number(py::handle h) {
    if (py::isinstance<Value>(h)) return h.cast<Value>();
    if (PyLong_Check(h.ptr())) return Value(mpq_class(to_mpz(h)));
    if (is_rational_number(h)) {
        mpq_class q(to_mpz(h.attr("numerator")), to_mpz(h.attr("denominator")));
        q.canonicalize();
        return Value(q);
    }
    return std::nullopt;
}

// A finite float as the exact dyadic rational it is (for comparisons, as Fraction does).
std::optional<Value> exact_float(py::handle h) {
    if (!PyFloat_Check(h.ptr())) return std::nullopt;
    const double d = PyFloat_AsDouble(h.ptr());
    if (!std::isfinite(d)) return std::nullopt;
    mpq_class q;
    mpq_set_d(q.get_mpq_t(), d);
    return Value(q);
}

// Any value an input may hold: an exact number or a string in the engine's notation.
Value to_value(py::handle h, const std::string& place) {
    const Call call;  // each call is one job with one work budget (docs/limits.md)
    if (auto v = exact_number(h)) return *v;
    if (py::isinstance<py::str>(h)) {
        const auto text = text_of(h, place);
        return placed(place, [&] { return parse_value(text); });
    }
    if (PyFloat_Check(h.ptr())) {
        throw shape_error(
            "a float is not exact; give an int, a fractions.Fraction, a Value or a string "
            "such as \"0.1\"",
            placed_at(place));
    }
    // NumPy integer scalars and other integral types.
    if (PyIndex_Check(h.ptr())) {
        const py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(h.ptr()));
        if (!i) throw py::error_already_set();
        return Value(mpq_class(to_mpz(i)));
    }
    throw shape_error(fmt::format("expected an int, a fractions.Fraction, a Value or a string, got {}", type_name(h)),
                      placed_at(place));
}

Vector to_vector(py::handle h, const std::string& place) {
    if (py::isinstance<py::str>(h)) {
        const auto text = text_of(h, place);
        return placed(place, [&] { return parse_vector(text); });
    }
    if (!PySequence_Check(h.ptr()) && !PyIter_Check(h.ptr())) {
        throw shape_error(fmt::format("expected a vector (a list of values or a string), got {}", type_name(h)),
                          placed_at(place));
    }
    Vector out;
    std::size_t i = 0;
    for (py::handle x : py::iter(h)) out.push_back(to_value(x, fmt::format("{}[{}]", place, i++)));
    return out;
}

py::list to_list(const Vector& v) {
    py::list out;
    for (const auto& x : v) out.append(py::cast(x));
    return out;
}

py::list to_list(const Column& c) {
    py::list out;
    const std::size_t n = c.size();
    for (std::size_t j = 0; j < n; ++j) {
        const auto v = c.at(j);
        out.append(v ? py::cast(*v) : py::none());
    }
    return out;
}
namespace {

// ---- memories -------------------------------------------------------------------------------

// A 2-D integer NumPy array (anything with dtype, shape and the buffer protocol), times unit:
// its integers are copied once into the compact memory, with no Python object per entry.
std::optional<Memory> numpy_memory(py::handle h, const Value& unit) {
    if (!py::hasattr(h, "dtype") || !py::hasattr(h, "ndim") || !PyObject_CheckBuffer(h.ptr())) {
        return std::nullopt;
    }
    const auto kind = py::str(h.attr("dtype").attr("kind")).cast<std::string>();
    const auto ndim = h.attr("ndim").cast<int>();
    Location where;
    where.context = "memory";
    if (kind != "i" && kind != "u" && kind != "b") {
        throw shape_error(fmt::format("a NumPy memory must hold integers (dtype kind i or u), not "
                                      "dtype {}; scale it to integers and give the scale as unit=",
                                      std::string(py::str(h.attr("dtype")))),
                          where);
    }
    if (ndim != 2) throw shape_error(fmt::format("a NumPy memory must be 2-D (rows × width), not {}-D", ndim), where);
    if (kind == "u" && h.attr("dtype").attr("itemsize").cast<int>() == 8 && h.attr("size").cast<std::size_t>() > 0 &&
        to_mpz(h.attr("max")()) > std::numeric_limits<std::int64_t>::max()) {
        throw limit_error("an entry of the NumPy memory is past 2^63 - 1", where);
    }
    const py::object as_int64 = py::module_::import("numpy").attr("ascontiguousarray")(h, py::arg("dtype") = "int64");
    const py::buffer_info info = as_int64.cast<py::buffer>().request();
    const auto rows = static_cast<std::size_t>(info.shape[0]);
    const auto width = static_cast<std::size_t>(info.shape[1]);
    if (rows == 0) throw shape_error("the memory has no rows: give at least one row", where);
    if (width == 0) throw shape_error("memory rows are empty: give at least one coordinate", where);
    std::vector<std::int64_t> k(rows * width);
    std::memcpy(k.data(), info.ptr, k.size() * sizeof(std::int64_t));
    return placed("memory", [&] { return Memory::scaled_integers(rows, width, std::move(k), unit); });
}

// Rows of Python ints that fit in 64 bits, read straight into a compact memory (no Value per
// entry); nullopt for anything else (other entries, ragged rows), which the general path
// converts and checks.
std::optional<Memory> int_memory(py::handle h, const Value& unit) {
    const py::object rows = py::reinterpret_steal<py::object>(PySequence_Fast(h.ptr(), ""));
    if (!rows) {
        PyErr_Clear();
        return std::nullopt;
    }
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(rows.ptr());
    std::vector<std::int64_t> k;
    Py_ssize_t width = -1;
    for (Py_ssize_t j = 0; j < n; ++j) {
        PyObject* row = PySequence_Fast_GET_ITEM(rows.ptr(), j);
        if (!PyList_CheckExact(row) && !PyTuple_CheckExact(row)) return std::nullopt;
        const Py_ssize_t d = PySequence_Fast_GET_SIZE(row);
        if (width < 0) width = d;
        if (d != width || d == 0) return std::nullopt;
        PyObject** items = PySequence_Fast_ITEMS(row);
        for (Py_ssize_t i = 0; i < d; ++i) {
            if (!PyLong_CheckExact(items[i])) return std::nullopt;
            int overflow = 0;
            const long long x = PyLong_AsLongLongAndOverflow(items[i], &overflow);
            if (overflow != 0) return std::nullopt;
            k.push_back(x);
        }
    }
    if (n == 0) return std::nullopt;
    return placed("memory", [&] {
        return Memory::scaled_integers(static_cast<std::size_t>(n), static_cast<std::size_t>(width), std::move(k),
                                       unit);
    });
}

}  // namespace

Memory to_memory(py::handle h, const py::object& unit_obj) {
    const bool has_unit = !unit_obj.is_none();
    const Value unit = has_unit ? to_value(unit_obj, "unit") : Value(1);
    if (auto m = numpy_memory(h, unit)) return std::move(*m);
    if (!py::isinstance<py::str>(h)) {
        if (auto m = int_memory(h, unit)) return std::move(*m);
    }
    if (py::isinstance<py::str>(h)) {
        const auto text = text_of(h, "memory");
        const Memory m = placed("memory", [&] { return load_memory_argument(text); });
        if (!has_unit) return m;
        Matrix rows = m.matrix();
        for (auto& r : rows)
            for (auto& x : r) x *= unit;
        return Memory(std::move(rows)).compacted();
    }
    if (!PySequence_Check(h.ptr()) && !PyIter_Check(h.ptr())) {
        throw shape_error(fmt::format("expected a matrix (a list of rows or a string), got {}", type_name(h)),
                          placed_at("memory"));
    }
    Matrix rows;
    std::size_t j = 0;
    for (py::handle row : py::iter(h)) {
        if (py::isinstance<py::str>(row)) {
            Location where;
            where.context = fmt::format("memory[{}]", j);
            throw shape_error("a memory row must be a list of entries, not a string", where);
        }
        Vector r = to_vector(row, fmt::format("memory[{}]", j));
        if (has_unit)
            for (auto& x : r) x *= unit;
        rows.push_back(std::move(r));
        ++j;
    }
    Location where;
    where.context = "memory";
    if (rows.empty()) throw shape_error("the memory has no rows: give at least one row, e.g. [['a', 0]]", where);
    if (rows.front().empty()) throw shape_error("memory rows are empty: give at least one coordinate", where);
    return placed("memory", [&] { return Memory(std::move(rows)).compacted(); });
}

Format format_arg(const std::string& name) {
    return placed("format", [&] { return parse_format(name); });
}

Report run(const Scenario& s) {
    py::gil_scoped_release release;
    return run_scenario(s);
}

}  // namespace exactattn::python
