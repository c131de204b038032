// SPDX-License-Identifier: MIT
// exactattn internal: JSON pointers (RFC 6901), built and split. Every pointer the program
// writes is built here (escaped), every pointer it reads is split here.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exactattn/error.hpp"

namespace exactattn::detail {

/// A JSON pointer string for a path of keys and indices, escaped per RFC 6901.
std::string pointer_join(const std::string& base, const std::string& token);
inline std::string pointer_join(const std::string& base, std::size_t index) {
    return base + "/" + std::to_string(index);
}

/// Where a key of a scenario file is written, `file: /pointer`: the place of an error at a
/// declaration, or of a warning about an author's text.
Location key_place(const std::string& file, const std::string& pointer);
/// The place of `key` of the declaration `name` in `section`: `file: /reads/example-14.1/note`.
Location key_place(const std::string& file, const char* section, const std::string& name, const char* key);

/// The reference tokens of a JSON pointer (RFC 6901 decoded); none when it is not a valid pointer.
std::optional<std::vector<std::string>> pointer_parts(std::string_view pointer);

}  // namespace exactattn::detail
