// SPDX-License-Identifier: MIT
// exactattn: one read as a document — the Table 14.1 layout (position, state, score derivation,
// exponential, weight derivation), its totals and its summary lines — and as JSON.
#include "report/read_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "exactattn/error.hpp"
#include "exactattn/print.hpp"
#include "render/cells.hpp"
#include "report/report_json.hpp"

namespace exactattn {

namespace detail {

// A value to six decimal places (0 as 0), for the "≈" of a context or readout.
std::string approx(const Value& v) { return v.is_zero() ? "0" : to_fixed(v, 6); }

namespace {

std::string approx(const Vector& v) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) out += (i > 0 ? ", " : "") + detail::approx(v[i]);
    return out + "]";
}

Notation notation_for(MathForm f) {
    switch (f) {
        case MathForm::Latex:
            return Notation::Latex;
        case MathForm::Ascii:
            return Notation::Ascii;
        case MathForm::MathML:
            return Notation::MathML;
        default:
            return Notation::Unicode;
    }
}

// A printed value in a math form, from a string printed in notation_for(form) (MathML markup
// passes through; a literal such as "0" becomes <mn>0</mn>).
std::string in_form(const std::string& s, MathForm f) {
    if (f != MathForm::MathML || (!s.empty() && s.front() == '<')) return s;
    return "<mn>" + s + "</mn>";
}

std::string op(MathForm f, Formula::Op o) { return Formula().op(o).render(f); }

std::string list_in(const std::vector<std::string>& xs, MathForm f) {
    std::string out = f == MathForm::MathML ? "<mo>[</mo>" : "[";
    for (std::size_t i = 0; i < xs.size(); ++i) {
        if (i > 0) out += f == MathForm::MathML ? "<mo separator=\"true\">,</mo>" : ", ";
        out += xs[i];
    }
    return out + (f == MathForm::MathML ? "<mo>]</mo>" : "]");
}

// A factor of a derivation: parenthesised unless it is one plain token ("(1/2)", "(−a)", "a").
std::string factor_in(const std::string& printed, const std::string& unicode, MathForm f) {
    if (detail::plain_factor(unicode)) return printed;
    if (f == MathForm::Latex) return detail::latex_factor(printed);
    return op(f, Formula::Op::Open) + printed + op(f, Formula::Op::Close);
}

// r = c_1 + 2c_2 as a formula.
Formula readout_formula(const Vector& coeffs) {
    return linear_combination(coeffs, [](Formula& f, std::size_t i, bool) { f.name(fmt::format("c_{}", i + 1)); });
}

}  // namespace

// A position's label as the chapter prints it: `1: color`, or `1: 红色` (the token through the
// token macro) when the source declares no labels.
Inline position_cell(const Source& src, std::size_t position) {
    if (position >= 1 && position <= src.labels.size()) return Inline(src.position_label(position));
    if (src.tokens && position >= 1 && position <= src.tokens->size()) {
        return Inline(fmt::format("{}: ", position)).token((*src.tokens)[position - 1]);
    }
    return Inline(std::to_string(position));
}

// The names of every position, `color, key, full stop`, for a weights header.
Inline position_names(const Source& src) {
    Inline out;
    for (std::size_t j = 1; j <= src.states.rows(); ++j) {
        if (j > 1) out.text(", ");
        if (j <= src.labels.size())
            out.text(src.labels[j - 1]);
        else if (src.tokens && j <= src.tokens->size())
            out.token((*src.tokens)[j - 1]);
        else
            out.text(std::to_string(j));
    }
    return out;
}

namespace {

// The strings of one read in one math style, made once per style the renderer asks for.
struct Memo {
    MathStyle style;
    detail::TraceStrings strings;
    // The Unicode strings the derivation's brackets are decided on; none of its own when
    // `strings` are Unicode already (every value would be printed twice).
    std::optional<detail::TraceStrings> unicode;
    std::vector<std::string> q;
    std::vector<std::string> q_unicode;
    std::string den;
    std::string den_unicode;
};

std::unique_ptr<Memo> make_memo(const Memory& memory, const ReadTrace& t, const MathStyle& style) {
    const Notation n = notation_for(style.form);
    auto m =
        std::make_unique<Memo>(Memo{style, detail::TraceStrings(memory, t, n, style), std::nullopt, {}, {}, {}, {}});
    if (n != Notation::Unicode) m->unicode.emplace(memory, t, Notation::Unicode, style);
    for (const auto& x : t.query) {
        m->q.push_back(detail::printed(x, n, style));
        m->q_unicode.push_back(detail::printed(x, Notation::Unicode, style));
    }
    m->den = detail::printed(t.denominator, n, style);
    m->den_unicode = detail::printed(t.denominator, Notation::Unicode, style);
    return m;
}

// q·h written out term by term (`1 × a + 0 × 0 = a`), divided by √d under the scaled rule.
std::string score_derivation(const Memo& m, const std::vector<std::string>& h,
                             const std::vector<std::string>& h_unicode, const std::string& score, MathForm f,
                             ScoreRule rule) {
    const std::size_t d = h.size();
    std::string s;
    for (std::size_t i = 0; i < d; ++i) {
        if (i > 0) s += op(f, Formula::Op::Plus);
        s += factor_in(in_form(m.q[i], f), m.q_unicode[i], f) + op(f, Formula::Op::Times) +
             factor_in(h[i], h_unicode[i], f);
    }
    if (rule == ScoreRule::ScaledDot) {
        s = op(f, Formula::Op::Open) + s + op(f, Formula::Op::Close) + op(f, Formula::Op::Divide) +
            Formula().sqrt_of(d).render(f);
    }
    return s + op(f, Formula::Op::Equals) + in_form(score, f);
}

// The weight, after exponential/total written as a fraction where the form has one (2/4,
// \tfrac{2}{4}) when that says more than the weight alone.
std::string weight_derivation(const Memo& m, const detail::TraceStrings::Row& r, const detail::TraceStrings::Row& ru,
                              const ReadTrace& t, MathForm f) {
    std::string w = in_form(r.weight, f);
    if (r.rational && t.denominator != Value(1)) {
        const std::string ratio =
            f == MathForm::Latex ? "\\tfrac{" + r.exponential + "}{" + m.den + "}"
            : f == MathForm::MathML
                ? "<mfrac>" + in_form(r.exponential, f) + in_form(m.den, f) + "</mfrac>"  // each one <mrow>
                : factor_in(r.exponential, ru.exponential, f) + op(f, Formula::Op::Divide) +
                      factor_in(m.den, m.den_unicode, f);
        if (ru.exponential + "/" + m.den_unicode != ru.weight) w = ratio + op(f, Formula::Op::Equals) + w;
    }
    return w;
}

// Row j of the Table 14.1 layout from the memoized strings.
void read_row(const Source* source, const Memory& memory, const ReadTrace& t, ScoreRule rule, Memo& m, std::size_t j,
              const MathStyle& style, std::vector<Inline>& cells) {
    const MathForm f = style.form;  // the memo's strings are in `style`; operators need the form
    const std::size_t d = memory.width();
    cells.assign(5, Inline());
    cells[0] = source != nullptr ? position_cell(*source, j + 1) : Inline(std::to_string(j + 1));
    std::vector<std::string> h(d);
    std::vector<std::string> h_unicode(d);
    for (std::size_t i = 0; i < d; ++i) {
        h[i] = in_form(m.strings.entry(j, i), f);
        h_unicode[i] = m.unicode ? m.unicode->entry(j, i) : h[i];
    }
    cells[1].math(Formula().prerendered(list_in(h, f)));
    if (t.marks[j] == Mark::Removed) {
        cells[2].text("removed");
        cells[3].text("—");
        cells[4].math(Formula().prerendered(in_form("0", f)));
        return;
    }
    const auto& r = m.strings.row(j);
    const auto& ru = m.unicode ? m.unicode->row(j) : r;
    if (t.marks[j] == Mark::Zeroed) {
        cells[2].math(Formula().prerendered(in_form("0", f))).text(" (score set to zero)");
    } else if (d > 4) {
        cells[2].math(Formula().prerendered(in_form(r.score, f)));
    } else {
        cells[2].math(Formula().prerendered(score_derivation(m, h, h_unicode, r.score, f, rule)));
    }
    cells[3].math(Formula().prerendered(in_form(r.exponential, f)));
    cells[4].math(Formula().prerendered(weight_derivation(m, r, ru, t, f)));
}

}  // namespace

// The Table 14.1 layout, once: position, state, score derivation, exponential, weight
// derivation. Rows are produced on demand from memoized strings, so that the same generator
// prints a read over 10^7 positions (`read`) and the chapter's three (`run`).
TableBlock read_table(const Source* source, const Memory& memory, const ReadTrace& t, ScoreRule rule) {
    TableBlock tab;
    const Formula q(t.query);
    Inline score_head(rule == ScoreRule::ScaledDot ? "Scaled dot product with " : "Dot product with ");
    score_head.math(q);
    if (rule == ScoreRule::ScaledDot) score_head.text(" ÷ ").math(Formula().sqrt_of(t.query.size()));
    tab.headers = {Inline("Source position"), Inline("State"), score_head, Inline("Exponential"),
                   Inline("Normalized weight")};
    tab.rows = memory.rows();
    // One memo per math style the renderer asks for.
    auto memo = std::make_shared<std::unique_ptr<Memo>>();
    tab.row = [source, &memory, &t, rule, memo](std::size_t j, const MathStyle& style, std::vector<Inline>& cells) {
        if (!*memo || (*memo)->style != style) *memo = make_memo(memory, t, style);
        read_row(source, memory, t, rule, **memo, j, style, cells);
    };
    return tab;
}

// Scores → exponentials → total; weights; context; readout.
// The read's totals as data, the CSV companion of its table: total, weights, context, readout.
TableBlock read_data(const TableBlock& of, const ReadTrace& t) {
    TableBlock tab;
    tab.csv_only = true;
    tab.number = of.number.empty() ? "" : of.number + " (totals)";
    tab.caption = Inline(of.number.empty() ? "Totals of the read above" : "Totals of the read");
    tab.headers = {Inline("quantity"), Inline("value")};
    tab.add_row({Inline("denominator"), Inline().value(t.denominator)});
    tab.add_row({Inline("weights"), Inline().vector(t.weights.values_or(Value()))});
    tab.add_row({Inline("context"), Inline().vector(t.context)});
    if (t.readout) tab.add_row({Inline("readout"), Inline().value(*t.readout)});
    return tab;
}

Lines read_summary(const ReadTrace& t, const std::optional<Vector>& readout) {
    std::vector<Value> scores;
    std::vector<Value> exps;
    for (std::size_t j = 0; j < t.marks.size(); ++j) {
        if (t.marks[j] == Mark::Removed) continue;
        scores.push_back(*t.scores.at(j));
        exps.push_back(*t.exponentials.at(j));
    }
    const Formula arrow = Formula().op(Formula::Op::Arrow);
    Lines l;
    l.lines.push_back(Inline("Scores ")
                          .vector(scores)
                          .math(arrow)
                          .text("exponentials ")
                          .vector(exps)
                          .math(arrow)
                          .text("divide by ")
                          .value(t.denominator)
                          .text("."));
    l.lines.push_back(Inline("Weights ").vector(t.weights.values_or(Value())).text("."));
    l.lines.push_back(
        Inline("Context ").math(Formula(t.context).op(Formula::Op::Approx).decimal(approx(t.context))).text("."));
    if (t.readout) {
        Formula r;
        r.name("r").op(Formula::Op::Equals);
        if (readout) {
            const Formula f = readout_formula(*readout);
            r = Formula().name("r").op(Formula::Op::Equals);
            Inline line("Readout ");
            line.math(Formula().name("r").op(Formula::Op::Equals))
                .math(f)
                .math(Formula()
                          .op(Formula::Op::Equals)
                          .value(*t.readout)
                          .op(Formula::Op::Approx)
                          .decimal(approx(*t.readout)))
                .text(".");
            l.lines.push_back(line);
        } else {
            l.lines.push_back(Inline("Readout ")
                                  .math(r.value(*t.readout).op(Formula::Op::Approx).decimal(approx(*t.readout)))
                                  .text("."));
        }
    }
    return l;
}

}  // namespace detail

Document read_document(const Memory& memory, const ReadTrace& trace, const std::optional<Vector>& readout) {
    Document doc;
    doc.title = "Attention read";
    TableBlock tab = detail::read_table(nullptr, memory, trace, ScoreRule::Dot);
    tab.caption = Inline(fmt::format("A read over {} position{}: scores, exponentials and weights", memory.rows(),
                                     memory.rows() == 1 ? "" : "s"));
    TableBlock data = detail::read_data(tab, trace);
    doc.add(std::move(tab));
    doc.add(std::move(data));
    doc.add(detail::read_summary(trace, readout));
    return doc;
}

std::string read_text(const Memory& memory, const ReadTrace& trace, const std::optional<Vector>& readout) {
    return render(read_document(memory, trace, readout), Format::Text);
}

std::string read_json(const Memory& memory, const ReadTrace& trace) {
    return detail::trace_json_text(memory, trace) + "\n";
}

const std::vector<std::string>& read_json_fields() {
    static const std::vector<std::string> fields = {
        "query",       "memory",  "included", "removed", "zeroed",          "scores",         "exponentials",
        "denominator", "weights", "context",  "readout", "context_decimal", "readout_decimal"};
    return fields;
}

void check_read_json_fields(const std::vector<std::string>& fields) {
    for (const auto& f : fields) {
        if (std::find(read_json_fields().begin(), read_json_fields().end(), f) == read_json_fields().end()) {
            std::string known;
            for (const auto& k : read_json_fields()) known += (known.empty() ? "" : ", ") + k;
            throw usage_error(fmt::format("unknown field \"{}\"; the fields are {}", f, known));
        }
    }
}

void write_read_json(const Memory& memory, const ReadTrace& trace, std::ostream& out,
                     const std::vector<std::string>& fields) {
    check_read_json_fields(fields);
    detail::write_trace_json(memory, trace, out, fields);
}

}  // namespace exactattn
