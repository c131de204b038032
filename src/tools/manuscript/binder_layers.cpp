// SPDX-License-Identifier: MIT
// exactattn: the binder's cues of a layer (binder.hpp): the head named nearest a number, and the
// query row and key position of the tokens its sentence names.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>

#include "tools/manuscript/binder.hpp"

namespace exactattn::manuscript::binding {

// The role the words just before a mention give it: "to", "against", "on", "key (of)",
// "column" a key; "query (of)", "row (of)", "output of", "for" a query.
Binder::Role Binder::role_before(std::size_t at) const {
    std::size_t p = at;
    std::vector<std::string> words;
    while (words.size() < 3 && p > 0) {
        while (p > 0 && (s_[p - 1] == ' ' || s_[p - 1] == '$')) --p;
        std::size_t b = p;
        while (b > 0 && alpha(low_[b - 1])) --b;
        if (b == p) break;
        words.push_back(low_.substr(b, p - b));
        p = b;
        if (words.back() != "the" && words.back() != "of") break;
    }
    std::erase(words, "the");
    if (words.empty()) return Role::Unknown;
    const std::string& w = words[0] == "of" && words.size() > 1 ? words[1] : words[0];
    static const std::set<std::string, std::less<>> key_words = {"to",   "against", "on",     "key",
                                                                 "keys", "column",  "columns"};
    static const std::set<std::string, std::less<>> query_words = {
        "query", "queries", "row", "rows", "for", "output", "outputs", "weights", "scores", "denominator"};
    if (words[0] == "of")
        return key_words.contains(w) && w != "to" ? Role::Key : query_words.contains(w) ? Role::Query : Role::Unknown;
    if (key_words.contains(w)) return Role::Key;
    if (w == "query" || w == "row" || w == "for") return Role::Query;
    return Role::Unknown;
}

std::vector<Binder::Mention> Binder::token_mentions(std::size_t b, std::size_t e) const {
    std::vector<Mention> out;
    auto word_at = [&](std::size_t k, std::size_t len) {
        return (k == 0 || !alpha(low_[k - 1])) && (k + len >= low_.size() || !alpha(low_[k + len]));
    };
    // A token spelled as an English function word ("the" of "the cat sat") is the word where
    // a word follows it ("the second token", "against the first"), the token elsewhere
    // ("the, cat, sat", "attends to the.").
    static const std::set<std::string, std::less<>> function_words = {
        "the", "a", "an", "of", "to", "in", "on", "at", "by", "for", "and", "or", "is", "it", "as", "be"};
    for (const auto& [tok, i] : cat_.layer_tokens) {
        const auto [lo, hi] = occ_.within(tok, b, e);
        for (const std::size_t* it = lo; it != hi; ++it) {
            if (!word_at(*it, tok.size())) continue;
            std::size_t n = *it + tok.size();
            while (n < low_.size() && low_[n] == ' ') ++n;
            if (function_words.contains(tok) && n > *it + tok.size() && n < low_.size() && alpha(low_[n])) continue;
            out.push_back({*it, *it + tok.size(), i, role_before(*it)});
        }
    }
    static const std::array<std::pair<const char*, Role>, 7> nouns{{{"token", Role::Unknown},
                                                                    {"position", Role::Unknown},
                                                                    {"query", Role::Query},
                                                                    {"row", Role::Query},
                                                                    {"key", Role::Key},
                                                                    {"column", Role::Key},
                                                                    {"word", Role::Unknown}}};
    const auto ordinal = ordinals(6);
    for (const auto& [noun, role] : nouns) {
        const std::string n = std::string(noun) + " ";
        const auto [lo, hi] = occ_.within(n, b, e);
        for (const std::size_t* it = lo; it != hi; ++it) {
            const std::size_t d = *it + n.size();
            if (!word_at(*it, n.size() - 1) || d >= e || !digit(low_[d]) || (d + 1 < e && digit(low_[d + 1]))) continue;
            const Role r = role == Role::Unknown ? role_before(*it) : role;
            out.push_back({*it, d + 1, low_[d] - '0', r});
        }
        for (std::size_t o = 0; o < ordinal.size(); ++o) {
            const std::string phrase_o = std::string(ordinal[o]) + " " + noun;
            const auto [lo2, hi2] = occ_.within(phrase_o, b, e);
            for (const std::size_t* it = lo2; it != hi2; ++it) {
                if (!word_at(*it, phrase_o.size()) &&
                    !(*it + phrase_o.size() < low_.size() && low_[*it + phrase_o.size()] == 's'))
                    continue;
                const Role r = role == Role::Unknown ? role_before(*it) : role;
                out.push_back({*it, *it + phrase_o.size(), static_cast<int>(o) + 1, r});
            }
        }
    }
    for (std::size_t o = 0; o < ordinal.size(); ++o) {  // "attends to the first"
        const std::string phrase_o = "the " + std::string(ordinal[o]);
        const auto [lo, hi] = occ_.within(phrase_o, b, e);
        for (const std::size_t* it = lo; it != hi; ++it) {
            const std::size_t r = *it + phrase_o.size();
            if (!word_at(*it, phrase_o.size())) continue;
            std::size_t n = r;
            while (n < low_.size() && low_[n] == ' ') ++n;
            std::size_t ne = n;
            while (ne < low_.size() && alpha(low_[ne])) ++ne;
            const std::string next = low_.substr(n, ne - n);
            // "the first query" is a noun's ordinal above; "the first with weight 1/4" a token's
            if (next != "with" && next != "and" && next != "by" && n != r + 0 && !next.empty()) continue;
            out.push_back({*it, r, static_cast<int>(o) + 1, role_before(*it + 4)});
        }
    }
    for (const char* sym : {"x_", "q_", "k_", "o_", "y_"}) {
        const auto [lo, hi] = occ_.within(sym, b, e);
        for (const std::size_t* it = lo; it != hi; ++it) {
            std::size_t d = *it + 2;
            if (d < e && low_[d] == '{') ++d;
            if (d >= e || !digit(low_[d]) || (*it > 0 && alpha(low_[*it - 1]))) continue;
            const Role r = sym[0] == 'k' ? Role::Key : sym[0] == 'x' ? role_before(*it) : Role::Query;
            out.push_back({*it, d + 1, low_[d] - '0', r});
        }
    }
    {
        const auto [lo, hi] = occ_.within("itself", b, e);
        for (const std::size_t* it = lo; it != hi; ++it) out.push_back({*it, *it + 6, 0, Role::Self});
    }
    std::sort(out.begin(), out.end(), [](const Mention& x, const Mention& y) { return x.at < y.at; });
    return out;
}

// The head named nearest a number: a table's caption, its sentence (before it, else after it),
// the paragraphs its level reaches back over, its section.
void Binder::head_cues(const Candidate& c, const Span& sent, std::size_t reach, std::size_t sec_b, Scores& sc) const {
    auto heads_in = [&](std::size_t b, std::size_t e) {
        int before = 0, after = 0;
        std::size_t before_at = 0;
        const auto ordinal = ordinals(4);
        for (int h = 1; h <= 9; ++h) {
            for (const std::string& p :
                 {fmt::format("head {}", h), fmt::format("head_{}", h),
                  h <= 4 ? fmt::format("{} head", ordinal[static_cast<std::size_t>(h - 1)]) : std::string("\x01")}) {
                std::size_t at = 0;
                if (phrase(b, std::min(e, c.b), p, &at) && (before == 0 || at > before_at)) {
                    before = h;
                    before_at = at;
                }
                if (after == 0 && phrase(std::max(b, c.e), e, p, &at, false)) after = h;
            }
        }
        return before > 0 ? before : after;
    };
    int h = 0;
    double w = 0;
    if (c.table >= 0) {
        const auto& t = L_.tables[static_cast<std::size_t>(c.table)];
        for (int k = 1; k <= 9 && h == 0; ++k) {
            if (has_phrase(t.caption, 0, t.caption.size(), fmt::format("head {}", k))) h = k, w = 4;
        }
    }
    if (h == 0 && (h = heads_in(sent.b, sent.e)) > 0) w = 4;
    if (h == 0 && reach < sent.b && (h = heads_in(reach, sent.b)) > 0) w = 3;
    if (h == 0 && sec_b < reach && (h = heads_in(sec_b, reach)) > 0) w = 2;
    if (h > 0) sc.head[h] = w;
}

// A layer's cues: the head named nearest (its sentence, the paragraphs before it, its
// section; a table's caption), and the query row and key position of the sentence's tokens.
void Binder::layer_cues(const Candidate& c, const Span& sent, std::size_t reach, std::size_t sec_b, Scores& sc) const {
    if (sc.head.empty()) head_cues(c, sent, reach, sec_b, sc);
    if (c.table >= 0) return;
    // "[1,0], [0,1] and [1,1]": vectors listed are the rows in order; "the weights are 1/7, 2/7
    // and 4/7": scalars listed are the keys of the row the sentence names, in order.
    const bool scalars_listed = c.list_index > 0 && c.list_size >= 2 && c.shape.entries < 0;
    if (c.list_index > 0 && c.list_size >= 2 && !scalars_listed) {
        sc.qrow[c.list_index] = c.list_size >= 3 ? 3 : 1;
        return;
    }
    const std::vector<Mention> ms = token_mentions(sent.b, sent.e);
    int q = 0, k = 0;
    for (const auto& m : ms) {
        if (m.end > c.b) break;
        switch (m.role) {
            case Role::Query:
                q = m.index, k = 0;
                break;
            case Role::Key:
                k = m.index;
                break;
            case Role::Self:
                k = q;
                break;
            case Role::Unknown:
                if (q == 0) {
                    q = m.index;
                } else if (k == 0) {
                    k = m.index;
                } else {
                    q = m.index, k = 0;
                }
                break;
        }
    }
    // A key named right after it ("0 against the key of oak", "1/5 to oak", "2a against itself").
    for (const auto& m : ms) {
        if (m.at < c.e) continue;
        const std::string gap = low_.substr(c.e, m.at - c.e);
        bool only_links = gap.size() <= 24;
        std::size_t p = 0;
        while (only_links && p < gap.size()) {
            while (p < gap.size() && (gap[p] == ' ' || gap[p] == '$')) ++p;
            std::size_t we = p;
            while (we < gap.size() && alpha(gap[we])) ++we;
            const std::string w = gap.substr(p, we - p);
            if (we == p && p < gap.size()) only_links = false;
            if (!w.empty() && w != "against" && w != "to" && w != "the" && w != "key" && w != "of" && w != "on")
                only_links = false;
            p = we;
        }
        if (only_links && (m.role == Role::Key || m.role == Role::Self || m.role == Role::Unknown))
            k = m.role == Role::Self ? q : m.index;
        break;
    }
    if (q == 0) {  // the token named after it ("… is the output of elm")
        for (const auto& m : ms) {
            if (m.at >= c.e && (m.role == Role::Query || m.role == Role::Unknown)) {
                q = m.index;
                break;
            }
        }
    }
    if (scalars_listed) k = c.list_index;  // the row, when the sentence names none, by value
    if (q > 0 && sc.qrow.empty()) sc.qrow[q] = 4;
    if (k > 0 && sc.pos.empty()) sc.pos[k] = 4;
    if (q > 0 || k > 0) {
        const std::string r = fmt::format("{}{}{}", q > 0 ? fmt::format("query {}", q) : "", q > 0 && k > 0 ? ", " : "",
                                          k > 0 ? fmt::format("key {}", k) : "");
        sc.reason_index = sc.reason_index.empty() ? r : sc.reason_index + ", " + r;
    }
}

}  // namespace exactattn::manuscript::binding
