// SPDX-License-Identifier: MIT
// exactattn: a rollout as JSON (/rollouts/<name>, docs/decoder.md) and as a document.
#include "exactattn/report.hpp"
#include "report/decoder_report.hpp"

#include <fmt/format.h>

#include "exactattn/print.hpp"
#include "report/read_report.hpp"
#include "report/report_json.hpp"
#include "scenario/pointer.hpp"

namespace exactattn {

namespace detail {

namespace {

Json optional_values(const Column& c) {
    Json a = Json::array();
    for (std::size_t p = 0; p < c.size(); ++p) {
        const auto v = c.at(p);
        a.push_back(v ? Json(to_ascii(*v)) : Json(nullptr));
    }
    return a;
}

// Chosen tokens with null where the tie rule refused (docs/decoder.md, Pointers).
Json choices_json(const std::vector<std::optional<std::string>>& tokens) {
    Json a = Json::array();
    for (const auto& t : tokens) a.push_back(t ? Json(*t) : Json(nullptr));
    return a;
}

Json tokens_json(const Decoder& d, const std::vector<std::size_t>& indices) {
    Json a = Json::array();
    for (auto i : indices) a.push_back(d.vocabulary[i].first);
    return a;
}

Json step_json(const Decoder& d, const DecoderStep& st) {
    Json j;
    j["step"] = st.step;
    j["input"] = st.input;
    j["query"] = vector_json(st.query);
    j["scores"] = optional_values(st.read.scores);
    j["exponentials"] = optional_values(st.read.exponentials);
    j["denominator"] = to_ascii(st.read.denominator);
    j["weights"] = vector_json(st.read.weights.values_or(Value()));
    j["context"] = vector_json(st.read.context);
    j["pre_activation"] = vector_json(st.pre_activation);
    j["state"] = vector_json(st.state);
    j["output_scores"] = vector_json(st.scores);
    if (st.distribution) {
        j["output_denominator"] = to_ascii(st.distribution->denominator);
        j["distribution"] = vector_json(st.distribution->weights.values_or(Value()));
    } else {
        j["distribution"] = nullptr;
        j["distribution_refused"] = st.refusal;
    }
    j["argmax"] = tokens_json(d, st.argmax);
    j["tie"] = st.tie();
    j["chosen"] = st.chosen ? Json(st.chosen_token) : Json(nullptr);
    if (st.reference) {
        j["reference"] = *st.reference;
        j["agrees"] = st.agrees();
        bool among = false;
        for (auto i : st.argmax) among = among || d.vocabulary[i].first == *st.reference;
        j["reference_is_argmax"] = among;
    }
    if (st.reference_probability) {
        j["reference_probability"] = to_ascii(*st.reference_probability);
        if (st.cross_entropy) j["cross_entropy"] = to_ascii(*st.cross_entropy);
        j["cross_entropy_decimal"] = st.cross_entropy_decimal;
        j["cross_entropy_rounded"] = !st.cross_entropy.has_value();
    }
    return j;
}

Json regime_json(const Decoder& d, const RegimeTrace& r) {
    Json j;
    Json steps = Json::array();
    Json start;
    start["step"] = 0;
    start["state"] = vector_json(r.initial);
    start["chosen"] = d.start;
    steps.push_back(start);
    for (const auto& st : r.steps) steps.push_back(step_json(d, st));
    j["steps"] = steps;
    j["tokens"] = choices_json(r.choices());
    j["stopped"] = r.stopped;
    j["costs"] = costs_json(r.costs);
    return j;
}

template <class T>
std::vector<T> prefix(const std::vector<T>& v, std::size_t n) {
    return {v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min(n, v.size()))};
}

// Tokens in a sentence, a refused step as "—" (the sentence then says which tie was refused).
std::string joined(const std::vector<std::optional<std::string>>& v) {
    std::string s;
    for (const auto& t : v) s += (s.empty() ? "" : " ") + (t ? *t : std::string("—"));
    return s;
}

std::vector<std::optional<std::string>> all_chosen(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

}  // namespace

Json rollout_to_json(const Report& rep, const RolloutResult& r) {
    const Decoder& d = *rep.scenario.decoder;
    Json j;
    j["source"] = r.spec.source;
    j["reference"] = r.spec.reference;
    if (r.teacher_forcing) j[regime_name(Regime::TeacherForcing)] = regime_json(d, *r.teacher_forcing);
    j[regime_name(Regime::Generation)] = regime_json(d, r.generation);
    Json div;
    div["prefix_step"] = r.divergence.prefix_step ? Json(*r.divergence.prefix_step) : Json(nullptr);
    div["choice_step"] = r.divergence.choice_step ? Json(*r.divergence.choice_step) : Json(nullptr);
    div["reference_prefix"] = nullptr;
    div["generated_prefix"] = nullptr;
    if (r.divergence.prefix_step) {
        const std::size_t k = *r.divergence.prefix_step;
        div["reference_prefix"] = prefix(r.spec.reference, k);
        div["generated_prefix"] = choices_json(prefix(r.generation.choices(), k));
    }
    j["divergence"] = div;
    return j;
}

namespace {

Inline tokens_inline(const std::vector<std::optional<std::string>>& v) { return Inline().token(joined(v)); }
Inline tokens_inline(const std::vector<std::string>& v) { return tokens_inline(all_chosen(v)); }

// "refused the tie {yes, no} at step 2": what a regime did at a step whose tie the rule refused.
Inline refused_tie(const Decoder& d, const DecoderStep& st) {
    Inline c("refused the tie {");
    for (std::size_t i = 0; i < st.argmax.size(); ++i)
        (i > 0 ? c.text(", ") : c).token(d.vocabulary[st.argmax[i]].first);
    return c.text(fmt::format("}} at step {}", st.step));
}

// The regime's choice at a step: its token, or the tie it refused.
Inline choice_inline(const Decoder& d, const DecoderStep& st) {
    return st.chosen ? Inline().token(st.chosen_token) : refused_tie(d, st);
}

// "Generation chooses: a — (stopped: tie refused); generation refused the tie {yes, no} at step 2."
Inline regime_summary(const Decoder& d, const RegimeTrace& r, const char* label, bool stopped) {
    Inline line = Inline(fmt::format("{} chooses: ", label)).append(tokens_inline(r.choices()));
    if (stopped) line.text(fmt::format(" (stopped: {})", r.stopped));
    for (const auto& st : r.steps) {
        if (!st.chosen) {
            line.text(r.regime == Regime::Generation ? "; generation " : "; teacher forcing ")
                .append(refused_tie(d, st));
        }
    }
    return line;
}

Inline chosen_cell(const Decoder& d, const DecoderStep& st) {
    Inline c;
    if (st.tie()) {
        std::vector<std::string> tied;
        for (auto i : st.argmax) tied.push_back(d.vocabulary[i].first);
        c.text("tie {");
        for (std::size_t i = 0; i < tied.size(); ++i) (i > 0 ? c.text(", ") : c).token(tied[i]);
        c.text("}");
        if (st.chosen)
            c.text(" → ").token(st.chosen_token).text(" (first in vocabulary order)");
        else
            c.text(": refused (tie rule)");
        return c;
    }
    return c.token(st.chosen_token);
}

Inline agreement_cell(const Decoder& d, const DecoderStep& st) {
    if (!st.reference) return Inline("—");
    if (st.agrees()) return Inline("yes");
    for (auto i : st.argmax) {
        if (d.vocabulary[i].first == *st.reference) return Inline("no (the reference is among the tied)");
    }
    return Inline("no");
}

TableBlock steps_table(const Decoder& d, const RegimeTrace& r) {
    TableBlock tab;
    tab.caption = Inline(fmt::format("{}: query, read, state and choice at each step", regime_name(r.regime)));
    tab.headers = {Inline("Step"),           Inline("Input"), Inline("Query"),  Inline("Weights"),   Inline("Context"),
                   Inline("Pre-activation"), Inline("State"), Inline("Chosen"), Inline("Reference"), Inline("Agrees")};
    for (const auto& st : r.steps) {
        tab.add_row({Inline(std::to_string(st.step)), Inline().token(st.input), Inline().vector(st.query),
                     Inline().vector(st.read.weights.values_or(Value())), Inline().vector(st.read.context),
                     Inline().vector(st.pre_activation), Inline().vector(st.state), chosen_cell(d, st),
                     st.reference ? Inline().token(*st.reference) : Inline("—"), agreement_cell(d, st)});
    }
    tab.notes.push_back(Inline("s_0 = ").vector(r.initial).text(fmt::format("; stopped: {}.", r.stopped)));
    return tab;
}

// A probability's decimal beside it: correctly rounded to `digits` places from the exact value
// (certified enclosures, docs/output.md), after "≈", or "=" when the decimal is the value itself
// (1/2 = 0.500000).
Inline decimal_cell(const Value& p, int digits) {
    const std::string d = to_fixed(p, digits);
    // Exact when p is a fraction whose denominator divides 10^digits.
    const bool exact = p.is_rational() && [&] {
        mpz_class power;
        mpz_ui_pow_ui(power.get_mpz_t(), 10, static_cast<unsigned long>(digits));
        return mpz_divisible_p(power.get_mpz_t(), p.rational().get_den_mpz_t()) != 0;
    }();
    const Formula shown = Formula().op(exact ? Formula::Op::Equals : Formula::Op::Approx).decimal(d);
    return Inline().math(Formula().custom([shown](const MathStyle& style) {
        std::string out = shown.render(style);  // " ≈ 0.3": the operator's spaces, not at a cell's start
        return out.erase(0, out.find_first_not_of(' '));
    }));
}

// A target token in its own cell; the end token says that it is one (a lone "." reads as
// punctuation of the table).
Inline target_token_cell(const Decoder& d, const std::string& token) {
    Inline c = Inline().token(token);
    if (d.end && *d.end == token) c.text(" (end)");
    return c;
}

// One row per step and target token: the step and the token in their own cells (a token is
// never a column header, which the list form of a wide table set at the end of the previous
// value's line), the output score, the probability, and its decimal to the rollout's digits.
TableBlock output_table(const Decoder& d, const RegimeTrace& r, bool cross_entropy, int digits) {
    TableBlock tab;
    tab.caption = Inline(fmt::format("{}: output scores and distribution (decimals correctly rounded to {} places)",
                                     regime_name(r.regime), digits));
    tab.headers = {Inline("Step"), Inline("Token"), Inline("Score"), Inline("Probability"), Inline("Decimal")};
    // One row a step and token, each made when it is printed (as a layer's cells are): a
    // distribution's probabilities are computed from its exponentials then, one cell at a time,
    // so that a rollout whose printing the budget stops never computes the rest (issue 32: 1024
    // steps over 60 tokens computed and held every probability, 470 MB, before printing any).
    const std::size_t tokens = d.vocabulary.size();
    tab.rows = tokens * r.steps.size();
    tab.row = [steps = &r.steps, dec = &d, tokens, digits](std::size_t j, const MathStyle&,
                                                           std::vector<Inline>& cells) {
        const auto& st = (*steps)[j / tokens];
        const std::size_t k = j % tokens;
        cells.clear();
        cells.emplace_back(std::to_string(st.step));
        cells.push_back(target_token_cell(*dec, dec->vocabulary[k].first));
        cells.push_back(Inline().value(st.scores[k]));
        if (!st.distribution || k >= st.distribution->weights.size()) {
            cells.emplace_back("refused");
            cells.emplace_back("—");
            return;
        }
        const Value p = st.distribution->weights.at(k).value_or(Value());
        cells.push_back(Inline().value(p));
        cells.push_back(decimal_cell(p, digits));
    };
    for (const auto& st : r.steps) {
        if (!st.distribution) {
            tab.notes.push_back(Inline(fmt::format("Step {}: no exact distribution: {}", st.step, st.refusal)));
        }
        if (cross_entropy && st.reference_probability) {
            Inline note = Inline(fmt::format("Step {}: p(", st.step)).token(*st.reference).text(") = ");
            note.value(*st.reference_probability).text("; cross-entropy −ln p ");
            if (st.cross_entropy) {
                note.text("= ").value(*st.cross_entropy).text(" ≈ " + st.cross_entropy_decimal);
            } else {
                note.text(fmt::format("≈ {} (correctly rounded to {} decimals; not exact)", st.cross_entropy_decimal,
                                      digits));
            }
            tab.notes.push_back(std::move(note));
        }
    }
    return tab;
}

TableBlock costs_table(const RegimeTrace& r) {
    TableBlock tab;
    tab.caption = Inline(fmt::format("{}: costs (logical counts)", regime_name(r.regime)));
    tab.headers = {Inline("Quantity"), Inline("Count")};
    const Costs& c = r.costs;
    tab.add_row({Inline("sequential decoder steps"), Inline(std::to_string(r.steps.size()))});
    tab.add_row({Inline("dot products (source positions × steps)"), Inline(std::to_string(c.dot_products))});
    tab.add_row({Inline("exponentials of the reads"), Inline(std::to_string(c.exponentials))});
    tab.add_row({Inline("divisions of the reads"), Inline(std::to_string(c.divisions))});
    return tab;
}

}  // namespace

void number_tables(Document& doc, std::size_t from, const std::string& number, const std::string& caption,
                   const Location& caption_place) {
    std::size_t k = 0;
    for (std::size_t b = from; b < doc.blocks.size(); ++b) {
        auto* tab = std::get_if<TableBlock>(&doc.blocks[b]);
        if (tab == nullptr) continue;
        ++k;
        if (!number.empty()) {
            tab->number = k == 1 ? number : fmt::format("{}.{}", number, k);
            tab->label = "tab:" + tab->number;
        }
        // The declared caption leads the first table's own ("Scores (head 1) (masked: —)"), which
        // says what the table shows; it does not replace it.
        if (k == 1 && !caption.empty()) {
            Inline declared = inline_markdown(caption, caption_place);
            const auto last = caption.find_last_not_of(' ');
            const char end = last == std::string::npos ? '.' : caption[last];
            declared.text(end == '.' || end == '!' || end == '?' || end == ':' ? " " : ": ");
            tab->caption = declared.append(tab->caption);
        }
    }
}

void add_rollout(Document& doc, const Report& rep, const RolloutResult& r, int level) {
    const Decoder& d = *rep.scenario.decoder;
    const Source& src = rep.scenario.source(r.spec.source);
    const std::size_t first = doc.blocks.size();
    doc.add(Heading{level, Inline(fmt::format("Rollout {}: source {}", r.spec.name, r.spec.source))});
    if (!r.spec.note.empty()) {
        doc.add(Paragraph{
            inline_markdown(r.spec.note, detail::key_place(rep.scenario.file, "rollouts", r.spec.name, "note"))});
    }
    Lines summary;
    if (!r.spec.reference.empty())
        summary.lines.push_back(Inline("Reference: ").append(tokens_inline(r.spec.reference)));
    if (r.teacher_forcing) summary.lines.push_back(regime_summary(d, *r.teacher_forcing, "Teacher forcing", false));
    summary.lines.push_back(regime_summary(d, r.generation, "Generation", true));
    if (r.divergence.prefix_step) {
        const std::size_t k = *r.divergence.prefix_step;
        summary.lines.push_back(Inline(fmt::format("Generation leaves the reference at step {}: reference prefix ", k))
                                    .append(tokens_inline(prefix(r.spec.reference, k)))
                                    .text(", generated prefix ")
                                    .append(tokens_inline(prefix(r.generation.choices(), k))));
    } else if (!r.spec.reference.empty()) {
        summary.lines.push_back(Inline("Generation follows the reference at every step."));
    }
    if (r.divergence.choice_step) {
        const std::size_t k = *r.divergence.choice_step;
        summary.lines.push_back(Inline(fmt::format("The regimes' choices part at step {}: teacher forcing ", k))
                                    .append(choice_inline(d, r.teacher_forcing->steps[k - 1]))
                                    .text(", generation ")
                                    .append(choice_inline(d, r.generation.steps[k - 1])));
    }
    doc.add(std::move(summary));
    if (r.teacher_forcing) {
        // Both regimes a step at a time: the input each was given, its read and its choice.
        TableBlock side;
        side.caption = Inline("Teacher forcing and generation side by side");
        side.headers = {Inline("Step"),      Inline("Reference"), Inline("TF input"),    Inline("TF weights"),
                        Inline("TF chosen"), Inline("Gen input"), Inline("Gen weights"), Inline("Gen chosen")};
        const auto& f = r.teacher_forcing->steps;
        const auto& g = r.generation.steps;
        for (std::size_t i = 0; i < std::max(f.size(), g.size()); ++i) {
            std::vector<Inline> row{Inline(std::to_string(i + 1)),
                                    i < r.spec.reference.size() ? Inline().token(r.spec.reference[i]) : Inline("—")};
            for (const auto* steps : {&f, &g}) {
                if (i < steps->size()) {
                    const auto& st = (*steps)[i];
                    row.push_back(Inline().token(st.input));
                    row.push_back(Inline().vector(st.read.weights.values_or(Value())));
                    row.push_back(chosen_cell(d, st));
                } else {
                    for (int k = 0; k < 3; ++k) row.push_back(Inline("—"));
                }
            }
            side.add_row(std::move(row));
        }
        doc.add(std::move(side));
    }
    for (const RegimeTrace* reg : {r.teacher_forcing ? &*r.teacher_forcing : nullptr, &r.generation}) {
        if (reg == nullptr) continue;
        doc.add(Heading{level + 1, Inline(fmt::format("{} ({})", regime_name(reg->regime), r.spec.name))});
        doc.add(steps_table(d, *reg));
        doc.add(output_table(d, *reg, r.spec.cross_entropy, r.spec.digits));
        for (const auto& st : reg->steps) {
            TableBlock read = read_table(&src, src.states, st.read, ScoreRule::Dot);
            read.caption =
                Inline(fmt::format("{} step {}: the read with q_{} = ", regime_name(reg->regime), st.step, st.step))
                    .vector(st.query);
            doc.add(std::move(read));
        }
        doc.add(costs_table(*reg));
    }
    number_tables(doc, first, r.spec.number, r.spec.caption,
                  key_place(rep.scenario.file, "rollouts", r.spec.name, "caption"));
}

}  // namespace detail

Document rollout_document(const Report& report, const RolloutResult& rollout) {
    Document doc;
    doc.title = fmt::format("Rollout {}", rollout.spec.name);
    detail::add_rollout(doc, report, rollout, 1);
    return doc;
}

std::string render_rollout(const Report& report, const RolloutResult& rollout, Format format,
                           const RenderOptions& options) {
    if (format == Format::Json) return detail::rollout_to_json(report, rollout).dump(2) + "\n";
    return render(rollout_document(report, rollout), format, options);
}

}  // namespace exactattn
