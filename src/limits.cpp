// SPDX-License-Identifier: MIT
// exactattn: the limits in force.
#include "exactattn/limits.hpp"

namespace exactattn {

namespace {
Limits& current() {
    static Limits l;
    return l;
}
}  // namespace

const Limits& limits() { return current(); }
void set_limits(const Limits& l) { current() = l; }

}  // namespace exactattn
