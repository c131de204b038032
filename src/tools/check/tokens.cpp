// SPDX-License-Identifier: MIT
// exactattn: `check` for answers that are tokens — a rollout step's chosen token, its input, the
// generated sequence, a source's tokens — compared exactly, with the token mistakes named.
#include "tools/check/tokens.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "exactattn/decoder.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "report/report_json.hpp"
#include "report/targets.hpp"

namespace exactattn {

namespace {

using detail::Json;

bool is_regime(const std::string& s) { return regime_named(s).has_value(); }

}  // namespace

std::string token_text(const std::string& token) {
    const bool bare = !token.empty() && token.find_first_of(",[]\"") == std::string::npos && token.front() != ' ' &&
                      token.back() != ' ' && token.front() != '\t' && token.back() != '\t' &&
                      token.find_first_of("\r\n") == std::string::npos;
    return bare ? token : Json(token).dump();
}

namespace detail {

void read_token_proposal(std::string_view text, LearnerAnswer& la) {
    la.entries.clear();
    la.proposed.clear();
    la.columns = 0;
    la.scalar = false;
    check_utf8(text, "tokens");
    // Columns count code points (the text is valid UTF-8 here: skip continuation bytes).
    auto fail = [&](std::size_t at, const std::string& why) {
        Location l;
        l.context = "tokens";
        l.column =
            1 + static_cast<int>(std::count_if(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at),
                                               [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
        return parse_error(l, why);
    };
    auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    std::size_t i = 0;
    auto skip = [&] {
        while (i < text.size() && space(text[i])) ++i;
    };
    // A JSON string at text[i] ("," or "a \"b\""): its token, with i after the closing quote.
    auto quoted = [&]() {
        const std::size_t open = i;
        std::size_t k = i + 1;
        while (k < text.size() && text[k] != '"') k += text[k] == '\\' ? 2 : 1;
        if (k >= text.size()) throw fail(open, "a quoted token is not closed by \"");
        try {
            const Json s = Json::parse(text.substr(open, k - open + 1));
            i = k + 1;
            return s.get<std::string>();
        } catch (const Json::exception&) {
            throw fail(open, "a quoted token is not a JSON string (escape \\ and \" inside it)");
        }
    };
    auto push = [&la](AnswerEntry e) {  // one (placeholder) value per entry, as for numbers
        la.entries.push_back(std::move(e));
        la.proposed.emplace_back();
    };
    skip();
    if (i == text.size()) throw fail(0, "an empty answer proposes nothing");
    if (text[i] != '[') {
        if (text[i] == '"') {
            push(token_entry(quoted()));
            skip();
            if (i < text.size()) throw fail(i, "text after the quoted token");
        } else {
            std::size_t end = text.size();
            while (end > i && space(text[end - 1])) --end;
            push(token_entry(std::string(text.substr(i, end - i))));
        }
        la.scalar = true;
        return;
    }
    ++i;
    for (;;) {
        skip();
        if (i < text.size() && text[i] == ']' && la.entries.empty()) throw fail(i, "an empty list proposes nothing");
        if (i >= text.size()) throw fail(text.size(), "the list is not closed by ]");
        if (text[i] == '"') {
            push(token_entry(quoted()));
        } else {
            const std::size_t start = i;
            while (i < text.size() && text[i] != ',' && text[i] != ']') {
                if (text[i] == '[' || text[i] == '"') {
                    throw fail(i, "a token with a bracket, quote or comma is written as a JSON string, e.g. \"[\"");
                }
                ++i;
            }
            std::size_t end = i;
            while (end > start && space(text[end - 1])) --end;
            if (end == start) throw fail(start, "an empty entry (an empty token is written \"\")");
            // Bare null: the place of a step whose tie the rule refused; the token is "null".
            const std::string_view word = text.substr(start, end - start);
            push(word == "null" ? no_token_entry() : token_entry(std::string(word)));
        }
        skip();
        if (i >= text.size()) throw fail(text.size(), "the list is not closed by ]");
        if (text[i] == ',') {
            ++i;
            continue;
        }
        if (text[i] != ']') throw fail(i, "expected , or ] after a token");
        ++i;
        skip();
        if (i < text.size()) throw fail(i, "text after the list's closing ]");
        return;
    }
}

}  // namespace detail

namespace {

std::vector<std::optional<std::string>> all_present(const std::vector<std::string>& tokens) {
    return {tokens.begin(), tokens.end()};
}

std::string one_text(const std::optional<std::string>& t) { return t ? token_text(*t) : "null"; }

}  // namespace

std::string detail::tokens_text(const std::vector<std::optional<std::string>>& tokens, bool scalar) {
    if (scalar && tokens.size() == 1) return one_text(tokens[0]);
    std::string out = "[";
    for (std::size_t i = 0; i < tokens.size(); ++i) out += (i == 0 ? "" : ", ") + one_text(tokens[i]);
    return out + "]";
}

std::string detail::tokens_text(const std::vector<std::string>& tokens, bool scalar) {
    return tokens_text(all_present(tokens), scalar);
}

Inline detail::tokens_inline(const std::vector<std::optional<std::string>>& tokens, bool scalar) {
    auto one = [](Inline& out, const std::optional<std::string>& t) -> Inline& {
        return t ? out.token(*t) : out.text("null");
    };
    Inline out;
    if (scalar && tokens.size() == 1) return one(out, tokens[0]);
    out.text("[");
    for (std::size_t i = 0; i < tokens.size(); ++i) one(i == 0 ? out : out.text(", "), tokens[i]);
    return out.text("]");
}

Inline detail::tokens_inline(const std::vector<std::string>& tokens, bool scalar) {
    return tokens_inline(all_present(tokens), scalar);
}

std::vector<std::optional<std::string>> detail::proposed_tokens(const std::vector<AnswerEntry>& entries) {
    std::vector<std::optional<std::string>> out;
    for (const auto& e : entries) {
        out.push_back(e.form == AnswerEntry::Form::NoToken ? std::nullopt : std::optional<std::string>(e.text));
    }
    return out;
}

namespace {

std::string and_list(const std::vector<std::string>& tokens) {
    std::string out;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        out += (i == 0 ? "" : i + 1 == tokens.size() ? " and " : ", ") + token_text(tokens[i]);
    }
    return out;
}

std::string comma_list(const std::vector<std::string>& tokens) {
    std::string out;
    for (const auto& x : tokens) out += (out.empty() ? "" : ", ") + token_text(x);
    return out;
}

bool ascii_case_equal(const std::string& x, const std::string& y) {
    return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin(), [](char a, char b) {
               auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
               return lower(a) == lower(b);
           });
}

// A wrong way that gives these tokens (a tied token, the other regime's value, the reference).
struct TokenMistake {
    const char* id;
    std::string explain;
    std::vector<std::vector<std::optional<std::string>>> alternatives;  ///< none: a refused step
};

const char* regime_name(const std::string& r) { return r == "generation" ? "generation" : "teacher forcing"; }

// What the pointer below /rollouts/<name>/<regime> names, for sentences: "choice at step 2".
std::string what_of(const std::vector<std::string>& t) {
    if (t[3] == "tokens") return t.size() == 5 ? fmt::format("token {}", std::stoul(t[4]) + 1) : "tokens";
    const std::string step = "step " + t[4];
    if (t[5] == "chosen") return "choice at " + step;
    if (t[5] == "input") return "input at " + step;
    return "largest-score tokens at " + step;
}

std::vector<TokenMistake> token_mistakes(const Report& rep, const Json& doc, const std::vector<std::string>& t) {
    std::vector<TokenMistake> out;
    if (t.size() < 4 || t[0] != "rollouts" || !is_regime(t[2])) return out;
    const RolloutResult& rr = rep.rollout(t[1]);
    const bool tf = regime_named(t[2]) == Regime::TeacherForcing;
    const RegimeTrace* regime = tf ? (rr.teacher_forcing ? &*rr.teacher_forcing : nullptr) : &rr.generation;
    if (regime == nullptr) return out;
    const Decoder& d = *rep.scenario.decoder;
    const bool chosen = t.size() == 6 && t[3] == "steps" && t[5] == "chosen";
    const std::size_t k = t.size() >= 5 && t[3] == "steps" ? std::stoul(t[4]) : 0;
    const DecoderStep* st = chosen && k >= 1 && k <= regime->steps.size() ? &regime->steps[k - 1] : nullptr;
    // A tied token the rule did not choose.
    if (st != nullptr && st->tie() && st->chosen) {
        TokenMistake m{"other-tied-token", {}, {}};
        std::vector<std::string> tied;
        for (auto a : st->argmax) {
            tied.push_back(d.vocabulary[a].first);
            if (a != *st->chosen) m.alternatives.push_back({std::optional<std::string>(d.vocabulary[a].first)});
        }
        m.explain = fmt::format(
            "{} tie exactly at step {} (output score {} each), and the tie rule \"first\" "
            "chooses the tied token first in the target vocabulary's order, {}; {} goes on "
            "from {}",
            and_list(tied), k, to_display(st->scores[*st->chosen], Notation::Unicode), token_text(st->chosen_token),
            regime_name(t[2]), token_text(st->chosen_token));
        out.push_back(std::move(m));
    }
    // The same quantity under the other regime (Table 14.4's reference/generated prefix mismatch).
    const std::string other = regime_name(tf ? Regime::Generation : Regime::TeacherForcing);
    std::string other_pointer = detail::pointer_join(detail::pointer_join("/rollouts", t[1]), other);
    for (std::size_t i = 3; i < t.size(); ++i) other_pointer = detail::pointer_join(other_pointer, t[i]);
    const Json::json_pointer op(other_pointer);
    if (doc.contains(op)) {
        const Json& x = doc.at(op);
        std::vector<std::optional<std::string>> alt;
        if (x.is_string()) alt.emplace_back(x.get<std::string>());
        for (const auto& y : x.is_array() ? x : Json::array()) {
            if (y.is_string()) alt.emplace_back(y.get<std::string>());
            if (y.is_null()) alt.emplace_back(std::nullopt);
        }
        if (!alt.empty()) {
            out.push_back(TokenMistake{
                "other-regime",
                fmt::format(
                    "{} {}'s {}: {}, while {} (the reference/generated prefix mismatch of Table 14.4)",
                    t[3] == "tokens" && t.size() == 4 ? "these are" : "this is", regime_name(other), what_of(t),
                    tf ? "generation feeds the decoder its own previous choice"
                       : "teacher forcing feeds the decoder the reference token",
                    tf ? "teacher forcing feeds the reference token" : "generation feeds its own previous choice"),
                {alt}});
        }
    }
    // The reference token(s) instead of the decoder's choice(s).
    if (st != nullptr && st->reference && st->chosen) {
        std::vector<std::string> top;
        for (auto a : st->argmax) top.push_back(d.vocabulary[a].first);
        out.push_back(TokenMistake{"reference-token",
                                   fmt::format("the reference token {} was given, but the decoder chooses the token "
                                               "with the largest output score ({}), whatever the reference is",
                                               token_text(*st->reference), and_list(top)),
                                   {{std::optional<std::string>(*st->reference)}}});
    }
    if (t[3] == "tokens" && !rr.spec.reference.empty()) {
        const auto& ref = rr.spec.reference;
        std::vector<std::optional<std::string>> alt;
        if (t.size() == 4)
            alt.assign(ref.begin(),
                       ref.begin() + static_cast<std::ptrdiff_t>(std::min(ref.size(), regime->steps.size())));
        else if (std::stoul(t[4]) < ref.size())
            alt.push_back(ref[std::stoul(t[4])]);
        if (!alt.empty()) {
            out.push_back(
                TokenMistake{"reference-token",
                             "the reference tokens were given instead of the decoder's choices (each the token "
                             "with the largest output score)",
                             {alt}});
        }
    }
    return out;
}

}  // namespace

namespace detail {

Judgement judgement_of(const LearnerAnswer& answer) {
    Judgement j;
    j.name = answer.name;
    j.target = answer.target;
    j.entries = answer.entries;
    j.scalar = answer.scalar;
    return j;
}

Judgement judge_tokens(const Report& rep, const Json& doc, const LearnerAnswer& answer, const Location& where) {
    Judgement j = judgement_of(answer);
    j.tokens = true;
    const TokensAt right = tokens_at(doc, answer.target, where);
    j.exact_tokens = right.tokens;
    const auto t = detail::pointer_parts(answer.target).value_or(std::vector<std::string>{});
    // A step's argmax is the set of tokens with the largest score: any order.
    const bool as_set = t.size() == 6 && t[5] == "argmax";
    j.rule = as_set ? "exact tokens, in any order" : right.scalar ? "exact token" : "exact tokens";
    const char* holds = right.scalar ? "a token" : "tokens";
    for (const auto& e : answer.entries) {
        if (e.form != AnswerEntry::Form::Token && e.form != AnswerEntry::Form::NoToken) {
            j.findings.push_back(fmt::format("the answer is a number, but {} holds {}", answer.target, holds));
            j.feedback = fmt::format("Wrong: {} holds {}, not a number.", answer.target, holds);
            return j;
        }
    }
    const auto given = proposed_tokens(answer.entries);
    using Tokens = std::vector<std::optional<std::string>>;
    auto same = [&](Tokens x, Tokens y) {
        if (as_set) {
            std::sort(x.begin(), x.end());
            std::sort(y.begin(), y.end());
        }
        return x == y;
    };
    const bool shape_ok = answer.scalar == right.scalar;
    if (shape_ok && same(given, right.tokens)) {
        j.correct = true;
        j.feedback = fmt::format("Right ({}).", j.rule);
        return j;
    }
    // Findings: the shape, a token outside the vocabulary, a difference in letter case only.
    if (!shape_ok) {
        j.findings.push_back(right.scalar ? fmt::format("a list of {} token{} proposed where the answer is one token",
                                                        given.size(), given.size() == 1 ? "" : "s")
                                          : fmt::format("one token proposed where the answer is a list of {}: write "
                                                        "it as [t1, t2, …]",
                                                        right.tokens.size()));
    } else if (given.size() != right.tokens.size()) {
        j.findings.push_back(fmt::format("{} token{} proposed where the answer has {}", given.size(),
                                         given.size() == 1 ? "" : "s", right.tokens.size()));
    }
    const bool target_side = !t.empty() && t[0] == "rollouts";
    std::vector<std::string> vocabulary;
    if (target_side && rep.scenario.decoder) {
        for (const auto& [name, e] : rep.scenario.decoder->vocabulary) vocabulary.push_back(name);
    } else if (!target_side) {
        for (const auto& [name, e] : rep.scenario.vocabulary) vocabulary.push_back(name);
    }
    // A refused tie's step left out: its place holds null (docs/decoder.md).
    Tokens present;
    for (const auto& x : right.tokens) {
        if (x) present.push_back(x);
    }
    if (present.size() < right.tokens.size() && given.size() == present.size() && same(given, present)) {
        j.findings.push_back(
            fmt::format("the answer has no token where the tie rule refused a tie: its place is written null, {}",
                        detail::tokens_text(right.tokens, false)));
    }
    for (const auto& g : given) {
        if (!g || vocabulary.empty() || std::find(vocabulary.begin(), vocabulary.end(), *g) != vocabulary.end())
            continue;
        j.findings.push_back(fmt::format(
            "{} is not a token of the {} vocabulary ({})", token_text(*g), target_side ? "target" : "source",
            vocabulary.size() <= 12 ? comma_list(vocabulary) : fmt::format("{} tokens", vocabulary.size())));
        break;
    }
    if (shape_ok && given.size() == right.tokens.size() && !as_set) {
        for (std::size_t i = 0; i < given.size(); ++i) {
            if (given[i] && right.tokens[i] && given[i] != right.tokens[i] &&
                ascii_case_equal(*given[i], *right.tokens[i])) {
                j.findings.push_back(
                    fmt::format("{} differs from the answer only in letter case; tokens are compared "
                                "exactly",
                                token_text(*given[i])));
                break;
            }
        }
    }
    for (const auto& m : token_mistakes(rep, doc, t)) {
        for (const auto& alt : m.alternatives) {
            if (same(alt, right.tokens) || !shape_ok || !same(given, alt)) continue;
            j.mistake = m.explain;
            j.mistake_id = m.id;
            j.feedback = fmt::format("Wrong: {}.", m.explain);
            return j;
        }
    }
    j.feedback = j.findings.empty() ? std::string("Wrong: no known mistake reproduces it.")
                                    : fmt::format("Wrong: no known mistake reproduces it; {}.", j.findings.back());
    return j;
}

}  // namespace detail

}  // namespace exactattn
