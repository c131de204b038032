// SPDX-License-Identifier: MIT
// exactattn: figures drawn from a run's traces. The drawing is in points at a column width of
// 12 cm (340 pt): labels are exact values in their display form; lengths and shades are the
// only places a value becomes a double, as a coordinate, never as a printed number.
#include "exactattn/figures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "exactattn/crosscheck.hpp"
#include "exactattn/error.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "core/names.hpp"

namespace exactattn {

namespace {

// The Okabe–Ito palette: told apart with every common colour-vision deficiency, and of
// distinct lightness in greyscale print. Weight bars are the dark blue; positions of an
// intervention chart take the colours in turn.
constexpr const char* kBlue = "#0072B2";
const std::vector<std::string> kPositionColours = {"#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7"};
constexpr const char* kMasked = "#DDDDDD";
constexpr double kWidth = 340;

// A weight as a length: its double (bars and shades only; every label is the exact value).
double fraction(const Value& w) { return std::clamp(to_double(w), 0.0, 1.0); }

// White blended into the palette's blue by the weight: lighter for small weights, darker for
// large ones, so the order of the shades is the order of the weights in greyscale too.
std::string shade(double w) {
    const int r = static_cast<int>(std::lround(255 + (0x00 - 255) * w));
    const int g = static_cast<int>(std::lround(255 + (0x72 - 255) * w));
    const int b = static_cast<int>(std::lround(255 + (0xB2 - 255) * w));
    return fmt::format("#{:02X}{:02X}{:02X}", r, g, b);
}

Inline position_inline(const Source& src, std::size_t j) {
    Inline in(std::to_string(j));
    if (j <= src.labels.size()) in.text(": " + src.labels[j - 1]);
    if (src.tokens && j <= src.tokens->size()) in.text(src.labels.empty() ? ": " : " ").token((*src.tokens)[j - 1]);
    return in;
}

// x_j with a subscript in every form: h₁ (Unicode, so SVG text needs no markup), h_{1}.
Formula indexed(const std::string& base, std::size_t j) {
    return Formula().custom([base, j](MathForm f) {
        const std::string digits = std::to_string(j);
        switch (f) {
            case MathForm::Latex:
                return base + "_{" + digits + "}";
            case MathForm::MathML:
                return "<msub><mi>" + base + "</mi><mn>" + digits + "</mn></msub>";
            case MathForm::Ascii:
                return base + "_" + digits;
            case MathForm::Unicode:
                break;
        }
        static const char* const sub[] = {"₀", "₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈", "₉"};
        std::string out = base;
        for (const char d : digits) out += sub[d - '0'];
        return out;
    });
}

// A band's title on white, so that the lines it crosses stop short of its letters.
void title(Picture& p, double y, const Inline& text) {
    const double w = 5.6 * static_cast<double>(display_width(render_inline(text, Format::Text))) + 4;
    p.box(4, y - 9.5, w, 13, "#FFFFFF", false);
    p.text(6, y, text, Picture::Anchor::Start, 9, true);
}

Inline query_inline(const NamedVector& q) { return Inline(q.name.empty() ? "q" : q.name).text(" = ").vector(q.values); }

FigureBlock frame(const FigureSpec& spec, const Inline& fallback_caption) {
    FigureBlock fb;
    fb.number = spec.number;
    fb.label = spec.number.empty() ? "figure-" + spec.name : "figure-" + spec.number;
    fb.caption = spec.caption.empty() ? fallback_caption : inline_markdown(spec.caption);
    fb.pdf = spec.pdf;
    return fb;
}

// Figure 14.1: per read, each source position with its state and its weight as a label and a
// bar, the sum, and the chain scores → exponentials → total.
void read_comparison(FigureBlock& fb, const Report& rep, const FigureSpec& spec) {
    const std::size_t k = spec.reads.size();
    const std::size_t cols = std::min<std::size_t>(k, 2);
    const double gap = 12;
    const double pw = (kWidth - 2 * 6 - static_cast<double>(cols - 1) * gap) / static_cast<double>(cols);
    const Source& src = rep.scenario.source(rep.read(spec.reads.front()).spec.source);
    const std::size_t n = src.states.rows();
    const double row_h = 26;
    const double panel_h = 24 + static_cast<double>(n) * row_h + 14 + 3 * 12 + 10;
    Picture& p = fb.picture;
    p.width = kWidth;
    p.height = panel_h * static_cast<double>((k + cols - 1) / cols);
    for (std::size_t i = 0; i < k; ++i) {
        const ReadResult& rr = rep.read(spec.reads[i]);
        const ReadTrace& t = rr.trace;
        const double x0 = 6 + static_cast<double>(i % cols) * (pw + gap);
        const double y0 = panel_h * static_cast<double>(i / cols);
        p.text(x0, y0 + 14, query_inline(rr.spec.query), Picture::Anchor::Start, 10, true);
        const double bar_max = pw - 52;
        Inline desc = query_inline(rr.spec.query).text(": weights");
        for (std::size_t j = 0; j < n; ++j) {
            const double y = y0 + 24 + static_cast<double>(j) * row_h;
            const Value w = t.weights.at(j).value_or(Value());
            const bool removed = !t.scores.at(j).has_value();
            p.text(x0, y + 8, position_inline(src, j + 1).text(" ").vector(src.states.row(j)), Picture::Anchor::Start,
                   8.5);
            p.box(x0, y + 11, bar_max, 9, "", true);
            if (!w.is_zero()) p.box(x0, y + 11, bar_max * fraction(w), 9, kBlue, false);
            Inline label = Inline("× ").value(w);
            if (removed) label.text(" (removed)");
            p.text(x0 + bar_max + 4, y + 18.5, label, Picture::Anchor::Start, 8.5);
            desc.text(j == 0 ? " " : ", ")
                .value(w)
                .text(" on ")
                .append(position_inline(src, j + 1))
                .text(" ")
                .vector(src.states.row(j));
        }
        const double ys = y0 + 24 + static_cast<double>(n) * row_h + 8;
        p.text(x0, ys, Inline("Sum → ").vector(t.context), Picture::Anchor::Start, 9, true);
        const Formula scores = Formula().column(t.scores.all());
        const Formula exps = Formula().column(t.exponentials.all());
        p.text(x0, ys + 14, Inline("Scores ").math(scores), Picture::Anchor::Start, 8.5);
        p.text(x0, ys + 26, Inline("→ exponentials ").math(exps), Picture::Anchor::Start, 8.5);
        p.text(x0, ys + 38, Inline("→ divide by ").value(t.denominator), Picture::Anchor::Start, 8.5);
        desc.text("; sum ")
            .vector(t.context)
            .text("; scores ")
            .math(scores)
            .text(" → exponentials ")
            .math(exps)
            .text(" → total ")
            .value(t.denominator)
            .text(".");
        fb.description.push_back(std::move(desc));
    }
}

// Figure 14.2: the encoder's updates in sequence, one read's comparisons in parallel, the
// decoder's steps in sequence.
void dependency(FigureBlock& fb, const Report& rep, const FigureSpec& spec) {
    const ReadResult& rr = rep.read(spec.reads.front());
    const Source& src = rep.scenario.source(rr.spec.source);
    const std::size_t n = src.states.rows();
    const std::size_t steps = spec.target_steps;
    Picture& p = fb.picture;
    p.width = kWidth;
    p.height = 252;
    // Band 1: h_0 → h_1 → … → h_n, each update taking the next input token.
    const double slot = (kWidth - 12) / static_cast<double>(n + 1);
    const double bw = std::min(74.0, slot - 12);
    const auto cx = [&](std::size_t j) { return 6 + slot * (static_cast<double>(j) + 0.5); };
    const bool wide = bw >= 60;  // room for the state's value in the box
    title(p, 11, Inline(fmt::format("Encoder: {} successive updates (sequential)", n)));
    for (std::size_t j = 0; j <= n; ++j) {
        p.box(cx(j) - bw / 2, 36, bw, 20);
        Inline label = Inline().math(indexed("h", j));
        if (wide)
            label.text(" = ").vector(j == 0 ? (rep.scenario.encoder ? rep.scenario.encoder->initial : Vector())
                                            : src.states.row(j - 1));
        if (j == 0 && !rep.scenario.encoder) label = Inline().math(indexed("h", 0));
        p.text(cx(j), 49.5, label, Picture::Anchor::Middle, 8);
        if (j > 0) {
            p.arrow(cx(j - 1) + bw / 2, 46, cx(j) - bw / 2, 46);
            Inline input = src.tokens ? Inline().token((*src.tokens)[j - 1]) : Inline(fmt::format("row {}", j));
            p.text(cx(j), 22, input, Picture::Anchor::Middle, 8.5);
            p.arrow(cx(j), 25, cx(j), 36);
        }
    }
    // Band 2: the query, then every comparison e_j = q·h_j, all at once once q is known.
    p.box(cx(0) - bw / 2, 98, bw, 20, "#F0E442");
    p.text(cx(0), 111.5, wide ? query_inline(rr.spec.query) : Inline("q"), Picture::Anchor::Middle, 8);
    p.arrow(cx(0), 98, cx(0), 88, false);
    p.arrow(cx(0), 88, cx(n), 88, false);
    Inline scores_desc;
    for (std::size_t j = 1; j <= n; ++j) {
        p.arrow(cx(j) - 6, 88, cx(j) - 6, 98);
        p.arrow(cx(j) + 6, 56, cx(j) + 6, 98, true, true);
        p.box(cx(j) - bw / 2, 98, bw, 20, "#56B4E9");
        Inline e = Inline().math(indexed("e", j));
        const auto score = rr.trace.scores.at(j - 1);
        if (wide) {
            e.text(" = ");
            if (score)
                e.value(*score);
            else
                e.text("removed");
        }
        p.text(cx(j), 111.5, e, Picture::Anchor::Middle, 8);
    }
    // The title after the lines it interrupts.
    title(p, 76, Inline("One read: the comparisons, in parallel once the query is known"));
    p.text(6, 136,
           Inline("weights ")
               .math(Formula().column(rr.trace.weights.all()))
               .text(" → context ")
               .math(indexed("c", 1).op(Formula::Op::Equals).vector(rr.trace.context)),
           Picture::Anchor::Start, 8.5);
    // Band 3: s_0 → s_1 → … → s_T; each step takes the old state, the previous target token
    // and that step's context; the next query uses the new state.
    title(p, 160, Inline(fmt::format("Decoder: {} steps (sequential)", steps)));
    const double dslot = (kWidth - 12) / static_cast<double>(steps + 1);
    const double dw = std::min(50.0, dslot - 14);
    const auto dx = [&](std::size_t t) { return 6 + dslot * (static_cast<double>(t) + 0.5); };
    for (std::size_t t = 0; t <= steps; ++t) {
        p.box(dx(t) - dw / 2, 172, dw, 20);
        p.text(dx(t), 185.5, Inline().math(indexed("s", t)), Picture::Anchor::Middle, 8.5);
        if (t == 0) continue;
        p.arrow(dx(t - 1) + dw / 2, 182, dx(t) - dw / 2, 182);
        p.arrow(dx(t), 210, dx(t), 192);
        p.text(dx(t), 220, Inline().math(indexed("y", t - 1)).text(", ").math(indexed("c", t)), Picture::Anchor::Middle,
               8);
    }
    p.text(6, 234, Inline("Each step: old state + previous target token + its context → new state;"),
           Picture::Anchor::Start, 8);
    p.text(6, 245, Inline("the next query uses the new state."), Picture::Anchor::Start, 8);
    Inline enc = Inline(fmt::format("Encoder: {} sequential updates, states", n));
    for (std::size_t j = 0; j < n; ++j) enc.text(j == 0 ? " " : ", ").vector(src.states.row(j));
    fb.description.push_back(enc.text("."));
    fb.description.push_back(Inline("Comparisons with ")
                                 .append(query_inline(rr.spec.query))
                                 .text(", computed in parallel once the query is known: scores ")
                                 .math(Formula().column(rr.trace.scores.all()))
                                 .text(", weights ")
                                 .math(Formula().column(rr.trace.weights.all()))
                                 .text(", context ")
                                 .vector(rr.trace.context)
                                 .text("."));
    fb.description.push_back(Inline(fmt::format(
        "Decoder: {} sequential steps; each needs the previous state, the previous target token and its context.",
        steps)));
}

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
// masked cells hatched and grey. `left` is the width of the row labels.
void draw_heatmap(FigureBlock& fb, const std::vector<HeatPanel>& panels, double left, const std::string& footer,
                  const std::string& described_end) {
    const std::size_t nq = panels.empty() ? 0 : panels.front().rows.size();
    const std::size_t nk = panels.empty() ? 0 : panels.front().columns.size();
    const double cell_w = std::min(70.0, (kWidth - left - 6) / static_cast<double>(std::max<std::size_t>(nk, 1)));
    const double cell_h = 22;
    const double head_h = 40 + cell_h * static_cast<double>(nq) + 8;
    Picture& p = fb.picture;
    p.width = kWidth;
    p.height = head_h * static_cast<double>(panels.size()) + 16;
    for (std::size_t hi = 0; hi < panels.size(); ++hi) {
        const HeatPanel& panel = panels[hi];
        const double y0 = head_h * static_cast<double>(hi);
        p.text(6, y0 + 12, Inline(panel.heading), Picture::Anchor::Start, 9, true);
        for (std::size_t j = 0; j < nk; ++j) {
            p.text(left + cell_w * (static_cast<double>(j) + 0.5), y0 + 32, panel.columns[j], Picture::Anchor::Middle,
                   8.5);
        }
        Inline desc(panel.described);
        for (std::size_t i = 0; i < nq; ++i) {
            const double y = y0 + 38 + cell_h * static_cast<double>(i);
            p.text(left - 6, y + cell_h / 2 + 3, panel.rows[i], Picture::Anchor::End, 8.5);
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
                Picture::Text label{
                    x + cell_w / 2, y + cell_h / 2 + 3, Inline().value(*w), Picture::Anchor::Middle, 8, false, f > 0.7};
                p.shapes.emplace_back(label);
            }
            desc.math(Formula().column(panel.cells[i]));
        }
        fb.description.push_back(desc.text(described_end));
    }
    p.text(6, p.height - 5, Inline(footer), Picture::Anchor::Start, 8);
}

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
    draw_heatmap(fb, panels, 56, "Cells: exact weights; a crossed grey cell is masked (weight 0, not compared).",
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
    HeatPanel panel{
        regime + ": decoder step (rows) × source position (columns)", regime + " weights by step:", {}, {}, {}};
    for (std::size_t j = 0; j < n; ++j) {
        panel.columns.push_back(src.tokens && j < src.tokens->size() ? Inline().token((*src.tokens)[j])
                                                                     : Inline(std::to_string(j + 1)));
    }
    std::size_t widest = 0;
    for (const DecoderStep& st : rt.steps) {
        Inline row = Inline(fmt::format("t = {}: ", st.step)).token(st.input).text(" → ");
        if (st.chosen)
            row.token(st.chosen_token);
        else
            row.text("refused");
        widest = std::max(widest, display_width(render_inline(row, Format::Text)));
        panel.rows.push_back(std::move(row));
        std::vector<std::optional<Value>>& cells = panel.cells.emplace_back();
        for (std::size_t j = 0; j < n; ++j) cells.emplace_back(st.read.weights.at(j).value_or(Value()));
    }
    // Row labels at 8.5 points: about 5 points a character.
    const double left = std::clamp(12 + 5.0 * static_cast<double>(widest), 56.0, 170.0);
    draw_heatmap(fb, {panel}, left, "Cells: exact weights of each decoder step's read over the source.", ".");
}

// Intervention chart: per row of the table, the weights over the original positions as a
// stacked bar with their labels, and the readout; rows whose readout equals the row without
// intervention are marked.
void intervention(FigureBlock& fb, const Report& rep, const FigureSpec& spec) {
    const InterventionResult& ir = rep.intervention(spec.intervention);
    const Source& src = rep.scenario.source(ir.spec.source);
    const std::size_t n = src.states.rows();
    const bool has_readout = ir.spec.readout.has_value();
    Picture& p = fb.picture;
    p.width = kWidth;
    const double row_h = 36;
    const double top = 30;
    p.height = top + row_h * static_cast<double>(ir.rows.size()) + 4;
    // The legend: one colour per original position.
    double lx = 6;
    for (std::size_t j = 1; j <= n; ++j) {
        p.box(lx, 6, 9, 9, kPositionColours[(j - 1) % kPositionColours.size()]);
        const Inline name =
            src.labels.empty() && !src.tokens ? Inline(fmt::format("position {}", j)) : position_inline(src, j);
        p.text(lx + 12, 14, name, Picture::Anchor::Start, 8);
        lx += 20 + 5.2 * static_cast<double>(display_width(render_inline(name, Format::Text)));
    }
    const char* verb = ir.spec.kind == InterventionKind::RemoveState ? "remove state"
                       : ir.spec.kind == InterventionKind::ZeroScore ? "zero score"
                                                                     : "delete token";
    const double bar_x = 96;
    const double bar_w = 150;
    for (std::size_t r = 0; r < ir.rows.size(); ++r) {
        const InterventionRow& row = ir.rows[r];
        const double y = top + row_h * static_cast<double>(r);
        // Weights by original position: a deleted token's position has none.
        std::vector<std::optional<Value>> w(n);
        for (std::size_t j = 0, k = 0; j < n; ++j) {
            if (ir.spec.kind == InterventionKind::DeleteToken && row.position == j + 1) continue;
            w[j] = row.trace.weights.at(k++).value_or(Value());
        }
        Inline label = r == 0 ? Inline("no intervention")
                              : Inline(std::string(verb) + " ").append(position_inline(src, row.position));
        p.text(6, y + 9, label, Picture::Anchor::Start, 8.5, r == 0);
        double x = bar_x;
        p.box(bar_x, y + 12, bar_w, 11, "", true);
        for (std::size_t j = 0; j < n; ++j) {
            if (!w[j] || w[j]->is_zero()) continue;
            const double len = bar_w * fraction(*w[j]);
            p.box(x, y + 12, len, 11, kPositionColours[j % kPositionColours.size()], false);
            x += len;
        }
        p.text(bar_x, y + 9, Inline("weights ").math(Formula().column(w)), Picture::Anchor::Start, 8);
        Inline out = has_readout ? Inline("r = ").value(*row.trace.readout) : Inline("c = ").vector(row.trace.context);
        p.text(bar_x + bar_w + 8, y + 21, out, Picture::Anchor::Start, 9);
        const bool unchanged = r > 0 && (has_readout ? *row.trace.readout == *ir.rows[0].trace.readout
                                                     : row.trace.context == ir.rows[0].trace.context);
        if (unchanged) p.text(kWidth - 6, y + 21, Inline("unchanged"), Picture::Anchor::End, 9, true);
        Inline desc =
            Inline(label).text(": weights ").math(Formula().column(w)).text(has_readout ? ", readout " : ", context ");
        if (has_readout)
            desc.value(*row.trace.readout);
        else
            desc.vector(row.trace.context);
        if (unchanged) desc.text(" (unchanged)");
        fb.description.push_back(desc.text("."));
    }
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
    const double top = 34;
    p.height = top + row_h * static_cast<double>(rows.size()) + 22;
    const double cx = 200;
    const double span = 70;
    const auto x_of = [&](double u) { return cx + span * std::clamp(u / half, -1.0, 1.0); };
    p.text(6, 11, Inline("Double path: signed ULP error (mark) within its bound (grey band)"), Picture::Anchor::Start,
           9, true);
    p.text(x_of(-half), 25, Inline(fmt::format("−{:.3g}", half)), Picture::Anchor::Middle, 7.5);
    p.text(cx, 25, Inline("0"), Picture::Anchor::Middle, 7.5);
    p.text(x_of(half), 25, Inline(fmt::format("+{:.3g} ULP", half)), Picture::Anchor::Middle, 7.5);
    p.arrow(cx, 28, cx, top + row_h * static_cast<double>(rows.size()), false, true);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const CrossRow& r = *rows[i];
        const double y = top + row_h * static_cast<double>(i);
        p.text(6, y + 9, Inline(r.quantity.substr(prefix.size())).text(" = ").value(parse_value(r.exact)),
               Picture::Anchor::Start, 7.5);
        const double b = std::isfinite(r.bound_ulps) ? r.bound_ulps : half;
        p.box(x_of(-b), y + 2, x_of(b) - x_of(-b), row_h - 4, "#BBBBBB", false);
        p.box(x_of(r.ulp_error) - 1.5, y + 1, 3, row_h - 2, "#D55E00", false);
        const std::string bound = std::isfinite(r.bound_ulps) ? fmt::format("{:.3g}", r.bound_ulps) : "none";
        // A signed decimal with the minus sign of the rest of the figure's text.
        std::string err = fmt::format("{:+.3g}", r.ulp_error);
        if (err[0] == '-') err = "−" + err.substr(1);
        p.text(kWidth - 6, y + 9, Inline(err + " / " + bound), Picture::Anchor::End, 7.5);
        fb.description.push_back(Inline(
            fmt::format("{}: {} ULP, bound {} ULP{}.", r.quantity, err, bound, r.passed ? "" : " (over its bound)")));
    }
    p.text(6, p.height - 6, Inline("Right: signed error / bound, in units in the last place of the exact value."),
           Picture::Anchor::Start, 7.5);
}

}  // namespace

const FigureSpec& find_figure(const Scenario& s, const std::string& name) {
    for (const auto& f : s.figures) {
        if (f.name == name || (!f.number.empty() && f.number == name)) return f;
    }
    const auto name_of = [](const FigureSpec& f) { return f.name + (f.number.empty() ? "" : " (" + f.number + ")"); };
    Location where;
    where.context = "--figure";
    throw reference_error(
        fmt::format("{} declares no figure \"{}\" (figures: {})", s.file, name, detail::name_list(s.figures, name_of)),
        where);
}

FigureBlock figure_block(const Report& rep, const FigureSpec& spec) {
    FigureBlock fb;
    switch (spec.kind) {
        case FigureKind::ReadComparison:
            fb = frame(spec, Inline("Reads ")
                                 .text(fmt::format("{}", fmt::join(spec.reads, ", ")))
                                 .text(" over the same source states"));
            read_comparison(fb, rep, spec);
            break;
        case FigureKind::Dependency:
            fb = frame(spec, Inline("Sequential encoder and decoder steps around one read's parallel comparisons"));
            dependency(fb, rep, spec);
            break;
        case FigureKind::Heatmap:
            if (!spec.rollout.empty()) {
                fb = frame(spec, Inline(fmt::format("Attention weights of rollout {} ({})", spec.rollout,
                                                    regime_name(spec.regime))));
                rollout_heatmap(fb, rep, spec);
                break;
            }
            fb = frame(spec, Inline("Attention weights of layer " + spec.layer));
            heatmap(fb, rep, spec);
            break;
        case FigureKind::Intervention:
            fb = frame(spec, Inline("Weights and readout of intervention " + spec.intervention));
            intervention(fb, rep, spec);
            break;
        case FigureKind::Crosscheck:
            fb = frame(spec, Inline("The double path's error on read " + spec.reads.front() + " against its bound"));
            crosscheck_plot(fb, rep, spec);
            break;
    }
    const std::string file =
        rep.scenario.file.find(' ') == std::string::npos ? rep.scenario.file : "'" + rep.scenario.file + "'";
    fb.command = fmt::format("exactattn figure {} --figure {}", file, spec.number.empty() ? spec.name : spec.number);
    return fb;
}

Document run_document(const Report& rep) {
    std::vector<FigureBlock> figures;
    for (const auto& f : rep.scenario.figures) figures.push_back(figure_block(rep, f));
    return report_document(rep, std::move(figures));
}

std::string render_report(const Report& rep, Format f, const RenderOptions& options) {
    if (f == Format::Json) {
        std::ostringstream out;
        json_report_writer(rep)(out);
        return std::move(out).str();
    }
    return render(run_document(rep), f, options);
}

}  // namespace exactattn
