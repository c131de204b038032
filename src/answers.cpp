// SPDX-License-Identifier: MIT
// exactattn: answer keys — derivation sentences generated from exact traces.
#include "exactattn/answers.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "exactattn/check.hpp"
#include "exactattn/error.hpp"
#include "exactattn/print.hpp"
#include "json_io.hpp"
#include "report_json.hpp"

namespace exactattn {

namespace {

using detail::Json;

// Prints values and formulas for one output format.
class Writer {
public:
    explicit Writer(Format f) : f_(f), n_(f == Format::Latex ? Notation::Latex : Notation::Unicode) {}

    [[nodiscard]] std::string v(const Value& x) const { return math(to_string(x, n_)); }
    [[nodiscard]] std::string v(const std::vector<Value>& x) const { return math(to_string(x, n_)); }
    [[nodiscard]] std::string math(const std::string& s) const { return f_ == Format::Latex ? "$" + s + "$" : s; }
    [[nodiscard]] std::string text(const std::string& s) const { return f_ == Format::Latex ? latex_escape(s) : s; }
    [[nodiscard]] Notation notation() const { return n_; }
    [[nodiscard]] std::string times() const { return f_ == Format::Latex ? "\\times" : "×"; }

    // 2a/5 + 2(2a/5) = 6a/5
    [[nodiscard]] std::string readout(const Vector& coeffs, const Vector& context, const Value& r) const {
        std::string out;
        for (std::size_t i = 0; i < coeffs.size(); ++i) {
            const Value& c = coeffs[i];
            if (c.is_zero()) continue;
            const bool neg = c.sign() < 0;
            const Value mag = neg ? -c : c;
            std::string term = to_string(context[i], n_);
            if (mag != Value(1)) {
                const std::string wrapped = n_ == Notation::Latex ? "\\left(" + term + "\\right)" : "(" + term + ")";
                term = to_string(mag, n_) + wrapped;
            } else if (context[i].sign() < 0 || term.find(' ') != std::string::npos) {
                term = n_ == Notation::Latex ? "\\left(" + term + "\\right)" : "(" + term + ")";
            }
            const std::string minus = n_ == Notation::Latex ? "-" : "−";
            if (out.empty()) out = (neg ? minus : "") + term;
            else out += (neg ? " " + minus + " " : std::string(" + ")) + term;
        }
        if (out.empty()) out = "0";
        const std::string total = to_string(r, n_);
        return math(out == total ? out : out + " = " + total);
    }

private:
    Format f_;
    Notation n_;
};

std::vector<Value> present(const Column& c) {
    std::vector<Value> out;
    for (std::size_t j = 0; j < c.size(); ++j) {
        if (auto x = c.at(j)) out.push_back(*x);
    }
    return out;
}

std::vector<Value> all_weights(const ReadTrace& t) { return detail::column_values(t.weights, Value()); }

std::string positions_text(const Writer& w, const Source* src, const std::vector<std::size_t>& ps) {
    std::string out;
    for (std::size_t i = 0; i < ps.size(); ++i) {
        const std::string label = src != nullptr ? src->position_label(ps[i]) : std::to_string(ps[i]);
        out += (i == 0 ? "" : i + 1 == ps.size() ? " and " : ", ") + w.text(label);
    }
    return out;
}

// Scores, exponentials, total, weights, context and readout of a read, said from its marks:
// a removal names the removed positions and lists scores over the remaining ones only, next to
// the weights in source order (0 for a removed position), so no list is read against another
// of a different length.
std::string read_sentences(const Writer& w, const ReadTrace& t, const std::optional<NamedVector>& readout,
                           const Source* src = nullptr) {
    std::vector<std::size_t> removed;
    std::vector<std::size_t> kept;
    std::vector<std::size_t> zeroed;
    for (std::size_t p = 0; p < t.marks.size(); ++p) {
        (t.marks[p] == Mark::Removed ? removed : kept).push_back(p + 1);
        if (t.marks[p] == Mark::Zeroed) zeroed.push_back(p + 1);
    }
    std::string out;
    if (!zeroed.empty()) {
        out += fmt::format("The score of {} is set to zero, so {} exponential 1. ", positions_text(w, src, zeroed),
                           zeroed.size() == 1 ? "it keeps" : "each keeps");
    }
    if (removed.empty()) {
        out += fmt::format("Scores are {}, exponentials {}, and the total is {}. Weights are {}. ",
                           w.v(present(t.scores)), w.v(present(t.exponentials)), w.v(t.denominator),
                           w.v(all_weights(t)));
    } else {
        out += fmt::format("With {} removed, the scores of {} are {}, their exponentials {}, and the total is {}. "
                           "Weights in source order, 0 for the removed position{}, are {}. ",
                           positions_text(w, src, removed), positions_text(w, src, kept), w.v(present(t.scores)),
                           w.v(present(t.exponentials)), w.v(t.denominator), removed.size() == 1 ? "" : "s",
                           w.v(all_weights(t)));
    }
    out += fmt::format("The context is {}", w.v(t.context));
    if (t.readout && readout) {
        out += fmt::format(", and the readout is {}", w.readout(readout->values, t.context, *t.readout));
    }
    return out + ".";
}

std::string row_sentence(const Writer& w, const Report& rep, const InterventionResult& ir,
                         const InterventionRow& row) {
    const Source& src = rep.scenario.source(ir.spec.source);
    const std::string who = w.text(src.position_label(row.position));
    const ReadTrace& t = row.trace;
    std::string out;
    switch (ir.spec.kind) {
        case InterventionKind::RemoveState: {
            std::vector<Value> kept_states;
            std::string kept;
            std::vector<Value> kept_weights;
            for (std::size_t p = 0; p < t.marks.size(); ++p) {
                if (t.marks[p] == Mark::Removed) continue;
                kept += (kept.empty() ? "" : " and ") + w.v(row.states.row(p));
                kept_weights.push_back(*t.weights.at(p));
            }
            out = fmt::format("Removing the stored state {} leaves {} with weights {} (total {})", who, kept,
                              w.v(kept_weights), w.v(t.denominator));
            break;
        }
        case InterventionKind::ZeroScore:
            out = fmt::format("Setting the score of {} to zero keeps its exponential 1: weights {} (total {})", who,
                              w.v(all_weights(t)), w.v(t.denominator));
            break;
        case InterventionKind::DeleteToken: {
            std::string states;
            for (std::size_t p = 0; p < row.states.rows(); ++p) {
                states += (p > 0 ? "; " : "") + w.v(row.states.row(p));
            }
            out = fmt::format("Deleting the input token {} and running the encoder again gives states {}, weights {}",
                              who, states, w.v(all_weights(t)));
            break;
        }
    }
    out += fmt::format("; the context is {}", w.v(t.context));
    if (t.readout && ir.spec.readout) out += fmt::format(" and the readout {}", w.v(*t.readout));
    return out + ".";
}

// What a removal or deletion does to the readout, from the numbers: "leaves the readout at a",
// "lowers it by a/3 to 2a/3", "raises it by 2a/15 to 4a/3".
std::string readout_effect(const Writer& w, const Value& before, const Value& after) {
    const Value change = after - before;
    if (change.is_zero()) return fmt::format("leaves the readout at {}", w.v(after));
    const bool up = change.sign() > 0;
    return fmt::format("{} the readout by {} to {}", up ? "raises" : "lowers", w.v(up ? change : -change), w.v(after));
}

// Whether the largest weight identifies the removal that changes the readout most.
std::string ranking_sentence(const Writer& w, const Report& rep, const InterventionResult& ir) {
    if (ir.rows.size() < 3 || !ir.spec.readout || ir.spec.kind == InterventionKind::ZeroScore) return "";
    const Source& src = rep.scenario.source(ir.spec.source);
    const ReadTrace& base = ir.rows[0].trace;
    const bool deletion = ir.spec.kind == InterventionKind::DeleteToken;
    const char* noun = deletion ? "deletion" : "removal";
    const char* verb = deletion ? "deleting" : "removing";
    // The largest weight (all positions sharing it) and the rows whose readout moves most.
    Value top_weight;
    Value most_change;
    for (std::size_t k = 1; k < ir.rows.size(); ++k) {
        const Value wk = *base.weights.at(ir.rows[k].position - 1);
        if (k == 1 || compare(wk, top_weight) > 0) top_weight = wk;
        const Value c = *ir.rows[k].trace.readout - *base.readout;
        const Value mag = c.sign() < 0 ? -c : c;
        if (k == 1 || compare(mag, most_change) > 0) most_change = mag;
    }
    std::vector<std::size_t> top;
    std::vector<std::size_t> most;
    std::size_t top_row = 0;
    std::size_t most_row = 0;
    for (std::size_t k = 1; k < ir.rows.size(); ++k) {
        const Value c = *ir.rows[k].trace.readout - *base.readout;
        if (*base.weights.at(ir.rows[k].position - 1) == top_weight) {
            top.push_back(ir.rows[k].position);
            if (top_row == 0) top_row = k;
        }
        if ((c.sign() < 0 ? -c : c) == most_change) {
            most.push_back(ir.rows[k].position);
            if (most_row == 0) most_row = k;
        }
    }
    const std::string at = top.size() == 1 ? fmt::format("at {}", positions_text(w, &src, top))
                                           : fmt::format("shared by {}", positions_text(w, &src, top));
    for (std::size_t k = 1; k < ir.rows.size(); ++k) {
        const std::size_t p = ir.rows[k].position;
        if (std::find(top.begin(), top.end(), p) != top.end() && std::find(most.begin(), most.end(), p) != most.end()) {
            return fmt::format("Here the largest weight, {} {}, also marks the {} that changes the readout most: "
                               "{} {} {}.",
                               w.v(top_weight), at, noun, verb, positions_text(w, &src, {p}),
                               readout_effect(w, *base.readout, *ir.rows[k].trace.readout));
        }
    }
    const auto& tr = ir.rows[top_row];
    const auto& mr = ir.rows[most_row];
    return fmt::format(
        "The largest weight, {} {}, does not identify the {} that changes the readout most: {} {} {}, while {} {} "
        "{}. Attention weights alone do not rank causal effects on this output quantity.",
        w.v(top_weight), at, noun, verb, positions_text(w, &src, {tr.position}),
        readout_effect(w, *base.readout, *tr.trace.readout), verb, positions_text(w, &src, {mr.position}),
        readout_effect(w, *base.readout, *mr.trace.readout));
}

std::string cost_sentences(const Writer& w, const Costs& c) {
    const auto& in = c.input;
    const std::string x = w.times();
    return fmt::format(
        "The states contain {} = {} numbers, occupying {} = {} bytes at {} bytes per number (a fixed context "
        "would store {} numbers, {} bytes). {} reads require {} = {} dot products, each with {} multiplication{} "
        "and {} addition{}, plus {} exponentials and {} divisions. The encoder still makes {} sequential updates "
        "and the decoder {}.",
        w.math(fmt::format("{} {} {}", in.positions, x, in.width)), c.stored_numbers,
        w.math(fmt::format("{} {} {}", c.stored_numbers, x, in.bytes_per_number)), c.stored_bytes, in.bytes_per_number,
        c.fixed_context_numbers, c.fixed_context_bytes, in.target_steps,
        w.math(fmt::format("{} {} {}", in.positions, x, in.target_steps)), c.dot_products,
        c.multiplications_per_dot_product, c.multiplications_per_dot_product == 1 ? "" : "s",
        c.additions_per_dot_product, c.additions_per_dot_product == 1 ? "" : "s", c.exponentials, c.divisions,
        c.sequential_encoder_steps, c.sequential_decoder_steps);
}

std::string learner_sentence(const Writer& w, const Judgement& j) {
    const std::string proposed = w.math(proposed_text(j, w.notation()));
    const std::string exact = w.math(exact_text(j, w.notation()));
    if (j.correct) return fmt::format("A learner's answer {} is right.", proposed);
    std::string out = fmt::format("A learner's answer {} is wrong (the exact answer is {})", proposed, exact);
    for (const auto& f : j.findings) out += "; " + w.text(f);
    if (!j.mistake.empty()) out += "; the mistake: " + w.text(j.mistake);
    return out + ".";
}

struct Answer {
    const Exercise* exercise;
    std::vector<std::string> sentences;
};

std::vector<Answer> build(const Report& rep, const Writer& w) {
    std::vector<Answer> out;
    for (const auto& ex : rep.scenario.exercises) {
        Answer a{&ex, {}};
        for (const auto& name : ex.reads) {
            const auto& rr = rep.read(name);
            std::string lead;
            if (ex.reads.size() > 1) lead = w.text(fmt::format("For query {}: ", to_string(rr.spec.query.values)));
            a.sentences.push_back(lead + read_sentences(w, rr.trace, rr.spec.readout,
                                                        &rep.scenario.source(rr.spec.source)));
        }
        for (const auto& ref : ex.interventions) {
            // "<name>" or "<name>/rows/<k>" (checked when the scenario was loaded).
            const auto slash = ref.find('/');
            const auto& ir = rep.intervention(ref.substr(0, slash));
            if (slash != std::string::npos) {
                const auto& row = ir.rows.at(std::stoul(ref.substr(slash + 6)));
                a.sentences.push_back(row.position == 0 ? read_sentences(w, row.trace, ir.spec.readout)
                                                        : row_sentence(w, rep, ir, row));
            } else {
                for (const auto& row : ir.rows) {
                    if (row.position > 0) a.sentences.push_back(row_sentence(w, rep, ir, row));
                }
                const std::string r = ranking_sentence(w, rep, ir);
                if (!r.empty()) a.sentences.push_back(r);
            }
        }
        for (const auto& name : ex.costs) a.sentences.push_back(cost_sentences(w, rep.cost(name).costs));
        for (const auto& name : ex.learner_answers) {
            for (const auto& la : rep.scenario.learner_answers) {
                if (la.name == name) a.sentences.push_back(learner_sentence(w, judge(rep, la)));
            }
        }
        if (!ex.explanation.empty()) a.sentences.push_back(w.text(ex.explanation));
        out.push_back(std::move(a));
    }
    return out;
}

}  // namespace

std::string render_answers(const Report& rep, Format f) {
    const Scenario& s = rep.scenario;
    if (f == Format::Json) {
        const Writer w(Format::Markdown);
        Json all = Json::array();
        for (const auto& a : build(rep, w)) {
            Json j;
            j["id"] = a.exercise->id;
            j["title"] = a.exercise->title;
            j["prompt"] = a.exercise->prompt;
            j["answer"] = a.sentences;
            Json values = Json::object();
            for (const auto& name : a.exercise->reads) {
                const auto& rr = rep.read(name);
                values[name] = detail::trace_to_json(nullptr, rr.trace);
            }
            for (const auto& name : a.exercise->costs) values[name] = detail::costs_json(rep.cost(name).costs);
            j["values"] = values;
            all.push_back(j);
        }
        Json doc;
        doc["title"] = s.title;
        doc["exercises"] = all;
        return doc.dump(2) + "\n";
    }
    if (f != Format::Markdown && f != Format::Latex) {
        throw usage_error("answers are written as markdown, latex or json");
    }
    const Writer w(f);
    std::string out;
    const std::string title = "Answer key: " + (s.title.empty() ? s.file : s.title);
    if (f == Format::Latex) {
        out += "\\section*{" + latex_escape(title) + "}\n\n";
    } else {
        out += "# " + title + "\n\n";
    }
    if (s.exercises.empty()) out += w.text("This scenario declares no exercises.") + "\n";
    for (const auto& a : build(rep, w)) {
        const std::string head = fmt::format("Exercise {}{}", a.exercise->id,
                                             a.exercise->title.empty() ? "" : ": " + a.exercise->title);
        if (f == Format::Latex) {
            out += "\\subsection*{" + latex_escape(head) + "}\n\n\\emph{" + latex_escape(a.exercise->prompt) +
                   "}\n\n\\paragraph{Answer.}";
            for (const auto& sentence : a.sentences) out += " " + sentence;
            out += "\n\n";
        } else {
            out += "## " + head + "\n\n> " + a.exercise->prompt + "\n\n**Answer.**";
            for (const auto& sentence : a.sentences) out += " " + sentence;
            out += "\n\n";
        }
    }
    while (out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') out.pop_back();
    return out;
}

}  // namespace exactattn
