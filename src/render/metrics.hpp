// SPDX-License-Identifier: MIT
// exactattn: text extents of the figures' fonts, for laying figures out from measured text.
#pragma once

#include <string>

namespace exactattn::detail {

/// The figures' text box above and below its baseline, in em: the fonts' ascent and descent
/// (DejaVu Sans 1901/2048 and 483/2048, WenQuanYi Micro Hei 1918/2048 and 483/2048), rounded up.
inline constexpr double kTextAscent = 0.94;
inline constexpr double kTextDescent = 0.24;

/// The advance of UTF-8 text, in points, set at `size` points in the fonts the figures declare
/// ('DejaVu Sans', then 'WenQuanYi Micro Hei' for what DejaVu Sans lacks; docs/figures.md):
/// the sum of each code point's advance width from the fonts' own files (src/render/font_metrics.inc,
/// written by scripts/font_metrics.py). A code point in neither font counts 1 em. The SVG and the
/// TikZ writers draw the same picture, so this one measure lays out both.
double text_width(const std::string& utf8, double size, bool bold = false);

/// The longest start of `utf8` (whole code points) that, followed by `tail`, is at most `room`
/// points wide at `size` points: where a figure cuts a name to "…".
std::string text_prefix(const std::string& utf8, const std::string& tail, double room, double size, bool bold = false);

}  // namespace exactattn::detail
