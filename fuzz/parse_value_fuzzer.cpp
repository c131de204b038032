// SPDX-License-Identifier: MIT
// libFuzzer target: the expression parser (parse_value, parse_vector, parse_matrix) and the
// printers. Any input must either parse to a canonical value whose ascii form reads back to
// the same value, or throw exactattn::Error; anything else (a crash, another exception, a
// sanitizer report, a broken round trip) is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "exactattn/error.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "fuzz_common.hpp"

using namespace exactattn;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text = fuzz::input_text(data, size);
    try {
        const Value v = parse_value(text);
        if (!v.is_canonical()) __builtin_trap();
        // docs/notation.md: the canonical ascii form reads back to the same value.
        if (parse_value(to_ascii(v)) != v) __builtin_trap();
        (void)to_unicode(v);
        (void)to_latex(v);
        try {
            const double d = to_double(v);
            const int s = v.sign();
            if ((s > 0 && d < 0) || (s < 0 && d > 0) || (s == 0 && d != 0)) __builtin_trap();
            (void)to_significant(v, 12);
        } catch (const Error&) {  // a value past the precision limit
        }
    } catch (const Error&) {
    }
    try {
        (void)parse_vector(text);
    } catch (const Error&) {
    }
    try {
        (void)parse_matrix(text);
    } catch (const Error&) {
    }
    return 0;
}
