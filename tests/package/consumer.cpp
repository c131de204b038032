// SPDX-License-Identifier: MIT
// Uses the installed library through its front door: 1/(1 + √2) = √2 − 1 and Table 14.2's key row.
#include <exactattn/exactattn.hpp>

#include <iostream>

int main() {
    using namespace exactattn;
    const Value w = parse_value("1/(1 + 2^(1/2))");
    ReadRequest req;
    req.query = {Value(1), Value(0)};
    req.marks = {Mark::Included, Mark::Removed, Mark::Included};
    const ReadTrace t = attend(Matrix{{Value::ln2(), Value()}, {Value(), Value::ln2()}, {Value(), Value()}}, req);
    std::cout << to_ascii(w) << " " << to_string(t.context) << "\n";
    return to_ascii(w) == "2^(1/2) - 1" && to_string(t.context) == "[2a/3, 0]" ? 0 : 1;
}
