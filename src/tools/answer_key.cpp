// SPDX-License-Identifier: MIT
// exactattn: answer keys — derivation sentences generated from exact traces.
#include "exactattn/answer_key.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <memory>

#include "exactattn/check.hpp"
#include "exactattn/error.hpp"
#include "exactattn/linalg.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "tools/answer_sentences.hpp"
#include "tools/check/tokens.hpp"
#include "scenario/json.hpp"
#include "report/report_json.hpp"
#include "scenario/pointer.hpp"

namespace exactattn {

namespace {

using detail::Json;
using detail::layer_sentences;
using detail::say;
using detail::v;

// m × n as math.
Inline times(std::size_t m, std::size_t n) {
    return Inline().math(
        Formula().value(Value(static_cast<long>(m))).op(Formula::Op::Times).value(Value(static_cast<long>(n))));
}

// The readout's arithmetic: 2a/5 + 2(2a/5) = 6a/5.
Inline readout_math(const Vector& coeffs, const Vector& context, const Value& r) {
    Formula f = linear_combination(coeffs, [&](Formula& out, std::size_t i, bool scaled) {
        // After a coefficient every term is bracketed, 2(2a/5); alone only a negative or a sum.
        if (scaled || context[i].sign() < 0 || to_unicode(context[i]).find(' ') != std::string::npos) {
            out.op(Formula::Op::Open).value(context[i]).op(Formula::Op::Close);
        } else {
            out.value(context[i]);
        }
    });
    const bool one_term = std::count_if(coeffs.begin(), coeffs.end(), [](const Value& c) { return !c.is_zero(); }) == 1;
    const bool same = one_term && [&] {
        for (std::size_t i = 0; i < coeffs.size(); ++i) {
            if (!coeffs[i].is_zero()) return coeffs[i] == Value(1) && context[i].sign() >= 0 && context[i] == r;
        }
        return false;
    }();
    if (!same) f.op(Formula::Op::Equals).value(r);
    return Inline().math(f);
}

std::vector<Value> present(const Column& c) {
    std::vector<Value> out;
    for (std::size_t j = 0; j < c.size(); ++j) {
        if (auto x = c.at(j)) out.push_back(*x);
    }
    return out;
}

std::vector<Value> all_weights(const ReadTrace& t) { return t.weights.values_or(Value()); }

std::string positions_text(const Source* src, const std::vector<std::size_t>& ps) {
    std::string out;
    for (std::size_t i = 0; i < ps.size(); ++i) {
        const std::string label = src != nullptr ? src->position_label(ps[i]) : std::to_string(ps[i]);
        out += (i == 0 ? "" : i + 1 == ps.size() ? " and " : ", ") + label;
    }
    return out;
}

// Scores, exponentials, total, weights, context and readout of a read, said from its marks:
// a removal names the removed positions and lists scores over the remaining ones only, next to
// the weights in source order (0 for a removed position), so no list is read against another
// of a different length.
Inline read_sentences(const ReadTrace& t, const std::optional<NamedVector>& readout, const Source* src = nullptr) {
    std::vector<std::size_t> removed;
    std::vector<std::size_t> kept;
    std::vector<std::size_t> zeroed;
    for (std::size_t p = 0; p < t.marks.size(); ++p) {
        (t.marks[p] == Mark::Removed ? removed : kept).push_back(p + 1);
        if (t.marks[p] == Mark::Zeroed) zeroed.push_back(p + 1);
    }
    Inline out;
    if (!zeroed.empty()) {
        out.append(say("The score of ", positions_text(src, zeroed), " is set to zero, so ",
                       zeroed.size() == 1 ? "it keeps" : "each keeps", " exponential ", v(Value(1)), ". "));
    }
    if (removed.empty()) {
        out.append(say("Scores are ", v(present(t.scores)), ", exponentials ", v(present(t.exponentials)),
                       ", and the total is ", v(t.denominator), ". Weights are ", v(all_weights(t)), ". "));
    } else {
        out.append(say("With ", positions_text(src, removed), " removed, the scores of ", positions_text(src, kept),
                       " are ", v(present(t.scores)), ", their exponentials ", v(present(t.exponentials)),
                       ", and the total is ", v(t.denominator), ". Weights in source order, ", v(Value()),
                       removed.size() == 1 ? " for the removed position, are " : " for the removed positions, are ",
                       v(all_weights(t)), ". "));
    }
    out.append(say("The context is ", v(t.context)));
    if (t.readout && readout)
        out.append(say(", and the readout is ", readout_math(readout->values, t.context, *t.readout)));
    return out.text(".");
}

// Which remaining states the re-encoding changed (Exercise 3: "Explain which remaining state
// changes"): each kept position's state after the deletion against its state before it.
Inline changed_states(const Source& src, const InterventionRow& row) {
    Inline changed;
    std::vector<std::size_t> same;
    std::size_t count = 0;
    for (std::size_t p = 1, k = 0; p <= src.states.rows() && k < row.states.rows(); ++p) {
        if (p == row.position) continue;
        const Vector before = src.states.row(p - 1);
        const Vector after = row.states.row(k++);
        if (before == after) {
            same.push_back(p);
            continue;
        }
        changed.append(say(count++ == 0 ? "" : "; ", "the ", src.position_label(p), " state changes from ", v(before),
                           " to ", v(after)));
    }
    if (count == 0) return say(" (no remaining state changes: each is computed as before)");
    Inline out = say(" (").append(changed);
    if (!same.empty()) {
        out.append(
            say(", while ", positions_text(&src, same), same.size() == 1 ? " keeps its state" : " keep their states"));
    }
    return out.text(")");
}

Inline row_sentence(const Report& rep, const InterventionResult& ir, const InterventionRow& row) {
    const Source& src = rep.scenario.source(ir.spec.source);
    const std::string who = src.position_label(row.position);
    const ReadTrace& t = row.trace;
    Inline out;
    switch (ir.spec.kind) {
        case InterventionKind::RemoveState: {
            Inline kept;
            std::vector<Value> kept_weights;
            for (std::size_t p = 0; p < t.marks.size(); ++p) {
                if (t.marks[p] == Mark::Removed) continue;
                if (!kept.empty()) kept.text(" and ");
                kept.append(v(row.states.row(p)));
                kept_weights.push_back(*t.weights.at(p));
            }
            out = say("Removing the stored state ", who, " leaves ", kept, " with weights ", v(kept_weights),
                      " (total ", v(t.denominator), ")");
            break;
        }
        case InterventionKind::ZeroScore:
            out = say("Setting the score of ", who, " to zero keeps its exponential ", v(Value(1)), ": weights ",
                      v(all_weights(t)), " (total ", v(t.denominator), ")");
            break;
        case InterventionKind::DeleteToken: {
            Formula states;
            for (std::size_t p = 0; p < row.states.rows(); ++p) {
                if (p > 0) states.op(Formula::Op::Semicolon);
                states.vector(row.states.row(p));
            }
            out = say("Deleting the input token ", who, " and running the encoder again gives states ",
                      Inline().math(states), ", weights ", v(all_weights(t)));
            out.append(changed_states(src, row));
            break;
        }
    }
    out.append(say("; the context is ", v(t.context)));
    if (t.readout && ir.spec.readout) out.append(say(" and the readout ", v(*t.readout)));
    return out.text(".");
}

// What a removal or deletion does to the readout, from the numbers: "leaves the readout at a",
// "lowers it by a/3 to 2a/3", "raises it by 2a/15 to 4a/3".
Inline readout_effect(const Value& before, const Value& after) {
    const Value change = after - before;
    if (change.is_zero()) return say("leaves the readout at ", v(after));
    const bool up = change.sign() > 0;
    return say(up ? "raises" : "lowers", " the readout by ", v(up ? change : -change), " to ", v(after));
}

// Whether the largest weight identifies the removal that changes the readout most.
Inline ranking_sentence(const Report& rep, const InterventionResult& ir) {
    if (ir.rows.size() < 3 || !ir.spec.readout || ir.spec.kind == InterventionKind::ZeroScore) return {};
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
    for (std::size_t k = 1; k < ir.rows.size(); ++k) {
        const Value c = *ir.rows[k].trace.readout - *base.readout;
        if (*base.weights.at(ir.rows[k].position - 1) == top_weight) {
            top.push_back(ir.rows[k].position);
            if (top_row == 0) top_row = k;
        }
        if ((c.sign() < 0 ? -c : c) == most_change) {
            most.push_back(ir.rows[k].position);
        }
    }
    const std::string at = (top.size() == 1 ? "at " : "shared by ") + positions_text(&src, top);
    // Every row with the largest change, each with its effect; several are a tie, said as one.
    auto effect_of = [&](std::size_t p) {
        for (std::size_t k = 1; k < ir.rows.size(); ++k) {
            if (ir.rows[k].position == p) return readout_effect(*base.readout, *ir.rows[k].trace.readout);
        }
        return Inline();
    };
    Inline largest;
    for (std::size_t i = 0; i < most.size(); ++i) {
        largest.append(say(i == 0                 ? ""
                           : i + 1 == most.size() ? " and "
                                                  : ", ",
                           verb, " ", positions_text(&src, {most[i]}), " ", effect_of(most[i])));
    }
    if (most.size() > 1) {
        const std::string all = most.size() == 2 ? "both" : fmt::format("all {}", most.size());
        largest.append(say(fmt::format(": a tie, {} {}s move it by ", all, noun), v(most_change)));
    }
    for (std::size_t k = 1; k < ir.rows.size(); ++k) {
        const std::size_t p = ir.rows[k].position;
        if (std::find(top.begin(), top.end(), p) != top.end() && std::find(most.begin(), most.end(), p) != most.end()) {
            return say("Here the largest weight, ", v(top_weight), " ", at, ", also marks ",
                       most.size() > 1 ? "a " : "the ", noun, " that changes the readout most: ", largest, ".");
        }
    }
    const auto& tr = ir.rows[top_row];
    return say("The largest weight, ", v(top_weight), " ", at, ", does not identify the ", noun,
               " that changes the readout most: ", verb, " ", positions_text(&src, {tr.position}), " ",
               readout_effect(*base.readout, *tr.trace.readout), ", while ", largest,
               ". Attention weights alone do not rank causal effects on this output quantity.");
}

Inline cost_sentences(const Costs& c) {
    const auto& in = c.input;
    return say("The states contain ", times(in.positions, in.width),
               fmt::format(" = {} numbers, occupying ", c.stored_numbers), times(c.stored_numbers, in.bytes_per_number),
               fmt::format(" = {} bytes at {} bytes per number (a fixed context would store {} numbers, {} bytes). "
                           "{} reads require ",
                           c.stored_bytes, in.bytes_per_number, c.fixed_context_numbers, c.fixed_context_bytes,
                           in.target_steps),
               times(in.positions, in.target_steps),
               fmt::format(" = {} dot products, each with {} multiplication{} and {} addition{}, plus {} exponentials "
                           "and {} divisions. The encoder still makes {} sequential updates and the decoder {}.",
                           c.dot_products, c.multiplications_per_dot_product,
                           c.multiplications_per_dot_product == 1 ? "" : "s", c.additions_per_dot_product,
                           c.additions_per_dot_product == 1 ? "" : "s", c.exponentials, c.divisions,
                           c.sequential_encoder_steps, c.sequential_decoder_steps));
}

// A quantity printed by check.hpp in the notation of a math form (MathML: its Unicode text).
Inline judged(const Judgement& j, std::string (*text)(const Judgement&, Notation)) {
    return Inline().math(Formula().custom([j = std::make_shared<Judgement>(j), text](const MathStyle& style) {
        switch (style.form) {
            case MathForm::Latex:
                return text(*j, Notation::Latex);
            case MathForm::Ascii:
                return text(*j, Notation::Ascii);
            case MathForm::MathML: {
                std::string e;
                for (char c : text(*j, Notation::Unicode)) {
                    e += c == '<' ? std::string("&lt;") : c == '&' ? std::string("&amp;") : std::string(1, c);
                }
                return "<mtext>" + e + "</mtext>";
            }
            default:
                return text(*j, Notation::Unicode);
        }
    }));
}

// A token answer is set apart in quotes, so that a token such as `is` cannot be read as part of
// the sentence ("A learner's answer "is" is wrong"); a list is set apart by its brackets.
Inline quoted_tokens(const Inline& tokens, bool scalar) { return scalar ? say("\"", tokens, "\"") : tokens; }

Inline learner_sentence(const Judgement& j) {
    const Inline proposed =
        j.tokens ? quoted_tokens(detail::tokens_inline(detail::proposed_tokens(j.entries), j.scalar), j.scalar)
                 : judged(j, proposed_text);
    if (j.correct) return say("A learner's answer ", proposed, " is right.");
    Inline out =
        say("A learner's answer ", proposed, " is wrong (the exact answer is ",
            j.tokens ? quoted_tokens(detail::tokens_inline(j.exact_tokens, j.scalar), j.scalar) : judged(j, exact_text),
            ")");
    for (const auto& f : j.findings) out.text("; " + f);
    if (!j.mistake.empty()) out.text("; the mistake: " + j.mistake);
    return out.text(".");
}

// One decoder step: what it was fed, what it read, its state and its choice.
Inline step_sentence(const Decoder& d, const RegimeTrace& r, const DecoderStep& st) {
    Inline s = say(fmt::format("{} step {}: input ",
                               r.regime == Regime::TeacherForcing ? "Teacher forcing" : "Generation", st.step));
    s.token(st.input).text(", query ").append(v(st.query)).text(", weights ");
    s.append(v(st.read.weights.values_or(Value()))).text(", context ").append(v(st.read.context));
    s.text(", state ").append(v(st.state)).text(", output scores ").append(v(st.scores)).text("; ");
    if (st.tie()) {
        s.text("an exact tie between");
        for (std::size_t i = 0; i < st.argmax.size(); ++i) {
            s.text(i == 0 ? " " : (i + 1 == st.argmax.size() ? " and " : ", ")).token(d.vocabulary[st.argmax[i]].first);
        }
        s.text(st.chosen ? ", decided by vocabulary order: " : ", refused by the tie rule");
        if (st.chosen) s.token(st.chosen_token);
    } else {
        s.text("it chooses ").token(st.chosen_token);
    }
    if (st.reference) s.text(" (reference ").token(*st.reference).text(")");
    return s.text(".");
}

Inline rollout_sentence(const Decoder& d, const RolloutResult& r) {
    // The chosen tokens in quotes, as a token answer is (an end token "." would otherwise read as
    // the sentence's full stop: "generation chooses a blue key .."), a refused tie's step as "—",
    // then which ties were refused.
    auto list = [&d](const RegimeTrace& reg) {
        std::string out;
        for (const auto& x : reg.choices()) out += (out.empty() ? "" : " ") + x.value_or("—");
        Inline s = quoted_tokens(Inline().token(out), true);
        for (const auto& st : reg.steps) {
            if (st.chosen) continue;
            s.text(" (refusing the tie {");
            for (std::size_t i = 0; i < st.argmax.size(); ++i) {
                (i == 0 ? s : s.text(", ")).token(d.vocabulary[st.argmax[i]].first);
            }
            s.text(fmt::format("}} at step {})", st.step));
        }
        return s;
    };
    Inline s;
    if (r.teacher_forcing) s.text("Teacher forcing chooses ").append(list(*r.teacher_forcing)).text("; ");
    s.text("generation chooses ").append(list(r.generation)).text(".");
    if (r.divergence.prefix_step) {
        s.text(fmt::format(" Generation leaves the reference at step {}.", *r.divergence.prefix_step));
    }
    if (r.divergence.choice_step) {
        s.text(fmt::format(" The two regimes' choices first differ at step {}.", *r.divergence.choice_step));
    }
    return s;
}

// A report quantity as math: a value, a row, or a matrix's rows separated by semicolons; tokens
// as tokens; anything else (a flag) as its JSON text.
Inline quantity(const Json& j) {
    if (j.is_string()) {
        const std::string t = j.get<std::string>();
        try {
            return v(parse_value(t));
        } catch (const Error&) {
            return Inline().token(t);
        }
    }
    if (j.is_array()) {
        Formula f;
        bool rows = false;
        for (const auto& x : j) rows = rows || x.is_array();
        if (!rows && std::all_of(j.begin(), j.end(), [](const Json& x) { return x.is_string(); })) {
            Vector vec;
            for (const auto& x : j) {
                try {
                    vec.push_back(parse_value(x.get<std::string>()));
                } catch (const Error&) {
                    return Inline().token(j.dump());
                }
            }
            return v(vec);
        }
        Inline out;
        for (std::size_t i = 0; i < j.size(); ++i) out.text(i == 0 ? "" : "; ").append(quantity(j[i]));
        return out;
    }
    return Inline().code(j.dump());
}

// What a run-report pointer names, derived as the exercise references are (the layer, read,
// intervention row, rollout step or cost case it points into), or its value: the answer of an
// exercise that gives only a variation's parts. Nothing for a pointer that names nothing (the
// `variants` command refuses it).
std::vector<Inline> pointer_sentences(const Report& rep, detail::ReportJson& doc, const std::string& pointer) {
    const Json* value = nullptr;
    try {
        value = &doc.at(pointer, Location{});
    } catch (const Error&) {
        return {};
    }
    const auto seg = detail::pointer_parts(pointer).value_or(std::vector<std::string>{});
    std::string rest;
    for (std::size_t k = 2; k < seg.size(); ++k) rest += "/" + seg[k];
    if (seg.size() >= 2 && seg[0] == "layers" && seg[1].find('/') == std::string::npos) {
        return layer_sentences(rep, seg[1] + rest);
    }
    if (seg.size() >= 2 && seg[0] == "reads") {
        const auto& rr = rep.read(seg[1]);
        return {read_sentences(rr.trace, rr.spec.readout, &rep.scenario.source(rr.spec.source))};
    }
    if (seg.size() >= 2 && seg[0] == "costs") return {cost_sentences(rep.cost(seg[1]).costs)};
    if (seg.size() >= 4 && seg[0] == "interventions" && seg[2] == "rows") {
        const auto& ir = rep.intervention(seg[1]);
        const auto& row = ir.rows.at(std::stoul(seg[3]));
        return {row.position == 0 ? read_sentences(row.trace, ir.spec.readout) : row_sentence(rep, ir, row)};
    }
    if (seg.size() >= 5 && seg[0] == "rollouts" && seg[3] == "steps" && seg[4] != "0") {
        const auto& rr = rep.rollout(seg[1]);
        const RegimeTrace& reg = seg[2] == "teacher-forcing" ? *rr.teacher_forcing : rr.generation;
        return {step_sentence(*rep.scenario.decoder, reg, reg.steps.at(std::stoul(seg[4]) - 1))};
    }
    return {say("The quantity at ", Inline().code(pointer), " is ", quantity(*value), ".")};
}

struct Answer {
    const Exercise* exercise;
    std::vector<Inline> sentences;
};

// Where the exercise's `key` is written: `/exercises/<i>/key` of the scenario file.
Location exercise_place(const Scenario& s, const Exercise& ex, const char* key) {
    const auto i = static_cast<std::size_t>(&ex - s.exercises.data());
    return detail::key_place(s.file, detail::pointer_join(detail::pointer_join("/exercises", i), key));
}

std::vector<Answer> build(const Report& rep) {
    std::vector<Answer> out;
    for (const auto& ex : rep.scenario.exercises) {
        Answer a{&ex, {}};
        for (const auto& name : ex.reads) {
            const auto& rr = rep.read(name);
            Inline sentence;
            if (ex.reads.size() > 1) sentence = say("For query ", v(rr.spec.query.values), ": ");
            a.sentences.push_back(
                sentence.append(read_sentences(rr.trace, rr.spec.readout, &rep.scenario.source(rr.spec.source))));
        }
        for (const auto& ref : ex.interventions) {
            // "<name>" or "<name>/rows/<k>" (checked when the scenario was loaded).
            const auto slash = ref.find('/');
            const auto& ir = rep.intervention(ref.substr(0, slash));
            if (slash != std::string::npos) {
                const auto& row = ir.rows.at(std::stoul(ref.substr(slash + 6)));
                a.sentences.push_back(row.position == 0 ? read_sentences(row.trace, ir.spec.readout)
                                                        : row_sentence(rep, ir, row));
            } else {
                for (const auto& row : ir.rows) {
                    if (row.position > 0) a.sentences.push_back(row_sentence(rep, ir, row));
                }
                Inline r = ranking_sentence(rep, ir);
                if (!r.empty()) a.sentences.push_back(std::move(r));
            }
        }
        for (const auto& name : ex.costs) a.sentences.push_back(cost_sentences(rep.cost(name).costs));
        for (const auto& ref : ex.rollouts) {
            // "<name>" or "<name>/<regime>/steps/<k>" (checked when the scenario was run).
            const auto slash = ref.find('/');
            const auto& rr = rep.rollout(ref.substr(0, slash));
            if (slash == std::string::npos) {
                a.sentences.push_back(rollout_sentence(*rep.scenario.decoder, rr));
                continue;
            }
            const bool tf = ref.compare(slash, 17, "/teacher-forcing/") == 0;
            const RegimeTrace& reg = tf ? *rr.teacher_forcing : rr.generation;
            const std::size_t k = std::stoul(ref.substr(ref.rfind('/') + 1));
            a.sentences.push_back(step_sentence(*rep.scenario.decoder, reg, reg.steps.at(k - 1)));
        }
        std::vector<std::string> said;  // a head's projections, said once for all its rows
        for (const auto& ref : ex.layers) {
            for (auto& sentence : layer_sentences(rep, ref)) {
                std::string text = render_inline(sentence, Format::Text);
                if (std::find(said.begin(), said.end(), text) != said.end()) continue;
                said.push_back(std::move(text));
                a.sentences.push_back(std::move(sentence));
            }
        }
        for (const auto& name : ex.learner_answers) {
            for (const auto& la : rep.scenario.learner_answers) {
                if (la.name == name) a.sentences.push_back(learner_sentence(judge(rep, la)));
            }
        }
        // An exercise that names nothing but a variation is answered from its parts.
        if (a.sentences.empty() && ex.variation) {
            detail::ReportJson doc(rep);
            // Two parts in one row derive it once.
            for (const auto& part : ex.variation->parts) {
                for (auto& sentence : pointer_sentences(rep, doc, part.at)) {
                    std::string text = render_inline(sentence, Format::Text);
                    if (std::find(said.begin(), said.end(), text) != said.end()) continue;
                    said.push_back(std::move(text));
                    a.sentences.push_back(std::move(sentence));
                }
            }
        }
        if (!ex.explanation.empty()) {
            a.sentences.push_back(inline_markdown(ex.explanation, exercise_place(rep.scenario, ex, "explanation")));
        }
        out.push_back(std::move(a));
    }
    return out;
}

}  // namespace

Document answers_document(const Report& rep) {
    const Scenario& s = rep.scenario;
    Document doc;
    doc.title = "Answer key: " + (s.title.empty() ? s.file : s.title);
    doc.add(Heading{1, Inline(doc.title)});
    if (s.exercises.empty()) doc.add(Paragraph{Inline("This scenario declares no exercises.")});
    for (const auto& a : build(rep)) {
        doc.add(Heading{2, Inline(fmt::format("Exercise {}{}", a.exercise->id,
                                              a.exercise->title.empty() ? "" : ": " + a.exercise->title))});
        doc.add(Quote{inline_markdown(a.exercise->prompt, exercise_place(s, *a.exercise, "prompt"))});
        Inline answer = Inline().strong("Answer.");
        for (const auto& sentence : a.sentences) answer.text(" ").append(sentence);
        doc.add(Paragraph{std::move(answer)});
    }
    return doc;
}

std::string render_answers(const Report& rep, Format f, const RenderOptions& options) {
    const Scenario& s = rep.scenario;
    if (!format_info(f).prose) throw usage_error("an answer key is prose: " + format_words(FormatKind::Prose));
    if (f != Format::Json) return render(answers_document(rep), f, options);
    Json all = Json::array();
    for (const auto& a : build(rep)) {
        Json j;
        j["id"] = a.exercise->id;
        j["title"] = a.exercise->title;
        j["prompt"] = a.exercise->prompt;
        Json sentences = Json::array();
        for (const auto& sentence : a.sentences) sentences.push_back(render_inline(sentence, Format::Text));
        j["answer"] = sentences;
        Json values = Json::object();
        for (const auto& name : a.exercise->reads) {
            const auto& rr = rep.read(name);
            values[name] = detail::trace_to_json(nullptr, rr.trace);
        }
        for (const auto& name : a.exercise->costs) values[name] = detail::costs_json(rep.cost(name).costs);
        if (!a.exercise->layers.empty()) {
            detail::ReportJson doc(rep);
            for (const auto& ref : a.exercise->layers) {
                const std::string name = ref.substr(0, ref.find('/'));
                values[ref] = doc.at(detail::pointer_join("/layers", name) + ref.substr(name.size()), Location{});
            }
        }
        j["values"] = values;
        all.push_back(j);
    }
    Json doc;
    doc["title"] = s.title;
    doc["exercises"] = all;
    return doc.dump(2) + "\n";
}

}  // namespace exactattn
