// SPDX-License-Identifier: MIT
// exactattn: scenario runs and their reports.
#include "exactattn/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <sstream>

#include "exactattn/error.hpp"
#include "exactattn/attention_report.hpp"
#include "exactattn/print.hpp"
#include "scenario/json.hpp"
#include "report/report_json.hpp"

namespace exactattn {

// ---------------------------------------------------------------------------------------------
// Helpers shared with the JSON writer and the answer key (report_json.hpp).

namespace detail {

std::string approx(const Value& v) { return v.is_zero() ? "0" : to_fixed(v, 6); }

std::string approx(const Vector& v) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) out += (i > 0 ? ", " : "") + approx(v[i]);
    return out + "]";
}

void number_tables(Document& doc, std::size_t from, const std::string& number, const std::string& caption) {
    std::size_t k = 0;
    for (std::size_t b = from; b < doc.blocks.size(); ++b) {
        auto* tab = std::get_if<TableBlock>(&doc.blocks[b]);
        if (tab == nullptr) continue;
        ++k;
        if (!number.empty()) {
            tab->number = k == 1 ? number : fmt::format("{}.{}", number, k);
            tab->label = "tab:" + tab->number;
        }
        if (k == 1 && !caption.empty()) tab->caption = inline_markdown(caption);
    }
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// Producers: what the report says, as a document (document.hpp renders it in every format).

namespace {

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
    return op(f, Formula::Op::Open) + printed + op(f, Formula::Op::Close);
}

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

// The Table 14.1 layout, once: position, state, score derivation, exponential, weight
// derivation. Rows are produced on demand from memoized strings, so that the same generator
// prints a read over 10^7 positions (`read`) and the chapter's three (`run`).
TableBlock read_block(const Source* source, const Memory& memory, const ReadTrace& t, ScoreRule rule) {
    TableBlock tab;
    const Formula q(t.query);
    Inline score_head(rule == ScoreRule::ScaledDot ? "Scaled dot product with " : "Dot product with ");
    score_head.math(q);
    if (rule == ScoreRule::ScaledDot) score_head.text(" ÷ ").math(Formula().sqrt_of(t.query.size()));
    tab.headers = {Inline("Source position"), Inline("State"), score_head, Inline("Exponential"),
                   Inline("Normalized weight")};
    tab.rows = memory.rows();
    // One memo per math form the renderer asks for.
    struct Memo {
        MathForm form;
        std::size_t width;  // detail::display_max_width() when the strings were made
        detail::TraceStrings strings;
        // The Unicode strings the derivation's brackets are decided on; none of its own when
        // `strings` are Unicode already (every value would be printed twice).
        std::optional<detail::TraceStrings> unicode;
        std::vector<std::string> q;
        std::vector<std::string> q_unicode;
        std::string den;
        std::string den_unicode;
    };
    auto memo = std::make_shared<std::unique_ptr<Memo>>();
    tab.row = [source, &memory, &t, rule, memo](std::size_t j, MathForm f, std::vector<Inline>& cells) {
        if (!*memo || (*memo)->form != f || (*memo)->width != detail::display_max_width()) {
            auto m = std::make_unique<Memo>(Memo{f,
                                                 detail::display_max_width(),
                                                 detail::TraceStrings(memory, t, notation_for(f)),
                                                 std::nullopt,
                                                 {},
                                                 {},
                                                 {},
                                                 {}});
            if (notation_for(f) != Notation::Unicode) m->unicode.emplace(memory, t, Notation::Unicode);
            for (const auto& x : t.query) {
                m->q.push_back(detail::printed(x, notation_for(f)));
                m->q_unicode.push_back(detail::printed(x, Notation::Unicode));
            }
            m->den = detail::printed(t.denominator, notation_for(f));
            m->den_unicode = detail::printed(t.denominator, Notation::Unicode);
            *memo = std::move(m);
        }
        Memo& m = **memo;
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
            cells[2].math(Formula().prerendered(s + op(f, Formula::Op::Equals) + in_form(r.score, f)));
        }
        cells[3].math(Formula().prerendered(in_form(r.exponential, f)));
        std::string w = in_form(r.weight, f);
        if (r.rational && t.denominator != Value(1)) {
            // exponential/total, written as a fraction where the form has one: 2/4, \tfrac{2}{4}.
            const std::string ratio =
                f == MathForm::Latex ? "\\tfrac{" + r.exponential + "}{" + m.den + "}"
                : f == MathForm::MathML
                    ? "<mfrac>" + in_form(r.exponential, f) + in_form(m.den, f) + "</mfrac>"  // each one <mrow>
                    : factor_in(r.exponential, ru.exponential, f) + op(f, Formula::Op::Divide) +
                          factor_in(m.den, m.den_unicode, f);
            if (ru.exponential + "/" + m.den_unicode != ru.weight) w = ratio + op(f, Formula::Op::Equals) + w;
        }
        cells[4].math(Formula().prerendered(w));
    };
    return tab;
}

// r = c_1 + 2c_2 as a formula.
Formula readout_formula(const Vector& coeffs) {
    return linear_combination(coeffs, [](Formula& f, std::size_t i, bool) { f.name(fmt::format("c_{}", i + 1)); });
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
    const Formula approx = Formula().op(Formula::Op::Approx);
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
    l.lines.push_back(Inline("Context ")
                          .math(Formula(t.context).op(Formula::Op::Approx).decimal(detail::approx(t.context)))
                          .text("."));
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
                          .decimal(detail::approx(*t.readout)))
                .text(".");
            l.lines.push_back(line);
        } else {
            l.lines.push_back(Inline("Readout ")
                                  .math(r.value(*t.readout).op(Formula::Op::Approx).decimal(detail::approx(*t.readout)))
                                  .text("."));
        }
    }
    (void)approx;
    return l;
}

std::string tokens_text(const std::vector<std::string>& tokens) {
    std::string t;
    for (const auto& tok : tokens) t += (t.empty() ? "" : " ") + tok;
    return t;
}

// The coordinates (1-based) that ReLU clipped: a negative pre-activation set to 0.
Inline clipped_cell(const Vector& pre) {
    std::string out;
    for (std::size_t i = 0; i < pre.size(); ++i) {
        if (pre[i].sign() < 0) out += (out.empty() ? "" : ", ") + std::to_string(i + 1);
    }
    return Inline(out.empty() ? "—" : out);
}

// A token source's table: position, token, embedding, pre-activation, state and the
// coordinates ReLU clipped (with a ReLU encoder).
TableBlock encoder_table(const Scenario& s, const std::vector<std::string>& tokens, const Source* src) {
    Matrix pre;
    const Matrix states = s.encode_tokens(tokens, &pre);
    const bool relu = s.encoder && s.encoder->activation == Activation::Relu;
    TableBlock tab;
    tab.headers = {Inline("Position"), Inline("Token"), Inline("Embedding"), Inline("Pre-activation"), Inline("State")};
    if (relu) tab.headers.push_back(Inline("ReLU clipped"));
    for (std::size_t j = 0; j < tokens.size(); ++j) {
        std::vector<Inline> row = {src != nullptr ? position_cell(*src, j + 1) : Inline(std::to_string(j + 1)),
                                   Inline().token(tokens[j]), Inline().vector(s.embedding(tokens[j])),
                                   Inline().vector(pre[j]), Inline().vector(states[j])};
        if (relu) row.push_back(clipped_cell(pre[j]));
        tab.add_row(std::move(row));
    }
    if (relu) {
        tab.notes.push_back(
            Inline("State = ReLU(pre-activation); a clipped coordinate had a negative "
                   "pre-activation and is set to 0."));
    }
    return tab;
}

void add_sources(Document& doc, const Scenario& s) {
    for (const auto& src : s.sources) {
        if (src.tokens && s.encoder) {
            TableBlock tab = encoder_table(s, *src.tokens, &src);
            tab.caption = Inline(fmt::format("Source {} (", src.name)).token(tokens_text(*src.tokens)).text(")");
            doc.add(std::move(tab));
            continue;
        }
        TableBlock tab;
        tab.caption = Inline(fmt::format("Source {} ", src.name));
        if (src.tokens)
            tab.caption.text("(").token(tokens_text(*src.tokens)).text(")");
        else
            tab.caption.text("(memory given directly)");
        if (src.tokens)
            tab.headers = {Inline("Position"), Inline("Token"), Inline("Embedding"), Inline("State")};
        else
            tab.headers = {Inline("Position"), Inline("State")};
        for (std::size_t j = 0; j < src.states.rows(); ++j) {
            std::vector<Inline> row = {position_cell(src, j + 1)};
            if (src.tokens) {
                row.push_back(Inline().token((*src.tokens)[j]));
                row.push_back(Inline().vector(s.embedding((*src.tokens)[j])));
            }
            row.push_back(Inline().vector(src.states.row(j)));
            tab.add_row(std::move(row));
        }
        doc.add(std::move(tab));
    }
}

void add_intervention(Document& doc, const Report& rep, const InterventionResult& ir) {
    const Source& src = rep.scenario.source(ir.spec.source);
    const bool has_readout = ir.spec.readout.has_value();
    TableBlock tab;
    tab.number = ir.spec.number;
    tab.label = ir.spec.number.empty() ? "" : "tab:" + ir.spec.number;
    const Inline labels = position_names(src);
    const Formula query(ir.spec.query.values);
    Inline caption;
    if (!ir.spec.caption.empty()) {
        caption = inline_markdown(ir.spec.caption);
    } else {
        switch (ir.spec.kind) {
            case InterventionKind::RemoveState:
                caption.text(ir.spec.name + ": frozen-memory deletion (remove-state) with query ").math(query);
                break;
            case InterventionKind::ZeroScore:
                caption.text(ir.spec.name + ": score set to zero (zero-score) with query ").math(query);
                break;
            case InterventionKind::DeleteToken:
                caption.text(ir.spec.name + ": input deletion with encoder recomputation (delete-token) with query ")
                    .math(query);
                break;
        }
    }
    tab.caption = caption;
    switch (ir.spec.kind) {
        case InterventionKind::RemoveState:
            tab.headers = {Inline("Removed position"), Inline("Weights: ").append(labels), Inline("New context")};
            break;
        case InterventionKind::ZeroScore:
            tab.headers = {Inline("Zeroed position"), Inline("Scores"), Inline("Weights: ").append(labels),
                           Inline("Context")};
            break;
        case InterventionKind::DeleteToken:
            tab.headers = {Inline("Deleted source token"), Inline("Recomputed states"), Inline("Context")};
            break;
    }
    if (has_readout) tab.headers.push_back(Inline("Readout ").math(Formula().name("r")));
    const Value zero;
    for (const auto& row : ir.rows) {
        std::vector<Inline> cells;
        cells.push_back(row.position == 0 ? Inline("None") : position_cell(src, row.position));
        switch (ir.spec.kind) {
            case InterventionKind::RemoveState:
                cells.push_back(Inline().vector(row.trace.weights.values_or(zero)));
                break;
            case InterventionKind::ZeroScore:
                cells.push_back(Inline().vector(row.trace.scores.values_or(zero)));
                cells.push_back(Inline().vector(row.trace.weights.values_or(zero)));
                break;
            case InterventionKind::DeleteToken: {
                Formula states;
                for (std::size_t j = 0; j < row.states.rows(); ++j) {
                    if (j > 0) states.op(Formula::Op::Semicolon);
                    states.vector(row.states.row(j));
                }
                cells.push_back(Inline().math(states));
                break;
            }
        }
        cells.push_back(Inline().vector(row.trace.context));
        if (has_readout) cells.push_back(Inline().value(*row.trace.readout));
        tab.add_row(std::move(cells));
    }
    if (ir.spec.kind == InterventionKind::DeleteToken) {
        // Which recomputed states differ from the original ones at the same source position.
        for (const auto& row : ir.rows) {
            if (row.position == 0) continue;
            Inline note = Inline("Deleting ").append(position_cell(src, row.position)).text(": ");
            bool any = false;
            for (std::size_t j = 0; j < row.states.rows(); ++j) {
                const std::size_t original = j + 1 < row.position ? j : j + 1;
                const Vector before = src.states.row(original);
                const Vector after = row.states.row(j);
                if (before == after) continue;
                Vector change(after.size());
                for (std::size_t i = 0; i < after.size(); ++i) change[i] = after[i] - before[i];
                if (any) note.text("; ");
                any = true;
                note.append(position_cell(src, original + 1))
                    .text(" changes from ")
                    .vector(before)
                    .text(" to ")
                    .vector(after)
                    .text(" (by ")
                    .vector(change)
                    .text(")");
            }
            if (!any) note.text("no remaining state changes");
            tab.notes.push_back(note.text("."));
        }
    }
    if (!ir.spec.note.empty()) tab.notes.push_back(inline_markdown(ir.spec.note));
    doc.add(std::move(tab));
}

TableBlock costs_block(const CostResult& c) {
    TableBlock tab;
    const auto& in = c.costs.input;
    tab.caption = Inline(fmt::format("{}: n = {}, d = {}, T = {}, {} bytes per number", c.spec.name, in.positions,
                                     in.width, in.target_steps, in.bytes_per_number));
    tab.headers = {Inline("Quantity"), Inline("Count")};
    for (const auto& k : detail::cost_counts()) {
        tab.add_row({Inline(k.label), Inline(std::to_string(c.costs.*k.count))});
    }
    return tab;
}

Inline read_heading(const ReadResult& rr) {
    Inline h(fmt::format("Read {}: source {}, query {}", rr.spec.name, rr.spec.source,
                         rr.spec.query.name.empty() ? "" : rr.spec.query.name + " = "));
    h.vector(rr.spec.query.values);
    if (!rr.spec.remove.empty() || !rr.spec.zero.empty()) {
        std::string marks;
        for (auto p : rr.spec.remove) marks += fmt::format(" remove {}", p);
        for (auto p : rr.spec.zero) marks += fmt::format(" zero {}", p);
        h.text(" (" + marks.substr(1) + ")");
    }
    return h;
}

}  // namespace

TableBlock detail::read_table(const Source* source, const Memory& memory, const ReadTrace& t, ScoreRule rule) {
    return read_block(source, memory, t, rule);
}

Document report_document(const Report& rep, std::vector<FigureBlock> figures) {
    const Scenario& s = rep.scenario;
    Document doc;
    doc.title = s.title.empty() ? s.file : s.title;
    doc.add(Heading{1, Inline(doc.title)});
    doc.add(Paragraph{Inline().math(Formula()
                                        .name("a")
                                        .op(Formula::Op::Equals)
                                        .name("ln 2")
                                        .op(Formula::Op::Approx)
                                        .decimal(detail::approx(Value::ln2())))});
    if (!s.assumptions.empty()) {
        doc.add(Heading{2, Inline("Declared assumptions")});
        ItemList l;
        for (const auto& a : s.assumptions) l.items.push_back(inline_markdown(a));
        doc.add(std::move(l));
    }
    if (!s.sources.empty()) {
        doc.add(Heading{2, Inline("Encoder states")});
        add_sources(doc, s);
    }
    for (const auto& rr : rep.reads) {
        const Source& src = s.source(rr.spec.source);
        doc.add(Heading{2, read_heading(rr)});
        TableBlock tab = read_block(&src, src.states, rr.trace, s.rule);
        tab.number = rr.spec.number;
        tab.label = rr.spec.number.empty() ? "" : "tab:" + rr.spec.number;
        tab.caption = !rr.spec.caption.empty() ? inline_markdown(rr.spec.caption)
                                               : Inline("Read " + rr.spec.name + ": scores, exponentials and weights");
        TableBlock data = read_data(tab, rr.trace);
        doc.add(std::move(tab));
        doc.add(std::move(data));
        doc.add(
            read_summary(rr.trace, rr.spec.readout ? std::optional<Vector>(rr.spec.readout->values) : std::nullopt));
        if (!rr.spec.note.empty()) doc.add(Paragraph{inline_markdown(rr.spec.note)});
    }
    if (!rep.interventions.empty()) {
        doc.add(Heading{2, Inline("Interventions")});
        for (const auto& ir : rep.interventions) add_intervention(doc, rep, ir);
    }
    for (const auto& lr : rep.layers) {
        doc.add(Heading{2, Inline(fmt::format("Attention layer {}: sequence {}{}", lr.spec.name, lr.spec.sequence,
                                              lr.spec.memory.empty() ? "" : ", memory " + lr.spec.memory))});
        const auto& q = rep.scenario.sequence(lr.spec.sequence).tokens;
        const std::size_t first = doc.blocks.size();
        add_layer(doc, lr.trace, q, lr.spec.memory.empty() ? q : rep.scenario.sequence(lr.spec.memory).tokens);
        detail::number_tables(doc, first, lr.spec.number, lr.spec.caption);
        if (!lr.spec.note.empty()) doc.add(Paragraph{inline_markdown(lr.spec.note)});
    }
    for (const auto& ro : rep.rollouts) detail::add_rollout(doc, rep, ro, 2);
    if (!figures.empty()) {
        doc.add(Heading{2, Inline("Figures")});
        for (auto& f : figures) doc.add(std::move(f));
    }
    if (!rep.costs.empty()) {
        doc.add(Heading{2, Inline("Costs (logical counts under declared assumptions)")});
        for (const auto& c : rep.costs) doc.add(costs_block(c));
    }
    return doc;
}

std::function<void(std::ostream&)> json_report_writer(const Report& rep) {
    auto json = std::make_shared<detail::ReportJson>(rep);
    return [json](std::ostream& out) { json->write(out); };
}

Document read_document(const Memory& memory, const ReadTrace& trace, const std::optional<Vector>& readout) {
    Document doc;
    doc.title = "Attention read";
    TableBlock tab = read_block(nullptr, memory, trace, ScoreRule::Dot);
    tab.caption = Inline(fmt::format("A read over {} position{}: scores, exponentials and weights", memory.rows(),
                                     memory.rows() == 1 ? "" : "s"));
    TableBlock data = read_data(tab, trace);
    doc.add(std::move(tab));
    doc.add(std::move(data));
    doc.add(read_summary(trace, readout));
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

Document encoding_document(const Scenario& s, const std::vector<std::string>& tokens) {
    if (tokens.empty()) throw shape_error("no tokens given");
    Document doc;
    doc.title = "Encoder states";
    TableBlock tab = encoder_table(s, tokens, nullptr);
    tab.caption = Inline("Encoder states of ").token(tokens_text(tokens));
    doc.add(std::move(tab));
    return doc;
}

std::string render_encoding(const Scenario& s, const std::vector<std::string>& tokens, Format f,
                            const RenderOptions& options) {
    if (f == Format::Json) {
        if (tokens.empty()) throw shape_error("no tokens given");
        Matrix pre;
        const Matrix states = s.encode_tokens(tokens, &pre);
        detail::Json j;
        j["tokens"] = tokens;
        detail::Json pj = detail::Json::array();
        for (const auto& r : pre) {
            detail::Json row = detail::Json::array();
            for (const auto& x : r) row.push_back(to_ascii(x));
            pj.push_back(row);
        }
        j["pre_activations"] = pj;
        detail::Json st = detail::Json::array();
        for (const auto& row : states) st.push_back(detail::vector_json(row));
        j["states"] = st;
        return j.dump(2) + "\n";
    }
    return render(encoding_document(s, tokens), f, options);
}

}  // namespace exactattn
