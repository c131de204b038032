// SPDX-License-Identifier: MIT
// exactattn internal: a JSON pointer resolved in a run report (report_json.hpp, resolve_pointer),
// or refused with the step that fails and what is there instead.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "exactattn/error.hpp"
#include "report/report_json.hpp"

namespace exactattn::detail {

namespace {

// Says which step of a dangling pointer fails, and what is there instead.
std::string missing_part(const Json& doc, const Json::json_pointer& ptr) {
    std::vector<std::string> tokens;
    for (Json::json_pointer p = ptr; !p.empty(); p.pop_back()) tokens.insert(tokens.begin(), p.back());
    const Json* node = &doc;
    std::string at;
    for (const auto& t : tokens) {
        const std::string here = at.empty() ? "the top level" : at;
        if (node->is_object()) {
            if (!node->contains(t)) {
                std::string keys;
                std::size_t shown = 0;
                for (const auto& [k, v] : node->items()) {
                    if (shown++ == 8) {
                        keys += ", …";
                        break;
                    }
                    keys += (keys.empty() ? "" : ", ") + k;
                }
                return fmt::format("no \"{}\" at {} (there: {})", t, here, keys.empty() ? "nothing" : keys);
            }
            node = &(*node)[t];
        } else if (node->is_array()) {
            std::size_t k = 0;
            bool ok = !t.empty() && t.size() < 10 && t.find_first_not_of("0123456789") == std::string::npos &&
                      (t == "0" || t[0] != '0');
            if (ok) k = std::stoul(t);
            if (!ok || k >= node->size()) {
                return fmt::format("\"{}\" is not an index of {} (indices 0 to {}, counted from 0)", t, here,
                                   node->empty() ? 0 : node->size() - 1);
            }
            node = &(*node)[k];
        } else {
            return fmt::format("{} is a single value, not an object or an array", here);
        }
        at += "/" + t;
    }
    return "it is not there";
}

}  // namespace

const Json& resolve_pointer(const Json& doc, const std::string& pointer, const Location& where) {
    Json::json_pointer ptr;
    try {
        ptr = Json::json_pointer(pointer);
    } catch (const nlohmann::json::exception&) {
        throw reference_error(fmt::format("\"{}\" is not a valid JSON pointer (RFC 6901)", pointer), where);
    }
    if (pointer.empty()) {
        throw reference_error(
            "the empty pointer names the whole report; give the pointer of a quantity, "
            "e.g. /reads/<read>/weights",
            where);
    }
    // contains() throws for a malformed array index ("/rows/x"); that names nothing either.
    bool found = false;
    try {
        found = doc.contains(ptr);
    } catch (const nlohmann::json::exception&) {
        found = false;
    }
    if (!found)
        throw reference_error(
            fmt::format("{} resolves to nothing in the run report: {}", pointer, missing_part(doc, ptr)), where);
    return doc.at(ptr);
}

}  // namespace exactattn::detail
