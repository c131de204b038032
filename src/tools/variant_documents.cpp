// SPDX-License-Identifier: MIT
// exactattn: the documents of a set of exercise variants (docs/variants.md): each variant's key,
// the sheet of prompts, Moodle XML, and the files `variants -o DIR` writes.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "exactattn/answer_key.hpp"
#include "exactattn/error.hpp"
#include "exactattn/print.hpp"
#include "exactattn/variants.hpp"
#include "tools/check/tokens.hpp"
#include "tools/lms_html.hpp"
#include "tools/variant_values.hpp"
#include "report/report_json.hpp"
#include "scenario/pointer.hpp"

namespace exactattn {

using detail::exact_decimal;
using detail::Json;
using detail::quantity_formula;

namespace {

std::string part_label(const Variation& v, const std::string& pointer) {
    for (const auto& p : v.parts) {
        if (p.at == pointer) return p.label;
    }
    return "the answer";
}

// Where the exercise's key `rest` is written (`/exercises/<i>/prompt`).
Location exercise_place(const VariantSet& set, const std::string& rest) {
    return detail::key_place(set.source, fmt::format("/exercises/{}{}", set.index, rest));
}

// Where the prompt a variant fills is written: the variation's own prompt, or the exercise's.
Location prompt_place(const VariantSet& set) {
    return exercise_place(set, set.exercise.variation->prompt.empty() ? "/prompt" : "/variation/prompt");
}

ItemList parts_list(const VariantSet& set, const Variant& v, bool with_values) {
    ItemList list;
    list.ordered = true;
    const Json doc = detail::report_to_json(v.report);
    Location where;
    where.file = set.source;
    const auto& parts = set.exercise.variation->parts;
    for (std::size_t k = 0; k < parts.size(); ++k) {
        const auto& p = parts[k];
        Inline item = inline_markdown(p.label, exercise_place(set, fmt::format("/variation/parts/{}/label", k)));
        if (with_values && names_tokens(p.at)) {
            const auto t = detail::tokens_at(doc, p.at, where);
            item.text(": ").append(detail::tokens_inline(t.tokens, t.scalar));
        } else if (with_values) {
            item.text(": ").math(quantity_formula(detail::resolve_pointer(doc, p.at, where), where));
        }
        list.items.push_back(std::move(item));
    }
    return list;
}

std::string recreate_command(const VariantSet& set, const Variant& v) {
    return fmt::format("exactattn variants {} --exercise {} --variant-seed {} -o DIR", set.source, set.exercise.id,
                       v.seed);
}

using detail::html_escape;

Value answer_value(const VariantSet& set, const Variant& v) {
    const Json doc = detail::report_to_json(v.report);
    Location where;
    where.file = set.source;
    where.pointer = set.exercise.variation->answer;
    const Json& j = detail::resolve_pointer(doc, set.exercise.variation->answer, where);
    if (j.is_array() || j.is_object() || j.is_null()) {
        throw shape_error(
            "the answer of a Moodle numerical question is one number; this pointer names a row or "
            "nothing",
            where);
    }
    return detail::json_value(j, where);
}

}  // namespace

Document variant_key_document(const VariantSet& set, const Variant& v) {
    Document doc;
    doc.title = fmt::format("Answer key: exercise {}, variant {}", set.exercise.id, v.number);
    doc.add(Heading{1, Inline(doc.title)});
    doc.add(Paragraph{Inline(fmt::format("Seed {}. This variant alone is re-created by ", v.seed))
                          .code(recreate_command(set, v))
                          .text(".")});
    doc.add(Quote{inline_markdown(v.report.scenario.exercises.front().prompt, prompt_place(set))});
    doc.add(parts_list(set, v, true));
    const Value answer = answer_value(set, v);
    doc.add(Paragraph{Inline("Numerical answer: ")
                          .value(answer)
                          .text(fmt::format(" ≈ {}, accepted within ± {}.", to_significant(answer, 12),
                                            exact_decimal(set.exercise.variation->tolerance)))});
    Document key = answers_document(v.report);
    for (std::size_t i = 1; i < key.blocks.size(); ++i) doc.blocks.push_back(key.blocks[i]);
    return doc;
}

Document variant_sheet_document(const VariantSet& set) {
    Document doc;
    doc.title = fmt::format("Exercise {}{}: {} variant{}", set.exercise.id,
                            set.exercise.title.empty() ? "" : " — " + set.exercise.title, set.variants.size(),
                            set.variants.size() == 1 ? "" : "s");
    doc.add(Heading{1, Inline(doc.title)});
    for (const auto& v : set.variants) {
        doc.add(Heading{2, Inline(fmt::format("Variant {}", v.number))});
        doc.add(Paragraph{Inline(fmt::format("Seed {}.", v.seed))});
        doc.add(Quote{inline_markdown(v.report.scenario.exercises.front().prompt, prompt_place(set))});
        doc.add(parts_list(set, v, false));
    }
    doc.add(Heading{2, Inline("Answers")});
    for (const auto& v : set.variants) {
        doc.add(Heading{3, Inline(fmt::format("Variant {} (seed {})", v.number, v.seed))});
        doc.add(parts_list(set, v, true));
    }
    return doc;
}

namespace detail {

/// An inline text as the HTML of a Moodle or PrairieLearn question: math as MathJax's `\(…\)` around its LaTeX
/// (Moodle's MathJax filter typesets it), so a value filled into a prompt from `{{pointer}}` and
/// an author's `$…$` keep their math instead of becoming plain text.
std::string lms_html(const Inline& in) {
    std::string out;
    for (const auto& p : in.parts()) {
        switch (p.kind) {
            case Inline::Kind::Math:
                out += html_escape("\\(" + p.math.render(MathForm::Latex) + "\\)");
                break;
            case Inline::Kind::Emph:
                out += "<em>" + html_escape(p.text) + "</em>";
                break;
            case Inline::Kind::Strong:
                out += "<strong>" + html_escape(p.text) + "</strong>";
                break;
            case Inline::Kind::Code:
                out += "<code>" + html_escape(p.text) + "</code>";
                break;
            case Inline::Kind::Text:
            case Inline::Kind::Token:
                out += html_escape(p.text);
                break;
        }
    }
    return out;
}

}  // namespace detail

std::string moodle_exact_feedback(const Value& answer) {
    // "with a = ln 2" only where the value has an a; one minus sign, the Unicode one of the
    // exact value, in the decimal too (the answer's own <text> keeps the ASCII one Moodle reads).
    std::string approx = to_significant(answer, 15);
    if (!approx.empty() && approx[0] == '-') approx = "−" + approx.substr(1);
    return fmt::format("Exact value: {}{} (≈ {}).", to_unicode(answer), answer.degree() > 0 ? " with a = ln 2" : "",
                       approx);
}

std::string moodle_xml(const VariantSet& set) {
    const Variation& var = *set.exercise.variation;
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<quiz>\n";
    for (const auto& v : set.variants) {
        const Value answer = answer_value(set, v);
        const std::string prompt = detail::lms_html(inline_markdown(v.report.scenario.exercises.front().prompt));
        const std::string ask =
            "Give " + detail::lms_html(inline_markdown(part_label(var, var.answer))) + " as a decimal number.";
        out += "  <question type=\"numerical\">\n";
        out += fmt::format(
            "    <name>\n      <text>{}</text>\n    </name>\n",
            html_escape(fmt::format("Exercise {}, variant {} (seed {})", set.exercise.id, v.number, v.seed)));
        out += fmt::format("    <questiontext format=\"html\">\n      <text>{}</text>\n    </questiontext>\n",
                           html_escape("<p>" + prompt + "</p><p>" + ask + "</p>"));
        out += fmt::format(
            "    <generalfeedback format=\"html\">\n      <text>{}</text>\n    </generalfeedback>\n",
            html_escape("<p>" + html_escape(fmt::format("Re-create this variant: {}", recreate_command(set, v))) +
                        "</p>"));
        out += "    <defaultgrade>1</defaultgrade>\n    <penalty>0.3333333</penalty>\n    <hidden>0</hidden>\n";
        out += "    <answer fraction=\"100\" format=\"moodle_auto_format\">\n";
        out += fmt::format("      <text>{}</text>\n", to_significant(answer, 15));
        out += fmt::format("      <tolerance>{}</tolerance>\n", exact_decimal(var.tolerance));
        out += fmt::format("      <feedback format=\"html\">\n        <text>{}</text>\n      </feedback>\n",
                           html_escape("<p>" + html_escape(moodle_exact_feedback(answer)) + "</p>"));
        out += "    </answer>\n  </question>\n";
    }
    return out + "</quiz>\n";
}

std::vector<OutputFile> variant_files(const VariantSet& set, const WarningSink& warn) {
    std::vector<OutputFile> files;
    const std::size_t width = std::max<std::size_t>(2, std::to_string(set.variants.size()).size());
    for (const auto& v : set.variants) {
        const std::string n = fmt::format("{:0{}}", v.number, width);
        files.push_back({"variant-" + n + ".json", v.file_text});
        files.push_back({"key-" + n + ".md", render(variant_key_document(set, v), Format::Markdown)});
    }
    const Document sheet = variant_sheet_document(set);
    RenderOptions standalone;
    standalone.standalone = true;
    files.push_back({"sheet.md", render(sheet, Format::Markdown)});
    files.push_back({"sheet.tex", render(sheet, Format::Latex, standalone)});
    RenderOptions html;
    html.warn = warn;
    files.push_back({"sheet.html", render(sheet, Format::Html, html)});
    files.push_back({"moodle.xml", moodle_xml(set)});
    for (auto& f : prairielearn_files(set)) files.push_back(std::move(f));
    return files;
}

}  // namespace exactattn
