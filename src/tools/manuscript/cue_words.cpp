// SPDX-License-Identifier: MIT
// exactattn: the binder's cue words and phrase searches (cue_words.hpp).
#include "tools/manuscript/cue_words.hpp"

namespace exactattn::manuscript::binding {

const std::vector<FieldCue>& field_cues() {
    static const std::vector<FieldCue> cues = {
        {"weight", {"weights"}},
        {"probabilit", {"weights"}},
        {"score", {"scores"}},
        {"dot product", {"scores"}},
        {"exponential", {"exponentials"}},
        {"exponentiat", {"exponentials"}},
        {"denominator", {"denominator"}},
        {"total", {"denominator"}},
        {"divid", {"denominator"}},
        {"divide", {"denominator"}},
        {"normaliz", {"denominator"}},
        {"context", {"context"}},
        {"coordinate", {"context"}},
        {"readout", {"readout"}},
        {"state", {"states"}},
        {"query", {"query"}},
        {"probe", {"query"}},
        {"embedding", {"embedding"}},
        {"ln 2", {"a"}},
        {"ln2", {"a"}},
        {"\\ln", {"a"}},
    };
    return cues;
}

// The words that name a layer's quantities beyond a read's (only when the scenario has layers:
// Chapter 14's "key" is a position's label, not a field).
const std::vector<FieldCue>& layer_field_cues() {
    static const std::vector<FieldCue> cues = {
        {"keys", {"keys"}},      {"values", {"values"}},      {"output", {"outputs"}},
        {"attend", {"weights"}}, {"coordinate", {"outputs"}},
    };
    return cues;
}

// Unit words after a count: "twelve dot products", "48 bytes", "100 source states".
const std::vector<FieldCue>& unit_cues() {
    static const std::vector<FieldCue> cues = {
        {"bytes per", {"bytes_per_number"}},
        {"byte per", {"bytes_per_number"}},
        {"bytes a number", {"bytes_per_number"}},  // "at eight bytes a number"
        {"bytes for each number", {"bytes_per_number"}},
        {"byte", {"stored_bytes", "fixed_context_bytes"}},
        {"dot product", {"dot_products"}},
        {"dot-product", {"dot_products"}},
        {"multiplication", {"multiplications", "multiplications_per_dot_product"}},
        {"addition", {"additions", "additions_per_dot_product"}},
        {"exponentiation", {"exponential_count", "positions"}},
        {"exponential", {"exponential_count", "positions"}},
        {"division", {"divisions"}},
        {"number", {"stored_numbers", "fixed_context_numbers"}},
        {"source position", {"positions"}},
        {"source state", {"positions"}},
        {"encoder state", {"positions"}},
        {"position", {"positions"}},
        {"state", {"positions"}},
        {"score", {"positions"}},
        {"weight", {"positions"}},
        {"coordinate", {"width"}},
        {"output step", {"target_steps", "sequential_decoder_steps"}},
        {"target step", {"target_steps", "sequential_decoder_steps"}},
        {"step", {"target_steps"}},
        {"read", {"target_steps"}},
        {"update", {"sequential_encoder_steps", "sequential_decoder_steps"}},
    };
    return cues;
}

const std::set<std::string, std::less<>>& linking_words() {
    static const std::set<std::string, std::less<>> w = {
        "is",  "are",     "was",    "be",    "becomes", "become", "gives", "giving", "give",
        "of",  "by",      "equals", "equal", "now",     "then",   "still", "each",   "all",
        "the", "exactly", "at",     "to",    "remains", "stays",  "falls", "rises"};
    return w;
}

// Words of a negated or hypothetical sentence (with the spaces around them that count: the
// sentence's ends count as spaces).
const std::array<std::string_view, 15>& hypothetical_words() {
    static const std::array<std::string_view, 15> words{
        " would ",       " could ", " might ",  " not ",    "n't ",       " never ",    " unlike ", " instead ",
        " rather than ", " wrong ", " mistake", " learner", " incorrect", " proposed ", " if "};
    return words;
}

// Phrases found in a window of the lower-cased text.
bool has_phrase(const std::string& low, std::size_t b, std::size_t e, std::string_view phrase, std::size_t* at,
                bool last) {
    std::size_t found = std::string::npos;
    // Searched within [b, e) only: a search to the end of the text would read a megabyte without
    // a full stop once a number.
    const std::string_view window = std::string_view(low).substr(0, std::min(e, low.size()));
    for (std::size_t k = window.find(phrase, b); k != std::string::npos && k + phrase.size() <= e;
         k = window.find(phrase, k + 1)) {
        const bool left = k == 0 || !alpha(low[k - 1]);
        const std::size_t r = k + phrase.size();
        const bool right =
            r >= low.size() ||
            !(digit(low[r]) || (digit(phrase.back()) && low[r] == '.' && r + 1 < low.size() && digit(low[r + 1])));
        if (left && right) {
            found = k;
            if (!last) break;
        }
    }
    if (found == std::string::npos) return false;
    if (at != nullptr) *at = found;
    return true;
}

Compacted::Compacted(const std::string& s) {
    at.resize(s.size() + 1);
    for (std::size_t k = 0; k < s.size();) {
        at[k] = text.size();
        std::size_t skip = s[k] == ' ' ? 1 : 0;
        for (const std::string_view noise : {"$", "\\left", "\\right", "\\(", "\\)"}) {
            if (skip == 0 && s.compare(k, noise.size(), noise) == 0) skip = noise.size();
        }
        if (skip == 0) {
            text += s[k];
            skip = 1;
        }
        for (std::size_t i = 1; i < skip && k + i < s.size(); ++i) at[k + i] = text.size();
        k += skip;
    }
    at[s.size()] = text.size();
}

}  // namespace exactattn::manuscript::binding
