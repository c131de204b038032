// SPDX-License-Identifier: MIT
// exactattn internal: a figure's picture as SVG (a file of its own, or inline in HTML) and TikZ.
#pragma once

#include <string>

#include "exactattn/document.hpp"

namespace exactattn::detail {

/// The figure's <svg> element; `xml`: a file of its own, which names the SVG namespace (inline
/// in HTML it needs none).
std::string svg_element(const FigureBlock& fb, bool xml);

}  // namespace exactattn::detail
