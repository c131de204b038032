// SPDX-License-Identifier: MIT
// exactattn: `check` — reading a proposal as written: a value, a list or a matrix of entries.
#include <fmt/format.h>

#include <algorithm>

#include "exactattn/answer_entry.hpp"
#include "exactattn/check.hpp"
#include "exactattn/error.hpp"
#include "core/text.hpp"
#include "tools/check/tokens.hpp"

namespace exactattn {

namespace {

// Splits `text` at the commas outside brackets and parentheses.
std::vector<std::string_view> split_top(std::string_view text) {
    std::vector<std::string_view> out;
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '(' || c == '[')
            ++depth;
        else if (c == ')' || c == ']')
            --depth;
        else if (c == ',' && depth == 0) {
            out.push_back(text.substr(start, i - start));
            start = i + 1;
        }
    }
    out.push_back(text.substr(start));
    return out;
}

// The inside of [ … ] when `s` is one bracketed list, else nullopt.
std::optional<std::string_view> bracketed(std::string_view s) {
    s = detail::trim_json_space(s);
    if (s.size() < 2 || s.front() != '[' || s.back() != ']') return std::nullopt;
    int depth = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        depth += s[i] == '[' ? 1 : s[i] == ']' ? -1 : 0;
        if (depth == 0 && i + 1 < s.size()) return std::nullopt;  // [a], [b]: not one list
    }
    return s.substr(1, s.size() - 2);
}

void add_entry(std::string_view text, std::size_t offset, LearnerAnswer& la) {
    try {
        la.entries.push_back(parse_answer_entry(text));
    } catch (const Error& e) {
        Location where = e.where();
        if (where.column > 0)
            where.column += static_cast<int>(offset);
        else
            where.column = static_cast<int>(offset) + 1;
        // A word such as `blue` proposed for a quantity: say that the target holds values.
        const std::string_view word = detail::trim_json_space(text);
        const bool wordlike = !word.empty() && std::none_of(word.begin(), word.end(), [](char c) {
            return (c >= '0' && c <= '9') || std::string_view("+-*/^()[],.% ").find(c) != std::string_view::npos;
        });
        if (e.kind() == ErrorKind::Parse && wordlike && !la.target.empty()) {
            throw Error(e.kind(), where, fmt::format("{}; {} holds values, not tokens", e.reason(), la.target));
        }
        throw Error(e.kind(), where, e.reason());
    }
    const auto& v = la.entries.back().value;
    la.proposed.push_back(v.exact ? *v.exact : Value());
}

}  // namespace

void read_proposal(std::string_view text, LearnerAnswer& la) {
    if (names_tokens(la.target)) {
        detail::read_token_proposal(text, la);
        return;
    }
    la.entries.clear();
    la.proposed.clear();
    la.columns = 0;
    la.scalar = false;
    auto offset_of = [&](std::string_view part) { return static_cast<std::size_t>(part.data() - text.data()); };
    const auto inner = bracketed(text);
    if (!inner) {
        add_entry(text, 0, la);
        la.scalar = true;
        return;
    }
    if (detail::trim_json_space(*inner).empty()) throw parse_error(Location{}, "an empty list proposes nothing");
    const auto items = split_top(*inner);
    const bool matrix = bracketed(items.front()).has_value();
    for (std::size_t r = 0; r < items.size(); ++r) {
        const auto row = bracketed(items[r]);
        if (row.has_value() != matrix) {
            Location where;
            where.column = static_cast<int>(offset_of(items[r])) + 1;
            throw parse_error(where, "mixes rows ([…]) and single values");
        }
        if (!matrix) {
            add_entry(items[r], offset_of(items[r]), la);
            continue;
        }
        const auto cells = split_top(*row);
        if (r == 0) la.columns = cells.size();
        if (cells.size() != la.columns) {
            Location where;
            where.column = static_cast<int>(offset_of(items[r])) + 1;
            throw shape_error(fmt::format("row {} has {} entries, row 1 has {}", r + 1, cells.size(), la.columns),
                              where);
        }
        for (const auto& cell : cells) add_entry(cell, offset_of(cell), la);
    }
}

}  // namespace exactattn
