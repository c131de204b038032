// SPDX-License-Identifier: MIT
// exactattn internal: the numbers of an unmarked manuscript, each bound to the quantity its
// context states (docs/manuscript.md, "How audit binds a number"): the numbers read the same in
// Markdown and LaTeX (math statements and chains, table cells, prose vectors, number words,
// percentages, units), the cues around each one (the section, example, table, caption, column,
// row, the words before and after it) and a score of every quantity of the report against them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "exactattn/manuscript.hpp"
#include "tools/manuscript/marks.hpp"
#include "tools/manuscript/quantities.hpp"

namespace exactattn::manuscript {

/// One number of the prose, with its verdict.
struct BoundNumber {
    std::size_t begin = 0;  ///< byte range of the claim in the text
    std::size_t end = 0;
    AuditFinding finding;
    /// Whether a mark can wrap exactly [begin, end): a whole math span, a cell, a prose token
    /// (not one statement of a formula that holds several).
    bool markable = false;
};

/// Every number-like claim of the text outside the marks, bound and judged; the numbers that are
/// not claims come with verdict NotAClaim and their reason.
std::vector<BoundNumber> bind_numbers(const Source& src, const std::vector<Mark>& marks, Quantities& q,
                                      const AuditOptions& options);

}  // namespace exactattn::manuscript
