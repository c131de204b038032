// SPDX-License-Identifier: MIT
// exactattn._exactattn: the limits (docs/limits.md) — read, and changed for a `with` block on the
// calling thread.
#include <pybind11/stl.h>

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <optional>

#include "bindings.hpp"
#include "convert.hpp"
#include "exactattn/limits.hpp"

namespace exactattn::python {

namespace {

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
