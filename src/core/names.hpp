// SPDX-License-Identifier: MIT
// exactattn internal: looking a declaration up by name, with the one message that lists the
// names there are when it is not found.
#pragma once

#include <fmt/format.h>

#include <string>
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

}  // namespace exactattn::detail
