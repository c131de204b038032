// SPDX-License-Identifier: MIT
// exactattn internal: the structure of a manuscript's text as the binder reads it: its
// sentences, paragraphs, sections, list items, tables (cells, headers, row heads, captions) and
// math spans, in Markdown and LaTeX.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "exactattn/manuscript.hpp"
#include "tools/manuscript/bind_text.hpp"

namespace exactattn::manuscript::binding {

struct Cell {
    std::size_t b = 0, e = 0;  // trimmed content
    int row = 0, col = 0;
};

struct Table {
    Span whole;
    std::vector<Cell> cells;
    std::vector<std::string> headers;    // lower-case, per column
    std::vector<std::string> row_heads;  // lower-case first cell, per row
    std::string caption;                 // lower-case
};

struct Section {
    std::size_t b = 0;
    std::string number;   // "14.4"
    std::string heading;  // lower-case
};

struct Layout {
    std::vector<std::size_t> sentence_starts;
    std::vector<std::size_t> paragraph_starts;
    std::vector<Section> sections;
    std::vector<Span> math;  // including delimiters
    std::vector<Span> math_inner;
    std::vector<Table> tables;
    std::vector<std::pair<std::size_t, std::string>> list_items;  // offset, item number
};

/// The end of the line that holds offset k (its '\n', or the text's end).
inline std::size_t line_end(const std::string& s, std::size_t k) {
    const std::size_t e = s.find('\n', k);
    return e == std::string::npos ? s.size() : e;
}

/// Whether [b, e) of s holds only spaces.
inline bool blank_line(const std::string& s, std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
        if (!space(s[i])) return false;
    }
    return true;
}

/// The structure of the text s (the manuscript's scan with its marks and markup blanked).
Layout layout_of(const std::string& s, ManuscriptFormat format);

/// The span of `starts` (sorted offsets) that holds k: from the last start at or before k to the
/// next start (or size).
Span around(const std::vector<std::size_t>& starts, std::size_t k, std::size_t size);

}  // namespace exactattn::manuscript::binding
