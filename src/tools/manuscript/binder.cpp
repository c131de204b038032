// SPDX-License-Identifier: MIT
// exactattn: the binder of an unmarked manuscript's numbers (binder.hpp): the entities each
// paragraph names, the phrase searches over the text, and the score of a quantity against a
// number's cues.
#include "tools/manuscript/binder.hpp"

#include <algorithm>

namespace exactattn::manuscript::binding {

namespace {
// The text lower-cased with its line breaks read as spaces, for the phrase searches: a wrapped
// line does not split a phrase ("eight bytes a\nnumber", "400 dot\nproducts"), while a blank
// line (two spaces then) still ends every phrase at its paragraph. LaTeX's tie is a space
// ("Exercise~5" names Exercise 5). Offsets are unchanged.
std::string phrase_text(const std::string& s, ManuscriptFormat format) {
    std::string low = lower(s);
    for (auto& c : low) {
        if (c == '\n' || c == '\r' || c == '\t' || (c == '~' && format == ManuscriptFormat::Latex)) c = ' ';
    }
    return low;
}
}  // namespace

Binder::Binder(const Source& src, const std::string& s, Quantities& q)
    : src_(src),
      s_(s),
      low_(phrase_text(s, src.format)),
      occ_(low_),
      compact_(low_),
      compact_occ_(compact_.text),
      cat_(catalogue_of(q)),
      L_(layout_of(s, src.format)) {
    // The last entity each paragraph names, for the paragraphs after it in its section.
    for (std::size_t i = 0; i < cat_.entities.size(); ++i) {
        for (const auto& cue : cat_.entities[i].cues) {
            for (std::size_t k = low_.find(cue); k != std::string::npos; k = low_.find(cue, k + 1)) {
                const std::size_t r = k + cue.size();
                if (r < low_.size() &&
                    (digit(low_[r]) || (low_[r] == '.' && r + 1 < low_.size() && digit(low_[r + 1]))))
                    continue;
                if (k > 0 && (alpha(low_[k - 1]) ||
                              (alnum_end(cue) && (digit(low_[k - 1]) || low_[k - 1] == '-' || low_[k - 1] == '_'))))
                    continue;
                if (r < low_.size() && alnum_end(cue) &&
                    (alpha(low_[r]) || digit(low_[r]) || low_[r] == '-' || low_[r] == '_'))
                    continue;
                mentions_.emplace_back(k, static_cast<int>(i));
            }
        }
    }
    // A list item of an exercises or answers section names its exercise.
    for (const auto& [at, number] : L_.list_items) {
        const Section* sec = section_at(at);
        if (sec == nullptr || number.empty()) continue;
        if (sec->heading.find("exercise") == std::string::npos && sec->heading.find("answer") == std::string::npos)
            continue;
        const std::string cue = "exercise " + number;
        for (std::size_t i = 0; i < cat_.entities.size(); ++i) {
            const auto& c = cat_.entities[i].cues;
            if (std::find(c.begin(), c.end(), cue) != c.end()) items_.emplace_back(at, static_cast<int>(i));
        }
    }
    std::sort(mentions_.begin(), mentions_.end());
    std::sort(items_.begin(), items_.end());
}

const Section* Binder::section_at(std::size_t k) const {
    const auto it = std::upper_bound(L_.sections.begin(), L_.sections.end(), k,
                                     [](std::size_t x, const Section& sec) { return x < sec.b; });
    return it == L_.sections.begin() ? nullptr : &*(it - 1);
}

// has_phrase on the text, by the phrase's offsets: the last (or first) occurrence of
// `phrase` inside [b, e) that starts a word and does not run into a number.
bool Binder::phrase(std::size_t b, std::size_t e, std::string_view p, std::size_t* at, bool last) const {
    const auto [lo, hi] = occ_.within(p, b, e);
    auto fits = [&](std::size_t k) {
        const bool left = k == 0 || !alpha(low_[k - 1]);
        const std::size_t r = k + p.size();
        const bool right =
            r >= low_.size() ||
            !(digit(low_[r]) || (digit(p.back()) && low_[r] == '.' && r + 1 < low_.size() && digit(low_[r + 1])));
        return left && right;
    };
    if (last) {
        for (const std::size_t* it = hi; it != lo; --it) {
            if (fits(*(it - 1))) {
                if (at != nullptr) *at = *(it - 1);
                return true;
            }
        }
        return false;
    }
    for (const std::size_t* it = lo; it != hi; ++it) {
        if (fits(*it)) {
            if (at != nullptr) *at = *it;
            return true;
        }
    }
    return false;
}

// Whether the label at `at` is preceded closely by a word of removal ("removing key",
// "delete the source key token", "removing the highest-weight color state").
bool Binder::removal_before(std::size_t at) const {
    const std::string_view before = std::string_view(low_).substr(at > 32 ? at - 32 : 0, at > 32 ? 32 : at);
    return before.find("remov") != std::string_view::npos || before.find("delet") != std::string_view::npos ||
           before.find("zero") != std::string_view::npos || before.find("without") != std::string_view::npos;
}

// hypothetical() of the sentence [b, e), by the words' offsets.
bool Binder::hypothetical_at(std::size_t b, std::size_t e) const {
    for (const std::string_view w : hypothetical_words()) {
        const bool need_left = w.front() == ' ';
        const bool need_right = w.back() == ' ';
        const std::string_view core =
            w.substr(need_left ? 1 : 0, w.size() - (need_left ? 1 : 0) - (need_right ? 1 : 0));
        const auto [lo, hi] = occ_.within(core, b, e);
        for (const std::size_t* it = lo; it != hi; ++it) {
            const std::size_t k = *it;
            const bool left = !need_left || k == b || space(low_[k - 1]);  // a line end too
            const bool right = !need_right || k + core.size() == e || space(low_[k + core.size()]);
            if (left && right) return true;
        }
    }
    return false;
}

// Whether the word "query" at `at` names a row of a layer: an ordinal before it ("the first
// query") or a number after it ("query 3").
bool Binder::query_names_row(std::size_t at) const {
    std::size_t e = at + 5;
    if (e < low_.size() && low_[e] == 's') ++e;
    if (e + 1 < low_.size() && low_[e] == ' ' && digit(low_[e + 1])) return true;
    std::size_t p = at;
    while (p > 0 && low_[p - 1] == ' ') --p;
    std::size_t b = p;
    while (b > 0 && alpha(low_[b - 1])) --b;
    const std::string w = low_.substr(b, p - b);
    return w == "last" || std::ranges::find(ordinals(6), w) != ordinals(6).end();
}

int Binder::layer_count() const {
    return static_cast<int>(std::count_if(cat_.entities.begin(), cat_.entities.end(),
                                          [](const Entity& e) { return e.kind == EntityKind::Layer; }));
}

// Whether [b, e) holds nothing but spaces and math delimiters.
bool Binder::blank_between(std::size_t b, std::size_t e) const {
    for (std::size_t k = b; k < e && k < s_.size(); ++k) {
        if (!space(s_[k]) && s_[k] != '$' && s_[k] != '\\' && s_[k] != '[' && s_[k] != '(') return false;
    }
    return true;
}

double Binder::entity_score(const Scores& sc, const Item& it) const {
    auto of = [&sc](int e) {
        const auto x = sc.entity.find(e);
        return x == sc.entity.end() ? 0.0 : x->second;
    };
    const Entity& en = cat_.entities[static_cast<std::size_t>(it.entity)];
    double v = of(it.entity);
    if (en.kind == EntityKind::Intervention && it.row == 0 && en.same_read >= 0)
        v = std::max(v, of(en.same_read) - 0.5);
    if (en.kind == EntityKind::Source) {
        for (std::size_t i = 0; i < cat_.entities.size(); ++i) {
            const auto& r = cat_.entities[i];
            if (r.kind == EntityKind::Read && r.source == en.name) v = std::max(v, of(static_cast<int>(i)) - 0.5);
        }
    }
    if (en.kind == EntityKind::Constant || en.kind == EntityKind::Vocabulary) v = std::max(v, 4.0);
    if (en.kind == EntityKind::Layer && layer_count() == 1) v = std::max(v, 4.0);
    // The states of the scenario's only source need no name: "the sun state is [a,0]".
    if (en.kind == EntityKind::Source && cat_.source_names.size() == 1) v = std::max(v, 3.5);
    return v;
}

double Binder::score(const Scores& sc, const Item& it) const {
    const double e = entity_score(sc, it);
    const auto f = sc.field.find(it.field);
    if (e <= 0 || f == sc.field.end()) return -1;
    // Said of a position (a label between the field word and it), it is no quantity of a whole
    // read or row (a denominator, a context, a readout).
    if (sc.label_after_field && it.pos == 0 &&
        cat_.entities[static_cast<std::size_t>(it.entity)].kind != EntityKind::Cost)
        return -1;
    double v = e + f->second;
    auto index = [&v](const std::map<int, double>& cues, int have) {
        if (cues.empty() || have <= 0) return;
        const auto x = cues.find(have);
        if (x != cues.end()) {
            v += x->second;
        } else {
            v -= cues.begin()->second;
        }
    };
    index(sc.pos, it.pos);
    index(sc.coord, it.coord);
    index(sc.qrow, it.qrow);
    index(sc.head, it.head);

    if (it.row >= 0 && !sc.row.empty()) {
        const auto x = sc.row.find(it.row);
        v += x != sc.row.end() ? x->second : -sc.row.begin()->second;
    }
    return v;
}

}  // namespace exactattn::manuscript::binding
