// SPDX-License-Identifier: MIT
// exactattn._exactattn: the Python binding (pybind11). Every computation is one library call
// with the GIL released; this file converts arguments and results and nothing more. The
// Python-facing classes (Trace, Scenario, Vector) and the docstrings users read live in
// python/exactattn/__init__.py.
#include <pybind11/pybind11.h>
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
#include <string>
#include <vector>

#include "exactattn/figures.hpp"
#include "exactattn/document.hpp"
#include "exactattn/answer_key.hpp"
#include "exactattn/attention.hpp"
#include "exactattn/attention_report.hpp"
#include "exactattn/check.hpp"
#include "exactattn/crosscheck.hpp"
#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/memory.hpp"
#include "exactattn/encoder.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "exactattn/report.hpp"
#include "exactattn/scenario.hpp"
#include "exactattn/table.hpp"
#include "exactattn/value.hpp"
#include "exactattn/version.hpp"
#include "exactattn/verify.hpp"

namespace py = pybind11;
using namespace exactattn;

namespace exactattn {
void bind_manuscript(py::module_& m);  // manuscript_bindings.cpp
void bind_runs(py::module_& m);        // run_bindings.cpp: rollouts, figures, variants
// run_bindings.cpp: a layer in a format; HTML is the page's body (a notebook's table, MathML).
std::string layer_text(const LayerTrace& t, const std::string& format, const std::vector<std::string>& labels,
                       const std::vector<std::string>& key_labels);
}  // namespace exactattn

namespace {

// ---- errors ---------------------------------------------------------------------------------

// Raises the exactattn.<Kind> exception (python/exactattn/_errors.py) for a library error, with
// the library's message (`place: reason`, the CLI's stderr line without "exactattn: ").
// Names echoed from files and arguments may hold bytes that are not UTF-8 (a path with byte
// 0xFF) and controls: shown as the command line shows them (<0xFF>, <U+001B>), so that the
// message is a str and raising it cannot fail.
void raise_error(const Error& e) {
    const py::object cls = py::module_::import("exactattn._errors").attr(kind_name(e.kind()));
    const py::object inst = cls(escape_controls(e.what()), kind_name(e.kind()), escape_controls(e.where().str()),
                                escape_controls(e.reason()));
    PyErr_SetObject(cls.ptr(), inst.ptr());
}

// ---- out of memory ------------------------------------------------------------------------
// As in the command line (cli/main.cpp): memory held back for the way out of an allocation
// failure, because destructors that run while std::bad_alloc unwinds may allocate themselves
// (nlohmann's JSON destructor keeps a stack of children), and a second bad_alloc there would
// end the interpreter with std::terminate (exit 134) instead of raising. The first failure
// releases the reserve and fails as usual; the reserve is taken again once the error reached
// Python. Untouched, the reserve costs address space, not resident memory.
constexpr std::size_t kReserveBytes = std::size_t{64} << 20;
std::atomic<void*> g_reserve{nullptr};
std::new_handler g_previous_handler = nullptr;

void release_reserve_then_fail() {
    if (void* r = g_reserve.exchange(nullptr)) {
        std::free(r);
        throw std::bad_alloc();
    }
    if (g_previous_handler != nullptr) {
        g_previous_handler();  // another extension's handler: it frees memory or throws
        return;
    }
    throw std::bad_alloc();
}

void take_reserve() {
    if (g_reserve.load() != nullptr) return;
    void* r = std::malloc(kReserveBytes);
    void* expected = nullptr;
    if (r != nullptr && !g_reserve.compare_exchange_strong(expected, r)) std::free(r);
}

// The command line's messages for the same failures (cli/app.cpp), raised as LimitError.
constexpr char kOutOfMemory[] =
    "out of memory: the input needs more memory than this machine has; lower its size (see docs/limits.md)";
constexpr char kTooLarge[] =
    "out of memory: a result is larger than the largest object this machine can hold; lower the input's size "
    "(see docs/limits.md)";

Error at(const char* place, const Error& e) {
    Location where = e.where();
    where.context = where.context == "expression" || where.context.empty() ? std::string(place)
                                                                           : std::string(place) + " " + where.context;
    return Error(e.kind(), where, e.reason());
}

template <class F>
auto placed(const std::string& place, F&& f) {
    try {
        return f();
    } catch (const Error& e) {
        if (!e.where().file.empty() || !e.where().pointer.empty()) throw;
        throw at(place.c_str(), e);
    }
}

Error usage(const std::string& place, const std::string& reason) {
    Location where;
    where.context = place;
    return usage_error(reason, where);
}

Location placed_at(const std::string& place) {
    Location where;
    where.context = place;
    return where;
}

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

bool is_rational_number(py::handle h) {
    static const py::object* rational = new py::object(py::module_::import("numbers").attr("Rational"));
    return py::isinstance(h, *rational);
}

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
    const WorkBudget job;  // each call is one job with one work budget (docs/limits.md)
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
    const WorkBudget job;  // each call is one job with one work budget (docs/limits.md)
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
    const WorkBudget job;  // each call is one job with one work budget (docs/limits.md)
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

// 1-based positions (`remove=`, `zero=`) into marks, with the CLI's checks and messages.
void mark_positions(py::handle positions, const char* place, std::size_t n, Mark mark, std::vector<Mark>& marks) {
    for (py::handle p : py::iter(positions)) {
        if (PyBool_Check(p.ptr()) || !PyIndex_Check(p.ptr())) {
            throw usage(place, fmt::format("{} is not a position (a whole number from 1 to {})", shown(p), n));
        }
        const mpz_class z = to_mpz(py::reinterpret_steal<py::object>(PyNumber_Index(p.ptr())));
        if (z < 1 || z > mpz_class(std::to_string(n))) {
            Location where;
            where.context = place;
            throw reference_error(
                fmt::format("position {} is out of range: the memory has positions 1 to {}", z.get_str(), n), where);
        }
        const std::size_t j = z.get_ui() - 1;
        if (marks[j] != Mark::Included && marks[j] != mark) {
            throw usage("remove", fmt::format("position {} is given to both remove and zero", j + 1));
        }
        marks[j] = mark;
    }
}

// ---- traces ---------------------------------------------------------------------------------

struct PyTrace {
    Memory memory;
    ReadTrace trace;
};

// Table 14.1's cells for at most `head` + `head` rows (all rows when there are few): the
// library's read_table on the selected rows, with their original position labels.
py::tuple trace_table(const PyTrace& t, std::size_t head) {
    const std::size_t n = t.memory.rows();
    std::vector<std::size_t> pick;
    for (std::size_t j = 0; j < n; ++j) {
        if (n <= 2 * head || j < head || j >= n - head) pick.push_back(j);
    }
    std::vector<std::vector<std::string>> tab;
    auto cells_of = [](const Memory& m, const ReadTrace& tr) {
        const Document doc = read_document(m, tr);
        for (const auto& b : doc.blocks) {
            if (const auto* t = std::get_if<TableBlock>(&b)) return table_cells(*t, Format::Text);
        }
        return std::vector<std::vector<std::string>>{};
    };
    {
        py::gil_scoped_release release;
        if (pick.size() == n) {
            tab = cells_of(t.memory, t.trace);
        } else {
            Matrix rows;
            ReadTrace sub;
            sub.query = t.trace.query;
            sub.denominator = t.trace.denominator;
            sub.context = t.trace.context;
            sub.readout = t.trace.readout;
            std::vector<std::optional<Value>> s;
            std::vector<std::optional<Value>> e;
            std::vector<std::optional<Value>> w;
            for (auto j : pick) {
                rows.push_back(t.memory.row(j));
                sub.marks.push_back(t.trace.marks[j]);
                s.push_back(t.trace.scores.at(j));
                e.push_back(t.trace.exponentials.at(j));
                w.push_back(t.trace.weights.at(j));
            }
            sub.scores = Column(std::move(s));
            sub.exponentials = Column(std::move(e));
            sub.weights = Column(std::move(w));
            tab = cells_of(Memory(std::move(rows)), sub);
            for (std::size_t r = 0; r < pick.size(); ++r) tab.at(r + 1).at(0) = std::to_string(pick[r] + 1);
        }
    }
    const std::vector<std::string> headers = tab.empty() ? std::vector<std::string>{} : tab.front();
    const std::vector<std::vector<std::string>> rows(tab.empty() ? tab.end() : tab.begin() + 1, tab.end());
    return py::make_tuple(headers, rows, pick.size() < n);
}

// ---- scenarios ------------------------------------------------------------------------------

Report run(const Scenario& s) {
    py::gil_scoped_release release;
    return run_scenario(s);
}

py::dict judgement_dict(const Judgement& j) {
    py::dict d;
    d["name"] = j.name;
    d["target"] = j.target;
    d["proposed"] = to_list(j.proposed);
    d["exact"] = to_list(Column(j.exact));  // None where the report has no entry
    if (j.tokens) {      // a target that holds tokens (docs/check.md#token-answers): the tokens as strings
        py::list given;  // None for `null`, the place of a refused tie
        for (const auto& e : j.entries)
            given.append(e.form == AnswerEntry::Form::NoToken ? py::object(py::none()) : py::object(py::str(e.text)));
        d["proposed"] = given;
        d["exact"] = py::cast(j.exact_tokens);
    }
    d["tokens"] = j.tokens;
    d["columns"] = j.columns;
    d["scalar"] = j.scalar;
    d["correct"] = j.correct;
    d["findings"] = j.findings;
    d["mistake"] = j.mistake;
    d["mistake_id"] = j.mistake_id;  // the registry entry (docs/check.md), "" when none
    d["rule"] = j.rule;
    d["feedback"] = j.feedback;
    d["text"] = judgement_text(j);
    return d;
}

// A proposed answer: a value, a vector or a matrix (row by row, with its width), given as text
// in the CLI's `--proposed` notation or as Python numbers and lists.
void set_proposed(LearnerAnswer& la, const py::object& proposed) {
    if (py::isinstance<py::str>(proposed)) {
        const auto text = text_of(proposed, "proposed");
        placed("proposed", [&] {
            read_proposal(text, la);  // decimals, percentages and e as written, like --proposed
            return 0;
        });
    } else if (auto v = exact_number(proposed)) {
        la.proposed = {*v};
        la.scalar = true;
    } else {
        if (!PySequence_Check(proposed.ptr())) {
            throw shape_error(fmt::format("expected a value, a str or a list, got {}", type_name(proposed)),
                              placed_at("proposed"));
        }
        const py::list items(proposed);
        const bool matrix = !items.empty() && !py::isinstance<py::str>(items[0]) && !exact_number(items[0]) &&
                            py::hasattr(items[0], "__iter__");
        if (!matrix) {
            // Strings are read as written (decimals, percentages, e), like --proposed.
            bool all_text = !items.empty();
            std::string text = "[";
            for (const auto& item : items) {
                all_text = all_text && py::isinstance<py::str>(item);
                // Tokens are quoted where needed (`","`), so that each string stays one token.
                const auto written = [&] {
                    const auto t = text_of(item, "proposed");
                    return names_tokens(la.target) ? token_text(t) : t;
                };
                if (all_text) text += (text.size() > 1 ? "," : "") + written();
            }
            if (all_text) {
                placed("proposed", [&] {
                    read_proposal(text + "]", la);
                    return 0;
                });
                return;
            }
            la.proposed = to_vector(items, "proposed");
            return;
        }
        for (std::size_t j = 0; j < items.size(); ++j) {
            const Vector row = to_vector(items[j], fmt::format("proposed[{}]", j));
            if (j == 0) la.columns = row.size();
            if (row.size() != la.columns) {
                Location where;
                where.context = "proposed";
                throw shape_error(fmt::format("row {} has width {}, row 1 has width {}", j + 1, row.size(), la.columns),
                                  where);
            }
            la.proposed.insert(la.proposed.end(), row.begin(), row.end());
        }
    }
}

// `check`: one ad-hoc answer, one declared answer by name, or every declared one, selected and
// judged by the library's check_request, as the command line does.
py::list check(const Scenario& s, const std::string& answer, const std::string& target, const py::object& proposed) {
    const Report rep = run(s);
    CheckRequest req;
    req.answer = answer;
    req.answer_place = "answer";
    req.target_place = "target";
    if (!target.empty() || !proposed.is_none()) {
        if (target.empty() || proposed.is_none()) throw usage("target", "target and proposed go together");
        LearnerAnswer la;
        la.name = "answer";
        la.target = target;
        set_proposed(la, proposed);
        req.ad_hoc = std::move(la);
    }
    std::vector<Judgement> judgements;
    {
        py::gil_scoped_release release;
        judgements = check_request(rep, req);
    }
    py::list out;
    for (const auto& j : judgements) out.append(judgement_dict(j));
    return out;
}

// ---- limits ---------------------------------------------------------------------------------

struct LimitField {
    const char* name;
    std::int64_t (*get)(const Limits&);
    void (*set)(Limits&, std::int64_t);
};

#define EXACTATTN_LIMIT(field)                                                        \
    LimitField {                                                                      \
#field, [](const Limits& l) { return static_cast<std::int64_t>(l.field); },         \
            [](Limits& l, std::int64_t v) { l.field = static_cast<decltype(l.field)>(v); } \
    }
const LimitField kLimitFields[] = {
    EXACTATTN_LIMIT(max_exponent),
    EXACTATTN_LIMIT(max_root),
    EXACTATTN_LIMIT(max_bits),
    EXACTATTN_LIMIT(max_degree),
    EXACTATTN_LIMIT(max_precision),
    EXACTATTN_LIMIT(max_positions),
    EXACTATTN_LIMIT(max_cells),
    EXACTATTN_LIMIT(max_memory_bytes),
    EXACTATTN_LIMIT(max_value_bits),
    EXACTATTN_LIMIT(max_file_bytes),
    EXACTATTN_LIMIT(max_nesting),
    EXACTATTN_LIMIT(max_work),
    EXACTATTN_LIMIT(max_report_cells),
    EXACTATTN_LIMIT(max_decoder_steps),
    EXACTATTN_LIMIT(max_target_vocabulary),
    EXACTATTN_LIMIT(max_figure_positions),
    EXACTATTN_LIMIT(max_variants),
    EXACTATTN_LIMIT(max_variant_draws),
};
#undef EXACTATTN_LIMIT

py::dict limits_dict(const Limits& l) {
    py::dict d;
    for (const auto& f : kLimitFields) d[f.name] = f.get(l);
    return d;
}

Limits limits_from(const py::dict& changes) {
    Limits l = limits();
    for (auto [key, value] : changes) {
        const auto name = py::str(key).cast<std::string>();
        const LimitField* field = nullptr;
        for (const auto& f : kLimitFields) {
            if (name == f.name) field = &f;
        }
        if (field == nullptr) {
            std::string known;
            for (const auto& f : kLimitFields) known += (known.empty() ? "" : ", ") + std::string(f.name);
            throw usage("limits", fmt::format("unknown limit \"{}\" (known: {})", name, known));
        }
        const std::int64_t cap = std::string_view(name) == "max_root" || std::string_view(name) == "max_degree" ||
                                         std::string_view(name) == "max_nesting"
                                     ? std::numeric_limits<int>::max()
                                     : std::numeric_limits<std::int64_t>::max();
        if (PyBool_Check(value.ptr()) || !PyLong_Check(value.ptr()) || to_mpz(value) < 1 || to_mpz(value) > cap) {
            throw usage("limits", fmt::format("{} must be a whole number from 1 to {}, not {}", name, cap,
                                              std::string(py::repr(value))));
        }
        field->set(l, value.cast<std::int64_t>());
    }
    return l;
}

// `with exactattn.limits(...)`: a ScopedLimits for the calling thread.
class LimitsScope {
  public:
    explicit LimitsScope(const py::dict& changes) : limits_(limits_from(changes)) {}
    LimitsScope& enter() {
        if (scope_) throw usage("limits", "this limits() context is already active; create another one");
        scope_.emplace(limits_);
        thread_ = PyThread_get_thread_ident();
        return *this;
    }
    void exit(const py::args&) {
        if (scope_ && thread_ != PyThread_get_thread_ident()) {
            throw usage("limits", "a limits() context must end on the thread that began it");
        }
        scope_.reset();
    }
    [[nodiscard]] py::dict values() const { return limits_dict(limits_); }

  private:
    Limits limits_;
    std::optional<ScopedLimits> scope_;
    unsigned long thread_ = 0;
};

Format format_arg(const std::string& name) {
    return placed("format", [&] { return parse_format(name); });
}

}  // namespace

void bind_oracle(py::module_& m);  // python/src/oracle_bindings.cpp

PYBIND11_MODULE(_exactattn, m) {
    set_limit_audience(LimitAudience::Python);  // refusals name exactattn.limits(...)
    bind_oracle(m);
    m.doc() = "exactattn's C++ library (see the package exactattn for the documented API)";
    m.attr("__version__") = EXACTATTN_VERSION_STRING;  // the one version, include/exactattn/version.hpp
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const Error& e) {
            raise_error(e);
        } catch (const std::bad_alloc&) {
            raise_error(limit_error(kOutOfMemory));
            take_reserve();
        } catch (const std::length_error&) {
            raise_error(limit_error(kTooLarge));
            take_reserve();
        } catch (const py::cast_error& e) {
            // A conversion no helper above checked first: still the module's error, a ShapeError
            // (a TypeError and a ValueError), not pybind11's RuntimeError.
            raise_error(shape_error(fmt::format("an argument has the wrong type ({})", e.what())));
        }
    });
    take_reserve();
    g_previous_handler = std::set_new_handler(release_reserve_then_fail);
    if (g_previous_handler == release_reserve_then_fail) g_previous_handler = nullptr;  // imported twice

    py::class_<Value>(m, "Value", R"doc(An exact value: a polynomial in a = ln 2 with coefficients in Q(2^(1/m)).

Value("2a/3") parses the engine's notation (the CLI's `eval` grammar); Value(3) and
Value(Fraction(1, 2)) convert exactly. Arithmetic with int, Fraction and Value is exact;
floats are refused (they are not exact) except in comparisons, where they compare exactly.)doc")
        .def(py::init([](py::object x) {
                 const WorkBudget job;  // each call is one job with one work budget (docs/limits.md)
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
                const WorkBudget job;  // each call is one job with one work budget (docs/limits.md)
                if (digits < 1 || digits > 100000) throw usage("digits", "digits must be from 1 to 100000");
                py::gil_scoped_release release;
                return to_significant(v, digits);
            },
            py::arg("digits") = 20, "Correctly rounded decimal with `digits` significant digits.")
        .def(
            "fixed",
            [](const Value& v, int places) {
                const WorkBudget job;  // each call is one job with one work budget (docs/limits.md)
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
                 if (!v.is_rational()) throw domain_error(fmt::format("{} is not rational", detail::brief_ascii(v)));
                 const mpq_class q = v.rational();
                 return py::make_tuple(to_pyint(q.get_num()), to_pyint(q.get_den()));
             })
        .def("_terms",
             [](const Value& v) {
                 py::list out;
                 for (const auto& f : v.terms()) {
                     py::list coeffs;
                     for (const auto& c : f.coefficients()) {
                         coeffs.append(py::make_tuple(to_pyint(c.get_num()), to_pyint(c.get_den())));
                     }
                     out.append(py::make_tuple(f.root(), coeffs));
                 }
                 return out;
             })
        .def("__hash__",
             [](const Value& v) -> Py_hash_t {
                 if (v.is_rational()) return rational_hash(v.rational());
                 const auto h = static_cast<Py_hash_t>(py::hash(py::str(to_ascii(v))));
                 return h == -1 ? -2 : h;
             })
        .def("__eq__",
             [](const Value& x, py::object y) -> py::object {
                 if (auto v = exact_number(y)) return py::bool_(x == *v);
                 if (auto f = exact_float(y)) return py::bool_(x == *f);
                 if (PyFloat_Check(y.ptr())) return py::bool_(false);  // inf, nan
                 return not_implemented();
             })
        .def("__ne__",
             [](const Value& x, py::object y) -> py::object {
                 if (auto v = exact_number(y)) return py::bool_(x != *v);
                 if (auto f = exact_float(y)) return py::bool_(x != *f);
                 if (PyFloat_Check(y.ptr())) return py::bool_(true);
                 return not_implemented();
             })
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

    m.def("exp", [](const Value& x) {
        const WorkBudget job;  // each call is one job with one work budget (docs/limits.md)
        py::gil_scoped_release r;
        return exp(x);
    });
    m.def("ln", [](const Value& x) {
        const WorkBudget job;  // each call is one job with one work budget (docs/limits.md)
        py::gil_scoped_release r;
        return ln(x);
    });
    m.def("pow", [](const Value& x, const Value& y) {
        const WorkBudget job;  // each call is one job with one work budget (docs/limits.md)
        py::gil_scoped_release r;
        return pow(x, y);
    });
    m.def("to_value", [](py::object x) { return to_value(x, "value"); });

    py::class_<PyTrace>(m, "_Trace")
        .def("query", [](const PyTrace& t) { return to_list(t.trace.query); })
        .def("memory",
             [](const PyTrace& t) {
                 py::list out;
                 for (std::size_t j = 0; j < t.memory.rows(); ++j) out.append(to_list(t.memory.row(j)));
                 return out;
             })
        .def("marks",
             [](const PyTrace& t) {
                 std::vector<int> out;
                 for (auto mk : t.trace.marks) out.push_back(static_cast<int>(mk));
                 return out;
             })
        .def("scores", [](const PyTrace& t) { return to_list(t.trace.scores); })
        .def("exponentials", [](const PyTrace& t) { return to_list(t.trace.exponentials); })
        .def("weights",
             [](const PyTrace& t) {  // 0 where removed, as in the JSON
                 py::list out;
                 for (std::size_t j = 0; j < t.trace.weights.size(); ++j) {
                     out.append(py::cast(t.trace.weights.at(j).value_or(Value())));
                 }
                 return out;
             })
        .def("denominator", [](const PyTrace& t) { return t.trace.denominator; })
        .def("context", [](const PyTrace& t) { return to_list(t.trace.context); })
        .def("readout", [](const PyTrace& t) { return t.trace.readout; })
        .def("fast_path", [](const PyTrace& t) { return t.trace.fast_path; })
        .def("rows", [](const PyTrace& t) { return t.memory.rows(); })
        .def("json",
             [](const PyTrace& t) {
                 py::gil_scoped_release r;
                 return read_json(t.memory, t.trace);
             })
        .def("text",
             [](const PyTrace& t) {
                 py::gil_scoped_release r;
                 return read_text(t.memory, t.trace);
             })
        .def("table", &trace_table, py::arg("head"));

    m.def("read", [](py::object memory, py::object query, py::object readout, py::object remove, py::object zero,
                     py::object unit) {
        auto t = std::make_unique<PyTrace>();
        const WorkBudget job;  // each call is one job with one work budget (docs/limits.md)
        t->memory = to_memory(memory, unit);
        ReadRequest req;
        req.query = to_vector(query, "query");
        if (!readout.is_none()) req.readout = to_vector(readout, "readout");
        const std::size_t n = t->memory.rows();
        req.marks.assign(n, Mark::Included);
        mark_positions(zero, "zero", n, Mark::Zeroed, req.marks);
        mark_positions(remove, "remove", n, Mark::Removed, req.marks);
        {
            py::gil_scoped_release release;
            t->trace = attend(t->memory, req);
        }
        return t;
    });

    // One attention layer (docs/attention.md): heads is a sequence of (W_Q, W_K, W_V) triples;
    // the result is `exactattn attend --format json`.
    m.def("_attend", [](py::object x, py::object heads, py::object wo, bool causal, py::object padding, py::object mask,
                        py::object scale, py::object memory, bool residual, const std::string& format,
                        const std::vector<std::string>& labels, const std::vector<std::string>& key_labels) {
        const WorkBudget job;  // each call is one job with one work budget (docs/limits.md)
        AttentionLayer l;
        std::size_t h = 0;
        for (py::handle head : py::iter(heads)) {
            if (!PySequence_Check(head.ptr()) || PyUnicode_Check(head.ptr())) {
                throw shape_error(fmt::format("give (W_Q, W_K, W_V), got {}", type_name(head)),
                                  placed_at(fmt::format("heads[{}]", h)));
            }
            const auto t = py::reinterpret_borrow<py::sequence>(head);
            if (py::len(t) != 3) {
                throw shape_error(fmt::format("give (W_Q, W_K, W_V), got {} items", py::len(t)),
                                  placed_at(fmt::format("heads[{}]", h)));
            }
            l.heads.push_back(AttentionHead{to_memory(t[0], py::none()).matrix(), to_memory(t[1], py::none()).matrix(),
                                            to_memory(t[2], py::none()).matrix()});
            ++h;
        }
        if (!wo.is_none()) l.wo = to_memory(wo, py::none()).matrix();
        l.causal = causal;
        l.residual = residual;
        const bool named = py::isinstance<py::str>(scale);
        const std::string s = named ? text_of(scale, "scale") : std::string();
        if (named && s == "none") {
            l.rule = ScoreRule::Dot;
        } else if (named && s == "sqrt-dk") {
            l.rule = ScoreRule::ScaledDot;
        } else {
            l.rule = ScoreRule::Scaled;
            l.scale = to_value(scale, "scale");
        }
        std::size_t pi = 0;
        std::vector<mpz_class> padding_positions;  // checked against the keys below, before any narrowing
        for (py::handle p : py::iter(padding)) {
            const std::string place = fmt::format("padding[{}]", pi++);
            if (PyBool_Check(p.ptr()) || !PyIndex_Check(p.ptr())) {
                throw shape_error(fmt::format("expected a position (a whole number from 1), got {}", shown(p)),
                                  placed_at(place));
            }
            padding_positions.push_back(to_mpz(py::reinterpret_steal<py::object>(PyNumber_Index(p.ptr()))));
        }
        if (!mask.is_none()) {
            if (!PySequence_Check(mask.ptr()) || PyUnicode_Check(mask.ptr())) {
                throw shape_error(fmt::format("expected rows of booleans, got {}", type_name(mask)), placed_at("mask"));
            }
            for (py::handle row : py::iter(mask)) {
                if (!PySequence_Check(row.ptr()) || PyUnicode_Check(row.ptr())) {
                    throw shape_error(fmt::format("expected a row of booleans, got {}", type_name(row)),
                                      placed_at(fmt::format("mask[{}]", l.mask.size())));
                }
                l.mask.emplace_back();
                for (py::handle b : py::iter(row)) l.mask.back().push_back(PyObject_IsTrue(b.ptr()) == 1);
            }
        }
        const Matrix xm = to_memory(x, py::none()).matrix();
        const std::optional<Matrix> mm =
            memory.is_none() ? std::nullopt : std::optional<Matrix>(to_memory(memory, py::none()).matrix());
        // A position below 1 or past the keys (2**64 included) is refused as the library refuses
        // one past the keys, not wrapped into a size_t first.
        const std::size_t nk = mm ? mm->size() : xm.size();
        for (const auto& z : padding_positions) {
            if (z < 1 || z > mpz_class(std::to_string(nk))) {
                throw reference_error(fmt::format("padding position {} is out of range 1..{}", z.get_str(), nk),
                                      placed_at("padding"));
            }
            l.padding.push_back(z.get_ui());
        }
        py::gil_scoped_release release;
        return layer_text(mm ? attend_layer(l, xm, *mm) : attend_layer(l, xm), format, labels, key_labels);
    });

    py::class_<Scenario>(m, "_Scenario")
        .def_static("load",
                    [](py::object path_obj) {
                        const WorkBudget job;  // each call is one job with one work budget (docs/limits.md)
                        const std::string path = path_of(path_obj, "path");
                        py::gil_scoped_release r;
                        return load_scenario(path);
                    })
        .def_static("parse",
                    [](py::object text_obj, py::object file_obj) {
                        const WorkBudget job;  // each call is one job with one work budget (docs/limits.md)
                        const std::string text = text_of(text_obj, "text");
                        const std::string file = text_of(file_obj, "file");
                        py::gil_scoped_release r;
                        return parse_scenario(text, file);
                    })
        .def_readonly("file", &Scenario::file)
        .def_readonly("title", &Scenario::title)
        .def("report",
             [](const Scenario& s, py::object format) {
                 const WorkBudget job;  // each call is one job with one work budget (docs/limits.md)
                 const Format f = format_arg(text_of(format, "format"));
                 const Report rep = run(s);
                 py::gil_scoped_release r;
                 return render_report(rep, f);
             })
        .def("verify",
             [](const Scenario& s) {
                 const WorkBudget job;  // each call is one job with one work budget (docs/limits.md)
                 const Report rep = run(s);
                 VerifyResult v;
                 {
                     py::gil_scoped_release r;
                     v = verify_report(rep);
                 }
                 py::list failures;
                 for (const auto& f : v.failures) failures.append(py::make_tuple(f.pointer, f.expected, f.computed));
                 return py::make_tuple(v.file, v.passed, failures);
             })
        .def("answers",
             [](const Scenario& s, py::object format) {
                 const WorkBudget job;  // each call is one job with one work budget (docs/limits.md)
                 const Format f = format_arg(text_of(format, "format"));
                 const Report rep = run(s);
                 py::gil_scoped_release r;
                 return render_answers(rep, f);
             })
        .def("check",
             [](const Scenario& s, py::object answer, py::object target, py::object proposed) {
                 const WorkBudget job;  // each call is one job with one work budget (docs/limits.md)
                 return check(s, text_of(answer, "answer"), text_of(target, "target"), proposed);
             })
        .def("crosscheck",
             [](const Scenario& s, py::object format_obj) {
                 const WorkBudget job;  // each call is one job with one work budget (docs/limits.md)
                 const std::string format = text_of(format_obj, "format");
                 if (format != "json" && format != "markdown") {
                     throw usage("format",
                                 fmt::format("unknown format \"{}\": crosscheck writes markdown or json", format));
                 }
                 const Report rep = run(s);
                 py::gil_scoped_release r;
                 const std::vector<CrosscheckResult> results = {crosscheck(rep)};
                 return std::make_tuple(render_crosscheck(results, format_arg(format)), results.front().passed());
             })
        .def("encode", [](const Scenario& s, py::object tokens) {
            const WorkBudget job;  // each call is one job with one work budget (docs/limits.md)
            std::vector<std::string> list;
            if (py::isinstance<py::str>(tokens)) {
                const auto text = text_of(tokens, "tokens");
                placed("tokens", [&] {
                    check_utf8(text, "");
                    return 0;
                });
                list = split_tokens(text);
            } else {
                list = texts_of(tokens, "tokens");
            }
            Matrix states;
            {
                py::gil_scoped_release r;
                states = placed("tokens", [&] { return s.encode_tokens(list); });
            }
            py::list out;
            for (const auto& row : states) out.append(to_list(row));
            return out;
        });

    py::class_<LimitsScope>(m, "_LimitsScope")
        .def(py::init<const py::dict&>())
        .def("__enter__", &LimitsScope::enter, py::return_value_policy::reference_internal)
        .def("__exit__", &LimitsScope::exit)
        .def("values", &LimitsScope::values);
    m.def("current_limits", [] { return limits_dict(limits()); });
    bind_manuscript(m);
    bind_runs(m);
}
