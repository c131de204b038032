// SPDX-License-Identifier: MIT
// exactattn: the figures that plot many weights (figures.hpp): heat maps of a layer's heads and
// of a rollout's reads, an intervention chart, and the cross-check plot of exact against double.
// Labels are exact values where they fit; lengths and shades are the only doubles.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "exactattn/crosscheck.hpp"
#include "exactattn/error.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "core/names.hpp"
#include "render/metrics.hpp"
#include "scenario/pointer.hpp"
#include "tools/figure_parts.hpp"

namespace exactattn::detail {

namespace {

// One panel of a heatmap: its heading, row and column labels, and per cell its exact weight
// (none: masked).
struct HeatPanel {
    std::string heading;
    std::string described;  ///< the description's lead: "Head 1 weights by query row:"
    std::vector<Inline> rows;
    std::vector<Inline> columns;
    std::vector<std::vector<std::optional<Value>>> cells;
};

// Heatmap panels one under another, each cell its exact weight as a label and a shade of it;
// masked cells hatched and grey. The row labels' column is as wide as the widest label (up to
// 40% of the width, longer names cut); a cell's label is its exact weight where that fits the
// cell, else a decimal (4 places, or fewer), else at a smaller size down to 5 points, else none
// (the footer then says the values are in the description).
void draw_heatmap(FigureBlock& fb, const std::vector<HeatPanel>& panels, const std::string& footer,
                  const std::string& described_end) {
    const std::size_t nq = panels.empty() ? 0 : panels.front().rows.size();
    const std::size_t nk = panels.empty() ? 0 : panels.front().columns.size();
    double widest = 0;
    for (const auto& panel : panels) {
        for (const auto& r : panel.rows) widest = std::max(widest, measure(r, 8.5));
    }
    const double left = std::clamp(widest + 12, 56.0, 0.4 * kWidth);
    const double cell_w = std::min(70.0, (kWidth - left - 6) / static_cast<double>(std::max<std::size_t>(nk, 1)));
    const double cell_h = 22;
    // A heading too long for one line wraps; every panel leaves room for the longest.
    std::size_t heading_lines = 1;
    for (const auto& panel : panels) {
        heading_lines = std::max(heading_lines, wrap_words(panel.heading, kWidth - 12, 9, true).size());
    }
    const double extra = 12 * static_cast<double>(heading_lines - 1);
    const double head_h = 40 + extra + cell_h * static_cast<double>(nq) + 8;
    Picture& p = fb.picture;
    p.width = kWidth;
    bool unlabelled = false;
    bool rounded = false;
    for (std::size_t hi = 0; hi < panels.size(); ++hi) {
        const HeatPanel& panel = panels[hi];
        const std::vector<Inline> heading = wrap_words(panel.heading, kWidth - 12, 9, true);
        for (std::size_t l = 0; l < heading.size(); ++l) {
            p.text(6, head_h * static_cast<double>(hi) + 12 + 12 * static_cast<double>(l), heading[l],
                   Picture::Anchor::Start, 9, true);
        }
        const double y0 = head_h * static_cast<double>(hi) + extra;
        for (std::size_t j = 0; j < nk; ++j) {
            if (measure(Inline("…"), 8.5) > cell_w - 2) break;  // no room for any column label
            // A name too long for its column gives way to the column's number (the description names it).
            const Inline number(std::to_string(j + 1));
            const Inline& name = measure(panel.columns[j], 8.5) <= cell_w - 2 ? panel.columns[j] : number;
            p.text(left + cell_w * (static_cast<double>(j) + 0.5), y0 + 32, fit_name(name, cell_w - 2, 8.5),
                   Picture::Anchor::Middle, 8.5);
        }
        Inline desc(panel.described);
        for (std::size_t i = 0; i < nq; ++i) {
            const double y = y0 + 38 + cell_h * static_cast<double>(i);
            p.text(left - 6, y + cell_h / 2 + 3, fit_name(panel.rows[i], left - 12, 8.5), Picture::Anchor::End, 8.5);
            desc.text(i == 0 ? " " : "; ").append(panel.rows[i]).text(" ");
            for (std::size_t j = 0; j < nk; ++j) {
                const double x = left + cell_w * static_cast<double>(j);
                const std::optional<Value>& w = panel.cells[i][j];
                if (!w) {
                    Picture::Box b{x, y, cell_w, cell_h, kMasked, true, true};
                    p.shapes.emplace_back(b);
                    continue;
                }
                const double f = fraction(*w);
                p.box(x, y, cell_w, cell_h, shade(f));
                double size = 8;
                Inline label = fit_value(Inline(), "", *w, cell_w - 4, size);
                while (measure(label, size) > cell_w - 4 && size > 5) {
                    size -= 0.5;
                    label = fit_value(Inline(), "", *w, cell_w - 4, size);
                }
                if (measure(label, size) > cell_w - 4) {
                    unlabelled = true;
                    continue;
                }
                rounded = rounded || render_inline(label, Format::Text).rfind("≈", 0) == 0;
                Picture::Text text{x + cell_w / 2, y + cell_h / 2 + 3, label, Picture::Anchor::Middle, size, false,
                                   f > 0.7};
                p.shapes.emplace_back(text);
            }
            desc.math(Formula().column(panel.cells[i]));
        }
        fb.description.push_back(desc.text(described_end));
    }
    std::string foot = footer;
    if (rounded) foot += " A cell marked ≈ shows its weight rounded; the exact value is in the description.";
    if (unlabelled) foot += " Cells too narrow for a label: the values are in the description.";
    const std::vector<Inline> lines = wrap_words(foot, kWidth - 12, 8);
    p.height = head_h * static_cast<double>(panels.size()) + 5 + 11 * static_cast<double>(lines.size());
    for (std::size_t i = 0; i < lines.size(); ++i) {
        p.text(6, head_h * static_cast<double>(panels.size()) + 11 + 11 * static_cast<double>(i), lines[i],
               Picture::Anchor::Start, 8);
    }
}

}  // namespace

// Attention heatmap of a layer: query positions × key positions per head.
void heatmap(FigureBlock& fb, const Report& rep, const FigureSpec& spec) {
    const LayerResult* lr = nullptr;
    for (const auto& l : rep.layers) lr = l.spec.name == spec.layer ? &l : lr;
    if (lr == nullptr) throw reference_error(fmt::format("unknown layer \"{}\"", spec.layer));
    const LayerTrace& t = lr->trace;
    const auto& qtok = rep.scenario.sequence(lr->spec.sequence).tokens;
    const auto& ktok = lr->spec.memory.empty() ? qtok : rep.scenario.sequence(lr->spec.memory).tokens;
    const std::size_t nq = t.masked.size();
    const std::size_t nk = nq == 0 ? 0 : t.masked.front().size();
    const auto name = [](const std::vector<std::string>& tokens, std::size_t i) {
        return i < tokens.size() ? Inline().token(tokens[i]) : Inline(std::to_string(i + 1));
    };
    std::vector<HeatPanel> panels;
    for (std::size_t h = 1; h <= t.heads.size(); ++h) {
        if (spec.head != 0 && spec.head != h) continue;
        HeatPanel panel{fmt::format("Head {}: query position (rows) × key position (columns)", h),
                        fmt::format("Head {} weights by query row:", h),
                        {},
                        {},
                        {}};
        for (std::size_t j = 0; j < nk; ++j) panel.columns.push_back(name(ktok, j));
        for (std::size_t i = 0; i < nq; ++i) {
            panel.rows.push_back(name(qtok, i));
            std::vector<std::optional<Value>>& row = panel.cells.emplace_back();
            for (std::size_t j = 0; j < nk; ++j) {
                if (t.masked[i][j])
                    row.emplace_back(std::nullopt);
                else
                    row.emplace_back(t.heads[h - 1].rows[i].weights.at(j).value_or(Value()));
            }
        }
        panels.push_back(std::move(panel));
    }
    draw_heatmap(fb, panels, "Cells: exact weights; a crossed grey cell is masked (weight 0, not compared).",
                 " (— masked).");
}

// Attention heatmap of a rollout: one regime's decoder steps (rows, "t = k: input → chosen") ×
// the source positions (columns), each cell the exact weight of that step's read.
void rollout_heatmap(FigureBlock& fb, const Report& rep, const FigureSpec& spec) {
    const RolloutResult& ro = rep.rollout(spec.rollout);
    if (spec.regime == Regime::TeacherForcing && !ro.teacher_forcing) {
        throw reference_error(fmt::format("rollout \"{}\" has no teacher forcing (no reference)", spec.rollout));
    }
    const RegimeTrace& rt = spec.regime == Regime::TeacherForcing ? *ro.teacher_forcing : ro.generation;
    const Source& src = rep.scenario.source(ro.spec.source);
    const std::size_t n = src.states.rows();
    const std::string regime = spec.regime == Regime::TeacherForcing ? "Teacher forcing" : "Generation";
    HeatPanel panel{regime + ": step (rows) × source position (columns)", regime + " weights by step:", {}, {}, {}};
    for (std::size_t j = 0; j < n; ++j) {
        panel.columns.push_back(src.tokens && j < src.tokens->size() ? Inline().token((*src.tokens)[j])
                                                                     : Inline(std::to_string(j + 1)));
    }
    for (const DecoderStep& st : rt.steps) {
        Inline row = Inline(fmt::format("t = {}: ", st.step)).token(st.input).text(" → ");
        if (st.chosen)
            row.token(st.chosen_token);
        else
            row.text("refused");
        panel.rows.push_back(std::move(row));
        std::vector<std::optional<Value>>& cells = panel.cells.emplace_back();
        for (std::size_t j = 0; j < n; ++j) cells.emplace_back(st.read.weights.at(j).value_or(Value()));
    }
    draw_heatmap(fb, {panel}, "Cells: exact weights of each decoder step's read over the source.", ".");
}

// Intervention chart: per row of the table, its label on a line of its own, then the weights
// over the original positions as a stacked bar with the readout (or context) beside it, then
// the weights as labels (decimals, wrapped, where the exact values do not fit); rows whose
// readout equals the row without intervention are marked. The legend wraps over lines.
void intervention(FigureBlock& fb, const Report& rep, const FigureSpec& spec) {
    const InterventionResult& ir = rep.intervention(spec.intervention);
    const Source& src = rep.scenario.source(ir.spec.source);
    const std::size_t n = src.states.rows();
    const bool has_readout = ir.spec.readout.has_value();
    Picture& p = fb.picture;
    p.width = kWidth;
    const double room = kWidth - 12;
    // The legend: one colour per original position, as many lines as it needs.
    double lx = 6;
    double ly = 14;
    for (std::size_t j = 1; j <= n; ++j) {
        const Inline full =
            src.labels.empty() && !src.tokens ? Inline(fmt::format("position {}", j)) : position_inline(src, j);
        const Inline name = fit_name(full, room - 12, 8);
        const double w = 12 + measure(name, 8) + 8;
        if (lx > 6 && lx + w - 8 > kWidth - 6) {
            lx = 6;
            ly += 12;
        }
        p.box(lx, ly - 8, 9, 9, kPositionColours[(j - 1) % kPositionColours.size()]);
        p.text(lx + 12, ly, name, Picture::Anchor::Start, 8);
        lx += w;
    }
    const char* verb = ir.spec.kind == InterventionKind::RemoveState ? "remove state"
                       : ir.spec.kind == InterventionKind::ZeroScore ? "zero score"
                                                                     : "delete token";
    const double bar_x = 6;
    const double bar_w = 150;
    const double unchanged_w = measure(Inline("unchanged"), 9, true);
    double y = ly + 8;
    for (std::size_t r = 0; r < ir.rows.size(); ++r) {
        const InterventionRow& row = ir.rows[r];
        // Weights by original position: a deleted token's position has none.
        std::vector<std::optional<Value>> w(n);
        for (std::size_t j = 0, k = 0; j < n; ++j) {
            if (ir.spec.kind == InterventionKind::DeleteToken && row.position == j + 1) continue;
            w[j] = row.trace.weights.at(k++).value_or(Value());
        }
        const Inline label = r == 0 ? Inline("no intervention")
                                    : Inline(std::string(verb) + " ").append(position_inline(src, row.position));
        const bool unchanged = r > 0 && (has_readout ? *row.trace.readout == *ir.rows[0].trace.readout
                                                     : row.trace.context == ir.rows[0].trace.context);
        p.text(6, y + 9, fit_name(label, room, 8.5, r == 0), Picture::Anchor::Start, 8.5, r == 0);
        p.box(bar_x, y + 13, bar_w, 11, "", true);
        double x = bar_x;
        for (std::size_t j = 0; j < n; ++j) {
            if (!w[j] || w[j]->is_zero()) continue;
            const double len = bar_w * fraction(*w[j]);
            p.box(x, y + 13, len, 11, kPositionColours[j % kPositionColours.size()], false);
            x += len;
        }
        const double out_x = bar_x + bar_w + 8;
        const double out_room = kWidth - 6 - out_x - (unchanged ? unchanged_w + 6 : 0);
        std::vector<Inline> out =
            has_readout
                ? std::vector<Inline>{fit_value(Inline("r"), " = ", *row.trace.readout, out_room, 9)}
                : fit_values(Inline("c"), " = ",
                             std::vector<std::optional<Value>>(row.trace.context.begin(), row.trace.context.end()),
                             out_room, 9);
        // The weights under the bar (and under the readout's lines, where it has several).
        double yw = std::max(y + 35, y + 22 + 11 * static_cast<double>(out.size()));
        for (const auto& line : fit_values(Inline("weights"), " ", w, room, 8)) {
            p.text(6, yw, line, Picture::Anchor::Start, 8);
            yw += 11;
        }
        for (std::size_t l = 0; l < out.size(); ++l) {
            p.text(out_x, y + 22 + 11 * static_cast<double>(l), out[l], Picture::Anchor::Start, 9);
        }
        if (unchanged) p.text(kWidth - 6, y + 22, Inline("unchanged"), Picture::Anchor::End, 9, true);
        y = yw - 2;
        Inline desc =
            Inline(label).text(": weights ").math(Formula().column(w)).text(has_readout ? ", readout " : ", context ");
        if (has_readout)
            desc.value(*row.trace.readout);
        else
            desc.vector(row.trace.context);
        if (unchanged) desc.text(" (unchanged)");
        fb.description.push_back(desc.text("."));
    }
    p.height = y + 4;
}

// Crosscheck plot: per quantity of one read, the double path's signed ULP error (a mark) against
// its a-priori bound (a grey band ±bound). These are measurements of the double path, printed
// as decimals to three digits; the axis spans the largest error or bound up to 100 ULP, and a
// bound past the axis (a quantity near 0 has a tiny ULP) runs to its edge.
void crosscheck_plot(FigureBlock& fb, const Report& rep, const FigureSpec& spec) {
    const std::string prefix = "/reads/" + spec.reads.front() + "/";
    // The cross-check of this read alone (its source and its trace), not of the whole report.
    const ReadResult& rr = rep.read(spec.reads.front());
    Report one;
    one.scenario.file = rep.scenario.file;
    one.scenario.vocabulary = rep.scenario.vocabulary;
    one.scenario.encoder = rep.scenario.encoder;
    one.scenario.rule = rep.scenario.rule;
    one.scenario.crosscheck = rep.scenario.crosscheck;
    one.scenario.sources = {rep.scenario.source(rr.spec.source)};
    one.scenario.reads = {rr.spec};
    one.reads = {rr};
    std::vector<const CrossRow*> rows;
    const CrosscheckResult result = crosscheck(one);
    for (const auto& r : result.rows) {
        if (r.quantity.rfind(prefix, 0) == 0) rows.push_back(&r);
    }
    double half = 1;
    for (const auto* r : rows) {
        half = std::max(half, std::min(100.0, std::abs(r->ulp_error)));
        if (std::isfinite(r->bound_ulps) && r->bound_ulps <= 100) half = std::max(half, r->bound_ulps);
    }
    Picture& p = fb.picture;
    p.width = kWidth;
    const double row_h = 13;
    const double size = 7.5;
    // Three columns from measured text: the quantities (exact, or a decimal past 40% of the
    // width), the axis with its bands, the errors / bounds.
    std::vector<Inline> labels;
    std::vector<std::string> errors;
    double label_w = 0;
    double error_w = 0;
    for (const auto* r : rows) {
        labels.push_back(
            fit_value(Inline(r->quantity.substr(prefix.size())), " = ", parse_value(r->exact), 0.4 * kWidth, size));
        label_w = std::max(label_w, measure(labels.back(), size));
        const std::string bound = std::isfinite(r->bound_ulps) ? fmt::format("{:.3g}", r->bound_ulps) : "none";
        // A signed decimal with the minus sign of the rest of the figure's text.
        std::string err = fmt::format("{:+.3g}", r->ulp_error);
        if (err[0] == '-') err = "−" + err.substr(1);
        errors.push_back(err + " / " + bound);
        error_w = std::max(error_w, detail::text_width(errors.back(), size));
    }
    const std::vector<Inline> heading =
        wrap_words("Double path: signed ULP error (mark) within its bound (grey band)", kWidth - 12, 9, true);
    const double top = 34 + 12 * static_cast<double>(heading.size() - 1);
    p.height = top + row_h * static_cast<double>(rows.size()) + 22;
    const Inline right_tick(fmt::format("+{:.3g} ULP", half));
    const double tick_w = measure(right_tick, size);
    const double axis_left = 6 + label_w + 8 + tick_w / 2;
    const double axis_right = kWidth - 6 - error_w - 8 - tick_w / 2;
    const double cx = (axis_left + axis_right) / 2;
    const double span = std::max(10.0, (axis_right - axis_left) / 2);
    const auto x_of = [&](double u) { return cx + span * std::clamp(u / half, -1.0, 1.0); };
    for (std::size_t i = 0; i < heading.size(); ++i) {
        p.text(6, 11 + 12 * static_cast<double>(i), heading[i], Picture::Anchor::Start, 9, true);
    }
    p.text(x_of(-half), top - 9, Inline(fmt::format("−{:.3g}", half)), Picture::Anchor::Middle, size);
    p.text(cx, top - 9, Inline("0"), Picture::Anchor::Middle, size);
    p.text(x_of(half), top - 9, right_tick, Picture::Anchor::Middle, size);
    p.arrow(cx, top - 6, cx, top + row_h * static_cast<double>(rows.size()), false, true);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const CrossRow& r = *rows[i];
        const double y = top + row_h * static_cast<double>(i);
        p.text(6, y + 9, labels[i], Picture::Anchor::Start, size);
        const double b = std::isfinite(r.bound_ulps) ? r.bound_ulps : half;
        p.box(x_of(-b), y + 2, x_of(b) - x_of(-b), row_h - 4, "#BBBBBB", false);
        p.box(x_of(r.ulp_error) - 1.5, y + 1, 3, row_h - 2, "#D55E00", false);
        p.text(kWidth - 6, y + 9, Inline(errors[i]), Picture::Anchor::End, size);
        fb.description.push_back(
            Inline(fmt::format("{}: {} ULP, bound {} ULP{}.", r.quantity, errors[i].substr(0, errors[i].find(" / ")),
                               errors[i].substr(errors[i].find(" / ") + 3), r.passed ? "" : " (over its bound)")));
    }
    p.text(6, p.height - 6, Inline("Right: signed error / bound, in units in the last place of the exact value."),
           Picture::Anchor::Start, size);
}

}  // namespace exactattn::detail
