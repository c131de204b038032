// SPDX-License-Identifier: MIT
// exactattn internal: a figure's picture as SVG (a file of its own, or inline in HTML) and TikZ.
#pragma once

#include <cstddef>
#include <string>

#include "exactattn/document.hpp"

namespace exactattn::detail {

/// The figure's <svg> element; `xml`: a file of its own, which names the SVG namespace (inline
/// in HTML it needs none). Each value of a label is fitted to `max_width` columns (0: every
/// digit), the width of the document's writer.
std::string svg_element(const FigureBlock& fb, bool xml, std::size_t max_width = 0);
/// The figure's tikzpicture (render_tikz), each value of a label fitted to `max_width`.
std::string tikz_picture(const FigureBlock& fb, std::size_t max_width = 0);

}  // namespace exactattn::detail
