// SPDX-License-Identifier: MIT
// exactattn figure: one declared figure of a scenario, drawn from its run, as SVG or TikZ.
#include <ostream>

#include "commands.hpp"
#include "exactattn/figures.hpp"
#include "exactattn/report.hpp"

namespace exactattn::cli {

int cmd_figure(const FigureOptions& o, std::ostream& out) {
    const Scenario s = load_scenario(o.file);
    const FigureSpec& spec = find_figure(s, o.figure);
    const FigureBlock fb = figure_block(run_scenario(s), spec);
    if (o.format == "tikz")
        out << latex_requirements() << render_tikz(fb);
    else
        out << render_svg(fb);
    return 0;
}

}  // namespace exactattn::cli
