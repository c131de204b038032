// SPDX-License-Identifier: MIT
// exactattn internal: the number tokens of an unmarked manuscript's prose as the binder reads
// them (12, 0.75, 2a/3, 50%, −0.75, ½, √2, [a,0], 2 + 1 + 1 = 4, (4 − √2)/7), the candidate
// each becomes, and the words around a number the rules look at.
#pragma once

#include <cstddef>
#include <string>

#include "tools/manuscript/claims.hpp"

namespace exactattn::manuscript::binding {

enum class Kind { MathStatement, Cell, Prose, Word };

struct Candidate {
    std::size_t b = 0, e = 0;
    Kind kind = Kind::Prose;
    bool markable = true;
    std::string label;  // a formula's leading name
    int table = -1, row = 0, col = 0;
    int list_index = 0;         // 1-based place in a list of numbers, 0: none
    int list_size = 0;          // the number of numbers in that list
    std::size_t list_b = 0;     // where that list's first number starts
    bool in_cell_list = false;  // one of several numbers in a table cell
    StatementShape shape;
    std::string not_claim;  // non-empty: why it is not a claim
};

/// The byte length of the vulgar fraction glyph (½, ⅓, …) at k, 0 when none.
std::size_t vulgar_at(const std::string& s, std::size_t k);
/// The end of a number token at k: 12, 0.75, 2a/3, a/2, 50%, 50\%, −0.75, ½; k when none.
/// A square, cube or fourth root sign (√, ∛, ∜) at k.
bool root_at(const std::string& s, std::size_t k);
std::size_t number_end(const std::string& s, std::size_t k);
/// The end of a prose vector [a, 0] that starts at k; k when none.
std::size_t vector_end(const std::string& s, std::size_t k);
/// A chain in prose: 2 + 1 + 1 = 4, 100 × 2 = 200: the token ending at e extended over operators.
std::size_t chain_end(const std::string& s, std::size_t e);
/// A parenthesised sum over a number, (4 − √2)/7: its end, or k when none.
std::size_t paren_fraction_end(const std::string& s, std::size_t k);
/// The word before offset k (lower-case, without a trailing full stop).
std::string word_before_at(const std::string& s, std::size_t k);
/// Whether a plain integer after the word w is a reference or an index ("Table 3", "row 2").
bool reference_word(const std::string& w);
/// The start of the word that ends at e, and whether it is a name written with digits ("r2").
std::size_t word_start(const std::string& s, std::size_t e, bool& name);

}  // namespace exactattn::manuscript::binding
