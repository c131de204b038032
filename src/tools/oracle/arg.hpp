// SPDX-License-Identifier: MIT
// exactattn oracle (private): the place of an error in a named argument of a problem or a request.
#pragma once

#include "exactattn/oracle.hpp"

namespace exactattn::oracle::detail {

/// The location "in argument `name`" (its context), where a refusal of that argument is placed.
inline Location arg(const char* name) {
    Location l;
    l.context = name;
    return l;
}

}  // namespace exactattn::oracle::detail
