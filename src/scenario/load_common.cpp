// SPDX-License-Identifier: MIT
// exactattn internal: what every section of the scenario loader reads: flags and pointers.
#include "scenario/load.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "core/names.hpp"
#include "scenario/json.hpp"

namespace exactattn::detail {

bool Loader::flag(const Json& v, const std::string& ptr) {
    if (!v.is_boolean()) {
        throw shape_error(fmt::format("expected true or false, found {}", detail::json_type(v)), r_.at(ptr));
    }
    return v.get<bool>();
}

std::string Loader::pointer(const Json& v, const std::string& ptr) {
    std::string p = r_.string(v, ptr);
    if (p.empty() || p[0] != '/') {
        throw shape_error(fmt::format("expected a JSON pointer (starting with '/'), found \"{}\"", p), r_.at(ptr));
    }
    return p;
}

}  // namespace exactattn::detail
