// SPDX-License-Identifier: MIT
// exactattn: `manuscript fill` — placeholders replaced by the report's values, printed for the
// manuscript's format (Markdown: Unicode display form or $LaTeX$; LaTeX: \ensuremath{…}).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "exactattn/limits.hpp"
#include "exactattn/manuscript.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "exactattn/table.hpp"
#include "exactattn/value.hpp"
#include "render/text.hpp"
#include "tools/manuscript/marks.hpp"
#include "tools/manuscript/quantities.hpp"

namespace exactattn {

namespace {

using detail::Json;

/// How one placeholder is printed.
struct FillStyle {
    Notation notation = Notation::Unicode;
    bool math = false;    ///< Markdown: $…$ around the LaTeX form
    bool tex = false;     ///< the value stands in TeX math (a LaTeX manuscript's \ensuremath, Markdown's $…$)
    int digits = -1;      ///< ≥ 0: a decimal with this many places instead of the exact form
    bool approx = false;  ///< exact form ≈ decimal form (6 places unless digits=N)
};

FillStyle style_of(const manuscript::Placeholder& p, ManuscriptFormat format, const Location& where) {
    FillStyle s;
    if (format == ManuscriptFormat::Latex) s.notation = Notation::Latex;
    for (const auto& o : p.options) {
        if (o == "ascii")
            s.notation = Notation::Ascii;
        else if (o == "unicode")
            s.notation = Notation::Unicode;
        else if (o == "latex" || o == "math") {
            s.notation = Notation::Latex;
            s.math = format == ManuscriptFormat::Markdown;
        } else if (o == "approx")
            s.approx = true;
        else if (o.starts_with("digits=")) {
            const std::string n = o.substr(7);
            if (n.empty() || n.size() > 3 || n.find_first_not_of("0123456789") != std::string::npos ||
                std::stoi(n) > 100) {
                throw usage_error(fmt::format("{}: digits=N takes N from 0 to 100", o), where);
            }
            s.digits = std::stoi(n);
        } else {
            throw usage_error(fmt::format("unknown option {} (ascii, unicode, latex, math, digits=N, approx)", o),
                              where);
        }
    }
    s.tex = format == ManuscriptFormat::Latex || s.math;
    return s;
}

// Text of the report that is not a value (a token, a title, a label: what a scenario's author
// wrote) as literal text where it is filled: every Markdown punctuation character
// backslash-escaped, so that pandoc reads `<script>`, `$\input{…}$` or `[x](y)` as the
// characters written; in TeX math an \mbox of LaTeX-escaped text, so that `\input`,
// `\write18` or `^^5c` are printed, never run. Control characters are shown as <U+001B>.
std::string literal(const std::string& text, const FillStyle& s) {
    const std::string shown = detail::printable(text);
    return s.tex ? "\\mbox{" + latex_escape(shown) + "}" : detail::markdown_literal(shown);
}

// One scalar of the report: a value in the style's form, or a token as literal text.
std::string scalar_text(const Json& j, const FillStyle& s, bool decimal) {
    if (!j.is_string() && !j.is_number_integer()) return literal(j.dump(), s);
    Value v;
    try {
        v = detail::json_value(j, Location{});
    } catch (const Error&) {
        return literal(j.get<std::string>(), s);
    }
    if (decimal) return to_fixed(v, s.digits < 0 ? 6 : s.digits);
    return to_display(v, s.notation);
}

std::string value_text(const Json& j, const FillStyle& s, bool decimal) {
    if (!j.is_array()) return scalar_text(j, s, decimal);
    const bool latex = s.notation == Notation::Latex;
    std::string out = latex ? "\\left[" : "[";
    for (std::size_t i = 0; i < j.size(); ++i) out += (i ? ", " : "") + value_text(j[i], s, decimal);
    return out + (latex ? "\\right]" : "]");
}

std::string placed(const std::string& text, const FillStyle& s, ManuscriptFormat format) {
    if (format == ManuscriptFormat::Latex) return "\\ensuremath{" + text + "}";
    return s.math ? "$" + text + "$" : text;
}

std::string filled_value(const Json& j, const FillStyle& s, ManuscriptFormat format) {
    const bool latex = s.notation == Notation::Latex;
    std::string text = value_text(j, s, s.digits >= 0 && !s.approx);
    if (s.approx) text += (latex ? " \\approx " : " ≈ ") + value_text(j, s, true);
    return placed(text, s, format);
}

// A read or an intervention as a table: a read's positions (state, score, exponential,
// weight), an intervention's rows (weights, context, readout).
std::string filled_table(const Json& j, const FillStyle& s, ManuscriptFormat format, const Location& where) {
    std::vector<std::string> head;
    std::vector<std::vector<std::string>> rows;
    auto cell = [&](const Json& x) { return placed(value_text(x, s, false), s, format); };
    if (j.is_object() && j.contains("weights") && j.contains("memory")) {
        head = {"Position", "State", "Score", "Exponential", "Weight"};
        for (std::size_t p = 0; p < j["weights"].size(); ++p) {
            rows.push_back({std::to_string(p + 1), cell(j["memory"][p]), cell(j["scores"][p]),
                            cell(j["exponentials"][p]), cell(j["weights"][p])});
        }
    } else if (j.is_object() && j.contains("rows")) {
        head = {"Removed position", "Weights", "Context", "Readout"};
        for (const auto& r : j["rows"]) {
            rows.push_back({r["position"].get<long long>() == 0 ? "None" : r["position"].dump(), cell(r["weights"]),
                            cell(r["context"]), r.contains("readout") ? cell(r["readout"]) : ""});
        }
    } else {
        throw usage_error("a table placeholder names a read (/reads/NAME) or an intervention (/interventions/NAME)",
                          where);
    }
    std::string out;
    if (format == ManuscriptFormat::Markdown) {
        auto line = [](const std::vector<std::string>& cells) {
            return "| " + fmt::format("{}", fmt::join(cells, " | ")) + " |\n";
        };
        out = line(head) + line(std::vector<std::string>(head.size(), "---"));
        for (const auto& r : rows) out += line(r);
        return out;
    }
    out = fmt::format("\\begin{{tabular}}{{{}}}\n\\hline\n{} \\\\\n\\hline\n", std::string(head.size(), 'l'),
                      fmt::join(head, " & "));
    for (const auto& r : rows) out += fmt::format("{} \\\\\n", fmt::join(r, " & "));
    return out + "\\hline\n\\end{tabular}";
}

}  // namespace

FillResult fill_manuscript_text(std::string_view text, const std::string& file, ManuscriptFormat format,
                                const ManuscriptOptions& options) {
    manuscript::Source src = manuscript::prepare(text, file, format);
    manuscript::inherit_scenario(src, options.inherited_scenario);
    const auto holders = manuscript::find_placeholders(src);
    FillResult r;
    if (holders.empty()) {
        r.text = src.text;
        return r;
    }
    manuscript::Quantities q(src, options.scenario);
    std::size_t from = 0;
    for (const auto& p : holders) {
        const Location where = src.at(p.begin);
        if (!charge_work(manuscript::kWorkPerMark)) {
            throw over_work(manuscript::kWorkPerMark, "filling a placeholder").located(where);
        }
        const Json& j = q.at(p.pointer, where);
        const FillStyle s = style_of(p, format, where);
        r.text.append(src.text, from, p.begin - from);
        std::string filled = ::exactattn::placed(  // a refusal while printing the value names the placeholder
            where, [&] { return p.table ? filled_table(j, s, format, where) : filled_value(j, s, format); });
        r.text += filled;
        r.placeholders.push_back(
            {where.line, where.column, src.text.substr(p.begin, p.end - p.begin), std::move(filled)});
        from = p.end;
        ++r.replaced;
    }
    r.text.append(src.text, from, std::string::npos);
    return r;
}

}  // namespace exactattn
