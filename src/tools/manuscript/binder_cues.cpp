// SPDX-License-Identifier: MIT
// exactattn: the cues around a number of the prose (binder.hpp): the entities its sentence,
// paragraph, table and section name, the field its words, formula name, column or unit state,
// and the indexes (position, coordinate, row, head) its words give.
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "tools/manuscript/binder.hpp"
#include "tools/manuscript/cue_work.hpp"

namespace exactattn::manuscript::binding {

Scores Binder::cues_for(const Candidate& c) const {
    CueWork cw;
    cue_windows(c, cw);
    operation_cues(c, cw);
    entity_cues(c, cw);
    // Fields: a formula's name, a column header, a unit after a count, the words before.
    label_cues(c, cw);
    if (c.table >= 0) table_cues(c, cw);
    if (c.shape.entries < 0) unit_after_cues(c, cw);
    // The words before it in its sentence (nearest first), and in its paragraph (by how
    // often each is named). A number word takes only the name beside it (its unit, or the
    // quantity's name just before it).
    if (c.kind == Kind::Word) {
        word_name_cues(c, cw);
    } else {
        sentence_field_cues(c, cw);
        if (cat_.has_layers) layer_word_cues(c, cw);
        if (c.table < 0) paragraph_field_cues(cw);
    }
    narrow_fields(c, cw);
    lone_unit(c, cw);
    if (!cw.sc.lone_unit.empty()) return cw.sc;
    cost_case_cues(cw);
    foreign_reference(c, cw);
    if (cw.sc.field.empty()) return cw.sc;  // nothing names a quantity: no entity needs weighing
    reach_back(c, cw);
    modifier_cues(cw);
    if (cat_.has_layers) layer_cues(c, cw.sent, cw.reach, cw.sec_b, cw.sc);
    if (c.table < 0) {
        label_index_cues(c, cw);
        ordinal_index_cues(c, cw);
    }
    return cw.sc;
}

// The windows a number's cues are read in: its sentence and paragraph (each bounded, so that a
// megabyte without a full stop costs no more a number than a chapter does) and its section.
void Binder::cue_windows(const Candidate& c, CueWork& cw) const {
    Span& sent = cw.sent;
    Span& para = cw.para;
    sent = around(L_.sentence_starts, c.b, s_.size());
    para = around(L_.paragraph_starts, c.b, s_.size());
    sent.b = std::max(sent.b, c.b > 400 ? c.b - 400 : 0);
    sent.e = std::min(sent.e, c.e + 300);
    para.b = std::max(para.b, c.b > 1500 ? c.b - 1500 : 0);
    para.b = std::min(para.b, sent.b);
    cw.sec = section_at(c.b);
    cw.sec_b = std::max(cw.sec != nullptr ? cw.sec->b : 0, para.b > 4000 ? para.b - 4000 : 0);
    // A display formula that stands alone in its paragraph continues the sentence before it
    // when that sentence has no full stop ("The weights of head 2 are" / $$A = …$$).
    if (cat_.has_layers && c.kind == Kind::MathStatement && blank_between(para.b, c.b) && para.b > 0) {
        std::size_t p = para.b;
        while (p > 0 && space(s_[p - 1])) --p;
        if (p > 0 && s_[p - 1] != '.' && s_[p - 1] != '|' && s_[p - 1] != '}') {
            const Span prev = around(L_.paragraph_starts, p - 1, s_.size());
            sent.b = std::max(prev.b, c.b > 400 ? c.b - 400 : 0);
            para.b = std::min(para.b, sent.b);
        }
    }
}

// Whether its sentence is negated or hypothetical, and the operation whose operand it is
// ("scaled by 1/2", "divided by 7").
void Binder::operation_cues(const Candidate& c, CueWork& cw) const {
    Scores& sc = cw.sc;
    const Span& sent = cw.sent;
    sc.hypothetical = hypothetical_at(sent.b, sent.e);
    if (word_before_at(s_, c.b) == "by") {
        std::size_t k = c.b;
        while (k > 0 && (s_[k - 1] == ' ' || s_[k - 1] == '$')) --k;
        const std::string verb = word_before_at(s_, k - std::min<std::size_t>(k, 2));
        static const std::set<std::string, std::less<>> operations = {
            "scaled",     "scale",       "scales",  "scaling", "multiplied", "multiply",
            "multiplies", "multiplying", "divided", "divide",  "divides",    "dividing"};
        if (operations.contains(verb)) sc.operand = verb + " by";
    }
    // "the weights sum to 1", "[2/3, 1/3, 1/3], which sums to 4/3": the sum of what its sentence
    // lists, not the field it names (a sum of weights is no quantity of the report, and a sum
    // of exponentials is the denominator only when it is one): verified when it equals the
    // quantity that fits, else unbound, never wrong.
    {
        std::size_t k = c.b;
        while (k > 0 && (s_[k - 1] == ' ' || s_[k - 1] == '$')) --k;
        const std::string_view before = std::string_view(low_).substr(k > 24 ? k - 24 : 0, k > 24 ? 24 : k);
        for (const char* p : {" sum to", " sums to", " summing to", " summed to", " add up to", " adds up to",
                              " adding up to", " sum up to", " sums up to"}) {
            if (before.ends_with(p)) sc.operand = std::string(p + 1);
        }
    }
}

// Entities: named in the sentence, the paragraph, a table's caption, earlier in the section,
// the exercise of its list item, its section's number.
void Binder::entity_cues(const Candidate& c, CueWork& cw) const {
    const Span& sent = cw.sent;
    const Span& para = cw.para;
    const Section* sec = cw.sec;
    const std::size_t sec_b = cw.sec_b;
    bool& named_in_sentence = cw.named_in_sentence;
    bool& rows_are_positions = cw.rows_are_positions;
    auto first_at = [this](std::size_t k) {
        return std::lower_bound(mentions_.begin(), mentions_.end(), std::pair<std::size_t, int>{k, -1});
    };
    // An entity its own sentence names outranks one named earlier in its paragraph by more than
    // the margin within which an equal value verifies ("In Example 14.1 … In Example 14.2 the
    // color state takes weight 1/2" is said of Example 14.2, whose weight is 1/4).
    const auto sentence_names = [&] {
        for (auto it = first_at(sent.b); it != mentions_.end() && it->first < sent.e; ++it) return true;
        return false;
    }();
    for (auto it = first_at(para.b); it != mentions_.end() && it->first < sent.e; ++it) {
        const auto [at, e] = *it;
        if (at >= sent.b) {
            cw.give(e, at < c.b ? 7 : 6);
            named_in_sentence = true;
        } else {
            cw.give(e, sentence_names ? 4 : 5);
        }
    }
    // A table whose caption names reads and no intervention holds a row per position; an
    // intervention's table, a row per intervention (and its row label names a position too).
    if (c.table >= 0) {
        const auto& t = L_.tables[static_cast<std::size_t>(c.table)];
        bool reads = false;
        bool interventions = false;
        for (std::size_t i = 0; i < cat_.entities.size(); ++i) {
            for (const auto& cue : cat_.entities[i].cues) {
                if (!has_phrase(t.caption, 0, t.caption.size(), cue)) continue;
                cw.give(static_cast<int>(i), 7);
                // the caption is the cell's sentence: a query or source named in the paragraphs
                // before the table does not overrule the reads it names
                named_in_sentence = true;
                reads = reads || cat_.entities[i].kind == EntityKind::Read;
                interventions = interventions || cat_.entities[i].kind == EntityKind::Intervention;
            }
        }
        rows_are_positions = reads && !interventions;
    }
    // The entity named last before this paragraph in the section carries over.
    {
        const auto end = first_at(para.b);
        if (end != mentions_.begin() && (end - 1)->first >= sec_b) {
            const std::size_t last_at = (end - 1)->first;
            for (auto it = first_at(last_at); it != end; ++it) cw.give(it->second, 3.5);
        }
    }
    {  // the exercise of a list item (the item this number stands in)
        const auto end = std::upper_bound(items_.begin(), items_.end(), std::pair<std::size_t, int>{c.b, 1 << 30});
        auto it = end;
        while (it != items_.begin() && (it - 1)->first == (end - 1)->first) --it;
        for (; it != end; ++it) {
            if (it->first < sec_b) continue;
            const Span item = around(L_.paragraph_starts, it->first, s_.size());
            if (c.b >= item.b && c.b < item.e) {
                cw.give(it->second, 5);
                cw.named_in_item = true;
            }
        }
    }
    if (sec != nullptr && !sec->number.empty()) {
        for (std::size_t i = 0; i < cat_.entities.size(); ++i) {
            for (const auto& cue : cat_.entities[i].cues) {
                if (cue == "section " + sec->number) cw.give(static_cast<int>(i), 3);
            }
        }
    }
}

// A number said of a table, figure or example the scenario does not compute (the
// reference nearest it in its sentence names none of its entities): not bound.
void Binder::foreign_reference(const Candidate& c, CueWork& cw) const {
    Scores& sc = cw.sc;
    const Span& sent = cw.sent;
    {
        std::size_t best_d = std::string::npos;
        std::string nearest;
        for (const std::string_view word : {"table ", "figure ", "example ", "exercise "}) {
            const auto [lo, hi] = occ_.within(word, sent.b, sent.e);
            for (const std::size_t* it = lo; it != hi; ++it) {
                const std::size_t k = *it;
                std::size_t p = k + std::string_view(word).size();
                const std::size_t nb = p;
                while (p < sent.e && (digit(low_[p]) || (low_[p] == '.' && p + 1 < sent.e && digit(low_[p + 1])))) ++p;
                if (p == nb) continue;
                const std::size_t d = k > c.b ? k - c.b : c.b - k;
                if (d < best_d) {
                    best_d = d;
                    nearest = low_.substr(k, p - k);
                }
            }
        }
        if (!nearest.empty()) {
            bool known = false;
            for (const auto& en : cat_.entities) {
                known = known || std::find(en.cues.begin(), en.cues.end(), nearest) != en.cues.end();
            }
            for (const auto& sec2 : L_.sections) {
                known = known || (!sec2.number.empty() && nearest == "section " + sec2.number);
            }
            if (!known) sc.foreign = nearest;
        }
    }
}

// How far back a paragraph's level reaches: over up to three short paragraphs before it (the
// label lines of a figure or a list, "Read 1: q = [1,0]").
void Binder::reach_back(const Candidate& c, CueWork& cw) const {
    const Span& para = cw.para;
    const std::size_t sec_b = cw.sec_b;
    std::size_t& reach = cw.reach;
    reach = para.b;
    for (int back = 0; back < 6; ++back) {
        const auto it = std::lower_bound(L_.paragraph_starts.begin(), L_.paragraph_starts.end(), reach);
        if (it == L_.paragraph_starts.begin()) break;
        const std::size_t prev = *(it - 1);
        if (reach - prev > 120 || prev < sec_b || c.b - prev > 2000) break;
        reach = prev;
    }
}

// The sources named in [b, e) ("the red source", "the red").
std::set<int> Binder::sources_named(std::size_t b, std::size_t e) const {
    std::set<int> hit;
    for (std::size_t i = 0; i < cat_.source_names.size(); ++i) {
        if (phrase(b, e, cat_.source_names[i] + " source") || phrase(b, e, "the " + cat_.source_names[i]))
            hit.insert(static_cast<int>(i));
    }
    return hit;
}

// The queries named in [b, e): by name, ordinal, q_1 or c_1, "zero query", or its vector.
std::set<int> Binder::queries_named(std::size_t b, std::size_t e) const {
    std::set<int> hit;
    const auto ordinal = ordinals(4);
    for (std::size_t i = 0; i < cat_.query_names.size(); ++i) {
        const std::string name = lower(cat_.query_names[i]);
        bool h = phrase(b, e, name);
        if (i < ordinal.size()) h = h || phrase(b, e, std::string(ordinal[i]) + " query");
        if (name.size() == 2 && name[0] == 'q') {
            h = h || phrase(b, e, fmt::format("q_{}", name[1])) || phrase(b, e, fmt::format("q_{{{}}}", name[1])) ||
                phrase(b, e, fmt::format("c_{}", name[1])) || phrase(b, e, fmt::format("c_{{{}}}", name[1]));
        }
        if (name.find("zero") != std::string::npos) h = h || phrase(b, e, "zero query");
        const std::size_t cb = compact_.at[b];
        const std::size_t ce = compact_.at[std::max(b, e)];
        h = h || compact_occ_.any("query" + cat_.query_vectors[i], cb, ce) ||
            compact_occ_.any("q=" + cat_.query_vectors[i], cb, ce);
        if (h) hit.insert(static_cast<int>(i));
    }
    return hit;
}

// The kinds of intervention named in [b, e): 0 remove-state, 1 delete-token, 2 zero-score.
std::set<int> Binder::kinds_named(std::size_t b, std::size_t e) const {
    std::set<int> hit;
    auto named = [&](std::initializer_list<std::string_view> words) {
        return std::any_of(words.begin(), words.end(),
                           [&](std::string_view w) { return occ_.any(w, b, std::max(b, e)); });
    };
    if (named({"remov", "frozen"})) hit.insert(0);
    if (named({"delet", "re-encod", "recomput", "input token", "input key", "original-input"})) hit.insert(1);
    if (named({"zeroed", "score to zero"})) hit.insert(2);
    return hit;
}

// Modifiers: the source, the query and the kind of intervention named closest, for or against
// each entity.
void Binder::modifier_cues(CueWork& cw) const {
    Scores& sc = cw.sc;
    const Span& sent = cw.sent;
    const Span& para = cw.para;
    const std::size_t sec_b = cw.sec_b;
    bool& named_in_sentence = cw.named_in_sentence;
    std::size_t& reach = cw.reach;
    // A read or table named in the number's own sentence is not overruled by a source or query
    // named only in the paragraphs before it.
    auto level = [&](auto&& found, double ws, double wp, double wsec) -> std::pair<double, std::set<int>> {
        for (const auto& [b, e, w] :
             {std::tuple{sent.b, sent.e, ws}, std::tuple{reach, sent.b, named_in_sentence ? 0.0 : wp},
              std::tuple{sec_b, para.b, named_in_sentence ? 0.0 : wsec}}) {
            if (w == 0) break;
            std::set<int> hit = found(b, e);
            if (!hit.empty()) return {w, hit};
        }
        return {0.0, {}};
    };
    const auto [ws, sources] = level([this](std::size_t b, std::size_t e) { return sources_named(b, e); }, 4, 3, 1.5);
    const auto [wq, queries] = level([this](std::size_t b, std::size_t e) { return queries_named(b, e); }, 4, 3, 1);
    const auto [wk, kinds] = level([this](std::size_t b, std::size_t e) { return kinds_named(b, e); }, 3, 3, 1);
    for (std::size_t i = 0; i < cat_.entities.size(); ++i) {
        const auto& en = cat_.entities[i];
        double m = 0;
        if (!sources.empty() && !en.source.empty()) {
            const auto it = std::find(cat_.source_names.begin(), cat_.source_names.end(), lower(en.source));
            const int si = static_cast<int>(it - cat_.source_names.begin());
            m += sources.contains(si) ? ws : -ws;
        }
        if (!queries.empty() && !en.query.empty()) {
            const auto it = std::find(cat_.query_names.begin(), cat_.query_names.end(), en.query);
            const int qi = static_cast<int>(it - cat_.query_names.begin());
            m += queries.contains(qi) ? wq : -wq / 2;
        }
        if (en.kind == EntityKind::Intervention && !kinds.empty()) {
            const int ki = en.intervention == "remove-state" ? 0 : en.intervention == "delete-token" ? 1 : 2;
            m += kinds.contains(ki) ? wk : -wk;
        }
        if (m != 0) sc.entity[static_cast<int>(i)] += m;
    }
}

// Index cues in the sentence: a position's label (color, key), "first coordinate",
// "removing key" (an intervention's row), the place in a list.
// A position's label beside it, or a removal's row.
void Binder::label_index_cues(const Candidate& c, CueWork& cw) const {
    Scores& sc = cw.sc;
    const Span& sent = cw.sent;
    const Span& para = cw.para;
    std::size_t& field_at = cw.field_at;
    // A list of numbers runs through a field's positions in order ("the weights are 1/2, 1/4 and
    // 1/4"): a label elsewhere in its sentence ("scores the color state at a") pins none of them.
    const bool listed = c.list_index > 0 && c.list_size >= 2 && !c.in_cell_list;
    std::size_t best_at = 0;
    int best_pos = 0;
    double best_w = 0;
    std::string listed_reason;
    for (std::size_t i = 0; i < cat_.labels.size(); ++i) {
        std::size_t at = 0;
        if (phrase(sent.b, c.b, cat_.labels[i], &at) && (best_pos == 0 || at > best_at)) {
            best_at = at;
            best_pos = std::stoi(cat_.label_positions[i][0]);
            best_w = 4;
            // removing key, delete the color token: a row of an intervention
            if (removal_before(at)) {
                sc.row.clear();
                sc.row[best_pos] = 6;
                best_w = 0;
            }
        }
        if (!listed && phrase(c.e, std::min(sent.e, c.e + 40), cat_.labels[i], &at, false) && best_pos == 0) {
            best_pos = std::stoi(cat_.label_positions[i][0]);
            best_w = 2;
        }
    }
    // "scores the color state at a and the other two states at 0": a number said of the others
    // is not the label's.
    if (best_w >= 4 && (phrase(best_at, c.b, "other") || phrase(best_at, c.b, "remaining"))) {
        best_pos = 0;
        best_w = 0;
    }
    if (listed && best_w > 0) {
        // Only the labels just before the list count: as many as its numbers name them in order
        // ("the color and key weights are 1/2 and 1/4"); one names the first, and the rest take
        // the positions after it ("the color weight 1/2, 1/4 and 1/4").
        best_pos = 0;
        best_w = 0;
        const std::size_t lead = list_lead(c, sent.b);
        std::vector<std::pair<std::size_t, std::size_t>> named;  // (offset, label)
        for (std::size_t i = 0; i < cat_.labels.size(); ++i) {
            std::size_t at = 0;
            if (phrase(lead, c.list_b, cat_.labels[i], &at) && !removal_before(at)) named.emplace_back(at, i);
        }
        std::sort(named.begin(), named.end());
        const auto k = static_cast<std::size_t>(c.list_index - 1);
        if (!named.empty() && (named.size() == static_cast<std::size_t>(c.list_size) || named.size() == 1)) {
            const auto& [at, i] = named.size() == 1 ? named[0] : named[k];
            best_at = at;
            best_pos = std::stoi(cat_.label_positions[i][0]) + (named.size() == 1 ? c.list_index - 1 : 0);
            best_w = 4;
            if (named.size() == 1 && k > 0)
                listed_reason = fmt::format("\"{}\" before its list, place {}", cat_.labels[i], c.list_index);
        }
    }
    if (best_pos > 0 && best_w > 0) {
        sc.pos[best_pos] = best_w;
        sc.label_after_field = best_w >= 4 && best_at > field_at;
        const auto named = std::find_if(cat_.label_positions.begin(), cat_.label_positions.end(),
                                        [&](const auto& v) { return v[0] == std::to_string(best_pos); });
        if (!listed_reason.empty()) {
            sc.reason_index = listed_reason;
        } else if (named != cat_.label_positions.end()) {
            sc.reason_index = fmt::format("\"{}\" beside it",
                                          cat_.labels[static_cast<std::size_t>(named - cat_.label_positions.begin())]);
        }
    }
    // The removal an earlier sentence of the paragraph names ("delete the source key
    // token. The first state is [a,0].") holds for the sentences after it.
    const bool own_removal = occ_.any("remov", sent.b, c.b) || occ_.any("delet", sent.b, c.b);
    if (sc.row.empty() && !own_removal) {
        std::size_t last_at = 0;
        int last_pos = 0;
        for (std::size_t i = 0; i < cat_.labels.size(); ++i) {
            std::size_t at = 0;
            if (phrase(para.b, sent.b, cat_.labels[i], &at) && removal_before(at) && (last_pos == 0 || at > last_at)) {
                last_at = at;
                last_pos = std::stoi(cat_.label_positions[i][0]);
            }
        }
        if (last_pos > 0) sc.row[last_pos] = 4;
    }
}

// Where the words just before c's list start: back to a number, a comma, a semicolon, a colon, a
// full stop or the sentence's start.
std::size_t Binder::list_lead(const Candidate& c, std::size_t sent_b) const {
    std::size_t k = std::max(c.list_b, sent_b);
    while (k > sent_b && !digit(low_[k - 1]) && std::string_view(",;:.").find(low_[k - 1]) == std::string_view::npos)
        --k;
    return k;
}

// "the first coordinate"; "the first state", "the second score": a position. Of several
// ("the first weight is 1/7, the second weight is 2/7"), the one nearest before it.
// And the place in a list.
void Binder::ordinal_index_cues(const Candidate& c, CueWork& cw) const {
    Scores& sc = cw.sc;
    const Span& sent = cw.sent;
    const auto ordinal = ordinals(3);
    std::size_t coord_at = 0, pos_at = 0;
    int coord_k = 0, pos_k = 0;
    for (std::size_t i = 0; i < ordinal.size(); ++i) {
        const std::string o(ordinal[i]);
        for (const std::string& p : {o + " coordinate", o + " context coordinate"}) {
            std::size_t at = 0;
            if (phrase(sent.b, c.b, p, &at) && (coord_k == 0 || at > coord_at)) {
                coord_at = at;
                coord_k = static_cast<int>(i) + 1;
            }
        }
        for (const char* noun : {" state", " score", " weight", " exponential", " position"}) {
            std::size_t at = 0;
            if (phrase(sent.b, c.b, o + noun, &at) && (pos_k == 0 || at > pos_at)) {
                pos_at = at;
                pos_k = static_cast<int>(i) + 1;
            }
        }
    }
    // Ordinals joined before one noun ("the second and third weights", "the first, second and
    // third scores"): the phrase found is the last ordinal's; the first of them opens the list.
    for (bool joined = pos_k > 0; joined;) {
        joined = false;
        std::size_t k = pos_at;
        for (std::string_view sep : {" and ", ", ", " and", ","}) {
            if (k >= sep.size() && std::string_view(low_).substr(k - sep.size(), sep.size()) == sep) {
                k -= sep.size();
                break;
            }
        }
        while (k > 0 && low_[k - 1] == ' ') --k;
        for (std::size_t i = 0; i < ordinal.size() && k < pos_at; ++i) {
            const std::string_view o = ordinal[i];
            if (k >= sent.b + o.size() && std::string_view(low_).substr(k - o.size(), o.size()) == o &&
                (k == o.size() || !alpha(low_[k - o.size() - 1])) && static_cast<int>(i) + 1 < pos_k) {
                pos_k = static_cast<int>(i) + 1;
                pos_at = k - o.size();
                joined = true;
            }
        }
    }
    // An ordinal just before it, its noun left out ("the first weight is 2 − √2, and the second
    // √2 − 1"), names its position over any ordinal phrase earlier in the sentence.
    {
        const std::string w = word_before_at(s_, c.b);
        for (std::size_t i = 0; i < ordinal.size(); ++i) {
            if (w == ordinal[i]) {
                pos_k = static_cast<int>(i) + 1;
                pos_at = c.b;
            }
        }
    }
    // In a list, an ordinal pins the list's first number only when it stands just before the
    // list ("the second and third weights are"), and the rest take the positions after it.
    if (pos_k > 0 && c.list_index > 0 && c.list_size >= 2 && !c.in_cell_list)
        pos_k = pos_at >= list_lead(c, sent.b) && pos_at < c.list_b ? pos_k + c.list_index - 1 : 0;
    if (coord_k > 0) sc.coord[coord_k] = 3;
    if (pos_k > 0) sc.pos[pos_k] = 4;
    if (phrase(sent.b, c.b, "before deletion") || phrase(sent.b, c.b, "no intervention")) sc.row[0] = 5;
    if (c.list_index > 0) {
        // A list of three or more numbers names positions in order ("the states are
        // [0,0], [0,a], [0,0]"); a shorter one may skip one ("weights 2/3 and 1/3").
        const double w = c.list_size >= 3 ? 3 : 1;
        if (sc.pos.empty()) sc.pos[c.list_index] = w;
        if (sc.coord.empty()) sc.coord[c.list_index] = 1;
    }
}

}  // namespace exactattn::manuscript::binding
