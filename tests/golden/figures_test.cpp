// SPDX-License-Identifier: MIT
// Figures (issue 13): Figures 14.1 and 14.2 of the chapter drawn from the traces, checked against
// numbers worked by hand, and the committed renderings (docs/figures/) against the tool.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "exactattn/document.hpp"
#include "exactattn/error.hpp"
#include "exactattn/figures.hpp"
#include "exactattn/report.hpp"

namespace exactattn {
namespace {

const Report& chapter() {
    static const Report r = run_scenario(load_scenario("chapter14"));
    return r;
}

FigureBlock chapter_figure(const std::string& number) {
    return figure_block(chapter(), find_figure(chapter().scenario, number));
}

// The text of every <text> element of an SVG, in document order, entities decoded.
std::vector<std::string> svg_texts(const std::string& svg) {
    std::vector<std::string> out;
    static const std::regex text("<text[^>]*>([^<]*)</text>");
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text); it != std::sregex_iterator(); ++it) {
        std::string s = (*it)[1];
        for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
                 {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&amp;", "&"}}) {
            for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
                s.replace(at, from.size(), to);
            }
        }
        out.push_back(s);
    }
    return out;
}

// `expected` occur in `texts` in this order (other texts may come between).
void in_order(const std::vector<std::string>& texts, const std::vector<std::string>& expected) {
    std::size_t at = 0;
    for (const auto& e : expected) {
        while (at < texts.size() && texts[at] != e) ++at;
        ASSERT_LT(at, texts.size()) << "missing, or out of order: " << e;
        ++at;
    }
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    EXPECT_TRUE(in) << "cannot read " << path;
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

TEST(Figures, Figure141ShowsTheChaptersWeightsAndSums) {
    // Hand numbers (Examples 14.1 and 14.2): states h = [a,0], [0,a], [0,0].
    // q1 = [1,0]: scores a, 0, 0; exponentials 2, 1, 1; total 4; weights 2/4 = 1/2, 1/4, 1/4;
    // context (1/2)[a,0] + (1/4)[0,a] = [a/2, a/4].
    // q2 = [0,1]: scores 0, a, 0; exponentials 1, 2, 1; total 4; weights 1/4, 1/2, 1/4;
    // context (1/4)[a,0] + (1/2)[0,a] = [a/4, a/2].
    const FigureBlock fb = chapter_figure("14.1");
    const auto texts = svg_texts(render_svg(fb));
    in_order(texts,
             {"q1 = [1, 0]", "1: color 红色 [a, 0]", "× 1/2", "2: key 钥匙 [0, a]", "× 1/4", "3: full stop 。 [0, 0]",
              "× 1/4", "Sum → [a/2, a/4]", "Scores [a, 0, 0]", "→ exponentials [2, 1, 1]", "→ divide by 4"});
    in_order(texts, {"q2 = [0, 1]", "× 1/4", "× 1/2", "× 1/4", "Sum → [a/4, a/2]", "Scores [0, a, 0]",
                     "→ exponentials [1, 2, 1]", "→ divide by 4"});
    const std::string svg = render_svg(fb);
    EXPECT_NE(svg.find("<title id=\"figure-14.1-title\">Figure 14.1 — Change the query; keep every source state "
                       "fixed."),
              std::string::npos);
    // The description names the numbers, for a reader who cannot see the drawing.
    EXPECT_NE(svg.find("q1 = [1, 0]: weights 1/2 on 1: color 红色 [a, 0], 1/4 on 2: key 钥匙 [0, a], 1/4 on 3: full "
                       "stop 。 [0, 0]; sum [a/2, a/4]"),
              std::string::npos);
    // The bars: 1/2 and 1/4 of the track's length. The track is a panel's width, (340 − 2·6 −
    // 12)/2 = 158, less 4 and the widest weight label, "× 1/2" at 8.5 points: DejaVu Sans's
    // advances (its hmtx table: × 1716, space 651, each digit 1303, / 690, in 2048ths of an em)
    // add to 5663/2048 em = 23.50 points, so the track is 130.5 and the bars 65.2 and 32.6.
    EXPECT_NE(svg.find("width=\"130.5\" height=\"9.0\" fill=\"none\""), std::string::npos);
    EXPECT_NE(svg.find("width=\"65.2\" height=\"9.0\" fill=\"#0072B2\""), std::string::npos);
    EXPECT_NE(svg.find("width=\"32.6\" height=\"9.0\" fill=\"#0072B2\""), std::string::npos);
}

TEST(Figures, Figure142ShowsSequentialEncoderParallelComparisonsSequentialDecoder) {
    // Hand numbers: h_1 = relu(h_0 + [a,0]) = [a,0], h_2 = relu([a,0] + [-a,a]) = [0,a],
    // h_3 = relu([0,a] + [0,-a]) = [0,0]; comparisons with q1 = [1,0]: e = a, 0, 0; four decoder
    // steps (Section 14.6's cost case: target_steps 4), so s_0 … s_4.
    const FigureBlock fb = chapter_figure("14.2");
    const auto texts = svg_texts(render_svg(fb));
    in_order(texts, {"Encoder: 3 successive updates (sequential)",
                     "h₀ = [0, 0]",
                     "h₁ = [a, 0]",
                     "红色",
                     "h₂ = [0, a]",
                     "钥匙",
                     "h₃ = [0, 0]",
                     "。",
                     "q1 = [1, 0]",
                     "e₁ = a",
                     "e₂ = 0",
                     "e₃ = 0",
                     "weights [1/2, 1/4, 1/4] → context c₁ = [a/2, a/4]",
                     "Decoder: 4 steps (sequential)",
                     "s₀",
                     "s₁",
                     "y₀, c₁",
                     "s₂",
                     "s₃",
                     "s₄",
                     "y₃, c₄"});
}

TEST(Figures, CommittedRenderingsAreTheToolsOutput) {
    // README shows docs/figures/*.svg; they must be what the tool draws today.
    const std::string dir = std::string(EXACTATTN_SOURCE_DIR) + "/docs/figures/";
    EXPECT_EQ(read_file(dir + "figure-14.1.svg"), render_svg(chapter_figure("14.1")));
    EXPECT_EQ(read_file(dir + "figure-14.2.svg"), render_svg(chapter_figure("14.2")));
}

TEST(Figures, ChangingAQueryChangesTheLabels) {
    // q1 = [0,0] instead of [1,0]: scores 0, 0, 0; exponentials 1, 1, 1; total 3; weights 1/3
    // each; context (1/3)([a,0] + [0,a] + [0,0]) = [a/3, a/3].
    std::string json(builtin_chapter14());
    const std::string from = "\"q1\": [1, 0]";
    ASSERT_NE(json.find(from), std::string::npos);
    json.replace(json.find(from), from.size(), "\"q1\": [0, 0]");
    const Report rep = run_scenario(parse_scenario(json, "changed.json"));
    const auto texts = svg_texts(render_svg(figure_block(rep, find_figure(rep.scenario, "14.1"))));
    in_order(texts, {"q1 = [0, 0]", "× 1/3", "× 1/3", "× 1/3", "Sum → [a/3, a/3]", "Scores [0, 0, 0]",
                     "→ exponentials [1, 1, 1]", "→ divide by 3", "q2 = [0, 1]"});
    EXPECT_EQ(std::find(texts.begin(), texts.end(), "Sum → [a/2, a/4]"), texts.end());
}

TEST(Figures, HeatmapLabelsExactWeightsAndMarksMaskedCells) {
    const Report rep =
        run_scenario(load_scenario(std::string(EXACTATTN_SOURCE_DIR) + "/data/examples/self-attention.json"));
    const std::string svg = render_svg(figure_block(rep, find_figure(rep.scenario, "15.1")));
    const auto texts = svg_texts(svg);
    // Head 1, causal (the scenario's assumptions): row 1 [1]; row 2 exponentials 2, 4 over 6:
    // 1/3, 2/3; row 3: 1, 2, 4 over 7. Head 2: row 2 √2/(2+√2) = √2 − 1 and 2 − √2; row 3
    // (4 − √2)/7 twice and (2√2 − 1)/7.
    in_order(texts, {"Head 1: query position (rows) × key position (columns)", "1", "1/3", "2/3", "1/7", "2/7", "4/7",
                     "Head 2: query position (rows) × key position (columns)", "1", "√2 − 1", "2 − √2", "(4 − √2)/7",
                     "(4 − √2)/7", "(2√2 − 1)/7"});
    // Three masked cells per head (above the diagonal), each crossed.
    std::size_t crossed = 0;
    for (auto at = svg.find("fill=\"#DDDDDD\""); at != std::string::npos; at = svg.find("fill=\"#DDDDDD\"", at + 1)) {
        ++crossed;
    }
    EXPECT_EQ(crossed, 6U);
}

TEST(Figures, RolloutHeatmapLabelsEachStepsWeightsInBothRegimes) {
    const Report rep =
        run_scenario(load_scenario(std::string(EXACTATTN_SOURCE_DIR) + "/data/chapter14/decoder-rollout.json"));
    // Rows "t = k: input → chosen", columns the source's tokens. The weights are the scenario's
    // hand derivation (its notes, and its expect entries .../steps/<k>/weights):
    // generation: step 1 q = [1, 0], scores [a, 0, 0], exponentials [2, 1, 1] over 4: 1/2, 1/4,
    // 1/4, chosen a (tie with the, rule first); step 2 input a, q = [0, 1]: 1/4, 1/2, 1/4, chosen
    // blue; step 3 input blue, q = [1, 1], scores [a, a, 0], exponentials [2, 2, 1] over 5: 2/5,
    // 2/5, 1/5, chosen key; step 4 input key, q = [0, 0]: 1/3 each, chosen the end token ".".
    const FigureSpec& generation = find_figure(rep.scenario, "14.4");
    in_order(svg_texts(render_svg(figure_block(rep, generation))),
             {"Generation: step (rows) × source position (columns)",
              "红色",
              "钥匙",
              "。",
              "t = 1: <s> → a",
              "1/2",
              "1/4",
              "1/4",
              "t = 2: a → blue",
              "1/4",
              "1/2",
              "1/4",
              "t = 3: blue → key",
              "2/5",
              "2/5",
              "1/5",
              "t = 4: key → .",
              "1/3",
              "1/3",
              "1/3"});
    // Teacher forcing feeds the reference the red key: step 2 input the, q = [0, 1]: 1/4, 1/2,
    // 1/4, chosen red; step 3 input red, q = s_2 = [1, 0] (Table 14.1 again): 1/2, 1/4, 1/4,
    // chosen key; step 4 input key, q = [0, 0]: 1/3 each.
    FigureSpec forced = generation;
    forced.regime = Regime::TeacherForcing;
    in_order(svg_texts(render_svg(figure_block(rep, forced))),
             {"Teacher forcing: step (rows) × source position (columns)", "t = 1: <s> → a", "1/2", "1/4", "1/4",
              "t = 2: the → red", "1/4", "1/2", "1/4", "t = 3: red → key", "1/2", "1/4", "1/4", "t = 4: key → .", "1/3",
              "1/3", "1/3"});
    // The regime survives the scenario writer (generation, the default, is not written).
    Scenario s = rep.scenario;
    s.figures.front().regime = Regime::TeacherForcing;
    EXPECT_EQ(parse_scenario(write_scenario(s), s.file), s);
}

TEST(Figures, InterventionChartMarksTheUnchangedRow) {
    // Table 14.2: removing the color leaves r = 0 + 2(a/2) = a, as before (a/2 + 2(a/4) = a);
    // removing the key gives 2a/3, the full stop 4a/3.
    FigureSpec spec;
    spec.name = "table-14.2";
    spec.kind = FigureKind::Intervention;
    spec.intervention = "table-14.2";
    const FigureBlock fb = figure_block(chapter(), spec);
    const auto texts = svg_texts(render_svg(fb));
    in_order(texts, {"no intervention", "weights [1/2, 1/4, 1/4]", "r = a", "remove state 1: color 红色",
                     "weights [0, 1/2, 1/2]", "r = a", "unchanged", "remove state 2: key 钥匙", "weights [2/3, 0, 1/3]",
                     "r = 2a/3", "remove state 3: full stop 。", "weights [2/3, 1/3, 0]", "r = 4a/3"});
    EXPECT_EQ(std::count(texts.begin(), texts.end(), "unchanged"), 1);
}

TEST(Figures, ValuesTooLongForTheirPlaceBecomeRoundedDecimals) {
    // Issue 24: a heatmap in Q(2^(1/4)) (tests/render/fixtures/figures-hostile.json). Head 1,
    // row 1: scores a/4, 0, a/4 (x_1 = [1, 0] against keys [1, 0], [0, 1], [1, 1] under
    // diag(a/4, a/2)), exponentials θ, 1, θ with θ = 2^(1/4) = 1.189207…, weights θ/(2θ + 1) =
    // 1.189207/3.378414 = 0.35200… and 1/(2θ + 1) = 0.29600…: too long exactly for a cell, so the
    // cells say ≈ 0.3520 and ≈ 0.2960, the footer says so, and the description keeps them exact.
    const Report rep =
        run_scenario(load_scenario(std::string(EXACTATTN_SOURCE_DIR) + "/tests/render/fixtures/figures-hostile.json"));
    const FigureBlock fb = figure_block(rep, find_figure(rep.scenario, "heat"));
    const auto texts = svg_texts(render_svg(fb));
    in_order(texts, {"≈ 0.3520", "≈ 0.2960", "≈ 0.3520"});
    EXPECT_NE(std::find_if(texts.begin(), texts.end(),
                           [](const std::string& t) { return t.find("marked ≈") != std::string::npos; }),
              texts.end());
    const std::string desc = render_inline(fb.description.front(), Format::Text);
    // By hand: (1 + 2θ)(1 − 2θ)(1 + 4θ²) = 1 − 16θ⁴ = −31, so 1/(2θ + 1) = (8θ³ − 4θ² + 2θ − 1)/31
    // and θ/(2θ + 1) = (16 − θ + 2θ² − 4θ³)/31 (θ² = √2, θ³ = ∜8).
    EXPECT_NE(desc.find("(16 − ∜2 + 2√2 − 4∜8)/31, (2∜2 − 1 − 4√2 + 8∜8)/31"), std::string::npos) << desc;
    // A long token name is cut to its room with "…"; the description names it whole.
    EXPECT_EQ(std::find(texts.begin(), texts.end(), "p-first-layer-token-with-a-long-name"), texts.end());
    EXPECT_NE(std::find(texts.begin(), texts.end(), "p-first-layer-token-with-a-l…"), texts.end());
    EXPECT_NE(desc.find("p-first-layer-token-with-a-long-name"), std::string::npos);
}

TEST(Figures, AnExactZeroAmongRoundedWeightsIsPrintedZero) {
    // Issue 24: the intervention chart of tests/render/fixtures/figures-hostile.json, query
    // [1, 1] over states [a/4, 0], [0, a/2], [a/4, a/4], [0, 0] (scores a/4, a/2, a/2, 0). With
    // state 2 removed the exponentials are θ, —, √2, 1 (θ = 2^(1/4) = 1.189207…), total
    // 1 + θ + √2 = 3.603421…, weights θ/3.603421 = 0.33002…, 0, √2/3.603421 = 0.39246…,
    // 1/3.603421 = 0.27751…: too long exactly, so rounded, and the removed state's weight is
    // an exact 0, printed 0 as everywhere else (not 0.0000).
    const Report rep =
        run_scenario(load_scenario(std::string(EXACTATTN_SOURCE_DIR) + "/tests/render/fixtures/figures-hostile.json"));
    const FigureBlock fb = figure_block(rep, find_figure(rep.scenario, "removals"));
    for (const std::string& drawing : {render_svg(fb), render_tikz(fb)}) {
        EXPECT_NE(drawing.find("[0.3300, 0, 0.3925, 0.2775]"), std::string::npos) << drawing;
        EXPECT_EQ(drawing.find("0.0000"), std::string::npos) << drawing;
    }
}

TEST(Figures, TikzLabelsUseTheSvgsLinearForm) {
    // Issue 24: a stacked fraction of a sum is taller than the line of text the layout gives a
    // label, and in TikZ it ran into the label above (measured by render.tikz.figure_layout).
    // The TikZ labels show the SVG's linear form. Hostile fixture, query [1, 1], state 1
    // removed: weights (4 − √2)/7 on [0, a/2] and [a/4, a/4] (and (2√2 − 1)/7 on [0, 0]), so
    // c = [(4 − √2)a/28, 3(4 − √2)a/28] and r = c_1 + 3c_2 = 10(4 − √2)a/28 = (20 − 5√2)a/14.
    const Report rep =
        run_scenario(load_scenario(std::string(EXACTATTN_SOURCE_DIR) + "/tests/render/fixtures/figures-hostile.json"));
    const FigureBlock fb = figure_block(rep, find_figure(rep.scenario, "removals"));
    const std::string tikz = render_tikz(fb);
    EXPECT_NE(tikz.find("{r = $\\bigl(20 - 5\\sqrt{2}\\bigr)a/14$}"), std::string::npos) << tikz;
    EXPECT_EQ(tikz.find("\\tfrac{\\left("), std::string::npos) << tikz;
    const auto texts = svg_texts(render_svg(fb));
    EXPECT_NE(std::find(texts.begin(), texts.end(), "r = (20 − 5√2)a/14"), texts.end());
}

TEST(Figures, CrosscheckPlotListsEachQuantityOfTheRead) {
    // The √2 read of fractional-scores: scores a/2 and 0, exponentials √2 and 1, weights
    // √2/(1 + √2) = √2(√2 − 1) = 2 − √2 and 1/(1 + √2) = √2 − 1; context and readout
    // (2 − √2)·(a/2) = (2 − √2)a/2 (the states are [a] and [0]).
    const Report rep =
        run_scenario(load_scenario(std::string(EXACTATTN_SOURCE_DIR) + "/data/examples/fractional-scores.json"));
    const FigureBlock fb = figure_block(rep, find_figure(rep.scenario, "sqrt2-crosscheck"));
    const auto texts = svg_texts(render_svg(fb));
    in_order(texts, {"scores/0 = a/2", "scores/1 = 0", "weights/0 = 2 − √2", "weights/1 = √2 − 1",
                     "context/0 = (2 − √2)a/2", "readout = (2 − √2)a/2"});
    // Every quantity is within its bound (the crosscheck passes on this file in CI).
    for (const auto& d : fb.description) {
        EXPECT_EQ(render_inline(d, Format::Text).find("over its bound"), std::string::npos);
    }
}

TEST(Figures, EveryFormatPlacesTheFigure) {
    const Report& rep = chapter();
    const std::string html = render_report(rep, Format::Html);
    EXPECT_NE(html.find("<figure id=\"figure-14.1\">\n<svg width=\"120mm\""), std::string::npos);
    EXPECT_NE(html.find("<figcaption>Figure 14.2 — Parallel comparisons"), std::string::npos);
    const std::string tex = render_report(rep, Format::Latex);
    EXPECT_NE(tex.find("\\begin{center}\n\\begin{tikzpicture}"), std::string::npos);
    EXPECT_NE(tex.find("{\\ensuremath{\\times} $\\tfrac{1}{2}$}"), std::string::npos) << "the weight 1/2 as LaTeX math";
    EXPECT_NE(tex.find("\\renewcommand{\\thefigure}{14.1}\\captionof{figure}{Change the query"), std::string::npos);
    EXPECT_NE(tex.find("\\label{figure-14.1}"), std::string::npos);
    // Placed where it stands, under its "Figures" heading, unless the author asks for floats.
    EXPECT_EQ(tex.find("\\begin{figure}"), std::string::npos);
    RenderOptions floats;
    floats.latex_floats = true;
    EXPECT_NE(
        render_report(rep, Format::Latex, floats).find("\\begin{figure}[htbp]\n\\centering\n\\begin{tikzpicture}"),
        std::string::npos);
    const std::string md = render_report(rep, Format::Markdown);
    EXPECT_NE(md.find("`exactattn figure chapter14 --figure 14.1` writes it as SVG"), std::string::npos);
    RenderOptions dir;
    dir.figure_files = true;
    EXPECT_NE(render_report(rep, Format::Markdown, dir).find("](figure-14.1.svg)"), std::string::npos);
    const std::string text = render_report(rep, Format::Text);
    EXPECT_NE(text.find("Figure 14.1 — Change the query; keep every source state fixed."), std::string::npos);
    EXPECT_NE(text.find("  q2 = [0, 1]: weights 1/4 on 1: color 红色 [a, 0], 1/2 on 2: key 钥匙 [0, a]"),
              std::string::npos);
}

TEST(Figures, AuthorsPdfReplacesTheTikz) {
    FigureSpec spec = find_figure(chapter().scenario, "14.1");
    spec.pdf = "figures/figure-14.1.pdf";
    Document doc;
    doc.add(figure_block(chapter(), spec));
    const std::string tex = render(doc, Format::Latex);
    EXPECT_NE(tex.find("\\includegraphics[width=12cm]{figures/figure-14.1.pdf}"), std::string::npos);
    EXPECT_EQ(tex.find("tikzpicture"), std::string::npos);
}

TEST(Figures, BytesAreTheSameOnEveryRun) {
    const std::string a = render_svg(chapter_figure("14.2"));
    const Report again = run_scenario(load_scenario("chapter14"));
    EXPECT_EQ(a, render_svg(figure_block(again, find_figure(again.scenario, "14.2"))));
    EXPECT_EQ(render_tikz(chapter_figure("14.2")),
              render_tikz(figure_block(again, find_figure(again.scenario, "14.2"))));
}

TEST(Figures, UnknownFigureNamesTheDeclaredOnes) {
    try {
        (void)find_figure(chapter().scenario, "9.9");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "--figure: chapter14 declares no figure \"9.9\" (figures: change-the-query "
                  "(14.1), parallel-inside-sequential (14.2))");
    }
}

}  // namespace
}  // namespace exactattn
