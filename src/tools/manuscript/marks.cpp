// SPDX-License-Identifier: MIT
// exactattn: where the marks and placeholders of a manuscript stand, in its scan, where code,
// comments and front matter are blanked (source.cpp), so a mark shown in a code block is ignored.
#include "tools/manuscript/marks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "exactattn/limits.hpp"
#include "exactattn/parse.hpp"

namespace exactattn::manuscript {

namespace {

Error mark_error(const Source& src, std::size_t at, const std::string& reason) {
    return parse_error(src.at(at), reason);
}

// For each `[` of the text, the offset of its matching `]` within the same paragraph (npos
// when it has none), in one pass with a stack: a megabyte of unclosed brackets costs no more
// than a megabyte of prose.
std::vector<std::size_t> bracket_matches(std::string_view s) {
    std::vector<std::size_t> match(s.size(), std::string_view::npos);
    std::vector<std::size_t> open;
    for (std::size_t k = 0; k < s.size(); ++k) {
        const char c = s[k];
        if (c == '\\') {
            ++k;
            continue;
        }
        if (c == '\n') {  // a blank line ends the paragraph: what is open stays unmatched
            std::size_t j = k + 1;
            while (j < s.size() && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r')) ++j;
            if (j >= s.size() || s[j] == '\n') open.clear();
        }
        if (c == '[') open.push_back(k);
        if (c == ']' && !open.empty()) {
            match[open.back()] = k;
            open.pop_back();
        }
    }
    return match;
}

// The offsets of one character in a text, for "the next one at or after k" in O(log n): the
// attribute blocks of a one-line megabyte are found without scanning it again for each `[`.
class Offsets {
  public:
    Offsets(std::string_view s, char c) {
        for (std::size_t k = s.find(c); k != std::string_view::npos; k = s.find(c, k + 1)) at_.push_back(k);
    }
    [[nodiscard]] std::size_t next(std::size_t from) const {
        const auto it = std::lower_bound(at_.begin(), at_.end(), from);
        return it == at_.end() ? std::string_view::npos : *it;
    }

  private:
    std::vector<std::size_t> at_;
};

// The attribute blocks `{…}` that may follow a span: the next `}`, the next `{` (a block holds
// none, so what follows one is read once, not again for every `[` before it) and the next
// blank line (a block does not cross a paragraph).
struct AttributeScan {
    Offsets open;
    Offsets close;
    Offsets newline;
    std::string_view s;
    explicit AttributeScan(std::string_view text) : open(text, '{'), close(text, '}'), newline(text, '\n'), s(text) {}
    // The end (offset of `}`) of the block whose text starts at `from`, or npos when it is not
    // closed before another `{` or a blank line.
    [[nodiscard]] std::size_t block_end(std::size_t from) const {
        const std::size_t e = close.next(from);
        if (e == std::string_view::npos) return e;
        if (open.next(from) < e) return std::string_view::npos;
        for (std::size_t n = newline.next(from); n < e; n = newline.next(n + 1)) {
            if (n + 1 < s.size() && s[n + 1] == '\n') return std::string_view::npos;
        }
        return e;
    }
    // The text a block starting at `from` would hold when it is not closed: up to the line's
    // end, the next `{` or `}`, at most 256 bytes (where `.exact` or `ref=` would stand).
    [[nodiscard]] std::string_view unclosed(std::size_t from) const {
        std::size_t e = std::min({newline.next(from), open.next(from), close.next(from), s.size(), from + 256});
        return s.substr(from, e - from);
    }
};

// The value of `key=` in a pandoc attribute block's text (quoted or bare); empty when absent.
std::string attribute(std::string_view attrs, std::string_view key, bool& present) {
    present = false;
    std::size_t k = 0;
    while ((k = attrs.find(key, k)) != std::string_view::npos) {
        const bool starts = k == 0 || std::isspace(static_cast<unsigned char>(attrs[k - 1]));
        if (starts && k + key.size() < attrs.size() && attrs[k + key.size()] == '=') break;
        k += key.size();
    }
    if (k == std::string_view::npos) return {};
    present = true;
    std::size_t v = k + key.size() + 1;
    if (v < attrs.size() && (attrs[v] == '"' || attrs[v] == '\'')) {
        const std::size_t e = attrs.find(attrs[v], v + 1);
        return std::string(attrs.substr(v + 1, (e == std::string_view::npos ? attrs.size() : e) - v - 1));
    }
    std::size_t e = v;
    while (e < attrs.size() && !std::isspace(static_cast<unsigned char>(attrs[e]))) ++e;
    return std::string(attrs.substr(v, e - v));
}

bool has_class(std::string_view attrs, std::string_view cls) {
    for (std::size_t k = attrs.find(cls); k != std::string_view::npos; k = attrs.find(cls, k + 1)) {
        const bool before = k > 0 && attrs[k - 1] == '.';
        const std::size_t e = k + cls.size();
        const bool after = e == attrs.size() || std::isspace(static_cast<unsigned char>(attrs[e]));
        if (before && after) return true;
    }
    return false;
}

std::string one_line(std::string_view s) {
    std::string out(s);
    for (auto& c : out) {
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    }
    return out;
}

// Whether an attribute block names a mark: the class .exact or a ref attribute.
bool marks_claim(std::string_view attrs) {
    bool ref = false;
    (void)attribute(attrs, "ref", ref);
    return ref || has_class(attrs, "exact");
}

// A mark's written value [from, to) that wraps over the lines of a pandoc grid table's cell
// (`| key | [1/2, 1/4,  |` then `|     | 1/4]{…}      |`): the cell's pieces of each line
// joined by a space, without the table's borders, as pandoc reads the cell. The columns are the
// `+` of the border line above the row, at most 64 lines and kGridWalk bytes above (so that many
// marks below long lines cost each a bounded walk); nothing when the value does not stand in
// such a table, or a line of it has no `|` at both of its column's edges.
constexpr std::size_t kGridWalk = 1 << 14;
std::optional<std::string> grid_cell_text(std::string_view scan, std::string_view text, std::size_t from,
                                          std::size_t to) {
    const std::size_t nl = scan.rfind('\n', from - 1);  // from - 1 is the mark's `[`
    const std::size_t first = nl == std::string_view::npos ? 0 : nl + 1;
    const std::size_t floor = first > kGridWalk ? first - kGridWalk : 0;
    std::size_t border = first;
    std::string_view rule;
    for (int up = 0;; ++up) {
        if (border <= floor || up > 64) return std::nullopt;
        const std::size_t prev = scan.substr(floor, border - 1 - floor).rfind('\n');
        if (prev == std::string_view::npos && floor > 0) return std::nullopt;
        const std::size_t start = prev == std::string_view::npos ? 0 : floor + prev + 1;
        const std::string_view line = scan.substr(start, border - 1 - start);
        border = start;
        const std::string t = trim(line);
        if (t.starts_with('+') && t.ends_with('+') && t.find_first_not_of("+-=: \r") == std::string::npos) {
            rule = line;
            break;
        }
        if (!t.starts_with('|')) return std::nullopt;  // not a row of a grid table
    }
    const std::size_t column = from - first;
    const std::size_t left = rule.rfind('+', column);
    const std::size_t right = rule.find('+', column);
    if (left == std::string_view::npos || right == std::string_view::npos) return std::nullopt;
    std::string out;
    for (std::size_t pos = first; pos < to;) {
        const std::string_view row = scan.substr(pos, right + 1);
        if (row.size() <= right || row.find('\n') != std::string_view::npos || row[left] != '|' || row[right] != '|') {
            return std::nullopt;
        }
        const std::size_t b = std::max(pos + left + 1, from);
        const std::size_t e = std::min(pos + right, to);
        if (!out.empty()) out += ' ';
        out += trim(text.substr(b, e > b ? e - b : 0));
        const std::size_t next = scan.substr(0, to).find('\n', pos);
        pos = next == std::string_view::npos ? to : next + 1;
    }
    return out;
}

std::vector<Mark> markdown_marks(const Source& src) {
    const std::string_view s(src.scan);
    std::vector<Mark> marks;
    std::vector<std::pair<std::size_t, std::size_t>> used;  // attribute blocks that belong to a mark
    const auto match = bracket_matches(s);
    const AttributeScan blocks(s);
    for (std::size_t k = 0; k < s.size(); ++k) {
        if (s[k] != '[' || (k > 0 && s[k - 1] == '\\')) continue;
        const std::size_t close = match[k];
        if (close == std::string_view::npos || close + 1 >= s.size() || s[close + 1] != '{') continue;
        const std::size_t attr_end = blocks.block_end(close + 2);
        if (attr_end == std::string_view::npos) {
            if (marks_claim(blocks.unclosed(close + 2))) {
                throw mark_error(src, k, "unclosed attribute block: a mark is [written]{.exact ref=\"/pointer\"}");
            }
            continue;
        }
        const std::string_view attrs = s.substr(close + 2, attr_end - close - 2);
        if (!marks_claim(attrs)) continue;
        bool present = false;
        const std::string ref = attribute(attrs, "ref", present);
        if (!present || ref.empty()) throw mark_error(src, k, "a .exact span needs ref=\"/pointer\"");
        Mark m;
        m.begin = k;
        m.end = attr_end + 1;
        m.written_at = k + 1;
        m.pointer = ref;
        const std::string_view written = std::string_view(src.text).substr(k + 1, close - k - 1);
        const auto in_grid =
            written.find('\n') == std::string_view::npos ? std::nullopt : grid_cell_text(s, src.text, k + 1, close);
        m.written = one_line(in_grid ? std::string_view(*in_grid) : written);
        if (trim(m.written).empty()) throw mark_error(src, k, fmt::format("{}: the mark is empty", ref));
        marks.push_back(std::move(m));
        used.emplace_back(close + 1, attr_end + 1);
        k = attr_end;
    }
    // An attribute block that names a claim but follows no [span] (a missing `]` or `[`).
    std::size_t u = 0;  // the marks' blocks are in text order: one pass over both
    for (std::size_t k = s.find('{'); k != std::string_view::npos; k = s.find('{', k + 1)) {
        while (u < used.size() && used[u].second <= k) ++u;
        if (u < used.size() && k >= used[u].first) continue;
        const std::string_view after = s.substr(k + 1, 4);
        if (!after.starts_with('.') && !after.starts_with("ref=") && !after.starts_with('#')) continue;
        const std::size_t e = blocks.block_end(k + 1);
        const std::string_view attrs =
            e == std::string_view::npos ? blocks.unclosed(k + 1) : s.substr(k + 1, e - k - 1);
        {
            if (marks_claim(attrs)) {
                throw mark_error(
                    src, k,
                    "an attribute block {.exact …} that follows no [written] span (an unclosed [ or a missing ])");
            }
        }
    }
    return marks;
}

// The command `name` at k (not a longer command such as \exactvalue for \exact).
bool command_at(std::string_view s, std::size_t k, std::string_view name) {
    if (s.compare(k, name.size(), name) != 0) return false;
    const std::size_t e = k + name.size();
    return e >= s.size() || !std::isalpha(static_cast<unsigned char>(s[e]));
}

std::size_t skip_space(std::string_view s, std::size_t k) {
    while (k < s.size() && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r')) ++k;
    return k;
}

std::vector<Mark> latex_marks(const Source& src) {
    const std::string_view s(src.scan);
    std::vector<Mark> marks;
    for (std::size_t k = s.find("\\exact"); k != std::string_view::npos; k = s.find("\\exact", k + 1)) {
        if (!command_at(s, k, "\\exact")) continue;
        const std::size_t p = skip_space(s, k + 6);
        if (p >= s.size() || s[p] != '{') throw mark_error(src, k, "\\exact needs {pointer}{written}");
        const std::size_t pe = brace_group_end(s, p);
        if (pe == std::string_view::npos) throw mark_error(src, k, "\\exact: unclosed brace after the pointer");
        const std::size_t w = skip_space(s, pe);
        if (w >= s.size() || s[w] != '{')
            throw mark_error(src, k, "\\exact needs {pointer}{written}: the written value is missing");
        const std::size_t we = brace_group_end(s, w);
        if (we == std::string_view::npos) throw mark_error(src, k, "\\exact: unclosed brace in the written value");
        Mark m;
        m.begin = k;
        m.end = we;
        m.written_at = w + 1;
        m.pointer = trim(s.substr(p + 1, pe - p - 2));
        m.written = one_line(std::string_view(src.text).substr(w + 1, we - w - 2));
        if (m.pointer.empty()) throw mark_error(src, k, "\\exact: the pointer is empty");
        if (trim(m.written).empty()) throw mark_error(src, k, fmt::format("{}: the mark is empty", m.pointer));
        marks.push_back(std::move(m));
        k = we - 1;
    }
    return marks;
}

std::vector<std::string> split_words(std::string_view s) {
    std::vector<std::string> out;
    std::size_t k = 0;
    while (k < s.size()) {
        while (k < s.size() && std::isspace(static_cast<unsigned char>(s[k]))) ++k;
        std::size_t e = k;
        while (e < s.size() && !std::isspace(static_cast<unsigned char>(s[e]))) ++e;
        if (e > k) out.emplace_back(s.substr(k, e - k));
        k = e;
    }
    return out;
}

Placeholder placeholder_of(const Source& src, std::size_t begin, std::size_t end, std::string_view body,
                           std::vector<std::string> options) {
    Placeholder p;
    p.begin = begin;
    p.end = end;
    std::vector<std::string> words = split_words(body);
    if (!words.empty() && words[0] == "table") {
        p.table = true;
        words.erase(words.begin());
    }
    if (words.empty() || !words[0].starts_with('/')) {
        throw mark_error(src, begin, "a placeholder names a pointer: {{/reads/NAME/weights}} or {{table /reads/NAME}}");
    }
    p.pointer = words[0];
    options.insert(options.end(), words.begin() + 1, words.end());
    p.options = std::move(options);
    return p;
}

}  // namespace

std::size_t brace_group_end(std::string_view text, std::size_t open) {
    int depth = 0;
    for (std::size_t k = open; k < text.size(); ++k) {
        if (text[k] == '\\') {
            ++k;
            continue;
        }
        if (text[k] == '{') ++depth;
        if (text[k] == '}' && --depth == 0) return k + 1;
    }
    return std::string_view::npos;
}

BraceGroups::BraceGroups(std::string_view text) {
    std::vector<std::size_t> open;
    for (std::size_t k = 0; k < text.size(); ++k) {
        if (text[k] == '\\') {
            ++k;
            continue;
        }
        if (text[k] == '{') open.push_back(k);
        if (text[k] == '}' && !open.empty()) {
            ends_.emplace_back(open.back(), k + 1);
            open.pop_back();
        }
    }
    std::sort(ends_.begin(), ends_.end());
}

std::size_t BraceGroups::at(std::size_t open) const {
    const auto it = std::lower_bound(ends_.begin(), ends_.end(), std::make_pair(open, std::size_t{0}));
    return it != ends_.end() && it->first == open ? it->second : std::string_view::npos;
}

BraceGroups brace_group_ends(std::string_view text) { return BraceGroups(text); }

std::vector<Mark> find_marks(const Source& src) {
    return src.format == ManuscriptFormat::Markdown ? markdown_marks(src) : latex_marks(src);
}

std::vector<std::pair<std::size_t, std::size_t>> noclaim_spans(const Source& src) {
    const std::string_view s(src.scan);
    std::vector<std::pair<std::size_t, std::size_t>> out;
    if (src.format == ManuscriptFormat::Latex) {
        const auto ends = brace_group_ends(s);  // one pass: unclosed groups are not searched again
        for (std::size_t k = s.find("\\noclaim"); k != std::string_view::npos; k = s.find("\\noclaim", k + 1)) {
            const std::size_t open = skip_space(s, k + 8);
            if (!command_at(s, k, "\\noclaim") || open >= s.size() || s[open] != '{') continue;
            const std::size_t e = ends.at(open);
            if (e != std::string_view::npos) out.emplace_back(k, e);
        }
        return out;
    }
    const auto match = bracket_matches(s);
    const AttributeScan blocks(s);
    for (std::size_t k = 0; k < s.size(); ++k) {
        if (s[k] != '[' || (k > 0 && s[k - 1] == '\\')) continue;
        const std::size_t close = match[k];
        if (close == std::string_view::npos || close + 1 >= s.size() || s[close + 1] != '{') continue;
        const std::size_t e = blocks.block_end(close + 2);
        if (e == std::string_view::npos || !has_class(s.substr(close + 2, e - close - 2), "noclaim")) continue;
        out.emplace_back(k, e + 1);
        k = e;
    }
    return out;
}

std::vector<Placeholder> find_placeholders(const Source& src) {
    const std::string_view s(src.scan);
    std::vector<Placeholder> out;
    if (src.format == ManuscriptFormat::Markdown) {
        for (std::size_t k = s.find("{{"); k != std::string_view::npos; k = s.find("{{", k + 2)) {
            const std::size_t e = s.find("}}", k + 2);
            if (e == std::string_view::npos || s.substr(k, e - k).find('\n') != std::string_view::npos) {
                throw mark_error(src, k, "unclosed placeholder: {{/pointer}} ends with }}");
            }
            std::string_view body = s.substr(k + 2, e - k - 2);
            if (body.starts_with('{')) {  // `{{{< … >}}}`: a Quarto shortcode shown as written
                k = e;
                continue;
            }
            // A Quarto shortcode (docs/manuscript.md, "Quarto"): `{{< exactattn /pointer opts >}}` is a
            // placeholder; another extension's (`{{< include ch.qmd >}}`) is kept as it stands.
            if (body.starts_with('<')) {
                const auto words = split_words(body.substr(1, body.ends_with('>') ? body.size() - 2 : body.size() - 1));
                if (words.empty() || words[0] != "exactattn") {
                    k = e;
                    continue;
                }
                const std::size_t at = body.find("exactattn") + 9;
                body = body.substr(at, body.size() - at - (body.ends_with('>') ? 1 : 0));
            }
            out.push_back(placeholder_of(src, k, e + 2, body, {}));
            k = e;
        }
        return out;
    }
    for (std::size_t k = s.find("\\exact"); k != std::string_view::npos; k = s.find("\\exact", k + 1)) {
        const bool table = command_at(s, k, "\\exacttable");
        if (!table && !command_at(s, k, "\\exactvalue")) continue;
        std::size_t p = skip_space(s, k + 11);
        std::vector<std::string> options;
        if (p < s.size() && s[p] == '[') {
            const std::size_t oe = s.find(']', p);
            if (oe == std::string_view::npos) throw mark_error(src, k, "unclosed [options] of \\exactvalue");
            for (auto& w : split_words(s.substr(p + 1, oe - p - 1))) {
                std::size_t from = 0;
                for (std::size_t c = w.find(',');; c = w.find(',', from)) {
                    const std::string part =
                        trim(std::string_view(w).substr(from, c == std::string::npos ? std::string::npos : c - from));
                    if (!part.empty()) options.push_back(part);
                    if (c == std::string::npos) break;
                    from = c + 1;
                }
            }
            p = skip_space(s, oe + 1);
        }
        if (p >= s.size() || s[p] != '{') throw mark_error(src, k, "\\exactvalue needs {pointer}");
        const std::size_t pe = brace_group_end(s, p);
        if (pe == std::string_view::npos) throw mark_error(src, k, "\\exactvalue: unclosed brace");
        const std::string body = (table ? "table " : "") + trim(s.substr(p + 1, pe - p - 2));
        out.push_back(placeholder_of(src, k, pe, body, std::move(options)));
        k = pe - 1;
    }
    return out;
}

}  // namespace exactattn::manuscript
