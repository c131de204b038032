// SPDX-License-Identifier: MIT
// exactattn: a manuscript prepared for scanning (marks.hpp, Source): the scenario it names (front
// matter, a comment, a book's project file), and everything that is not prose (front matter,
// code, comments) blanked to spaces, keeping every offset; the places of its offsets.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "exactattn/limits.hpp"
#include "exactattn/parse.hpp"
#include "tools/manuscript/marks.hpp"

namespace exactattn::manuscript {

namespace {

constexpr std::string_view kScenarioKey = "exactattn-scenario:";

std::size_t line_end(std::string_view s, std::size_t from) {
    const std::size_t e = s.find('\n', from);
    return e == std::string_view::npos ? s.size() : e;
}

// `exactattn-scenario: FILE` anywhere in [from, to) (front matter, a comment): the first wins.
void find_scenario(Source& src, std::size_t from, std::size_t to) {
    if (!src.scenario.empty()) return;
    const std::string_view t(src.text);
    const std::size_t k = t.substr(0, to).find(kScenarioKey, from);
    if (k == std::string_view::npos) return;
    const std::size_t v = k + kScenarioKey.size();
    std::string value = trim(t.substr(v, std::min(line_end(t, v), to) - v));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
        value = value.substr(1, value.size() - 2);
    }
    if (value.ends_with("-->")) value = trim(value.substr(0, value.size() - 3));
    src.scenario = value;
    src.scenario_at = k;
}

bool blank_line(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

// A delimiter line of a YAML metadata block: `---` (or `...`, closing), trailing blanks allowed.
bool yaml_delimiter(std::string_view line, bool closing) {
    const std::size_t e = line.find_last_not_of(" \t\r");
    const std::string_view t = line.substr(0, e == std::string_view::npos ? 0 : e + 1);
    return t == "---" || (closing && t == "...");
}

// Whether the lines [from, to) between a block's delimiters are what pandoc takes for metadata: a
// YAML map (its first line that is not blank or a comment a key, `key:` or `"key":` before a blank
// or the line's end) or nothing but comments. Anything else (a sentence, a list) is not metadata:
// pandoc reads the block as text, and so it is read for marks and claims.
bool yaml_map(std::string_view t, std::size_t from, std::size_t to) {
    for (std::size_t pos = from; pos < to; pos = line_end(t, pos) + 1) {
        const std::string_view line = t.substr(pos, std::min(line_end(t, pos), to) - pos);
        const std::size_t first = line.find_first_not_of(" \t\r");
        if (first == std::string_view::npos || line[first] == '#') continue;
        if (first != 0) return false;
        std::size_t colon = std::string_view::npos;
        if (line[0] == '"' || line[0] == '\'') {
            const std::size_t close = line.find(line[0], 1);
            colon = close == std::string_view::npos ? close : close + 1;
        } else if (std::string_view("[]{}&*!|>%@`,?:#").find(line[0]) == std::string_view::npos &&
                   !line.starts_with("- ") && line != "-") {
            colon = line.find(':');
            while (colon != std::string_view::npos && colon + 1 < line.size() && line[colon + 1] != ' ' &&
                   line[colon + 1] != '\t' && line[colon + 1] != '\r') {
                colon = line.find(':', colon + 1);
            }
        }
        return colon != std::string_view::npos && colon < line.size() && line[colon] == ':' &&
               (colon + 1 == line.size() || line[colon + 1] == ' ' || line[colon + 1] == '\t' ||
                line[colon + 1] == '\r');
    }
    return true;
}

// The value of a top-level `exactattn-scenario:` key of a YAML metadata block, at `v` on the key's
// line [v, eol): a plain or quoted file name on that line, with an optional ` # comment`. What only
// a YAML parser reads (a block or flow value, an anchor, a tag, an escape, a value continued on the
// next line) is refused at the key rather than read otherwise than pandoc reads it.
std::string yaml_scenario(const Source& src, std::size_t key, std::size_t v, std::size_t eol, bool continued) {
    const std::string_view t(src.text);
    std::string_view rest = t.substr(v, eol - v);
    const auto refuse = [&](std::string_view why) {
        return parse_error(src.at(key), fmt::format("exactattn-scenario: {}: write the file name on the key's line, "
                                                    "plain or in quotes (exactattn-scenario: book.json)",
                                                    why));
    };
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
    while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\t' || rest.back() == '\r')) rest.remove_suffix(1);
    std::string value;
    if (!rest.empty() && (rest.front() == '"' || rest.front() == '\'')) {
        const char q = rest.front();
        const std::size_t close = rest.find(q, 1);
        if (close == std::string_view::npos) throw refuse("an unclosed quote");
        value = std::string(rest.substr(1, close - 1));
        std::string_view after = rest.substr(close + 1);
        while (!after.empty() && (after.front() == ' ' || after.front() == '\t')) after.remove_prefix(1);
        if ((q == '"' && value.find('\\') != std::string::npos) || (!after.empty() && after.front() != '#') ||
            (!after.empty() && close + 1 == rest.size() - after.size())) {
            throw refuse("a quoted value with an escape or text after it");
        }
    } else {
        for (std::size_t k = 0; k < rest.size(); ++k) {
            if (rest[k] == '#' && k > 0 && (rest[k - 1] == ' ' || rest[k - 1] == '\t')) {
                rest = rest.substr(0, k);
                break;
            }
        }
        value = trim(rest);
        if (value.empty() && !continued) throw refuse("no value");
        if (!value.empty() && std::string_view("|>[]{}&*!%@`#,?:-\"'").find(value.front()) != std::string_view::npos) {
            throw refuse(fmt::format("the value {} is YAML that exactattn does not read", value));
        }
    }
    if (continued) throw refuse("a value continued on the next line");
    return value;
}

// The keys `exactattn-scenario:` at `indent` (the start of a line, or the indentation of a map's
// entries) of the lines [from, to): the last names the scenario, as pandoc merges metadata blocks
// (a later key, in this block or a later block, replaces an earlier one).
void read_yaml_keys(Source& src, std::size_t from, std::size_t to, std::string_view indent) {
    const std::string_view t(src.text);
    for (std::size_t pos = from; pos < to; pos = line_end(t, pos) + 1) {
        if (t.substr(pos, indent.size()) != indent ||
            t.substr(pos + indent.size(), kScenarioKey.size()) != kScenarioKey) {
            continue;
        }
        const std::size_t key = pos + indent.size();
        const std::size_t eol = line_end(t, pos);
        const std::size_t next = eol + 1;
        const std::string_view after = next < to ? t.substr(next, line_end(t, next) - next) : std::string_view();
        const bool continued = after.size() > indent.size() && after.substr(0, indent.size()) == indent &&
                               (after[indent.size()] == ' ' || after[indent.size()] == '\t') && !blank_line(after);
        src.scenario = yaml_scenario(src, key, key + kScenarioKey.size(), eol, continued);
        src.scenario_at = key;
    }
}

// A YAML metadata block [from, to) whose first and last lines are its delimiters: its top-level
// keys.
void read_yaml_block(Source& src, std::size_t from, std::size_t to) {
    read_yaml_keys(src, line_end(src.text, from) + 1, to, "");
}

// A line of a block quote that sets the scenario (`> exactattn-scenario: …`): pandoc reads a YAML
// block in a block quote as the document's metadata, exactattn does not, so it is refused.
void refuse_quoted_scenario(const Source& src, std::size_t pos, std::string_view line) {
    std::size_t k = 0;
    bool quoted = false;
    while (k < line.size() && (line[k] == ' ' || line[k] == '\t' || line[k] == '>')) {
        if (line[k++] == '>') quoted = true;
    }
    if (quoted && line.substr(k).starts_with(kScenarioKey)) {
        throw parse_error(src.at(pos + k),
                          "exactattn-scenario in a block quote: pandoc reads a YAML block there as the "
                          "document's metadata, exactattn does not; name the scenario in the front "
                          "matter");
    }
}

// Inline code: a run of n backticks closed by the next run of exactly n, blanked. The runs are
// listed once by length, so that a text of unclosed runs is not searched again for each.
void blank_inline_code(std::string& s) {
    std::map<std::size_t, std::vector<std::size_t>> runs;  // length → starts, in text order
    for (std::size_t k = s.find('`'); k != std::string::npos;) {
        std::size_t n = 0;
        while (k + n < s.size() && s[k + n] == '`') ++n;
        runs[n].push_back(k);
        k = s.find('`', k + n);
    }
    for (std::size_t k = s.find('`'); k != std::string::npos;) {
        std::size_t n = 0;
        while (k + n < s.size() && s[k + n] == '`') ++n;
        if (k > 0 && s[k - 1] == '\\') {  // an escaped backtick opens nothing; the rest of the run may
            k = s.find('`', k + 1);
            continue;
        }
        const auto& same = runs[n];
        const auto it = std::upper_bound(same.begin(), same.end(), k);
        if (it == same.end()) {
            k = s.find('`', k + n);
            continue;
        }
        const std::size_t e = *it;
        blank(s, k, e + n);
        k = s.find('`', e + n);
    }
}

// YAML metadata blocks (as pandoc's Markdown reader finds them: a line `---` at the start or after
// a blank line, whose next line is not blank, to a line `---` or `...`, holding a YAML map or only
// comments), fenced code blocks (```
// or ~~~, three or more, closed by a fence as long), in one pass in the order of the text; then
// HTML comments and inline code spans.
void blank_markdown(Source& src) {
    std::string& s = src.scan;
    const std::string_view t(src.text);
    std::size_t pos = 0;
    bool after_blank = true;
    bool in_comment = false;  // a YAML block inside an HTML comment is not metadata (for pandoc neither)
    while (pos < s.size()) {
        const std::size_t eol = line_end(s, pos);
        const std::string_view line = t.substr(pos, eol - pos);
        if (in_comment) {
            in_comment = line.find("-->") == std::string_view::npos;
            after_blank = false;
            pos = eol + 1;
            continue;
        }
        if (after_blank && yaml_delimiter(line, false) && eol + 1 < s.size() &&
            !blank_line(t.substr(eol + 1, line_end(t, eol + 1) - eol - 1))) {
            std::size_t close = eol + 1;
            while (close < s.size() && !yaml_delimiter(t.substr(close, line_end(t, close) - close), true)) {
                close = line_end(t, close) + 1;
            }
            if (close < s.size() && yaml_map(t, eol + 1, close)) {
                const std::size_t to = line_end(t, close);
                read_yaml_block(src, pos, to);
                src.metadata_blocks.emplace_back(pos, to);
                blank(s, pos, to);
                after_blank = false;
                pos = to + 1;
                continue;
            }
        }
        std::size_t i = pos;
        while (i < eol && i - pos < 3 && s[i] == ' ') ++i;
        const char f = i < eol ? s[i] : '\0';
        std::size_t n = 0;
        while (i + n < eol && (f == '`' || f == '~') && s[i + n] == f) ++n;
        if (n >= 3) {
            std::size_t close = eol + 1;
            while (close < s.size()) {
                const std::size_t ce = line_end(s, close);
                const std::string line = trim(std::string_view(s).substr(close, ce - close));
                if (line.size() >= n && line.find_first_not_of(f) == std::string::npos) break;
                close = ce + 1;
            }
            const std::size_t to = close < s.size() ? line_end(s, close) : s.size();
            blank(s, pos, to);
            after_blank = false;
            pos = to + 1;
            continue;
        }
        const std::size_t open = line.find("<!--");
        in_comment = open != std::string_view::npos && line.find("-->", open + 4) == std::string_view::npos;
        refuse_quoted_scenario(src, pos, line);
        after_blank = blank_line(line);
        pos = eol + 1;
    }
    for (std::size_t k = s.find("<!--"); k != std::string::npos; k = s.find("<!--", k)) {
        std::size_t e = s.find("-->", k + 4);
        e = e == std::string::npos ? s.size() : e + 3;
        find_scenario(src, k, e);
        blank(s, k, e);
    }
    blank_inline_code(s);
}

// `%` comments (not `\%`), and verbatim environments and \verb.
void blank_latex(Source& src) {
    std::string& s = src.scan;
    for (const char* env : {"verbatim", "Verbatim", "lstlisting", "minted", "comment"}) {
        const std::string open = fmt::format("\\begin{{{}}}", env);
        const std::string close = fmt::format("\\end{{{}}}", env);
        for (std::size_t k = s.find(open); k != std::string::npos; k = s.find(open, k)) {
            std::size_t e = s.find(close, k);
            e = e == std::string::npos ? s.size() : e + close.size();
            blank(s, k, e);
        }
    }
    for (std::size_t k = 0; k < s.size(); ++k) {
        if (s[k] == '\\' && k + 1 < s.size()) {
            if (s.compare(k, 5, "\\verb") == 0 && k + 5 < s.size() &&
                !std::isalpha(static_cast<unsigned char>(s[k + 5]))) {
                const char d = s[k + 5];
                const std::size_t e = s.find(d, k + 6);
                const std::size_t to = e == std::string::npos ? line_end(s, k) : e + 1;
                blank(s, k, to);
                k = to;
                continue;
            }
            ++k;  // an escaped character (\%, \\)
            continue;
        }
        if (s[k] == '%') {
            const std::size_t e = line_end(s, k);
            find_scenario(src, k, e);
            blank(s, k, e);
            k = e;
        }
    }
    // The preamble is set-up, not prose (its comments were read for the scenario above).
    const std::size_t body = s.find("\\begin{document}");
    if (body != std::string::npos) blank(s, 0, body + 16);
}

bool starts_code_point(char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }

// Code points of text[0, offset), from the checkpoint below offset.
std::size_t code_points_before(const Source& src, std::size_t offset) {
    offset = std::min(offset, src.text.size());
    const std::size_t block = offset / Source::kColumnStride;
    std::size_t n = src.code_points[block];
    for (std::size_t k = block * Source::kColumnStride; k < offset; ++k) n += starts_code_point(src.text[k]) ? 1 : 0;
    return n;
}

}  // namespace

void blank(std::string& s, std::size_t from, std::size_t to) {
    to = std::min(to, s.size());
    for (std::size_t i = from; i < to; ++i) {
        if (s[i] != '\n') s[i] = ' ';
    }
}

Location Source::at(std::size_t offset) const {
    Location where;
    where.file = file;
    const auto it = std::upper_bound(line_starts.begin(), line_starts.end(), offset);
    const std::size_t line = static_cast<std::size_t>(it - line_starts.begin());
    const std::size_t start = line_starts[line - 1];
    where.line = static_cast<int>(line);
    where.column = static_cast<int>(code_points_before(*this, offset) - code_points_before(*this, start) + 1);
    return where;
}

void read_project_file(Source& src, bool myst) {
    src.scenario.clear();
    const std::string_view t(src.text);
    if (!myst) {
        read_yaml_keys(src, 0, t.size(), "");
        return;
    }
    // myst.yml: the project's frontmatter, the entries of the top-level map `project:`.
    for (std::size_t pos = 0; pos < t.size(); pos = line_end(t, pos) + 1) {
        const std::string_view line = t.substr(pos, line_end(t, pos) - pos);
        if (trim(line) != "project:" || line.front() != 'p') continue;
        std::size_t end = line_end(t, pos) + 1;
        std::string indent;
        while (end < t.size()) {
            const std::string_view next = t.substr(end, line_end(t, end) - end);
            if (!blank_line(next) && next.front() != ' ' && next.front() != '\t' && next.front() != '#') break;
            if (indent.empty() && !blank_line(next) && next.front() == ' ') {
                indent = std::string(next.substr(0, next.find_first_not_of(' ')));
            }
            end = line_end(t, end) + 1;
        }
        if (!indent.empty()) read_yaml_keys(src, line_end(t, pos) + 1, std::min(end, t.size()), indent);
    }
}

void inherit_scenario(Source& src, const std::string& inherited) {
    if (!src.scenario.empty() || inherited.empty()) return;
    src.scenario = inherited;
    src.scenario_inherited = true;
}

Source prepare(std::string_view text, const std::string& file, ManuscriptFormat format) {
    if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
    Location whole_file;
    whole_file.file = file;
    placed(
        whole_file, [&] { check_utf8(text, "manuscript"); }, KeepPlace::Nothing);
    // Scanning is charged to the job's work budget (docs/limits.md) by the byte, before it starts.
    const double work = static_cast<double>(text.size()) * kWorkPerManuscriptByte;
    if (!charge_work(work)) {
        throw over_work(work, fmt::format("reading a manuscript of {} bytes", text.size())).located(whole_file);
    }
    Source src;
    src.file = file;
    src.format = format;
    src.text = std::string(text);
    src.scan = src.text;
    src.line_starts.push_back(0);
    src.code_points.reserve(text.size() / Source::kColumnStride + 1);
    std::size_t points = 0;
    for (std::size_t k = 0; k < text.size(); ++k) {
        if (k % Source::kColumnStride == 0) src.code_points.push_back(points);
        points += starts_code_point(text[k]) ? 1 : 0;
        if (text[k] == '\n') src.line_starts.push_back(k + 1);
    }
    if (text.size() % Source::kColumnStride == 0) src.code_points.push_back(points);
    if (format == ManuscriptFormat::Markdown) {
        blank_markdown(src);
    } else {
        blank_latex(src);
    }
    return src;
}

}  // namespace exactattn::manuscript
