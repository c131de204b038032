// SPDX-License-Identifier: MIT
// exactattn._exactattn: the bindings of each area, called once by the module (module.cpp).
#pragma once

#include <pybind11/pybind11.h>

namespace exactattn::python {

void bind_values(pybind11::module_& m);     ///< Value, exp, ln, pow, to_value (values.cpp)
void bind_reads(pybind11::module_& m);      ///< read and its _Trace (reads.cpp)
void bind_layers(pybind11::module_& m);     ///< _attend (layers.cpp)
void bind_scenarios(pybind11::module_& m);  ///< _Scenario: load, run, verify, answers, check (scenarios.cpp)
void bind_runs(pybind11::module_& m);       ///< _rollout, _figure, _variants of a scenario (runs.cpp)
void bind_limits(pybind11::module_& m);     ///< limits() and current_limits (limits.cpp)

}  // namespace exactattn::python

namespace exactattn {
void bind_manuscript(pybind11::module_& m);  ///< manuscript_check, _fill, _audit (manuscript_bindings.cpp)
}  // namespace exactattn

void bind_oracle(pybind11::module_& m);  ///< the oracle (oracle_bindings.cpp)
