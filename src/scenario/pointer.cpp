// SPDX-License-Identifier: MIT
// exactattn internal: JSON pointers (RFC 6901): built, split, and the report's token targets.
#include "scenario/pointer.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "exactattn/scenario.hpp"

namespace exactattn {

namespace {

bool is_regime(const std::string& s) { return regime_named(s).has_value(); }

bool is_index(const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A list key at t[k] whose whole list (size k + 1) or one element (size k + 2) is named.
bool list_or_element(const std::vector<std::string>& t, std::size_t k) {
    return t.size() == k + 1 || (t.size() == k + 2 && is_index(t[k + 1]));
}

}  // namespace

namespace detail {

Location key_place(const std::string& file, const std::string& pointer) {
    Location l;
    l.file = file;
    l.pointer = pointer;
    return l;
}

Location key_place(const std::string& file, const char* section, const std::string& name, const char* key) {
    return key_place(file, pointer_join(pointer_join(std::string("/") + section, name), key));
}

std::string pointer_join(const std::string& base, const std::string& token) {
    std::string escaped;
    for (char c : token) {
        if (c == '~')
            escaped += "~0";
        else if (c == '/')
            escaped += "~1";
        else
            escaped += c;
    }
    return base + "/" + escaped;
}

std::optional<std::vector<std::string>> pointer_parts(std::string_view pointer) {
    try {
        nlohmann::json::json_pointer p{std::string(pointer)};
        std::vector<std::string> out;
        while (!p.empty()) {
            out.insert(out.begin(), p.back());
            p.pop_back();
        }
        return out;
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
}

}  // namespace detail

bool names_tokens(std::string_view pointer) {
    const auto parts = detail::pointer_parts(pointer);
    if (!parts) return false;
    const auto& t = *parts;
    const std::size_t n = t.size();
    if (n >= 3 && t[0] == "rollouts") {
        if (t[2] == "reference") return list_or_element(t, 2);
        if (is_regime(t[2]) && n >= 4) {
            if (t[3] == "tokens") return list_or_element(t, 3);
            if (t[3] == "steps" && n >= 6 && is_index(t[4])) {
                if (t[5] == "input" || t[5] == "chosen" || t[5] == "reference") return n == 6;
                if (t[5] == "argmax") return list_or_element(t, 5);
            }
            return false;
        }
        if (t[2] == "divergence" && n >= 4 && (t[3] == "reference_prefix" || t[3] == "generated_prefix")) {
            return list_or_element(t, 3);
        }
        return false;
    }
    if (n >= 3 && t[0] == "sources" && t[2] == "tokens") return list_or_element(t, 2);
    if (n >= 5 && t[0] == "interventions" && t[2] == "rows") {
        if (t[4] == "deleted") return n == 5;
        if (t[4] == "tokens") return list_or_element(t, 4);
    }
    return false;
}

}  // namespace exactattn
