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
#include "report/decoder_report.hpp"
#include "report/read_report.hpp"
#include "report/report_json.hpp"
#include "scenario/pointer.hpp"

namespace exactattn {

// ---------------------------------------------------------------------------------------------
// Producers: what the report says, as a document (document.hpp renders it in every format).

namespace {

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
        std::vector<Inline> row = {src != nullptr ? detail::position_cell(*src, j + 1) : Inline(std::to_string(j + 1)),
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
            std::vector<Inline> row = {detail::position_cell(src, j + 1)};
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

// An intervention table's caption: the declared one, or what the kind does and the query.
Inline intervention_caption(const InterventionSpec& spec, const std::string& file) {
    if (!spec.caption.empty()) {
        return inline_markdown(spec.caption, detail::key_place(file, "interventions", spec.name, "caption"));
    }
    const Formula query(spec.query.values);
    Inline caption;
    switch (spec.kind) {
        case InterventionKind::RemoveState:
            caption.text(spec.name + ": frozen-memory deletion (remove-state) with query ").math(query);
            break;
        case InterventionKind::ZeroScore:
            caption.text(spec.name + ": score set to zero (zero-score) with query ").math(query);
            break;
        case InterventionKind::DeleteToken:
            caption.text(spec.name + ": input deletion with encoder recomputation (delete-token) with query ")
                .math(query);
            break;
    }
    return caption;
}

std::vector<Inline> intervention_headers(InterventionKind kind, const Inline& labels, bool has_readout) {
    std::vector<Inline> headers;
    switch (kind) {
        case InterventionKind::RemoveState:
            headers = {Inline("Removed position"), Inline("Weights: ").append(labels), Inline("New context")};
            break;
        case InterventionKind::ZeroScore:
            headers = {Inline("Zeroed position"), Inline("Scores"), Inline("Weights: ").append(labels),
                       Inline("Context")};
            break;
        case InterventionKind::DeleteToken:
            headers = {Inline("Deleted source token"), Inline("Recomputed states"), Inline("Context")};
            break;
    }
    if (has_readout) headers.push_back(Inline("Readout ").math(Formula().name("r")));
    return headers;
}

std::vector<Inline> intervention_cells(InterventionKind kind, const Source& src, const InterventionRow& row,
                                       bool has_readout) {
    const Value zero;
    std::vector<Inline> cells;
    cells.push_back(row.position == 0 ? Inline("None") : detail::position_cell(src, row.position));
    switch (kind) {
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
    return cells;
}

// Which recomputed states of a token deletion differ from the original ones at the same source
// position.
Inline deletion_note(const Source& src, const InterventionRow& row) {
    Inline note = Inline("Deleting ").append(detail::position_cell(src, row.position)).text(": ");
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
        note.append(detail::position_cell(src, original + 1))
            .text(" changes from ")
            .vector(before)
            .text(" to ")
            .vector(after)
            .text(" (by ")
            .vector(change)
            .text(")");
    }
    if (!any) note.text("no remaining state changes");
    return note.text(".");
}

void add_intervention(Document& doc, const Report& rep, const InterventionResult& ir) {
    const Source& src = rep.scenario.source(ir.spec.source);
    const bool has_readout = ir.spec.readout.has_value();
    TableBlock tab;
    tab.number = ir.spec.number;
    tab.label = ir.spec.number.empty() ? "" : "tab:" + ir.spec.number;
    const Inline labels = detail::position_names(src);
    tab.caption = intervention_caption(ir.spec, rep.scenario.file);
    tab.headers = intervention_headers(ir.spec.kind, labels, has_readout);
    for (const auto& row : ir.rows) tab.add_row(intervention_cells(ir.spec.kind, src, row, has_readout));
    if (ir.spec.kind == InterventionKind::DeleteToken) {
        for (const auto& row : ir.rows) {
            if (row.position != 0) tab.notes.push_back(deletion_note(src, row));
        }
    }
    if (!ir.spec.note.empty()) {
        tab.notes.push_back(
            inline_markdown(ir.spec.note, detail::key_place(rep.scenario.file, "interventions", ir.spec.name, "note")));
    }
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
        for (std::size_t i = 0; i < s.assumptions.size(); ++i) {
            l.items.push_back(
                inline_markdown(s.assumptions[i], detail::key_place(s.file, detail::pointer_join("/assumptions", i))));
        }
        doc.add(std::move(l));
    }
    if (!s.sources.empty()) {
        doc.add(Heading{2, Inline("Encoder states")});
        add_sources(doc, s);
    }
    for (const auto& rr : rep.reads) {
        const Source& src = s.source(rr.spec.source);
        doc.add(Heading{2, read_heading(rr)});
        TableBlock tab = detail::read_table(&src, src.states, rr.trace, s.rule);
        tab.number = rr.spec.number;
        tab.label = rr.spec.number.empty() ? "" : "tab:" + rr.spec.number;
        tab.caption =
            !rr.spec.caption.empty()
                ? inline_markdown(rr.spec.caption, detail::key_place(s.file, "reads", rr.spec.name, "caption"))
                : Inline("Read " + rr.spec.name + ": scores, exponentials and weights");
        TableBlock data = detail::read_data(tab, rr.trace);
        doc.add(std::move(tab));
        doc.add(std::move(data));
        doc.add(detail::read_summary(rr.trace,
                                     rr.spec.readout ? std::optional<Vector>(rr.spec.readout->values) : std::nullopt));
        if (!rr.spec.note.empty()) {
            doc.add(Paragraph{inline_markdown(rr.spec.note, detail::key_place(s.file, "reads", rr.spec.name, "note"))});
        }
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
        detail::number_tables(doc, first, lr.spec.number, lr.spec.caption,
                              detail::key_place(s.file, "layers", lr.spec.name, "caption"));
        if (!lr.spec.note.empty()) {
            doc.add(
                Paragraph{inline_markdown(lr.spec.note, detail::key_place(s.file, "layers", lr.spec.name, "note"))});
        }
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
