// SPDX-License-Identifier: MIT
// exactattn._exactattn: the conversions every binding shares — library errors raised as the
// module's exceptions, the memory reserve for out-of-memory, and Python objects to and from
// text, exact values, vectors and memories, each checked with a placed error.
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/memory.hpp"
#include "exactattn/report.hpp"
#include "exactattn/scenario.hpp"
#include "exactattn/table.hpp"
#include "exactattn/value.hpp"
#include "exactattn/warning.hpp"

namespace exactattn::python {

namespace py = pybind11;

/// Translates the library's errors (and bad_alloc, length_error, pybind11's cast errors) into
/// the module's exceptions (python/exactattn/_errors.py), and takes the out-of-memory reserve.
void install_error_translation();

/// One call into the module: one job with one work budget (docs/limits.md), begun with the
/// out-of-memory reserve in hand. The reserve is taken again after a failure released it
/// (install_error_translation), but right then the memory the failed call held may not yet be
/// back; without a reserve, the next failure would end the interpreter (a JSON tree's
/// destructor allocates while bad_alloc unwinds: std::terminate). So each call takes it first.
class Call {
  public:
    Call();

  private:
    WorkBudget job_;
};

/// Issues each warning with Python's `warnings` module as an exactattn.ExactattnWarning (its
/// `place` and `reason` set), attributed to the caller of the module's function. Needs the GIL.
void issue_warnings(const std::vector<Warning>& warnings);

/// `e` placed at `place` (an argument name), before the error's own context.
Error at(const char* place, const Error& e);

/// f(), its errors that name no file or pointer placed at `place`.
template <class F>
auto placed(const std::string& place, F&& f) {
    try {
        return f();
    } catch (const Error& e) {
        if (e.keeps_place(KeepPlace::InFile)) throw;
        throw at(place.c_str(), e);  // the module's merge: an argument name replaces "expression"
    }
}

/// A UsageError at the argument `place`.
Error usage(const std::string& place, const std::string& reason);
/// A Location naming the argument `place`.
Location placed_at(const std::string& place);

/// repr() of any object in ASCII (for messages: a lone surrogate cannot be printed as UTF-8).
std::string shown(py::handle h);
/// The name of an object's type.
std::string type_name(py::handle h);

/// A str as UTF-8; a lone surrogate is a ParseError naming its index, a non-str a ShapeError.
std::string text_of(py::handle h, const std::string& place);
/// A file name: a str in the file system's encoding, or bytes as they are.
std::string path_of(py::handle h, const std::string& place);
/// A list of str (tokens): each entry named by its index.
std::vector<std::string> texts_of(py::handle h, const std::string& place);

/// Python int -> mpz, through base 16 (no digit limit, unlike str() of a huge int).
mpz_class to_mpz(py::handle h);
py::object to_pyint(const mpz_class& z);
/// An int, a fractions.Fraction (any numbers.Rational) or a Value; nullopt for anything else.
std::optional<Value> exact_number(py::handle h);
/// A finite float as the exact dyadic rational it is (for comparisons, as Fraction does).
std::optional<Value> exact_float(py::handle h);
/// Any value an input may hold: an exact number or a string in the engine's notation.
Value to_value(py::handle h, const std::string& place);
Vector to_vector(py::handle h, const std::string& place);
py::list to_list(const Vector& v);
/// None where the column has no entry.
py::list to_list(const Column& c);
/// A memory: a 2-D integer NumPy array, rows of ints, rows of values, or a string (`@FILE`
/// included), each entry times `unit` when it is not None.
Memory to_memory(py::handle h, const py::object& unit_obj);

/// A format name, placed at `format`.
Format format_arg(const std::string& name);
/// The scenario run with the GIL released.
Report run(const Scenario& s);

}  // namespace exactattn::python
