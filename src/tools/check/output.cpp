// SPDX-License-Identifier: MIT
// exactattn: `check` — a judgement as a line of text and as JSON, and its quantities in a notation.
#include <fmt/format.h>

#include "exactattn/check.hpp"
#include "exactattn/print.hpp"
#include "scenario/json.hpp"
#include "tools/check/tokens.hpp"

namespace exactattn {

namespace {

// Cells as a quantity is written: the one cell of a scalar, `[a, b]`, or rows of `columns`
// cells `[[a, b], [c, d]]`.
std::string bracketed_cells(const std::vector<std::string>& cells, std::size_t columns, bool scalar) {
    if (scalar && cells.size() == 1) return cells[0];
    std::string out = "[";
    const std::size_t per = columns == 0 ? cells.size() + 1 : columns;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        if (columns > 0 && i % per == 0)
            out += i == 0 ? "[" : "], [";
        else if (i > 0)
            out += ", ";
        out += cells[i];
    }
    if (columns > 0 && !cells.empty()) out += "]";
    return out + "]";
}

}  // namespace

std::string quantity_text(const std::vector<std::optional<Value>>& values, std::size_t columns, bool scalar,
                          Notation n) {
    std::vector<std::string> cells;
    // The display form an author prints ((10√2 − 12)/7), not the canonical term list (#24).
    for (const auto& v : values) cells.push_back(v ? to_display(*v, n) : std::string("—"));
    return bracketed_cells(cells, columns, scalar);
}

std::string proposed_text(const Judgement& j, Notation n) {
    // Decimals, percentages and expressions in e as the learner wrote them (0.259921, not
    // 259921/1000000); exact forms in the notation; tokens as an answer writes them.
    if (j.tokens) return detail::tokens_text(detail::proposed_tokens(j.entries), j.scalar);
    std::vector<std::string> cells;
    for (std::size_t i = 0; i < j.proposed.size(); ++i) {
        const bool written = i < j.entries.size() && j.entries[i].form != AnswerEntry::Form::Exact;
        cells.push_back(written ? j.entries[i].text : to_display(j.proposed[i], n));
    }
    return bracketed_cells(cells, j.columns, j.scalar);
}

std::string exact_text(const Judgement& j, Notation n) {
    if (j.tokens) return detail::tokens_text(j.exact_tokens, j.exact_tokens.size() == 1 && j.scalar);
    return quantity_text(j.exact, j.columns, j.scalar, n);
}

std::string judgement_text(const Judgement& j) {
    std::string out = fmt::format("{}: {}: {}: proposed {}", j.name, j.correct ? "right" : "wrong", j.target,
                                  proposed_text(j, Notation::Unicode));
    if (!j.correct) out += fmt::format(", exact {}", exact_text(j, Notation::Unicode));
    if (!j.rule.empty() && j.rule != "exact value") out += "; rule: " + j.rule;  // JSON always names it
    for (const auto& f : j.findings) out += "; " + f;
    if (!j.correct && !j.mistake.empty()) out += "; mistake: " + j.mistake;
    if (!j.correct && j.mistake.empty()) {
        out += "; no known mistake reproduces it";
        if (!j.distance.empty()) out += fmt::format(" (it is {} from the exact value)", j.distance);
    }
    return out + ".";
}

namespace {

detail::Json judgement_json(const Judgement& j) {
    using detail::Json;
    Json proposed = Json::array();
    for (std::size_t i = 0; i < j.proposed.size(); ++i) {
        const bool written = i < j.entries.size() && j.entries[i].form != AnswerEntry::Form::Exact;
        proposed.push_back(written ? j.entries[i].text : to_ascii(j.proposed[i]));
    }
    if (j.tokens) {
        for (const auto& t : detail::proposed_tokens(j.entries)) proposed.push_back(t ? Json(*t) : Json(nullptr));
    }
    auto or_null = [](const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); };
    Json exact = Json::array();
    for (const auto& v : j.exact) exact.push_back(v ? Json(to_ascii(*v)) : Json(nullptr));
    for (const auto& tok : j.exact_tokens) exact.push_back(tok ? Json(*tok) : Json(nullptr));
    return {{"name", j.name},
            {"target", j.target},
            {"correct", j.correct},
            {"proposed", proposed},
            {"exact", exact},
            {"columns", j.columns},
            {"scalar", j.scalar},
            {"rule", or_null(j.rule)},
            {"findings", j.findings},
            {"mistake", or_null(j.mistake)},
            {"mistake_id", or_null(j.mistake_id)},
            {"feedback", j.feedback},
            {"distance", or_null(j.distance)},
            {"tokens", j.tokens}};
}

}  // namespace

std::string check_json(const std::vector<Judgement>& judgements) {
    detail::Json all = detail::Json::array();
    std::size_t right = 0;
    for (const auto& j : judgements) {
        all.push_back(judgement_json(j));
        right += j.correct ? 1 : 0;
    }
    detail::Json doc;
    doc["judgements"] = all;
    doc["right"] = right;
    doc["wrong"] = judgements.size() - right;
    return doc.dump(2) + "\n";
}

}  // namespace exactattn
