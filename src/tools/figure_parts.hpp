// SPDX-License-Identifier: MIT
// exactattn internal: what the figures share (figures.cpp draws reads and dependencies,
// figure_plots.cpp the heat maps, interventions and cross-checks): the palette, the column
// width, and the layout from measured text.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "exactattn/document.hpp"
#include "exactattn/figures.hpp"
#include "exactattn/report.hpp"

namespace exactattn::detail {

// The Okabe–Ito palette: told apart with every common colour-vision deficiency, and of
// distinct lightness in greyscale print. Weight bars are the dark blue; positions of an
// intervention chart take the colours in turn.
inline constexpr const char* kBlue = "#0072B2";
inline const std::vector<std::string> kPositionColours = {"#0072B2", "#E69F00", "#009E73",
                                                          "#D55E00", "#56B4E9", "#CC79A7"};
inline constexpr const char* kMasked = "#DDDDDD";
inline constexpr double kWidth = 340;

// A weight as a length: its double (bars and shades only; every label is the exact value).
double fraction(const Value& w);
// White blended into the palette's blue by the weight (the order of the shades is the order of
// the weights in greyscale too).
std::string shade(double w);

// Layout from measured text (figures.cpp): a label's width in points, a name cut to its room
// with "…", plain text wrapped at spaces, a value exact where it fits and else a correctly
// rounded decimal after "≈", a list of values alike (wrapped over lines), a source position's
// label.
double measure(const Inline& in, double size, bool bold = false);
Inline fit_name(const Inline& in, double room, double size, bool bold = false);
std::vector<Inline> wrap_words(const std::string& text, double room, double size, bool bold = false);
std::string decimal_of(const Value& v, int places);
Inline fit_value(const Inline& lead, const std::string& exact_sep, const Value& v, double room, double size,
                 bool bold = false);
std::vector<Inline> fit_values(const Inline& lead, const std::string& exact_sep,
                               const std::vector<std::optional<Value>>& vs, double room, double size,
                               bool bold = false);
Inline position_inline(const Source& src, std::size_t j);

// The plots (figure_plots.cpp), each drawn into the figure's block from the run's report.
void heatmap(FigureBlock& fb, const Report& rep, const FigureSpec& spec);
void rollout_heatmap(FigureBlock& fb, const Report& rep, const FigureSpec& spec);
void intervention(FigureBlock& fb, const Report& rep, const FigureSpec& spec);
void crosscheck_plot(FigureBlock& fb, const Report& rep, const FigureSpec& spec);

}  // namespace exactattn::detail
