// SPDX-License-Identifier: MIT
// exactattn: counts in prose (wording.hpp).
#include "exactattn/wording.hpp"

namespace exactattn {

std::string counted(std::size_t n, std::string_view singular, std::string_view plural) {
    std::string out = std::to_string(n) + " ";
    if (n == 1) return out.append(singular);
    if (!plural.empty()) return out.append(plural);
    return out.append(singular).append("s");
}

}  // namespace exactattn
