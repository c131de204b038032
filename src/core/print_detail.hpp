// SPDX-License-Identifier: MIT
// exactattn: values shortened for error messages (internal; defined in print.cpp).
#pragma once

#include <string>

#include "exactattn/value.hpp"

namespace exactattn::detail {

/// Text for an error message: up to 80 characters as is; a longer text keeps its start and
/// end around "…" and says how long it was, so that a message stays one readable line even
/// for a value with megabit coefficients.
std::string brief(const std::string& text);
/// brief(to_ascii(v)).
std::string brief_ascii(const Value& v);

}  // namespace exactattn::detail
