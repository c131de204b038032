# Writes the bytes of INPUT as a C++ string into OUTPUT (one source of truth for the
# built-in scenario: data/chapter14/chapter14.json).
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" len)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
math(EXPR size "${len} / 2")
file(WRITE "${OUTPUT}"
"// Generated from data/chapter14/chapter14.json by cmake/embed.cmake; do not edit.
#include <string_view>
namespace exactattn::detail {
static const unsigned char chapter14_bytes[] = {${bytes} 0};
std::string_view embedded_chapter14() {
    return {reinterpret_cast<const char*>(chapter14_bytes), ${size}};
}
}  // namespace exactattn::detail
")
