// SPDX-License-Identifier: MIT
// exactattn internal: looking a declaration up by name, with the one message that lists the
// names there are when it is not found.
#pragma once

#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "exactattn/error.hpp"

namespace exactattn::detail {

/// "a, b, c": name(x) for each x of `range`, or `none` when there are no names.
template <class Range, class Name>
std::string name_list(const Range& range, Name&& name, const char* none = "none declared") {
    std::string out;
    for (const auto& x : range) out += (out.empty() ? "" : ", ") + std::string(name(x));
    return out.empty() ? none : out;
}

/// The element of `list` whose `.name` is `name`, or ReferenceError at `where`:
/// `unknown <what> "<name>" (<plural>: a, b, c)`.
template <class T>
const T& find_named(const std::vector<T>& list, const std::string& name, const char* what, const char* plural,
                    const Location& where = {}) {
    for (const auto& x : list) {
        if (x.name == name) return x;
    }
    throw reference_error(fmt::format("unknown {} \"{}\" ({}: {})", what, name, plural,
                                      name_list(list, [](const T& x) -> const std::string& { return x.name; })),
                          where);
}

/// An enum's names as files and the command line write them, in the order a message lists them:
/// the one table the loader reads, the writer writes and the messages name.
template <class E>
using EnumNames = std::vector<std::pair<const char*, E>>;

/// The name of `value` in `names` ("?" for a value the table does not name).
template <class E>
const char* name_of(const EnumNames<E>& names, E value) {
    for (const auto& [name, v] : names) {
        if (v == value) return name;
    }
    return "?";
}

}  // namespace exactattn::detail
