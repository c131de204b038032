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
#include "render/metrics.hpp"
#include "scenario/pointer.hpp"
#include "tools/figure_parts.hpp"

namespace exactattn {

namespace detail {

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

// ---------------------------------------------------------------------------------------------
// Layout from measured text: every label's width is its advance in the figures' fonts
// (render/metrics.hpp), the same for the SVG and the TikZ picture. A label that does not fit
// its room is abbreviated, never overdrawn: a name is cut with "…", a value becomes a correctly
// rounded decimal after "≈" (and a list of them wraps over lines). The figure's description
// keeps every name whole and every value exact.

double measure(const Inline& in, double size, bool bold) {
    return detail::text_width(render_inline(in, Format::Text), size, bold);
}

// A name (a label, a token) cut to `room` points: its start and "…".
Inline fit_name(const Inline& in, double room, double size, bool bold) {
    if (measure(in, size, bold) <= room) return in;
    return Inline(detail::text_prefix(render_inline(in, Format::Text), "…", room, size, bold) + "…");
}

// Plain text broken at spaces into lines of at most `room` points (a word longer than a line
// is cut).
std::vector<Inline> wrap_words(const std::string& text, double room, double size, bool bold) {
    std::vector<Inline> lines;
    std::string line;
    std::size_t at = 0;
    while (at <= text.size()) {
        const std::size_t end = std::min(text.find(' ', at), text.size());
        const std::string word = text.substr(at, end - at);
        const std::string longer = line.empty() ? word : line + " " + word;
        if (!line.empty() && detail::text_width(longer, size, bold) > room) {
            lines.push_back(fit_name(Inline(line), room, size, bold));
            line = word;
        } else {
            line = longer;
        }
        at = end + 1;
    }
    if (!line.empty() || lines.empty()) lines.push_back(fit_name(Inline(line), room, size, bold));
    return lines;
}

// A value as a correctly rounded decimal of `places` places (a multiple of a as its
// coefficient's decimal and a: 0.1250a), with the figures' minus sign. An exact zero (a removed
// state's weight) is 0, as everywhere else, not 0.0000.
std::string decimal_of(const Value& v, int places) {
    if (v.is_zero()) return "0";
    std::string d;
    const auto& t = v.terms();
    if (t.size() == 2 && t[0].is_zero())
        d = to_fixed(Value::from_terms({t[1]}), places) + "a";
    else
        d = to_fixed(v, places);
    if (!d.empty() && d[0] == '-') d = "−" + d.substr(1);
    return d;
}

// `lead` then one value: exact (after `exact_sep`) where it fits `room`, else a decimal after
// " ≈ " with 4 places, or fewer.
Inline fit_value(const Inline& lead, const std::string& exact_sep, const Value& v, double room, double size,
                 bool bold) {
    Inline exact = Inline(lead).text(exact_sep).value(v);
    if (measure(exact, size, bold) <= room) return exact;
    const std::string sep = lead.parts().empty() ? "≈ " : " ≈ ";
    Inline approx;
    for (int places = 4; places >= 1; --places) {
        approx = Inline(lead).text(sep + decimal_of(v, places));
        if (measure(approx, size, bold) <= room) break;
    }
    return approx;
}

// `lead` then a list [v1, v2, …] on lines of at most `room` points: exact on one line where it
// fits; else correctly rounded decimals after "≈" (4 places, then 3, 2) on one line; else those
// of 2 places wrapped over as many lines as they need. An absent entry is "—".
std::vector<Inline> fit_values(const Inline& lead, const std::string& exact_sep,
                               const std::vector<std::optional<Value>>& vs, double room, double size, bool bold) {
    Inline exact = Inline(lead).text(exact_sep).math(Formula().column(vs));
    if (measure(exact, size, bold) <= room) return {exact};
    const std::string sep = lead.parts().empty() ? "≈ " : " ≈ ";
    std::vector<std::string> items;
    for (int places = 4; places >= 2; --places) {
        items.clear();
        for (const auto& v : vs) items.push_back(v ? decimal_of(*v, places) : "—");
        Inline one = Inline(lead).text(sep + "[" + fmt::format("{}", fmt::join(items, ", ")) + "]");
        if (measure(one, size, bold) <= room) return {one};
    }
    std::vector<Inline> lines;
    std::string line = sep + "[";
    Inline first = lead;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const std::string item = items[i] + (i + 1 < items.size() ? "," : "]");
        const Inline head = lines.empty() ? first : Inline();
        if (line.size() > 3 && measure(Inline(head).text(line + " " + item), size, bold) > room) {
            lines.push_back(Inline(head).text(line));
            line = "  " + item;
        } else {
            line += (line.back() == '[' ? "" : " ") + item;
        }
    }
    lines.push_back(Inline(lines.empty() ? first : Inline()).text(line));
    return lines;
}

Inline position_inline(const Source& src, std::size_t j) {
    Inline in(std::to_string(j));
    if (j <= src.labels.size()) in.text(": " + src.labels[j - 1]);
    if (src.tokens && j <= src.tokens->size()) in.text(src.labels.empty() ? ": " : " ").token((*src.tokens)[j - 1]);
    return in;
}

}  // namespace detail

namespace {

using detail::fit_name;
using detail::fit_value;
using detail::fit_values;
using detail::fraction;
using detail::kBlue;
using detail::kWidth;
using detail::measure;
using detail::position_inline;

// x_j with a subscript in every form: h₁ (Unicode, so SVG text needs no markup), h_{1}.
Formula indexed(const std::string& base, std::size_t j) {
    return Formula().custom([base, j](const MathStyle& style) {
        const std::string digits = std::to_string(j);
        switch (style.form) {
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
    const double w = measure(text, 9, true) + 4;
    p.box(4, y - 9.5, w, 13, "#FFFFFF", false);
    p.text(6, y, text, Picture::Anchor::Start, 9, true);
}

Inline query_inline(const NamedVector& q) { return Inline(q.name.empty() ? "q" : q.name).text(" = ").vector(q.values); }

// The figure's block with its number, label and caption (`file` holds the declared caption).
FigureBlock frame(const FigureSpec& spec, const std::string& file, const Inline& fallback_caption) {
    FigureBlock fb;
    fb.number = spec.number;
    fb.label = spec.number.empty() ? "figure-" + spec.name : "figure-" + spec.number;
    fb.caption = spec.caption.empty()
                     ? fallback_caption
                     : inline_markdown(spec.caption, detail::key_place(file, "figures", spec.name, "caption"));
    fb.pdf = spec.pdf;
    return fb;
}

// Figure 14.1: per read, each source position with its state and its weight as a label and a
// bar, the sum, and the chain scores → exponentials → total. Each panel is laid out from its
// measured labels; the panels of one row of panels share the tallest one's height.
void read_comparison(FigureBlock& fb, const Report& rep, const FigureSpec& spec) {
    const std::size_t k = spec.reads.size();
    const std::size_t cols = std::min<std::size_t>(k, 2);
    const double gap = 12;
    const double pw = (kWidth - 2 * 6 - static_cast<double>(cols - 1) * gap) / static_cast<double>(cols);
    const Source& src = rep.scenario.source(rep.read(spec.reads.front()).spec.source);
    const std::size_t n = src.states.rows();
    const double row_h = 26;
    const double small = 8.5;
    const double step = 12;  // baseline to baseline at 8.5 and 9 points
    struct Panel {
        std::vector<Inline> query, rows, weights, sum, scores, exps;
        Inline total;
        double height = 0;
    };
    std::vector<Panel> panels(k);
    const auto present = [](const Vector& v) { return std::vector<std::optional<Value>>(v.begin(), v.end()); };
    for (std::size_t i = 0; i < k; ++i) {
        const ReadResult& rr = rep.read(spec.reads[i]);
        const ReadTrace& t = rr.trace;
        Panel& pn = panels[i];
        const NamedVector& q = rr.spec.query;
        pn.query = fit_values(Inline(q.name.empty() ? "q" : q.name), " = ", present(q.values), pw, 10, true);
        // The weight labels' column: as wide as the widest exact label, up to 45% of the panel.
        double label_w = 0;
        for (std::size_t j = 0; j < n; ++j) {
            Inline label = Inline("× ").value(t.weights.at(j).value_or(Value()));
            if (!t.scores.at(j).has_value()) label.text(" (removed)");
            label_w = std::max(label_w, measure(label, small));
        }
        label_w = std::min(label_w, 0.45 * pw);
        for (std::size_t j = 0; j < n; ++j) {
            const std::vector<Inline> state = fit_values(Inline(), "", present(src.states.row(j)), 0.5 * pw, small);
            const Inline st = state.size() == 1 ? state.front() : Inline("[…]");
            pn.rows.push_back(fit_name(position_inline(src, j + 1), pw - measure(Inline(" ").append(st), small), small)
                                  .text(" ")
                                  .append(st));
            const bool removed = !t.scores.at(j).has_value();
            const std::string tail = removed ? " (removed)" : "";
            Inline w = fit_value(Inline("×"), " ", t.weights.at(j).value_or(Value()),
                                 label_w - measure(Inline(tail), small), small);
            pn.weights.push_back(w.text(tail));
        }
        pn.sum = fit_values(Inline("Sum →"), " ", present(t.context), pw, 9, true);
        pn.scores = fit_values(Inline("Scores"), " ", t.scores.all(), pw, small);
        pn.exps = fit_values(Inline("→ exponentials"), " ", t.exponentials.all(), pw, small);
        pn.total = fit_value(Inline("→ divide by"), " ", t.denominator, pw, small);
        const auto lines = static_cast<double>(pn.sum.size() + pn.scores.size() + pn.exps.size());
        pn.height =
            10 + 14.0 * static_cast<double>(pn.query.size()) + static_cast<double>(n) * row_h + 8 + step * lines + 10;
    }
    Picture& p = fb.picture;
    p.width = kWidth;
    double y_row = 0;
    for (std::size_t first = 0; first < k; first += cols) {
        double row_height = 0;
        for (std::size_t i = first; i < std::min(k, first + cols); ++i)
            row_height = std::max(row_height, panels[i].height);
        for (std::size_t i = first; i < std::min(k, first + cols); ++i) {
            const ReadResult& rr = rep.read(spec.reads[i]);
            const ReadTrace& t = rr.trace;
            const Panel& pn = panels[i];
            const double x0 = 6 + static_cast<double>(i % cols) * (pw + gap);
            double y = y_row + 14;
            for (const auto& line : pn.query) {
                p.text(x0, y, line, Picture::Anchor::Start, 10, true);
                y += 14;
            }
            const double top = y - 4;
            double label_w = 0;
            for (const auto& w : pn.weights) label_w = std::max(label_w, measure(w, small));
            const double track = std::max(24.0, pw - label_w - 4);
            for (std::size_t j = 0; j < n; ++j) {
                const double yr = top + static_cast<double>(j) * row_h;
                const Value w = t.weights.at(j).value_or(Value());
                p.text(x0, yr + 8, pn.rows[j], Picture::Anchor::Start, small);
                p.box(x0, yr + 11, track, 9, "", true);
                if (!w.is_zero()) p.box(x0, yr + 11, track * fraction(w), 9, kBlue, false);
                p.text(x0 + track + 4, yr + 18.5, pn.weights[j], Picture::Anchor::Start, small);
            }
            y = top + static_cast<double>(n) * row_h + 8;
            for (const auto& line : pn.sum) {
                p.text(x0, y, line, Picture::Anchor::Start, 9, true);
                y += step;
            }
            for (const auto* block : {&pn.scores, &pn.exps}) {
                for (const auto& line : *block) {
                    p.text(x0, y, line, Picture::Anchor::Start, small);
                    y += step;
                }
            }
            p.text(x0, y, pn.total, Picture::Anchor::Start, small);
            Inline desc = query_inline(rr.spec.query).text(": weights");
            for (std::size_t j = 0; j < n; ++j) {
                desc.text(j == 0 ? " " : ", ")
                    .value(t.weights.at(j).value_or(Value()))
                    .text(" on ")
                    .append(position_inline(src, j + 1))
                    .text(" ")
                    .vector(src.states.row(j));
            }
            desc.text("; sum ")
                .vector(t.context)
                .text("; scores ")
                .math(Formula().column(t.scores.all()))
                .text(" → exponentials ")
                .math(Formula().column(t.exponentials.all()))
                .text(" → total ")
                .value(t.denominator)
                .text(".");
            fb.description.push_back(std::move(desc));
        }
        y_row += row_height;
    }
    p.height = y_row;
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
    // A box's label where it fits the box (2 points a side), the short one where only that
    // fits, nothing where neither does (the description has it).
    const auto in_box = [&](double x, double y, double w, const Inline& full, const Inline& brief, double size) {
        if (measure(full, size) <= w - 4)
            p.text(x, y, full, Picture::Anchor::Middle, size);
        else if (measure(brief, size) <= w - 4)
            p.text(x, y, brief, Picture::Anchor::Middle, size);
    };
    // Band 1: h_0 → h_1 → … → h_n, each update taking the next input token.
    const double slot = (kWidth - 12) / static_cast<double>(n + 1);
    const double bw = slot >= 24 ? std::min(74.0, slot - 12) : 0.5 * slot;
    const auto cx = [&](std::size_t j) { return 6 + slot * (static_cast<double>(j) + 0.5); };
    title(p, 11, Inline(fmt::format("Encoder: {} successive updates (sequential)", n)));
    for (std::size_t j = 0; j <= n; ++j) {
        p.box(cx(j) - bw / 2, 36, bw, 20);
        const Inline brief = Inline().math(indexed("h", j));
        Inline label = brief;
        if (j > 0 || rep.scenario.encoder) {
            label.text(" = ").vector(j == 0 ? rep.scenario.encoder->initial : src.states.row(j - 1));
        }
        in_box(cx(j), 49.5, bw, label, brief, 8);
        if (j > 0) {
            p.arrow(cx(j - 1) + bw / 2, 46, cx(j) - bw / 2, 46);
            Inline input = src.tokens ? Inline().token((*src.tokens)[j - 1]) : Inline(fmt::format("row {}", j));
            if (measure(Inline("…"), 8.5) <= slot - 2)
                p.text(cx(j), 22, fit_name(input, slot - 2, 8.5), Picture::Anchor::Middle, 8.5);
            p.arrow(cx(j), 25, cx(j), 36);
        }
    }
    // Band 2: the query, then every comparison e_j = q·h_j, all at once once q is known.
    p.box(cx(0) - bw / 2, 98, bw, 20, "#F0E442");
    in_box(cx(0), 111.5, bw, query_inline(rr.spec.query), Inline("q"), 8);
    p.arrow(cx(0), 98, cx(0), 88, false);
    p.arrow(cx(0), 88, cx(n), 88, false);
    for (std::size_t j = 1; j <= n; ++j) {
        p.arrow(cx(j) - std::min(6.0, bw / 3), 88, cx(j) - std::min(6.0, bw / 3), 98);
        p.arrow(cx(j) + std::min(6.0, bw / 3), 56, cx(j) + std::min(6.0, bw / 3), 98, true, true);
        p.box(cx(j) - bw / 2, 98, bw, 20, "#56B4E9");
        const Inline brief = Inline().math(indexed("e", j));
        Inline e = brief;
        const auto score = rr.trace.scores.at(j - 1);
        e.text(" = ");
        if (score)
            e.value(*score);
        else
            e.text("removed");
        in_box(cx(j), 111.5, bw, e, brief, 8);
    }
    // The title after the lines it interrupts.
    title(p, 76, Inline("One read: the comparisons, in parallel once the query is known"));
    // The weights and the context: one line where they fit, else one line each (decimals, wrapped,
    // where even that is too long).
    const Inline context_lead = Inline("→ context ").math(indexed("c", 1));
    Inline one = Inline("weights ")
                     .math(Formula().column(rr.trace.weights.all()))
                     .text(" → context ")
                     .math(indexed("c", 1).op(Formula::Op::Equals).vector(rr.trace.context));
    std::vector<Inline> lines{one};
    if (measure(one, 8.5) > kWidth - 12) {
        lines = fit_values(Inline("weights"), " ", rr.trace.weights.all(), kWidth - 12, 8.5);
        const auto ctx = fit_values(context_lead, " = ",
                                    std::vector<std::optional<Value>>(rr.trace.context.begin(), rr.trace.context.end()),
                                    kWidth - 12, 8.5);
        lines.insert(lines.end(), ctx.begin(), ctx.end());
    }
    double y = 136;
    for (const auto& line : lines) {
        p.text(6, y, line, Picture::Anchor::Start, 8.5);
        y += 12;
    }
    const double shift = y - 148;  // band 3 moves down by the extra lines
    // Band 3: s_0 → s_1 → … → s_T; each step takes the old state, the previous target token
    // and that step's context; the next query uses the new state.
    title(p, 160 + shift, Inline(fmt::format("Decoder: {} steps (sequential)", steps)));
    const double dslot = (kWidth - 12) / static_cast<double>(steps + 1);
    const double dw = dslot >= 24 ? std::min(50.0, dslot - 14) : 0.5 * dslot;
    const auto dx = [&](std::size_t t) { return 6 + dslot * (static_cast<double>(t) + 0.5); };
    for (std::size_t t = 0; t <= steps; ++t) {
        p.box(dx(t) - dw / 2, 172 + shift, dw, 20);
        in_box(dx(t), 185.5 + shift, dw, Inline().math(indexed("s", t)), Inline().math(indexed("s", t)), 8.5);
        if (t == 0) continue;
        p.arrow(dx(t - 1) + dw / 2, 182 + shift, dx(t) - dw / 2, 182 + shift);
        p.arrow(dx(t), 210 + shift, dx(t), 192 + shift);
        const Inline inputs = Inline().math(indexed("y", t - 1)).text(", ").math(indexed("c", t));
        if (measure(inputs, 8) <= dslot - 2)
            p.text(dx(t), 220 + shift, inputs, Picture::Anchor::Middle, 8);
        else if (measure(Inline().math(indexed("c", t)), 8) <= dslot - 2)
            p.text(dx(t), 220 + shift, Inline().math(indexed("c", t)), Picture::Anchor::Middle, 8);
    }
    p.text(6, 234 + shift, Inline("Each step: old state + previous target token + its context → new state;"),
           Picture::Anchor::Start, 8);
    p.text(6, 245 + shift, Inline("the next query uses the new state."), Picture::Anchor::Start, 8);
    p.height = 252 + shift;
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
            fb = frame(spec, rep.scenario.file,
                       Inline("Reads ")
                           .text(fmt::format("{}", fmt::join(spec.reads, ", ")))
                           .text(" over the same source states"));
            read_comparison(fb, rep, spec);
            break;
        case FigureKind::Dependency:
            fb = frame(spec, rep.scenario.file,
                       Inline("Sequential encoder and decoder steps around one read's parallel comparisons"));
            dependency(fb, rep, spec);
            break;
        case FigureKind::Heatmap:
            if (!spec.rollout.empty()) {
                fb = frame(spec, rep.scenario.file,
                           Inline(fmt::format("Attention weights of rollout {} ({})", spec.rollout,
                                              regime_name(spec.regime))));
                detail::rollout_heatmap(fb, rep, spec);
                break;
            }
            fb = frame(spec, rep.scenario.file, Inline("Attention weights of layer " + spec.layer));
            detail::heatmap(fb, rep, spec);
            break;
        case FigureKind::Intervention:
            fb = frame(spec, rep.scenario.file, Inline("Weights and readout of intervention " + spec.intervention));
            detail::intervention(fb, rep, spec);
            break;
        case FigureKind::Crosscheck:
            fb = frame(spec, rep.scenario.file,
                       Inline("The double path's error on read " + spec.reads.front() + " against its bound"));
            detail::crosscheck_plot(fb, rep, spec);
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
