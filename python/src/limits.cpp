// SPDX-License-Identifier: MIT
// exactattn._exactattn: the limits (docs/limits.md) — read, and changed for a `with` block on the
// calling thread.
#include <pybind11/stl.h>

#include <fmt/format.h>

#include <cstdint>
#include <optional>

#include "bindings.hpp"
#include "convert.hpp"
#include "exactattn/limits.hpp"

namespace exactattn::python {

namespace {

py::dict limits_dict(const Limits& l) {
    py::dict d;
    for (const Limit which : all_limits()) d[limit_name(which)] = limit_value(l, which);
    return d;
}

Limits limits_from(const py::dict& changes) {
    Limits l = limits();
    for (auto [key, value] : changes) {
        const auto name = py::str(key).cast<std::string>();
        const std::optional<Limit> which = find_limit(name);
        if (!which) {
            std::string known;
            for (const Limit w : all_limits()) known += (known.empty() ? "" : ", ") + std::string(limit_name(w));
            throw usage("limits", fmt::format("unknown limit \"{}\" (known: {})", name, known));
        }
        const std::int64_t cap = limit_ceiling(*which);
        if (PyBool_Check(value.ptr()) || !PyLong_Check(value.ptr()) || to_mpz(value) < 1 || to_mpz(value) > cap) {
            throw usage("limits", fmt::format("{} must be a whole number from 1 to {}, not {}", name, cap,
                                              std::string(py::repr(value))));
        }
        set_limit_value(l, *which, value.cast<std::int64_t>());
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
}  // namespace

void bind_limits(py::module_& m) {
    py::class_<LimitsScope>(m, "_LimitsScope")
        .def(py::init<const py::dict&>())
        .def("__enter__", &LimitsScope::enter, py::return_value_policy::reference_internal)
        .def("__exit__", &LimitsScope::exit)
        .def("values", &LimitsScope::values);
    m.def("current_limits", [] { return limits_dict(limits()); });
}

}  // namespace exactattn::python
