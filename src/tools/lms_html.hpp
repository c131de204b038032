// SPDX-License-Identifier: MIT
// exactattn internal: a prompt as the HTML of a learning-management-system question (Moodle's
// question text, PrairieLearn's question panel), shared by both exports of `variants`.
#pragma once

#include <string>

#include "exactattn/document.hpp"

namespace exactattn::detail {

/// Math as MathJax's inline `\(…\)` around its LaTeX (both systems' MathJax typesets it),
/// emphasis and code as `<em>`, `<strong>` and `<code>`, all other text HTML-escaped.
std::string lms_html(const Inline& in);

}  // namespace exactattn::detail
