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

namespace exactattn {

namespace {

py::dict claim_dict(const std::string& file, const ClaimVerdict& c) {
    py::dict d;
    d["line"] = c.line;
    d["column"] = c.column;
    d["pointer"] = c.pointer;
    d["written"] = c.written;
    d["exact"] = c.exact;
    d["passed"] = c.passed;
    d["detail"] = c.detail;
    d["message"] = mismatch_line(file, c);
    return d;
}

ManuscriptOptions options_of(const std::optional<std::string>& scenario) {
    return ManuscriptOptions{scenario.value_or("")};
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
            py::dict d;
            d["file"] = r.file;
            d["scenario"] = r.scenario;
            d["claims"] = claims;
            d["wrong"] = r.wrong();
            return d;
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
                py::dict u;
                u["line"] = f.line;
                u["column"] = f.column;
                u["text"] = f.text;
                u["equals"] = f.equals;
                u["message"] = audit_line(r.file, f);
                unmarked.append(u);
            }
            py::dict d;
            d["file"] = r.file;
            d["marked"] = r.marked;
            d["unmarked"] = unmarked;
            d["coverage"] = r.coverage();
            return d;
        },
        py::arg("path"), py::arg("scenario") = py::none());
}

}  // namespace exactattn
