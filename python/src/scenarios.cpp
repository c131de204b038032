// SPDX-License-Identifier: MIT
// exactattn._exactattn: scenarios — loaded or parsed, run, verified, rendered, crosschecked, their
// answers keyed and learners' answers checked by the library's check_request, as the command
// line does.
#include <pybind11/stl.h>

#include <fmt/format.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "exactattn/answer_key.hpp"
#include "exactattn/check.hpp"
#include "exactattn/crosscheck.hpp"
#include "exactattn/figures.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/report.hpp"
#include "exactattn/scenario.hpp"
#include "exactattn/verify.hpp"

namespace exactattn::python {

namespace {

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
// `encode`: the encoder states of tokens given as one str (split as the command line splits
// them) or as a list of str.
py::list encode(const Scenario& s, py::object tokens) {
    const Call call;  // each call is one job with one work budget (docs/limits.md)
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
}

// The scenario run and rendered by `render` in the format named by `format` (the run report,
// the answer key), as one job with the GIL released while it renders; its warnings are then
// issued with Python's `warnings` module.
template <class Render>
std::string rendered(const Scenario& s, py::object format, Render render) {
    const Call call;  // each call is one job with one work budget (docs/limits.md)
    const Format f = format_arg(text_of(format, "format"));
    const Report rep = run(s);
    std::vector<Warning> warnings;
    RenderOptions options;
    options.warn = [&warnings](const Warning& w) { warnings.push_back(w); };
    std::string out;
    {
        py::gil_scoped_release r;
        out = render(rep, f, options);
    }
    issue_warnings(warnings);
    return out;
}

}  // namespace

void bind_scenarios(py::module_& m) {
    py::class_<Scenario>(m, "_Scenario")
        .def_static("load",
                    [](py::object path_obj) {
                        const Call call;  // each call is one job with one work budget (docs/limits.md)
                        const std::string path = path_of(path_obj, "path");
                        py::gil_scoped_release r;
                        return load_scenario(path);
                    })
        .def_static("parse",
                    [](py::object text_obj, py::object file_obj) {
                        const Call call;  // each call is one job with one work budget (docs/limits.md)
                        const std::string text = text_of(text_obj, "text");
                        const std::string file = text_of(file_obj, "file");
                        py::gil_scoped_release r;
                        return parse_scenario(text, file);
                    })
        .def_readonly("file", &Scenario::file)
        .def_readonly("title", &Scenario::title)
        .def("report",
             [](const Scenario& s, py::object format) {
                 return rendered(s, format, [](const Report& rep, Format f, const RenderOptions& o) {
                     return render_report(rep, f, o);
                 });
             })
        .def("verify",
             [](const Scenario& s) {
                 const Call call;  // each call is one job with one work budget (docs/limits.md)
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
                 return rendered(s, format, [](const Report& rep, Format f, const RenderOptions& o) {
                     return render_answers(rep, f, o);
                 });
             })
        .def("check",
             [](const Scenario& s, py::object answer, py::object target, py::object proposed) {
                 const Call call;  // each call is one job with one work budget (docs/limits.md)
                 return check(s, text_of(answer, "answer"), text_of(target, "target"), proposed);
             })
        .def("crosscheck",
             [](const Scenario& s, py::object format_obj) {
                 const Call call;  // each call is one job with one work budget (docs/limits.md)
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
        .def("encode", &encode);
}

}  // namespace exactattn::python
