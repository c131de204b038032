// SPDX-License-Identifier: MIT
// exactattn._exactattn: the Python binding (pybind11). Every computation is one library call
// with the GIL released; the bindings convert arguments and results and nothing more, one file
// per area (values, reads, layers, scenarios, runs, limits, manuscript, oracle) over the shared
// conversions of convert.hpp. The Python-facing classes (Trace, Scenario, Vector) and the
// docstrings users read live in python/exactattn/__init__.py.
#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "exactattn/version.hpp"

PYBIND11_MODULE(_exactattn, m) {
    using namespace exactattn::python;
    exactattn::set_limit_audience(exactattn::LimitAudience::Python);  // refusals name exactattn.limits(...)
    bind_oracle(m);
    m.doc() = "exactattn's C++ library (see the package exactattn for the documented API)";
    m.attr("__version__") = EXACTATTN_VERSION_STRING;  // the one version, include/exactattn/version.hpp
    install_error_translation();
    bind_values(m);
    bind_reads(m);
    bind_layers(m);
    bind_scenarios(m);
    bind_runs(m);
    bind_limits(m);
    exactattn::bind_manuscript(m);
}
