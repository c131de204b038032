// SPDX-License-Identifier: MIT
// exactattn: `crosscheck`'s report — the document (every quantity, the summary, the naive
// softmax for contrast, the rollout splits) in each format, and its JSON.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "exactattn/crosscheck.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "scenario/json.hpp"

namespace exactattn {

namespace {

std::string num(double x) {
    if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
    if (std::isnan(x)) return "nan";
    return fmt::format("{:.17g}", x);
}
std::string hex(double x) {
    if (!std::isfinite(x)) return num(x);
    return fmt::format("{:a}", x);
}
std::string err(double x) {
    if (std::isinf(x)) return "inf";
    if (std::isnan(x)) return "—";
    return fmt::format("{:.3g}", x);
}

// At most eight naive weights, then the count.
std::string weight_list(const std::vector<double>& w) {
    std::string s = "[";
    for (std::size_t j = 0; j < w.size() && j < 8; ++j) s += (j > 0 ? ", " : "") + num(w[j]);
    if (w.size() > 8) s += fmt::format(", … ({} in all)", w.size());
    return s + "]";
}

std::string naive_text(const NaiveRow& n) {
    switch (n.outcome) {
        case NaiveOutcome::Finite:
            return n.underflowed == 0
                       ? "finite"
                       : fmt::format("finite ({} exponential(s) underflow to 0, weight 0)", n.underflowed);
        case NaiveOutcome::ExpOverflow:
            return "an exponential overflows: inf/inf = NaN, finite/inf = 0";
        case NaiveOutcome::SumOverflow:
            return "every exponential finite, their sum overflows: finite/inf = 0";
        case NaiveOutcome::Underflow:
            return "every exponential underflows to 0: 0/0 = NaN";
        case NaiveOutcome::ScoreNotFinite:
            return "a score is not finite in double";
    }
    return "?";
}

// The limit a row is held to, in words.
std::string tolerance_text(const CrosscheckResult& r) {
    if (!r.tolerance_ulps) return "none declared: each quantity is held to its a-priori error bound";
    return fmt::format(
        "{} ULP declared ({}): each quantity is held to the smaller of its a-priori error bound "
        "and this tolerance",
        num(*r.tolerance_ulps), r.rationale.empty() ? "no rationale given" : r.rationale);
}

}  // namespace

namespace {

// What the rows cover, counted by section, and what the scenario declares that no row covers:
// a result says what its PASS is about.
Inline compared_line(const CrosscheckResult& r) {
    std::size_t sources = 0;
    std::size_t reads = 0;
    std::size_t interventions = 0;
    std::size_t rollouts = 0;
    for (const auto& row : r.rows) {
        const std::string& q = row.quantity;
        if (q.rfind("/sources/", 0) == 0)
            ++sources;
        else if (q.rfind("/reads/", 0) == 0)
            ++reads;
        else if (q.rfind("/interventions/", 0) == 0)
            ++interventions;
        else if (q.rfind("/rollouts/", 0) == 0)
            ++rollouts;
    }
    Inline line(
        fmt::format("Compared: {} quantities ({} of sources, {} of reads, {} of interventions, {} of "
                    "rollouts).",
                    r.rows.size(), sources, reads, interventions, rollouts));
    if (!r.not_compared.empty()) {
        line.text(" Not compared (no double path yet: docs/crosscheck.md): ");
        for (std::size_t i = 0; i < r.not_compared.size(); ++i) {
            if (i > 0) line.text(", ");
            line.code(r.not_compared[i]);
        }
        line.text(".");
    }
    return line;
}

}  // namespace

namespace {

// Every quantity of one file against the double path.
TableBlock rows_table(const CrosscheckResult& r) {
    TableBlock tab;
    tab.caption = Inline("Every quantity of ").code(r.file).text(" against the double path");
    tab.headers = {Inline("quantity"),       Inline("exact"),          Inline("correctly rounded"),
                   Inline("double path"),    Inline("ULP error"),      Inline("bound (ULP)"),
                   Inline("relative error"), Inline("absolute error"), Inline("bound (absolute)"),
                   Inline("within")};
    for (const auto& row : r.rows) {
        const bool over_bound = row.abs_error > row.bound;
        Inline within =
            row.passed ? Inline("yes") : Inline().strong("no").text(over_bound ? " (over bound)" : " (over tolerance)");
        tab.add_row({Inline().code(row.quantity), Inline().value(parse_value(row.exact)),
                     Inline(fmt::format("{} ({})", num(row.rounded), hex(row.rounded))),
                     Inline(fmt::format("{} ({})", num(row.computed), hex(row.computed))), Inline(err(row.ulp_error)),
                     Inline(err(row.bound_ulps)), Inline(err(row.rel_error)), Inline(err(row.abs_error)),
                     Inline(err(row.bound)), within});
    }
    return tab;
}

// The summary of one file: the worst errors, the dyadic values, what was compared, the result.
Lines summary_lines(const CrosscheckResult& r) {
    Lines summary;
    if (!r.rows.empty()) {
        summary.lines.push_back(
            Inline(fmt::format("Summary: {} quantities; max |ULP| = {} at ", r.rows.size(), err(r.max_abs_ulp)))
                .code(r.rows[r.worst].quantity)
                .text(fmt::format("; mean |ULP| = {}; largest error/bound = {} at ", err(r.mean_abs_ulp),
                                  err(r.worst_ratio)))
                .code(r.rows[r.worst_ratio_row].quantity)
                .text(fmt::format("; {} over their limit.", r.failed)));
    }
    summary.lines.push_back(Inline(
        fmt::format("Dyadic values (exact values that are doubles, e.g. 1/2, 1/4, 2; information only): {}, {} of them "
                    "computed exactly by the double path.",
                    r.dyadic_count, r.dyadic_exact)));
    summary.lines.push_back(compared_line(r));
    if (r.compared_nothing()) {
        summary.lines.push_back(Inline("Result: ")
                                    .strong("NOTHING COMPARED")
                                    .text(" (a warning, not a pass: the scenario declares no source, read, "
                                          "intervention or rollout that the double path recomputes)."));
    } else if (r.passed()) {
        summary.lines.push_back(Inline(
            r.unbounded == 0 ? std::string("Result: PASS (every quantity within its bound).")
                             : fmt::format("Result: PASS (every quantity within its bound; {} of them unchecked: "
                                           "their bound is inf because the double path overflows).",
                                           r.unbounded)));
    } else {
        const auto first = std::find_if(r.rows.begin(), r.rows.end(), [](const CrossRow& x) { return !x.passed; });
        summary.lines.push_back(
            Inline("Result: ")
                .strong("FAIL")
                .text(fmt::format(" ({} quantities over their bound or the declared tolerance, first ", r.failed))
                .code(first->quantity)
                .text(": the double path or the exact engine has a bug)."));
    }
    return summary;
}

// The naive softmax of each read, for contrast.
TableBlock naive_table(const CrosscheckResult& r) {
    TableBlock naive;
    naive.caption = Inline("Naive softmax without max subtraction (for contrast; not checked)");
    naive.headers = {Inline("read"), Inline("largest score"), Inline("naive softmax"), Inline("naive weights"),
                     Inline("naive max |ULP|")};
    for (const auto& n : r.naive) {
        naive.add_row({Inline().code(n.read), Inline(num(n.max_score)), Inline(naive_text(n)),
                       Inline(weight_list(n.weights)), Inline(err(n.max_ulp_error))});
    }
    return naive;
}

// The rollout steps where the double argmax is not the exact choice.
TableBlock splits_table(const CrosscheckResult& r) {
    TableBlock splits;
    splits.caption = Inline(
        "Rollout steps where the double argmax is not the exact choice (information; "
        "the sequences are given from that step on)");
    splits.headers = {Inline("rollout"),       Inline("regime"),         Inline("step"),
                      Inline("exact argmax"),  Inline("exact choice"),   Inline("double choice"),
                      Inline("double margin"), Inline("exact sequence"), Inline("double sequence")};
    auto list = [](const std::vector<std::string>& v) {
        std::string out;
        for (const auto& t : v) out += (out.empty() ? "" : " ") + (t.empty() ? std::string("—") : t);
        return Inline().token(out);
    };
    for (const auto& sp : r.splits) {
        splits.add_row({Inline().code(sp.rollout), Inline(sp.regime), Inline(std::to_string(sp.step)),
                        Inline(sp.exact_tie() ? "tie: " : "").append(list(sp.exact_argmax)),
                        sp.exact_choice.empty() ? Inline("refused (tie rule)") : Inline().token(sp.exact_choice),
                        Inline().token(sp.double_choice), Inline(num(sp.double_margin)), list(sp.exact_tokens),
                        list(sp.double_tokens)});
    }
    return splits;
}

}  // namespace

Document crosscheck_document(const std::vector<CrosscheckResult>& results) {
    Document doc;
    doc.title = "Cross-check";
    std::size_t failed = 0;
    std::size_t nothing = 0;
    for (const auto& r : results) {
        doc.add(Heading{1, Inline("Cross-check: ").code(r.file)});
        doc.add(Paragraph{Inline(fmt::format(
            "Double path: a = log(2.0), max-subtracted softmax, computed from the scenario (never from the exact "
            "results). Each exact value is evaluated at 160 bits, not rounded to double first. Each quantity's "
            "error bound is derived a priori from the double operations that compute it (docs/crosscheck.md). "
            "Tolerance: {}.",
            tolerance_text(r)))});
        doc.add(rows_table(r));
        doc.add(summary_lines(r));
        doc.add(naive_table(r));
        if (!r.splits.empty()) doc.add(splits_table(r));
        if (r.compared_nothing()) ++nothing;
        if (!r.passed()) ++failed;
    }
    // A file that compared nothing is neither passed nor failed; it is counted only when there is one, so
    // that the line of every other run stays as it was.
    doc.add(Paragraph{Inline(fmt::format("crosscheck: {} passed, {} failed{}", results.size() - failed - nothing,
                                         failed, nothing > 0 ? fmt::format(", {} compared nothing", nothing) : ""))});
    return doc;
}

std::string render_crosscheck(const std::vector<CrosscheckResult>& results, Format format,
                              const RenderOptions& options) {
    if (format == Format::Json) return crosscheck_json(results);
    return render(crosscheck_document(results), format, options);
}

std::string crosscheck_markdown(const std::vector<CrosscheckResult>& results) {
    return render(crosscheck_document(results), Format::Markdown);
}

std::string crosscheck_json(const std::vector<CrosscheckResult>& results) {
    using detail::Json;
    auto number = [](double x) -> Json {
        if (std::isfinite(x)) return x;
        return std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf");
    };
    Json all = Json::array();
    for (const auto& r : results) {
        Json j;
        j["file"] = r.file;
        j["tolerance_ulps"] = r.tolerance_ulps ? number(*r.tolerance_ulps) : Json(nullptr);
        j["rationale"] = r.rationale;
        Json rows = Json::array();
        for (const auto& row : r.rows) {
            rows.push_back({{"quantity", row.quantity},
                            {"exact", row.exact},
                            {"rounded", number(row.rounded)},
                            {"rounded_hex", hex(row.rounded)},
                            {"computed", number(row.computed)},
                            {"computed_hex", hex(row.computed)},
                            {"ulp_error", number(row.ulp_error)},
                            {"rel_error", number(row.rel_error)},
                            {"abs_error", number(row.abs_error)},
                            {"bound", number(row.bound)},
                            {"bound_ulps", number(row.bound_ulps)},
                            {"dyadic", row.dyadic},
                            {"passed", row.passed}});
        }
        j["rows"] = rows;
        j["summary"] = {
            {"count", r.rows.size()},
            {"max_abs_ulp", number(r.max_abs_ulp)},
            {"mean_abs_ulp", number(r.mean_abs_ulp)},
            {"worst", r.rows.empty() ? Json(nullptr) : Json(r.rows[r.worst].quantity)},
            {"worst_error_over_bound", number(r.worst_ratio)},
            {"worst_error_over_bound_at", r.rows.empty() ? Json(nullptr) : Json(r.rows[r.worst_ratio_row].quantity)},
            {"failed", r.failed},
            {"unbounded", r.unbounded},
            {"dyadic", r.dyadic_count},
            {"dyadic_exact", r.dyadic_exact},
            {"not_compared", r.not_compared},
            {"compared_nothing", r.compared_nothing()},
            {"passed", r.passed()}};
        Json naive = Json::array();
        for (const auto& n : r.naive) {
            Json weights = Json::array();
            for (const double w : n.weights) weights.push_back(number(w));
            naive.push_back({{"read", n.read},
                             {"max_score", number(n.max_score)},
                             {"outcome", naive_outcome_name(n.outcome)},
                             {"underflowed", n.underflowed},
                             {"sum", number(n.sum)},
                             {"weights", weights},
                             {"max_ulp_error", std::isnan(n.max_ulp_error) ? Json(nullptr) : number(n.max_ulp_error)}});
        }
        j["naive_softmax"] = naive;
        Json splits = Json::array();
        for (const auto& sp : r.splits) {
            splits.push_back({{"rollout", sp.rollout},
                              {"regime", sp.regime},
                              {"step", sp.step},
                              {"exact_argmax", sp.exact_argmax},
                              {"exact_tie", sp.exact_tie()},
                              {"exact_choice", sp.exact_choice.empty() ? Json(nullptr) : Json(sp.exact_choice)},
                              {"double_choice", sp.double_choice},
                              {"double_margin", number(sp.double_margin)},
                              {"exact_tokens", sp.exact_tokens},
                              {"double_tokens", sp.double_tokens}});
        }
        j["rollout_splits"] = splits;
        all.push_back(j);
    }
    return all.dump(2) + "\n";
}

}  // namespace exactattn
