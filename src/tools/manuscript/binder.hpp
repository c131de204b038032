// SPDX-License-Identifier: MIT
// exactattn internal: the binder of an unmarked manuscript's numbers (docs/manuscript.md, "How
// audit binds a number"): the text, its layout and the report's catalogue, the cues it gathers
// around a number and the score of each quantity against them.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tools/manuscript/catalogue.hpp"
#include "tools/manuscript/cue_words.hpp"
#include "tools/manuscript/layout.hpp"
#include "tools/manuscript/marks.hpp"
#include "tools/manuscript/numbers.hpp"

namespace exactattn::manuscript::binding {

struct CueWork;

class Binder {
  public:
    Binder(const Source& src, const std::string& s, Quantities& q);

    const Catalogue& catalogue() const { return cat_; }
    const Layout& layout() const { return L_; }

    /// The section that holds offset k (nullptr before the first heading).
    const Section* section_at(std::size_t k) const;
    // has_phrase on the text, by the phrase's offsets: the last (or first) occurrence of
    // `phrase` inside [b, e) that starts a word and does not run into a number.
    bool phrase(std::size_t b, std::size_t e, std::string_view p, std::size_t* at = nullptr, bool last = true) const;
    // Whether the label at `at` is preceded closely by a word of removal ("removing key",
    // "delete the source key token", "removing the highest-weight color state").
    bool removal_before(std::size_t at) const;
    // hypothetical() of the sentence [b, e), by the words' offsets.
    bool hypothetical_at(std::size_t b, std::size_t e) const;
    /// The cues around the candidate c: the entities, fields and indexes its context names.
    Scores cues_for(const Candidate& c) const;
    // The steps of cues_for (binder_cues.cpp, binder_fields.cpp), in its order.
    void cue_windows(const Candidate& c, CueWork& cw) const;
    void operation_cues(const Candidate& c, CueWork& cw) const;
    void entity_cues(const Candidate& c, CueWork& cw) const;
    void label_cues(const Candidate& c, CueWork& cw) const;
    void table_cues(const Candidate& c, CueWork& cw) const;
    void unit_after_cues(const Candidate& c, CueWork& cw) const;
    bool part_word_before(std::size_t b) const;
    void word_name_cues(const Candidate& c, CueWork& cw) const;
    void sentence_field_cues(const Candidate& c, CueWork& cw) const;
    void layer_word_cues(const Candidate& c, CueWork& cw) const;
    void paragraph_field_cues(CueWork& cw) const;
    void narrow_fields(const Candidate& c, CueWork& cw) const;
    void lone_unit(const Candidate& c, CueWork& cw) const;
    void cost_case_cues(CueWork& cw) const;
    void foreign_reference(const Candidate& c, CueWork& cw) const;
    void reach_back(const Candidate& c, CueWork& cw) const;
    std::set<int> sources_named(std::size_t b, std::size_t e) const;
    std::set<int> queries_named(std::size_t b, std::size_t e) const;
    std::set<int> kinds_named(std::size_t b, std::size_t e) const;
    void modifier_cues(CueWork& cw) const;
    void label_index_cues(const Candidate& c, CueWork& cw) const;
    void ordinal_index_cues(const Candidate& c, CueWork& cw) const;
    // Where the words just before a list of numbers start (back to a number, a comma, a colon, a
    // full stop or the sentence's start): a position word there stands beside the list.
    std::size_t list_lead(const Candidate& c, std::size_t sent_b) const;
    // Whether the word "query" at `at` names a row of a layer: an ordinal before it ("the first
    // query") or a number after it ("query 3").
    bool query_names_row(std::size_t at) const;
    /// The number of the scenario's layers.
    int layer_count() const;
    // Whether [b, e) holds nothing but spaces and math delimiters.
    bool blank_between(std::size_t b, std::size_t e) const;
    // A token of a layer named in [b, e): a sequence token (pine), `token 3`, `query 3`, `key 1`,
    // `row 2`, `column 1`, `x_3`, `q_3`, `k_1`, `o_2`, `the third token`, `the first`, `itself`;
    // with its role: the query (the row, the token that attends) or the key it attends to.
    enum class Role { Unknown, Query, Key, Self };
    struct Mention {
        std::size_t at = 0, end = 0;
        int index = 0;
        Role role = Role::Unknown;
    };
    // The role the words just before a mention give it: "to", "against", "on", "key (of)",
    // "column" a key; "query (of)", "row (of)", "output of", "for" a query.
    Role role_before(std::size_t at) const;
    /// The tokens of a layer named in [b, e), in text order.
    std::vector<Mention> token_mentions(std::size_t b, std::size_t e) const;
    // A layer's cues: the head named nearest (its sentence, the paragraphs before it, its
    // section; a table's caption), and the query row and key position of the sentence's tokens.
    void layer_cues(const Candidate& c, const Span& sent, std::size_t reach, std::size_t sec_b, Scores& sc) const;
    /// The head named nearest a number (layer_cues' first step, when no formula's name gave it).
    void head_cues(const Candidate& c, const Span& sent, std::size_t reach, std::size_t sec_b, Scores& sc) const;
    /// How well the entity of `it` fits the cues (0 or less: not at all).
    double entity_score(const Scores& sc, const Item& it) const;
    /// How well the quantity `it` fits the cues (0 or less: not at all).
    double score(const Scores& sc, const Item& it) const;

  private:
    const Source& src_;
    const std::string& s_;
    std::string low_;          ///< lower-cased, line breaks as spaces (phrase_text)
    Occurrences occ_;          ///< phrases in low_
    Compacted compact_;        ///< low_ without spaces and math delimiters
    Occurrences compact_occ_;  ///< phrases in compact_.text
    Catalogue cat_;
    Layout L_;
    std::vector<std::pair<std::size_t, int>> mentions_;  // (offset, entity) of each cue in the text
    std::vector<std::pair<std::size_t, int>> items_;     // (list item offset, entity of its exercise)
};

}  // namespace exactattn::manuscript::binding
