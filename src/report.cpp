// SPDX-License-Identifier: MIT
// exactattn: scenario runs and their reports.
#include "exactattn/report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "exactattn/error.hpp"
#include "exactattn/print.hpp"
#include "json_io.hpp"
#include "report_json.hpp"

namespace exactattn {

// ---------------------------------------------------------------------------------------------
// Cells in a format.

namespace detail {

// Terminal and Markdown tables use the unicode form (√2 − 1), CSV and JSON the canonical
// ascii form, LaTeX math mode.
Notation notation_of(Format f) {
    switch (f) {
        case Format::Text:
        case Format::Markdown: return Notation::Unicode;
        case Format::Latex: return Notation::Latex;
        default: return Notation::Ascii;
    }
}

std::string cell(const Value& v, Format f) {
    return f == Format::Latex ? "$" + to_latex(v) + "$" : to_string(v, notation_of(f));
}

std::string cell(const Vector& v, Format f) {
    return f == Format::Latex ? "$" + to_string(v, Notation::Latex) + "$" : to_string(v, notation_of(f));
}

std::string text_cell(const std::string& s, Format f) { return f == Format::Latex ? latex_escape(s) : s; }

std::string approx(const Value& v) { return v.is_zero() ? "0" : to_fixed(v, 6); }

std::string approx(const Vector& v) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) out += (i > 0 ? ", " : "") + approx(v[i]);
    return out + "]";
}

std::string readout_formula(const Vector& coeffs) {
    std::string out;
    for (std::size_t i = 0; i < coeffs.size(); ++i) {
        const Value& c = coeffs[i];
        if (c.is_zero()) continue;
        const std::string var = fmt::format("c_{}", i + 1);
        std::string term;
        const bool neg = c.sign() < 0;
        const Value mag = neg ? -c : c;
        if (mag == Value(1)) term = var;
        else if (mag.is_rational() && mag.rational().get_den() == 1) term = to_ascii(mag) + var;
        else term = "(" + to_unicode(mag) + ")" + var;
        if (out.empty()) out = (neg ? "-" : "") + term;
        else out += (neg ? " - " : " + ") + term;
    }
    return out.empty() ? "0" : out;
}

std::vector<Value> column_values(const Column& c, const Value& absent) {
    std::vector<Value> out(c.size());
    for (std::size_t j = 0; j < c.size(); ++j) out[j] = c.at(j).value_or(absent);
    return out;
}

}  // namespace detail

using detail::approx;
using detail::cell;
using detail::text_cell;

namespace {

// A factor in a derivation, parenthesised unless it is one plain token: "(−a)", "(1/2)",
// "(√2 − 1)" but "a", "2", "√2". Without parentheses "1/2/3/4" reads as 1/24.
std::string factor(const std::string& a) {
    const bool negative = a.rfind("−", 0) == 0 || a.rfind('-', 0) == 0;
    const bool compound = a.find_first_of(" /+×") != std::string::npos;
    return compound || negative ? "(" + a + ")" : a;
}

}  // namespace

namespace detail {

std::string dot_derivation(const std::vector<std::string>& q, const std::vector<std::string>& h,
                           const std::string& score, ScoreRule rule) {
    std::string s;
    for (std::size_t i = 0; i < q.size(); ++i) {
        s += (i > 0 ? " + " : "") + factor(q[i]) + " × " + factor(h[i]);
    }
    if (rule == ScoreRule::ScaledDot) s = "(" + s + ")/√" + std::to_string(q.size());
    return s + " = " + score;
}

std::string weight_derivation(const std::string& e, const std::string& den, const std::string& w) {
    const std::string ratio = factor(e) + "/" + factor(den);
    return ratio == w ? w : ratio + " = " + w;
}

std::string score_header(const std::string& query, ScoreRule rule, std::size_t d) {
    return rule == ScoreRule::ScaledDot ? fmt::format("Scaled dot product with {} (÷ √{})", query, d)
                                        : "Dot product with " + query;
}

}  // namespace detail

namespace {

// "1 × a + 0 × 0 = a" for small widths (the chapter's Table 14.1), the value otherwise.
std::string dot_cell(const Vector& q, const Vector& h, const Value& score, Format f, ScoreRule rule) {
    if (q.size() > 4 || f == Format::Latex) return cell(score, f);
    const Notation n = detail::notation_of(f);
    std::vector<std::string> qs;
    std::vector<std::string> hs;
    for (std::size_t i = 0; i < q.size(); ++i) {
        qs.push_back(to_string(q[i], n));
        hs.push_back(to_string(h[i], n));
    }
    return detail::dot_derivation(qs, hs, to_string(score, n), rule);
}

std::string weight_cell(const std::optional<Value>& e, const Value& den, const Value& w, Format f) {
    if (f != Format::Latex && e && e->is_rational() && den.is_rational() && den != Value(1)) {
        const Notation n = detail::notation_of(f);
        return detail::weight_derivation(to_string(*e, n), to_string(den, n), to_string(w, n));
    }
    return cell(w, f);
}

}  // namespace

Table read_table(const Source* source, const Memory& memory, const ReadTrace& t, Format f, ScoreRule rule) {
    Table tab;
    tab.headers = {"Source position", "State",
                   detail::score_header(f == Format::Latex ? to_string(t.query) : detail::cell(t.query, f), rule,
                                        t.query.size()),
                   "Exponential", "Normalized weight"};
    for (std::size_t j = 0; j < memory.rows(); ++j) {
        const std::string label = source != nullptr ? source->position_label(j + 1) : std::to_string(j + 1);
        const Vector h = memory.row(j);
        const auto score = t.scores.at(j);
        const auto e = t.exponentials.at(j);
        const Value w = t.weights.at(j).value_or(Value());
        std::string score_cell;
        std::string exp_cell;
        if (t.marks[j] == Mark::Removed) {
            score_cell = "removed";
            exp_cell = "—";
        } else if (t.marks[j] == Mark::Zeroed) {
            score_cell = "0 (score set to zero)";
            exp_cell = cell(*e, f);
        } else {
            score_cell = dot_cell(t.query, h, *score, f, rule);
            exp_cell = cell(*e, f);
        }
        tab.rows.push_back({text_cell(label, f), cell(h, f), text_cell(score_cell, f), exp_cell,
                            weight_cell(e, t.denominator, w, f)});
    }
    return tab;
}

namespace {

std::string read_summary(const ReadTrace& t, const std::optional<Vector>& readout, Format f) {
    const Value zero;
    std::vector<Value> scores;
    std::vector<Value> exps;
    for (std::size_t j = 0; j < t.marks.size(); ++j) {
        if (t.marks[j] == Mark::Removed) continue;
        scores.push_back(*t.scores.at(j));
        exps.push_back(*t.exponentials.at(j));
    }
    const bool latex = f == Format::Latex;
    const std::string arrow = latex ? "$\\to$" : "→";
    const std::string approx_sign = latex ? "$\\approx$" : "≈";
    std::string out;
    out += fmt::format("Scores {} {} exponentials {} {} divide by {}.\n", cell(scores, f), arrow, cell(exps, f),
                       arrow, cell(t.denominator, f));
    out += fmt::format("Weights {}.\n", cell(detail::column_values(t.weights, zero), f));
    out += fmt::format("Context {} {} {}.\n", cell(t.context, f), approx_sign, approx(t.context));
    if (t.readout && readout) {
        out += fmt::format("Readout r = {} = {} {} {}.\n", text_cell(detail::readout_formula(*readout), f),
                           cell(*t.readout, f), approx_sign, approx(*t.readout));
    }
    return out;
}

std::string paragraph(const std::string& s, Format f) {
    if (f == Format::Markdown) {
        std::string out;
        std::size_t start = 0;
        while (start < s.size()) {
            const auto nl = s.find('\n', start);
            out += s.substr(start, nl - start) + "  \n";
            if (nl == std::string::npos) break;
            start = nl + 1;
        }
        return out;
    }
    return s;
}

std::string heading(const std::string& s, Format f, int level = 2) {
    switch (f) {
        case Format::Markdown: return std::string(static_cast<std::size_t>(level), '#') + " " + s + "\n\n";
        case Format::Latex:
            return (level <= 1 ? "\\section*{" : "\\subsection*{") + latex_escape(s) + "}\n\n";
        case Format::Csv: return "# " + s + "\r\n";
        default: {
            const std::string rule(display_width(s), level <= 1 ? '=' : '-');
            return s + "\n" + rule + "\n";
        }
    }
}

std::string sources_section(const Scenario& s, Format f) {
    std::string out;
    for (const auto& src : s.sources) {
        Table tab;
        tab.caption = fmt::format("Source {}{}", src.name,
                                  src.tokens ? " (" + [&] {
                                      std::string t;
                                      for (const auto& tok : *src.tokens) t += (t.empty() ? "" : " ") + tok;
                                      return t;
                                  }() + ")"
                                             : std::string(" (memory given directly)"));
        if (f == Format::Latex) tab.caption = latex_escape(tab.caption);
        if (src.tokens) tab.headers = {"Position", "Token", "Embedding", "State"};
        else tab.headers = {"Position", "State"};
        for (std::size_t j = 0; j < src.states.rows(); ++j) {
            std::vector<std::string> row = {text_cell(src.position_label(j + 1), f)};
            if (src.tokens) {
                row.push_back(text_cell((*src.tokens)[j], f));
                row.push_back(cell(s.embedding((*src.tokens)[j]), f));
            }
            row.push_back(cell(src.states.row(j), f));
            tab.rows.push_back(std::move(row));
        }
        if (f == Format::Csv) out += "# " + tab.caption + "\r\n";
        out += tab.render(f) + "\n";
    }
    return out;
}

std::string intervention_section(const Report& rep, const InterventionResult& ir, Format f) {
    const Source& src = rep.scenario.source(ir.spec.source);
    const bool has_readout = ir.spec.readout.has_value();
    Table tab;
    const std::string query = to_string(ir.spec.query.values);
    const std::string labels = [&] {
        std::string l;
        for (std::size_t j = 1; j <= src.states.rows(); ++j) {
            std::string name = src.position_label(j);
            const auto colon = name.find(": ");
            if (colon != std::string::npos) name = name.substr(colon + 2);
            l += (l.empty() ? "" : ", ") + name;
        }
        return l;
    }();
    switch (ir.spec.kind) {
        case InterventionKind::RemoveState:
            tab.caption = fmt::format("{}: frozen-memory deletion (remove-state) with query {}", ir.spec.name, query);
            tab.headers = {"Removed position", "Weights: " + labels, "New context"};
            break;
        case InterventionKind::ZeroScore:
            tab.caption = fmt::format("{}: score set to zero (zero-score) with query {}", ir.spec.name, query);
            tab.headers = {"Zeroed position", "Scores", "Weights: " + labels, "Context"};
            break;
        case InterventionKind::DeleteToken:
            tab.caption = fmt::format("{}: input deletion with encoder recomputation (delete-token) with query {}",
                                      ir.spec.name, query);
            tab.headers = {"Deleted source token", "Recomputed states", "Context"};
            break;
    }
    if (has_readout) tab.headers.push_back("Readout r");
    if (f == Format::Latex) tab.caption = latex_escape(tab.caption);
    for (const auto& row : ir.rows) {
        std::vector<std::string> cells;
        const std::string who = row.position == 0 ? "None" : src.position_label(row.position);
        cells.push_back(text_cell(who, f));
        const Value zero;
        switch (ir.spec.kind) {
            case InterventionKind::RemoveState:
                cells.push_back(cell(detail::column_values(row.trace.weights, zero), f));
                break;
            case InterventionKind::ZeroScore:
                cells.push_back(cell(detail::column_values(row.trace.scores, zero), f));
                cells.push_back(cell(detail::column_values(row.trace.weights, zero), f));
                break;
            case InterventionKind::DeleteToken: {
                std::string states;
                for (std::size_t j = 0; j < row.states.rows(); ++j) {
                    states += (j > 0 ? "; " : "") + to_string(row.states.row(j), detail::notation_of(f));
                }
                cells.push_back(f == Format::Latex ? "$" + states + "$" : states);
                break;
            }
        }
        cells.push_back(cell(row.trace.context, f));
        if (has_readout) cells.push_back(cell(*row.trace.readout, f));
        tab.rows.push_back(std::move(cells));
    }
    std::string out;
    if (f == Format::Csv) out += "# " + tab.caption + "\r\n";
    out += tab.render(f);
    if (!ir.spec.note.empty()) out += "\n" + paragraph(text_cell(ir.spec.note, f) + "\n", f);
    return out + "\n";
}

Table costs_table(const CostResult& c, Format f) {
    Table tab;
    const auto& in = c.costs.input;
    tab.caption = fmt::format("{}: n = {}, d = {}, T = {}, {} bytes per number", c.spec.name, in.positions,
                              in.width, in.target_steps, in.bytes_per_number);
    tab.headers = {"Quantity", "Count"};
    const auto& k = c.costs;
    tab.rows = {
        {"Source-state numbers (n·d)", std::to_string(k.stored_numbers)},
        {"Source-state bytes", std::to_string(k.stored_bytes)},
        {"Fixed-context numbers (d)", std::to_string(k.fixed_context_numbers)},
        {"Fixed-context bytes", std::to_string(k.fixed_context_bytes)},
        {"Dot products (n·T)", std::to_string(k.dot_products)},
        {"Multiplications per dot product (d)", std::to_string(k.multiplications_per_dot_product)},
        {"Additions per dot product (d − 1)", std::to_string(k.additions_per_dot_product)},
        {"Scalar multiplications", std::to_string(k.multiplications)},
        {"Scalar additions", std::to_string(k.additions)},
        {"Exponentials", std::to_string(k.exponentials)},
        {"Divisions", std::to_string(k.divisions)},
        {"Sequential encoder updates", std::to_string(k.sequential_encoder_steps)},
        {"Sequential decoder updates", std::to_string(k.sequential_decoder_steps)},
    };
    if (f == Format::Latex) {
        tab.caption = latex_escape(tab.caption);
        for (auto& r : tab.rows) r[0] = latex_escape(r[0]);
    }
    return tab;
}

std::string render_document(const Report& rep, Format f) {
    const Scenario& s = rep.scenario;
    std::string out;
    const std::string title = s.title.empty() ? s.file : s.title;
    out += heading(title, f, 1);
    if (f != Format::Csv) {
        out += paragraph(f == Format::Latex ? "$a = \\ln 2 \\approx " + approx(Value::ln2()) + "$\n"
                                            : "a = ln 2 ≈ " + approx(Value::ln2()) + "\n",
                         f) +
               "\n";
    }
    if (!s.assumptions.empty() && f != Format::Csv) {
        out += heading("Declared assumptions", f);
        if (f == Format::Latex) out += "\\begin{itemize}\n";
        for (const auto& a : s.assumptions) {
            out += f == Format::Latex ? "\\item " + latex_escape(a) + "\n" : "- " + a + "\n";
        }
        if (f == Format::Latex) out += "\\end{itemize}\n";
        out += "\n";
    }
    if (!s.sources.empty()) {
        out += heading("Encoder states", f);
        out += sources_section(s, f);
    }
    for (const auto& rr : rep.reads) {
        const Source& src = s.source(rr.spec.source);
        std::string h = fmt::format("Read {}: source {}, query {}{}", rr.spec.name, rr.spec.source,
                                    rr.spec.query.name.empty() ? "" : rr.spec.query.name + " = ",
                                    to_string(rr.spec.query.values));
        if (!rr.spec.remove.empty() || !rr.spec.zero.empty()) {
            std::string marks;
            for (auto p : rr.spec.remove) marks += fmt::format(" remove {}", p);
            for (auto p : rr.spec.zero) marks += fmt::format(" zero {}", p);
            h += " (" + marks.substr(1) + ")";
        }
        out += heading(h, f);
        Table tab = read_table(&src, src.states, rr.trace, f, s.rule);
        out += tab.render(f) + "\n";
        if (f != Format::Csv) {
            out += paragraph(read_summary(rr.trace, rr.spec.readout ? std::optional<Vector>(rr.spec.readout->values)
                                                                   : std::nullopt,
                                          f),
                             f);
            if (!rr.spec.note.empty()) out += "\n" + paragraph(text_cell(rr.spec.note, f) + "\n", f);
            out += "\n";
        }
    }
    if (!rep.interventions.empty()) {
        out += heading("Interventions", f);
        for (const auto& ir : rep.interventions) out += intervention_section(rep, ir, f);
    }
    if (!rep.costs.empty()) {
        out += heading("Costs (logical counts under declared assumptions)", f);
        for (const auto& c : rep.costs) {
            const Table tab = costs_table(c, f);
            if (f == Format::Csv) out += "# " + tab.caption + "\r\n";
            out += tab.render(f) + "\n";
        }
    }
    while (out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') out.pop_back();
    return out;
}

}  // namespace

std::string render_report(const Report& rep, Format f) {
    if (f == Format::Json) return detail::report_to_json(rep).dump(2) + "\n";
    return render_document(rep, f);
}

std::string read_json(const Memory& memory, const ReadTrace& trace) {
    return detail::trace_json_text(memory, trace) + "\n";
}

std::string read_text(const Memory& memory, const ReadTrace& trace) {
    // The text of read_table(nullptr, memory, trace, Format::Text).text() and read_summary,
    // written from memoized strings with rows produced on demand, so that a read over 10^7
    // positions prints without holding its table or its values (the tests compare the two).
    detail::TraceStrings strings(memory, trace, Notation::Unicode);
    const std::size_t d = memory.width();
    std::vector<std::string> q(trace.query.size());
    for (std::size_t i = 0; i < q.size(); ++i) q[i] = to_unicode(trace.query[i]);
    const std::string den = to_unicode(trace.denominator);
    const bool den_one = trace.denominator == Value(1);
    std::vector<std::string> h(d);
    auto row = [&](std::size_t j, std::vector<std::string>& cells) {
        cells.assign(5, std::string());
        cells[0] = std::to_string(j + 1);
        std::string& state = cells[1];
        state = "[";
        for (std::size_t i = 0; i < d; ++i) {
            h[i] = strings.entry(j, i);
            if (i > 0) state += ", ";
            state += h[i];
        }
        state += "]";
        if (trace.marks[j] == Mark::Removed) {
            cells[2] = "removed";
            cells[3] = "—";
            cells[4] = "0";
            return;
        }
        const auto& r = strings.row(j);
        if (trace.marks[j] == Mark::Zeroed) {
            cells[2] = "0 (score set to zero)";
        } else if (q.size() > 4) {
            cells[2] = r.score;
        } else {
            cells[2] = detail::dot_derivation(q, h, r.score, ScoreRule::Dot);
        }
        cells[3] = r.exponential;
        cells[4] = r.rational && !den_one ? detail::weight_derivation(r.exponential, den, r.weight) : r.weight;
    };
    const std::vector<std::string> headers = {"Source position", "State",
                                              detail::score_header(detail::cell(trace.query, Format::Text),
                                                                   ScoreRule::Dot, trace.query.size()),
                                              "Exponential", "Normalized weight"};
    std::string out = text_table("", headers, memory.rows(), row);
    std::string scores = "[";
    std::string exps = "[";
    std::string weights = "[";
    bool first = true;
    for (std::size_t p = 0; p < trace.marks.size(); ++p) {
        if (p > 0) weights += ", ";
        if (trace.marks[p] == Mark::Removed) {
            weights += "0";
            continue;
        }
        const auto& r = strings.row(p);
        if (!first) {
            scores += ", ";
            exps += ", ";
        }
        first = false;
        scores += r.score;
        exps += r.exponential;
        weights += r.weight;
    }
    out += fmt::format("\nScores {}] → exponentials {}] → divide by {}.\n", scores, exps, den);
    out += fmt::format("Weights {}].\n", weights);
    out += fmt::format("Context {} ≈ {}.\n", detail::cell(trace.context, Format::Text), approx(trace.context));
    if (trace.readout) {
        out += fmt::format("Readout = {} ≈ {}.\n", to_unicode(*trace.readout), approx(*trace.readout));
    }
    return out;
}

std::string render_encoding(const Scenario& s, const std::vector<std::string>& tokens, Format f) {
    if (tokens.empty()) throw shape_error("no tokens given");
    const Matrix states = s.encode_tokens(tokens);
    if (f == Format::Json) {
        detail::Json j;
        j["tokens"] = tokens;
        detail::Json st = detail::Json::array();
        for (const auto& row : states) st.push_back(detail::vector_json(row));
        j["states"] = st;
        return j.dump(2) + "\n";
    }
    Table tab;
    tab.headers = {"Position", "Token", "Embedding", "State"};
    for (std::size_t j = 0; j < tokens.size(); ++j) {
        tab.rows.push_back({std::to_string(j + 1), text_cell(tokens[j], f), cell(s.embedding(tokens[j]), f),
                            cell(states[j], f)});
    }
    return tab.render(f);
}

}  // namespace exactattn
