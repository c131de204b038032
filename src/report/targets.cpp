// SPDX-License-Identifier: MIT
// exactattn internal: what a learner answer's target names in the run report — a quantity
// (flattened to its values) or tokens — checked when the scenario runs and read by `check`.
#include "report/targets.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "exactattn/error.hpp"
#include "report/report_json.hpp"

namespace exactattn::detail {

Flat flatten(const Json& j, const Location& where, const std::string& target) {
    if (names_tokens(target)) {
        throw reference_error(fmt::format("{} names tokens, not a quantity (a value, a vector or a matrix)", target),
                              where);
    }
    // Text entries of the report (names, tokens, kinds) are not quantities to answer.
    static const char* text_keys[] = {"title",  "assumptions", "meaning", "source",     "kind",
                                      "tokens", "deleted",     "labels",  "query_name", "readout_name"};
    for (const auto& t : pointer_parts(target).value_or(std::vector<std::string>{})) {
        for (const char* k : text_keys) {
            if (t == k) {
                throw reference_error(fmt::format("{} names text (\"{}\"), not a quantity to answer", target, k),
                                      where);
            }
        }
    }
    Flat f;
    auto scalar = [&](const Json& x) -> std::optional<Value> {
        if (x.is_null()) return std::nullopt;
        if (x.is_string() || x.is_number() || x.is_binary()) return detail::json_value(x, where);
        throw reference_error(fmt::format("{} names {}, not a quantity to answer", target, detail::json_type(x)),
                              where);
    };
    if (!j.is_array()) {
        f.values.push_back(scalar(j));
        f.scalar = true;
        if (!f.values.back()) throw reference_error(fmt::format("{} has no value in the run report", target), where);
        return f;
    }
    for (const auto& x : j) {
        if (x.is_array()) {
            if (f.columns == 0) f.columns = x.size();
            if (x.size() != f.columns || f.columns == 0) {
                throw reference_error(fmt::format("{} names {}, not a quantity to answer", target, "a ragged array"),
                                      where);
            }
            for (const auto& y : x) f.values.push_back(scalar(y));
        } else {
            if (f.columns != 0) {
                throw reference_error(fmt::format("{} names {}, not a quantity to answer", target, "a ragged array"),
                                      where);
            }
            f.values.push_back(scalar(x));
        }
    }
    return f;
}

TokensAt tokens_at(const Json& doc, const std::string& target, const Location& where) {
    const Json& x = resolve_pointer(doc, target, where);
    TokensAt out;
    if (x.is_string()) {
        out.tokens.push_back(x.get<std::string>());
        out.scalar = true;
        return out;
    }
    // A list of tokens; null in it is a step whose tie the rule refused (docs/decoder.md).
    if (x.is_array() && std::all_of(x.begin(), x.end(), [](const Json& y) { return y.is_string() || y.is_null(); })) {
        for (const auto& y : x) {
            out.tokens.push_back(y.is_null() ? std::nullopt : std::optional<std::string>(y.get<std::string>()));
        }
        return out;
    }
    if (x.is_null()) {
        const auto t = detail::pointer_parts(target).value_or(std::vector<std::string>{});
        const std::string why = !t.empty() && t.back() == "chosen"
                                    ? "the tie rule refused the tie at this step, so no token was chosen"
                                : !t.empty() && t[0] == "rollouts" && t.size() > 2 && t[2] == "divergence"
                                    ? "the generated tokens never leave the reference, so there is no divergence"
                                    : "the run report has no token there";
        throw reference_error(fmt::format("{} has no token to answer: {}", target, why), where);
    }
    throw reference_error(fmt::format("{} names {}, not tokens", target, json_type(x)), where);
}

void check_answer_target(const Json& doc, const Scenario& s, const LearnerAnswer& la, const Location& where) {
    (void)s;
    if (names_tokens(la.target)) {
        (void)tokens_at(doc, la.target, where);
        return;
    }
    flatten(resolve_pointer(doc, la.target, where), where, la.target);
}

}  // namespace exactattn::detail
