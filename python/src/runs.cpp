// SPDX-License-Identifier: MIT
// exactattn._exactattn: what a run makes besides its report — one rollout, one figure, the
// variants of an exercise (docs/python.md). Each call is one job (one work budget)
// and releases the GIL while the library computes.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

#include "exactattn/document.hpp"
#include "exactattn/error.hpp"
#include "exactattn/figures.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/report.hpp"
#include "exactattn/scenario.hpp"
#include "exactattn/table.hpp"
#include "exactattn/variants.hpp"

#include "bindings.hpp"
#include "convert.hpp"

namespace py = pybind11;
using namespace pybind11::literals;  // "key"_a = value: a dict's fields in one expression

namespace exactattn::python {

namespace {

// The scenario's rollout named `name`, or its only one when `name` is empty (as `rollout`).
std::string rollout_name(const Scenario& s, const std::string& name) {
    if (!name.empty()) {
        (void)s.rollout(name);  // ReferenceError naming the declared rollouts
        return name;
    }
    if (s.rollouts.size() != 1) {
        std::string names;
        for (const auto& r : s.rollouts) names += (names.empty() ? "" : ", ") + r.name;
        Location where;
        where.context = "name";
        throw usage_error(s.rollouts.empty()
                              ? fmt::format("{} declares no rollouts (docs/decoder.md)", s.file)
                              : fmt::format("{} declares {} rollouts: name one ({})", s.file, s.rollouts.size(), names),
                          where);
    }
    return s.rollouts.front().name;
}

// Runs f, placing an error the library places at a command-line option at the Python argument
// of the same name (`--count` → `count`), and `--figure` at `name`.
template <class F>
auto at_arguments(F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (const Error& e) {
        const std::string& option = e.where().context;
        if (option.rfind("--", 0) != 0) throw;
        Location where = e.where();
        where.context = option == "--figure" ? std::string("name") : option.substr(2);
        throw Error(e.kind(), where, e.reason());
    }
}

}  // namespace

void bind_runs(py::module_& m) {
    m.def(
        "_rollout",
        [](const Scenario& base, const std::string& name, const std::string& format, std::optional<int> digits) {
            const Call call;
            const Format f = parse_format(format);
            Scenario s = base;
            const std::string chosen = rollout_name(s, name);
            if (digits) {
                if (*digits < 1 || *digits > 100) {
                    Location where;
                    where.context = "digits";
                    throw usage_error(fmt::format("{} is out of range: decimals from 1 to 100", *digits), where);
                }
                for (auto& r : s.rollouts) r.digits = *digits;
            }
            py::gil_scoped_release release;
            const Report rep = run_scenario(s);
            return render_rollout(rep, rep.rollout(chosen), f);
        },
        py::arg("scenario"), py::arg("name"), py::arg("format"), py::arg("digits"));
    m.def(
        "_figure",
        [](const Scenario& s, const std::string& name, const std::string& format) {
            const Call call;
            if (format != "svg" && format != "tikz") {
                Location where;
                where.context = "format";
                throw usage_error(fmt::format("unknown format \"{}\": a figure is svg or tikz", format), where);
            }
            const FigureSpec& spec = at_arguments([&]() -> const FigureSpec& { return find_figure(s, name); });
            py::gil_scoped_release release;
            const FigureBlock fb = figure_block(run_scenario(s), spec);
            return format == "tikz" ? latex_requirements() + render_tikz(fb) : render_svg(fb);
        },
        py::arg("scenario"), py::arg("name"), py::arg("format"));
    m.def(
        "_variants",
        [](const Scenario& s, const std::string& exercise, std::int64_t count, std::uint64_t seed) {
            const Call call;
            VariantRequest req;
            req.exercise = exercise;
            req.count = count;
            req.seed = seed;
            VariantSet set;
            std::vector<OutputFile> files;
            std::vector<Warning> warnings;  // of sheet.html, issued once the GIL is back
            {
                py::gil_scoped_release release;
                set = at_arguments([&] { return draw_variants(s, req); });
                files = variant_files(set, [&warnings](const Warning& w) { warnings.push_back(w); });
            }
            issue_warnings(warnings);
            py::list variants;
            for (const auto& v : set.variants) {
                variants.append(py::dict("number"_a = v.number, "seed"_a = v.seed, "draws"_a = v.draws,
                                         "file_text"_a = v.file_text,
                                         "key"_a = render(variant_key_document(set, v), Format::Markdown)));
            }
            py::list out_files;
            for (const auto& f : files) out_files.append(py::make_tuple(f.name, f.text));
            return py::make_tuple(variants, out_files);
        },
        py::arg("scenario"), py::arg("exercise"), py::arg("count"), py::arg("seed"));
}

}  // namespace exactattn::python
