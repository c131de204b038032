// SPDX-License-Identifier: MIT
// exactattn internal: the markup of a manuscript whose numbers are no claims (pandoc attributes,
// cross-references and citations, raw HTML, URLs, TeX commands' arguments, TeX lengths).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "exactattn/manuscript.hpp"

namespace exactattn::manuscript::binding {

struct Blanked {
    std::size_t b, e;
    std::string why;
};

// Pandoc attributes, cross-references and citations, raw HTML, URLs, TeX commands whose
// arguments are no claims and TeX lengths: blanked, each number inside recorded as not a claim.
std::vector<Blanked> markup(std::string& s, ManuscriptFormat format);

}  // namespace exactattn::manuscript::binding
