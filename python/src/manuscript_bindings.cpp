// SPDX-License-Identifier: MIT
// exactattn._exactattn: the manuscript functions (docs/manuscript.md) — check, fill and audit
// of a Markdown or LaTeX file, each one library call with the GIL released, results as dicts
// whose fields are the command's.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "exactattn/manuscript.hpp"

namespace py = pybind11;
using namespace pybind11::literals;  // "key"_a = value: a dict's fields in one expression

namespace exactattn {

namespace {

py::dict claim_dict(const std::string& file, const ClaimVerdict& c) {
    return py::dict("line"_a = c.line, "column"_a = c.column, "pointer"_a = c.pointer, "written"_a = c.written,
                    "exact"_a = c.exact, "passed"_a = c.passed, "detail"_a = c.detail,
                    "message"_a = mismatch_line(file, c));
}

ManuscriptOptions options_of(const std::optional<std::string>& scenario) {
    return ManuscriptOptions{scenario.value_or(""), {}};
}

}  // namespace

void bind_manuscript(py::module_& m) {
    m.def(
        "manuscript_check",
        [](const std::string& path, const std::optional<std::string>& scenario) {
            ManuscriptResult r;
            {
                py::gil_scoped_release release;
                r = check_manuscript(path, options_of(scenario));
            }
            py::list claims;
            for (const auto& c : r.claims) claims.append(claim_dict(r.file, c));
            return py::dict("file"_a = r.file, "scenario"_a = r.scenario, "claims"_a = claims, "wrong"_a = r.wrong());
        },
        py::arg("path"), py::arg("scenario") = py::none());
    m.def(
        "manuscript_fill",
        [](const std::string& path, const std::optional<std::string>& scenario) {
            py::gil_scoped_release release;
            return fill_manuscript_text(read_manuscript_file(path), path, manuscript_format(path), options_of(scenario))
                .text;
        },
        py::arg("path"), py::arg("scenario") = py::none());
    m.def(
        "manuscript_audit",
        [](const std::string& path, const std::optional<std::string>& scenario) {
            AuditResult r;
            {
                py::gil_scoped_release release;
                r = audit_manuscript_text(read_manuscript_file(path), path, manuscript_format(path),
                                          options_of(scenario));
            }
            py::list unmarked;
            for (const auto& f : r.unmarked) {
                unmarked.append(py::dict("line"_a = f.line, "column"_a = f.column, "text"_a = f.text,
                                         "equals"_a = f.equals, "message"_a = audit_line(r.file, f)));
            }
            return py::dict("file"_a = r.file, "marked"_a = r.marked, "unmarked"_a = unmarked,
                            "coverage"_a = r.coverage());
        },
        py::arg("path"), py::arg("scenario") = py::none());
}

}  // namespace exactattn
