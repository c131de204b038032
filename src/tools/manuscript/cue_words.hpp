// SPDX-License-Identifier: MIT
// exactattn internal: the words the binder reads as cues (the stems naming a quantity's field,
// the units after a count, linking and hypothetical words), the scores a number's cues give,
// and the phrase searches over the lower-cased text they are found with.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tools/manuscript/bind_text.hpp"

namespace exactattn::manuscript::binding {

struct FieldCue {
    std::string_view stem;
    std::vector<std::string> fields;
};

/// The stems naming a quantity's field ("weight" → weights, "score" → scores).
const std::vector<FieldCue>& field_cues();
/// The stems naming a layer's quantities beyond a read's (only when the scenario has layers).
const std::vector<FieldCue>& layer_field_cues();
/// Unit words after a count: "twelve dot products", "48 bytes", "100 source states".
const std::vector<FieldCue>& unit_cues();
/// The words that may stand between a quantity's name and a number word ("is", "becomes").
const std::set<std::string, std::less<>>& linking_words();
/// Words of a negated or hypothetical sentence (with the spaces around them that count).
const std::array<std::string_view, 15>& hypothetical_words();

struct Scores {
    std::map<int, double> entity;
    std::map<std::string, double> field;
    std::map<int, double> pos;  // position cue → weight (negative evidence handled in scoring)
    std::map<int, double> coord;
    std::map<int, double> row;
    std::map<int, double> head;  ///< a layer's head named
    std::map<int, double> qrow;  ///< a layer's query row named (the token that attends)
    std::string reason_entity, reason_field, reason_index;
    bool hypothetical = false;
    /// The operation whose operand it is ("scaled by 1/2", "divided by 7"): a factor of the
    /// computation, not the quantity the words before it name (empty: none).
    std::string operand;
    std::string foreign;  ///< the nearest reference names something the scenario does not compute
    /// The unit after it ("steps") is all that names a quantity: its context names nothing of the
    /// scenario (no entity, no field word, no source or query), so nothing is bound (empty: not so).
    std::string lone_unit;
    bool qualified = false;  ///< its unit has a word between ("two zero scores"): a count of a part
    /// A position's label stands between the nearest field word and the number ("a denominator
    /// of 6, and the star then takes 2/3"): the number is said of that position.
    bool label_after_field = false;
};

// Phrases found in a window of the lower-cased text.
bool has_phrase(const std::string& low, std::size_t b, std::size_t e, std::string_view phrase,
                std::size_t* at = nullptr, bool last = true);

// Where each phrase stands in a text, found once per phrase (sorted offsets): a search of a
// window around a number is then a binary search, not a read of the window once a number (a
// megabyte of numbers on one line cost 36 µs a number so).
class Occurrences {
  public:
    explicit Occurrences(const std::string& text) : text_(text) {}
    const std::vector<std::size_t>& of(std::string_view phrase) const {
        auto it = cache_.find(phrase);
        if (it == cache_.end()) {
            std::vector<std::size_t> at;
            if (!phrase.empty()) {
                for (std::size_t k = text_.find(phrase); k != std::string::npos; k = text_.find(phrase, k + 1))
                    at.push_back(k);
            }
            it = cache_.emplace(std::string(phrase), std::move(at)).first;
        }
        return it->second;
    }
    /// The offsets of `phrase` standing wholly inside [b, e), as a range of of(phrase).
    std::pair<const std::size_t*, const std::size_t*> within(std::string_view phrase, std::size_t b,
                                                             std::size_t e) const {
        const auto& at = of(phrase);
        const std::size_t* first = at.data();
        const std::size_t* last = at.data() + at.size();
        const std::size_t* lo = std::lower_bound(first, last, b);
        if (e < b + phrase.size()) return {lo, lo};
        const std::size_t* hi = std::upper_bound(lo, last, e - phrase.size());
        return {lo, hi};
    }
    bool any(std::string_view phrase, std::size_t b, std::size_t e) const {
        const auto [lo, hi] = within(phrase, b, e);
        return lo != hi;
    }

  private:
    const std::string& text_;
    mutable std::map<std::string, std::vector<std::size_t>, std::less<>> cache_;
};

// The text without spaces and math delimiters (`query $\left[1, 0\right]$` reads `query[1,0]`),
// with the offset in it of every offset of the text.
struct Compacted {
    std::string text;
    std::vector<std::size_t> at;  ///< at[k]: the offset in `text` of the text's offset k
    explicit Compacted(const std::string& s);
};

}  // namespace exactattn::manuscript::binding
