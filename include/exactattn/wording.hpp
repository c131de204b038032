// SPDX-License-Identifier: MIT
// exactattn: counts in prose, in one voice — "1 file", "0 files", "2 claims" — for every summary
// line and report the commands print.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace exactattn {

/// `n` and the noun in the number n asks for: `counted(1, "file")` is "1 file", `counted(0,
/// "file")` "0 files"; `plural` when the noun does not just take an s (`counted(2, "answer does
/// not parse", "answers do not parse")`).
std::string counted(std::size_t n, std::string_view singular, std::string_view plural = {});

}  // namespace exactattn
