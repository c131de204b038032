// SPDX-License-Identifier: MIT
// exactattn: figures — one picture, two writers (SVG and TikZ). Coordinates are written with one
// decimal by fmt (the same bytes on every machine), ids come from the figure's label (never a
// counter), and no date is written, so a figure's file can be compared byte for byte.
#include "render/picture.hpp"

#include <fmt/format.h>

#include <cctype>

#include "render/text.hpp"
#include "render/writer.hpp"

namespace exactattn {

namespace {

// One coordinate: one decimal, no negative zero.
std::string coord(double x) {
    std::string s = fmt::format("{:.1f}", x);
    if (s == "-0.0") s = "0.0";
    return s;
}

// Letters, digits, '.', '-' and '_' of a label; anything else becomes '-'.
std::string id_of(const FigureBlock& fb) {
    std::string key = !fb.label.empty() ? fb.label : fb.number.empty() ? "figure" : "figure-" + fb.number;
    for (auto& c : key) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u) == 0 && c != '.' && c != '-' && c != '_') c = '-';
    }
    return key;
}

// The fonts of the SVG text: DejaVu Sans has the math signs (√, −, ×, →), WenQuanYi Micro Hei
// and Noto Sans CJK the CJK tokens; a viewer without them falls back to its sans-serif.
constexpr const char* kSvgFonts = "'DejaVu Sans', 'WenQuanYi Micro Hei', 'Noto Sans CJK SC', sans-serif";

// "#0072B2" as xcolor's {rgb,255:red,0;green,114;blue,178}.
std::string tikz_colour(const std::string& hex) {
    const auto channel = [&](std::size_t i) { return std::stoi(hex.substr(i, 2), nullptr, 16); };
    return fmt::format("{{rgb,255:red,{};green,{};blue,{}}}", channel(1), channel(3), channel(5));
}

}  // namespace

std::string detail::svg_element(const FigureBlock& fb, bool xml, std::size_t max_width) {
    const Picture& p = fb.picture;
    RenderOptions options;
    options.max_width = max_width;
    const auto text = detail::make_writer(Format::Text, options);
    const std::string id = id_of(fb);
    std::string desc;
    for (const auto& d : fb.description) desc += (desc.empty() ? "" : " ") + text->inline_text(d);
    std::string out = fmt::format(
        "<svg{} width=\"120mm\" height=\"{}mm\" viewBox=\"0 0 {} {}\" role=\"img\" aria-labelledby=\"{}-title "
        "{}-desc\">\n",
        xml ? " xmlns=\"http://www.w3.org/2000/svg\"" : "", coord(p.height * 120.0 / p.width), coord(p.width),
        coord(p.height), id, id);
    out += fmt::format("<title id=\"{}-title\">{}</title>\n", id, detail::html_escape(text->figure_caption(fb)));
    out += fmt::format("<desc id=\"{}-desc\">{}</desc>\n", id, detail::html_escape(desc));
    out += fmt::format(
        "<defs><marker id=\"{}-arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" "
        "markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#000000\"/></marker></defs>\n",
        id);
    out += fmt::format("<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n", coord(p.width),
                       coord(p.height));
    out += fmt::format("<g font-family=\"{}\" font-size=\"9\" fill=\"#000000\">\n", kSvgFonts);
    for (const auto& shape : p.shapes) {
        if (const auto* t = std::get_if<Picture::Text>(&shape)) {
            const char* anchor = t->anchor == Picture::Anchor::Start    ? "start"
                                 : t->anchor == Picture::Anchor::Middle ? "middle"
                                                                        : "end";
            out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"{}\"", coord(t->x), coord(t->y), anchor);
            if (t->size != 9) out += fmt::format(" font-size=\"{}\"", coord(t->size));
            if (t->bold) out += " font-weight=\"bold\"";
            if (t->light) out += " fill=\"#ffffff\"";
            out += ">" + detail::html_escape(text->inline_text(t->text)) + "</text>\n";
        } else if (const auto* b = std::get_if<Picture::Box>(&shape)) {
            out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"", coord(b->x),
                               coord(b->y), coord(b->w), coord(b->h), b->fill.empty() ? "none" : b->fill);
            if (b->stroke) out += " stroke=\"#000000\" stroke-width=\"0.6\"";
            out += "/>\n";
            if (b->hatched) {
                out +=
                    fmt::format("<path d=\"M{},{} L{},{} M{},{} L{},{}\" stroke=\"#000000\" stroke-width=\"0.6\"/>\n",
                                coord(b->x), coord(b->y), coord(b->x + b->w), coord(b->y + b->h), coord(b->x),
                                coord(b->y + b->h), coord(b->x + b->w), coord(b->y));
            }
        } else if (const auto* a = std::get_if<Picture::Arrow>(&shape)) {
            out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#000000\" stroke-width=\"0.8\"",
                               coord(a->x1), coord(a->y1), coord(a->x2), coord(a->y2));
            if (a->dashed) out += " stroke-dasharray=\"3 2\"";
            if (a->head) out += fmt::format(" marker-end=\"url(#{}-arrow)\"", id);
            out += "/>\n";
        }
    }
    return out + "</g>\n</svg>\n";
}

std::string render_svg(const FigureBlock& figure) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + detail::svg_element(figure, true);
}

std::string render_tikz(const FigureBlock& figure) { return detail::tikz_picture(figure); }

std::string detail::tikz_picture(const FigureBlock& figure, std::size_t max_width) {
    const Picture& p = figure.picture;
    RenderOptions options;
    options.max_width = max_width;
    // Values in the linear form the SVG shows ((20 − 5√2)a/14, not a stacked fraction of a
    // sum): the layout gives each label the height of a line of text.
    const auto latex = detail::make_writer(Format::Latex, options, LatexValues::Linear);
    // One unit is 12 cm / width, y grows downwards as in the SVG.
    const double unit = 120.0 / p.width;
    std::string out = fmt::format("\\begin{{tikzpicture}}[x={:.6f}mm,y=-{:.6f}mm]\n", unit, unit);
    const auto pt = [](double x, double y) { return "(" + coord(x) + "," + coord(y) + ")"; };
    for (const auto& shape : p.shapes) {
        if (const auto* t = std::get_if<Picture::Text>(&shape)) {
            const char* anchor = t->anchor == Picture::Anchor::Start    ? "base west"
                                 : t->anchor == Picture::Anchor::Middle ? "base"
                                                                        : "base east";
            // The font size scales with the picture: 9 units at 12 cm are 9 pt.
            const double size = t->size * unit / (25.4 / 72.27);
            out += fmt::format(
                "\\node[anchor={},inner sep=0pt,font=\\fontsize{{{}}}{{{}}}\\selectfont{}{}] at {} {{{}}};\n", anchor,
                coord(size), coord(size * 1.2), t->bold ? "\\bfseries" : "", t->light ? ",text=white" : "",
                pt(t->x, t->y), latex->inline_text(t->text));
        } else if (const auto* b = std::get_if<Picture::Box>(&shape)) {
            std::string opts;
            if (!b->fill.empty()) opts += "fill=" + tikz_colour(b->fill);
            if (b->stroke) opts += std::string(opts.empty() ? "" : ",") + "draw=black,line width=0.6pt";
            if (!opts.empty()) {
                out += fmt::format("\\path[{}] {} rectangle {};\n", opts, pt(b->x, b->y), pt(b->x + b->w, b->y + b->h));
            }
            if (b->hatched) {
                out += fmt::format("\\draw[line width=0.6pt] {} -- {} {} -- {};\n", pt(b->x, b->y),
                                   pt(b->x + b->w, b->y + b->h), pt(b->x, b->y + b->h), pt(b->x + b->w, b->y));
            }
        } else if (const auto* a = std::get_if<Picture::Arrow>(&shape)) {
            out += fmt::format("\\draw[line width=0.8pt{}{}] {} -- {};\n", a->head ? ",-stealth" : "",
                               a->dashed ? ",dashed" : "", pt(a->x1, a->y1), pt(a->x2, a->y2));
        }
    }
    return out + "\\end{tikzpicture}\n";
}

std::string figure_file_name(const FigureBlock& figure) { return id_of(figure) + ".svg"; }

}  // namespace exactattn
