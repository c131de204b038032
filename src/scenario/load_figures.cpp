// SPDX-License-Identifier: MIT
// exactattn internal: the scenario loader's figures section (docs/figures.md).
#include "scenario/load.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "core/names.hpp"
#include "scenario/json.hpp"
#include "scenario/enum_names.hpp"

namespace exactattn::detail {

void Loader::figure_size(std::size_t n, const char* what, const std::string& ptr) {
    const auto cap = static_cast<std::size_t>(limits().max_figure_positions);
    if (n > cap) {
        throw over_limit(Limit::max_figure_positions, fmt::format("the figure would draw {} {}", n, what), r_.at(ptr),
                         "past it the labels are not legible at 12 cm (docs/limits.md)");
    }
}

void Loader::rollout_heatmap(const Scenario& s, const Json& v, const std::string& ptr, FigureSpec& f) {
    for (const char* k : {"layer", "head"}) {
        if (v.contains(k)) {
            throw shape_error(fmt::format("\"{}\" does not belong to a heatmap of a rollout (a heatmap draws a "
                                          "layer or a rollout, not both)",
                                          k),
                              r_.at(ptr + "/" + k));
        }
    }
    if (!v.contains("rollout")) throw shape_error("missing \"rollout\" (\"regime\" needs one)", r_.at(ptr));
    const RolloutSpec& ro = declared(s.rollouts, v["rollout"], ptr + "/rollout", "rollout");
    f.rollout = ro.name;
    if (v.contains("regime")) {
        f.regime = r_.choice(v["regime"], ptr + "/regime", "regime", regime_names());
        if (f.regime == Regime::TeacherForcing && ro.reference.empty()) {
            throw shape_error(
                fmt::format("rollout \"{}\" declares no reference, so it has no teacher forcing", ro.name),
                r_.at(ptr + "/regime"));
        }
    }
    figure_size(ro.steps > 0 ? ro.steps : ro.reference.size(), "decoder steps", ptr + "/rollout");
    figure_size(s.source(ro.source).states.rows(), "source positions", ptr + "/rollout");
}

void Loader::figure_kind_keys(const Json& v, const std::string& ptr, FigureKind kind) {
    // Each kind takes its own keys; another kind's key is a mistake worth naming.
    const std::map<FigureKind, std::set<std::string>> keys = {
        {FigureKind::ReadComparison, {"reads"}},
        {FigureKind::Dependency, {"read", "cost"}},
        {FigureKind::Heatmap, {"layer", "head", "rollout", "regime"}},
        {FigureKind::Intervention, {"intervention"}},
        {FigureKind::Crosscheck, {"read"}}};
    for (const char* k : {"reads", "read", "intervention", "layer", "head", "rollout", "regime", "cost"}) {
        if (v.contains(k) && keys.at(kind).count(k) == 0) {
            throw shape_error(fmt::format("\"{}\" does not belong to a {} figure", k, figure_kind_name(kind)),
                              r_.at(ptr + "/" + k));
        }
    }
    for (const auto& k : keys.at(kind)) {
        if (kind != FigureKind::Heatmap && !v.contains(k)) {
            throw shape_error(fmt::format("missing \"{}\"", k), r_.at(ptr));
        }
    }
}

void Loader::comparison_figure(const Scenario& s, const Json& v, const std::string& ptr, FigureSpec& f) {
    const auto& a = r_.array(v["reads"], ptr + "/reads");
    if (a.size() < 2) {
        throw shape_error("a read comparison draws two or more reads over the same states", r_.at(ptr + "/reads"));
    }
    figure_size(a.size(), "reads side by side", ptr + "/reads");
    const ReadSpec* first = nullptr;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const std::string pi = pointer_join(ptr + "/reads", i);
        const ReadSpec& rs = declared(s.reads, a[i], pi, "read");
        if (first == nullptr) {
            first = &rs;
            figure_size(s.source(rs.source).states.rows(), "source positions", pi);
        } else if (rs.source != first->source) {
            throw shape_error(fmt::format("read \"{}\" reads source \"{}\" and read \"{}\" source \"{}\": a "
                                          "read comparison keeps every source state fixed",
                                          rs.name, rs.source, first->name, first->source),
                              r_.at(pi));
        }
        f.reads.push_back(rs.name);
    }
}

void Loader::dependency_figure(const Scenario& s, const Json& v, const std::string& ptr, FigureSpec& f) {
    const ReadSpec& rs = declared(s.reads, v["read"], ptr + "/read", "read");
    figure_size(s.source(rs.source).states.rows(), "source positions", ptr + "/read");
    f.reads.push_back(rs.name);
    const CostSpec& c = declared(s.costs, v["cost"], ptr + "/cost", "cost case");
    if (!c.source.empty() && c.source != rs.source) {
        throw shape_error(fmt::format("cost case \"{}\" counts source \"{}\", read \"{}\" reads \"{}\": "
                                      "the diagram draws one source",
                                      c.name, c.source, rs.name, rs.source),
                          r_.at(ptr + "/cost"));
    }
    figure_size(static_cast<std::size_t>(c.input.target_steps), "decoder steps", ptr + "/cost");
    f.cost = c.name;
    f.target_steps = static_cast<std::size_t>(c.input.target_steps);
}

void Loader::heatmap_figure(const Scenario& s, const Json& v, const std::string& ptr, FigureSpec& f) {
    if (v.contains("rollout") || v.contains("regime")) {
        rollout_heatmap(s, v, ptr, f);
        return;
    }
    if (!v.contains("layer")) throw shape_error("missing \"layer\" or \"rollout\"", r_.at(ptr));
    const LayerSpec& l = declared(s.layers, v["layer"], ptr + "/layer", "layer");
    f.layer = l.name;
    const std::size_t heads = l.layer.heads.size();
    if (v.contains("head")) {
        f.head = static_cast<std::size_t>(r_.integer(v["head"], ptr + "/head", 1, static_cast<std::int64_t>(heads)));
    }
    const std::size_t nq = s.sequence(l.sequence).rows.size();
    const std::size_t nk = l.memory.empty() ? nq : s.sequence(l.memory).rows.size();
    figure_size(std::max(nq, nk), "query or key positions", ptr + "/layer");
    // Each head is a panel of its own, so the heads count as positions drawn too
    // (230 heads drew a 101 MB SVG); "head" draws one.
    figure_size(v.contains("head") ? 1 : heads, "heads, a panel each (\"head\" draws one)", ptr + "/layer");
}

void Loader::figure_labels(const Json& v, const std::string& ptr, FigureSpec& f, std::set<std::string>& numbers) {
    if (v.contains("number")) {
        f.number = table_number(r_, v["number"], ptr + "/number");
        if (!numbers.insert(f.number).second) {
            throw shape_error(fmt::format("figure number \"{}\" is used twice", f.number), r_.at(ptr + "/number"));
        }
    }
    if (v.contains("caption")) f.caption = r_.string(v["caption"], ptr + "/caption");
    if (v.contains("pdf")) {
        f.pdf = r_.string(v["pdf"], ptr + "/pdf");
        const bool ok =
            f.pdf.size() > 4 && f.pdf.size() <= 200 && f.pdf.compare(f.pdf.size() - 4, 4, ".pdf") == 0 &&
            std::all_of(f.pdf.begin(), f.pdf.end(), [](char c) {
                return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '-' || c == '_' || c == '/';
            });
        if (!ok) {
            throw shape_error(fmt::format("\"pdf\" is the path of a PDF file for \\includegraphics: letters, "
                                          "digits, '.', '-', '_' and '/', ending in .pdf; got \"{}\"",
                                          escape_controls(f.pdf)),
                              r_.at(ptr + "/pdf"));
        }
    }
}

void Loader::figures(Scenario& s) {
    std::set<std::string> numbers;
    const auto allowed = {"kind",   "reads", "read",   "intervention", "layer", "head", "rollout",
                          "regime", "cost",  "number", "caption",      "pdf",   "note"};
    r_.each_object(root_, "figures", allowed, [&](const std::string& name, const Json& v, const std::string& ptr) {
        FigureSpec f;
        f.name = name;
        if (!v.contains("kind")) throw shape_error("missing \"kind\"", r_.at(ptr));
        f.kind = r_.choice(v["kind"], ptr + "/kind", "figure kind", figure_kind_names());
        figure_kind_keys(v, ptr, f.kind);
        switch (f.kind) {
            case FigureKind::ReadComparison:
                comparison_figure(s, v, ptr, f);
                break;
            case FigureKind::Dependency:
                dependency_figure(s, v, ptr, f);
                break;
            case FigureKind::Heatmap:
                heatmap_figure(s, v, ptr, f);
                break;
            case FigureKind::Crosscheck: {
                // One row per quantity of the read: n scores, n weights, d context
                // coordinates and the readout.
                const ReadSpec& rs = declared(s.reads, v["read"], ptr + "/read", "read");
                const Memory& m = s.source(rs.source).states;
                figure_size((2 * m.rows() + m.width() + 2) / 2, "quantities (pairs of rows)", ptr + "/read");
                f.reads.push_back(rs.name);
                break;
            }
            case FigureKind::Intervention: {
                const InterventionSpec& is =
                    declared(s.interventions, v["intervention"], ptr + "/intervention", "intervention");
                f.intervention = is.name;
                figure_size(is.positions.size() + 1, "rows", ptr + "/intervention");
                figure_size(s.source(is.source).states.rows(), "source positions", ptr + "/intervention");
                break;
            }
        }
        figure_labels(v, ptr, f, numbers);
        s.figures.push_back(std::move(f));
    });
}

}  // namespace exactattn::detail
