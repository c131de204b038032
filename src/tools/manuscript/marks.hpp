// SPDX-License-Identifier: MIT
// exactattn internal: finding the marks, placeholders and the named scenario of a manuscript
// (Markdown or LaTeX), each with its file:line:column.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exactattn/error.hpp"
#include "exactattn/manuscript.hpp"
#include "core/text.hpp"

namespace exactattn::manuscript {

/// A manuscript's text prepared for scanning: a leading BOM dropped, and a copy of the text in
/// which everything that is not prose (front matter, code, comments, verbatim) is blanked to
/// spaces, so that offsets into either copy are the same.
struct Source {
    std::string file;
    ManuscriptFormat format = ManuscriptFormat::Markdown;
    std::string text;  ///< the manuscript (without its BOM)
    std::string scan;  ///< text with the non-prose regions blanked (newlines kept)
    std::vector<std::size_t> line_starts;
    /// Code points of text before each multiple of kColumnStride bytes: a column is found from
    /// the nearest one, so placing a mark costs the same on a one-line megabyte as on a short line.
    std::vector<std::size_t> code_points;
    static constexpr std::size_t kColumnStride = 256;
    std::string scenario;  ///< named by front matter or a magic comment (empty: none)
    std::size_t scenario_at = 0;
    /// The scenario is the one the book's main file named (checked where it was named, and a
    /// path that does not depend on this file's folder), not this file's own.
    bool scenario_inherited = false;
    /// The folder the scenario must lie in (with the working directory), when it is not the
    /// file's own: a Quarto `_metadata.yml`'s project folder (docs/manuscript.md, "Quarto").
    std::string scenario_root;
    /// Markdown: the YAML metadata blocks, as pandoc finds them, each [from, to) of text from its
    /// opening delimiter to the end of its closing one (docs/manuscript.md, "YAML metadata blocks").
    std::vector<std::pair<std::size_t, std::size_t>> metadata_blocks;

    /// file:line:column of a byte offset into text (column in code points).
    [[nodiscard]] Location at(std::size_t offset) const;
};

/// Work units charged per mark or placeholder resolved and judged (the arithmetic of a judgement
/// is charged as it runs); per byte read: exactattn::kWorkPerManuscriptByte.
inline constexpr double kWorkPerMark = 1e5;

/// Prepares a manuscript (ParseError for text that is not UTF-8; LimitError when reading it
/// would take the job past its work budget).
Source prepare(std::string_view text, const std::string& file, ManuscriptFormat format);

/// A chapter of a LaTeX book that names no scenario takes the one its main file names (`inherited`,
/// empty: none).
void inherit_scenario(Source& src, const std::string& inherited);

/// A book's project file (a Quarto `_quarto.yml`, read as YAML, or MyST's `myst.yml` when `myst`):
/// the scenario it names for every chapter, a top-level key `exactattn-scenario:` (myst.yml: an
/// entry of its `project:` map) in src.scenario, or none; ParseError at a value only a YAML
/// parser reads.
void read_project_file(Source& src, bool myst);

/// One mark: `[written]{.exact ref="/pointer"}` or `\exact{/pointer}{written}`.
struct Mark {
    std::size_t begin = 0;  ///< offset of `[` or `\exact`
    std::size_t end = 0;    ///< one past the mark
    std::size_t written_at = 0;
    std::string pointer;
    std::string written;  ///< newlines turned into spaces
};
/// Writes spaces over s[from, to) (clamped to s), keeping its line breaks: a span taken out of
/// a scan keeps every other byte's line and column.
void blank(std::string& s, std::size_t from, std::size_t to);

/// Every mark in text order. ParseError at the mark for one that is malformed or unclosed.
std::vector<Mark> find_marks(const Source& src);

/// The byte ranges of the text that hold numbers which are not claims of the book and that an
/// author has said so of: `[2/3, 1/3, 1/3]{.noclaim}` (a learner's wrong answer) and
/// `\noclaim{…}` in LaTeX.
std::vector<std::pair<std::size_t, std::size_t>> noclaim_spans(const Source& src);

/// One fill-in placeholder: `{{/pointer opts}}`, `{{table /reads/r}}`, `\exactvalue[opts]{/p}`,
/// `\exacttable{/reads/r}`.
struct Placeholder {
    std::size_t begin = 0;
    std::size_t end = 0;
    std::string pointer;
    std::vector<std::string> options;  ///< `digits=6`, `approx`, `unicode`, `latex`, `ascii`
    bool table = false;
};
/// Every placeholder in text order (ParseError for one that is unclosed or empty).
std::vector<Placeholder> find_placeholders(const Source& src);

/// `s` without leading and trailing white space: the one trim of the library (core/text.hpp).
using detail::trim;

/// The ends of every brace group of a text, found in one pass: at(open) is brace_group_end(text,
/// open) in O(log n), so that many unclosed groups cost no more than one.
class BraceGroups {
  public:
    explicit BraceGroups(std::string_view text);
    [[nodiscard]] std::size_t at(std::size_t open) const;

  private:
    std::vector<std::pair<std::size_t, std::size_t>> ends_;  ///< (offset of `{`, one past its `}`)
};
BraceGroups brace_group_ends(std::string_view text);

/// The end of the brace group opening at `open` (`text[open] == '{'`), one past its `}`;
/// npos when it is not closed.
std::size_t brace_group_end(std::string_view text, std::size_t open);

}  // namespace exactattn::manuscript
