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

// ---------------------------------------------------------------------------------------------
// Layout from measured text: every label's width is its advance in the figures' fonts
// (render/metrics.hpp), the same for the SVG and the TikZ picture. A label that does not fit
// its room is abbreviated, never overdrawn: a name is cut with "…", a value becomes a correctly
// rounded decimal after "≈" (and a list of them wraps over lines). The figure's description
// keeps every name whole and every value exact.

double measure(const Inline& in, double size, bool bold = false) {
    return detail::text_width(render_inline(in, Format::Text), size, bold);
}

// A name (a label, a token) cut to `room` points: its start and "…".
Inline fit_name(const Inline& in, double room, double size, bool bold = false) {
    if (measure(in, size, bold) <= room) return in;
    return Inline(detail::text_prefix(render_inline(in, Format::Text), "…", room, size, bold) + "…");
}

// Plain text broken at spaces into lines of at most `room` points (a word longer than a line
// is cut).
std::vector<Inline> wrap_words(const std::string& text, double room, double size, bool bold = false) {
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
                 bool bold = false) {
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
                               const std::vector<std::optional<Value>>& vs, double room, double size,
                               bool bold = false) {
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
                rollout_heatmap(fb, rep, spec);
                break;
            }
            fb = frame(spec, rep.scenario.file, Inline("Attention weights of layer " + spec.layer));
            heatmap(fb, rep, spec);
            break;
        case FigureKind::Intervention:
            fb = frame(spec, rep.scenario.file, Inline("Weights and readout of intervention " + spec.intervention));
            intervention(fb, rep, spec);
            break;
        case FigureKind::Crosscheck:
            fb = frame(spec, rep.scenario.file,
                       Inline("The double path's error on read " + spec.reads.front() + " against its bound"));
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
