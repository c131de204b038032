// SPDX-License-Identifier: MIT
// exactattn answers / check: answer keys and learner-answer judgements.
#include <fmt/format.h>

#include <ostream>

#include "commands.hpp"
#include "exactattn/answer_key.hpp"
#include "exactattn/check.hpp"
#include "exactattn/class_report.hpp"
#include "exactattn/answer_entry.hpp"
#include "exactattn/error.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"

namespace exactattn::cli {

int cmd_answers(const FilesOptions& o, std::ostream& out) {
    // A refusal while the key is computed or printed names the file, as `run`'s does.
    return placed_in_file(o.files.at(0), [&] {
        out << render_answers(run_scenario(load_scenario(o.files.at(0))), parse_format(o.format), o.render);
        return 0;
    });
}

namespace {

// --tolerance (and --accept) override what the scenario declares.
std::optional<Tolerance> tolerance_option(const CheckOptions& o) {
    if (o.tolerance.empty()) return std::nullopt;
    Location where;
    where.context = "--tolerance";
    return parse_tolerance(o.tolerance, where);
}

// `check FILE --answers CSV`: one row per answer (student, target, answer, verdict, rule,
// mistake, feedback); an answer that does not parse is `invalid`, with the reason as feedback.
int check_class(const CheckOptions& o, const Report& rep, std::ostream& out, Delivery& delivery) {
    const auto rows = load_class_answers(o.answers);
    struct Row {
        ClassAnswer in;
        std::optional<Judgement> j;
        std::string invalid;
    };
    const std::optional<Tolerance> tolerance = tolerance_option(o);
    std::vector<Row> judged;
    std::vector<LearnerAnswer> valid;
    std::vector<std::size_t> valid_rows;
    for (const auto& r : rows) {
        LearnerAnswer la;
        la.name = r.student;
        la.target = r.target;
        Row row{r, std::nullopt, {}};
        try {
            read_proposal(r.answer, la);
        } catch (const Error& e) {
            row.invalid = fmt::format("the answer does not parse: {}", e.what());
        }
        if (row.invalid.empty()) {
            if (tolerance) la.tolerance = tolerance;
            if (!o.accept.empty()) la.accept = o.accept;
            valid.push_back(std::move(la));
            valid_rows.push_back(judged.size());
        }
        judged.push_back(std::move(row));
    }
    // One run report addressed for the whole class; a target that names nothing in it is the
    // CSV's error at its line (the first such row).
    std::vector<Judgement> js;
    try {
        js = judge_all(rep, valid);
    } catch (const Error&) {
        for (std::size_t k = 0; k < valid.size(); ++k) {
            try {
                (void)judge_all(rep, {valid[k]});
            } catch (const Error& e) {
                Location where;
                where.file = o.answers;
                where.line = judged[valid_rows[k]].in.line;
                throw Error(e.kind(), where, e.reason());
            }
        }
        throw;
    }
    for (std::size_t k = 0; k < js.size(); ++k) judged[valid_rows[k]].j = std::move(js[k]);
    std::size_t wrong = 0;
    for (const auto& r : judged) wrong += !r.j || !r.j->correct ? 1 : 0;
    const Format f = parse_format(o.format.empty() ? "csv" : o.format);  // a class's table: CSV unless asked
    if (f == Format::Json) {
        js.clear();
        for (const auto& r : judged) {
            if (r.j) {
                js.push_back(*r.j);
                continue;
            }
            Judgement bad;
            bad.name = r.in.student;
            bad.target = r.in.target;
            bad.feedback = r.invalid;
            bad.findings.push_back(r.invalid);
            js.push_back(std::move(bad));
        }
        out << check_json(js);
        return wrong == 0 ? 0 : 1;
    }
    Document d;
    d.title = "Check";
    TableBlock t;
    for (const char* h : {"student", "target", "answer", "verdict", "rule", "mistake", "feedback"}) {
        t.headers.emplace_back(Inline(h));
    }
    for (const auto& r : judged) {
        const std::string verdict = !r.j ? "invalid" : r.j->correct ? "right" : "wrong";
        t.add_row({Inline(r.in.student), Inline(r.in.target), Inline(r.in.answer), Inline(verdict),
                   Inline(r.j ? r.j->rule : ""), Inline(r.j ? r.j->mistake_id : ""),
                   Inline(r.j ? r.j->feedback : r.invalid)});
    }
    d.add(std::move(t));
    emit(d, f, o.render, out, delivery);
    return wrong == 0 ? 0 : 1;
}

// What a check computes: with --target or --answers only the declarations the targets point
// into and those the scenario's learner answers and exercises name (every run checks them),
// so that one row of a 500-row layer does not compute the others, nor an unrelated table
// (issue 27); with --answer NAME, everything.
Scenario checked_part(const CheckOptions& o, Scenario s) {
    std::vector<std::string> pointers;
    if (o.ad_hoc) {
        pointers.push_back(o.target);
    } else if (!o.answers.empty()) {
        for (const auto& row : load_class_answers(o.answers)) pointers.push_back(row.target);
    } else {
        return s;
    }
    // What the scenario's own learner answers and exercises name is checked by every run.
    for (const auto& la : s.learner_answers) pointers.push_back(la.target);
    const auto named = [&pointers](const char* section, const std::string& ref) {
        std::string name = ref.substr(0, ref.find('/'));  // `r/generation/3` names rollout r
        for (std::size_t k = 0; (k = name.find('~', k)) != std::string::npos; k += 2) name.replace(k, 1, "~0");
        pointers.push_back(std::string("/") + section + "/" + name);
    };
    for (const auto& e : s.exercises) {
        for (const auto& r : e.reads) named("reads", r);
        for (const auto& r : e.interventions) named("interventions", r);
        for (const auto& r : e.costs) named("costs", r);
        for (const auto& r : e.rollouts) named("rollouts", r);
        for (const auto& r : e.layers) named("layers", r);
    }
    return only_what_pointers_need(std::move(s), pointers);
}

// `check --variants DIR --answers CSV`: the class graded against the variants, as the class
// report (docs/check.md#a-class-on-variants). A row that cannot be graded gets its placed line
// on standard error and the rest is graded; exit 2 when a row was refused, else 1 when an answer
// is wrong or does not parse, else 0.
int check_class_on_variants(const CheckOptions& o, const std::optional<Tolerance>& tolerance, std::ostream& out,
                            Delivery& delivery) {
    const ClassGrade g = grade_class(o.variants, o.answers, tolerance, o.accept);
    for (const auto& r : g.rows) {
        if (r.refusal && o.refused) o.refused(*r.refusal);
    }
    const Format f = parse_format(o.format.empty() ? "text" : o.format);
    if (f == Format::Json) {
        out << class_report_json(g);
    } else {
        emit(class_report_document(g), f, o.render, out, delivery);
    }
    return g.refused() > 0 ? 2 : g.wrong_or_invalid() > 0 ? 1 : 0;
}

}  // namespace

int cmd_check(const CheckOptions& o, std::ostream& out, Delivery& delivery) {
    if (!o.variants.empty()) return check_class_on_variants(o, tolerance_option(o), out, delivery);
    const Report rep = run_scenario(checked_part(o, load_scenario(o.file)));
    if (!o.answers.empty()) return check_class(o, rep, out, delivery);
    CheckRequest req;
    req.answer = o.answer;
    if (o.ad_hoc) {
        LearnerAnswer la;
        la.name = "answer";
        la.target = o.target;
        placed(
            Location::named("--proposed"), [&] { read_proposal(o.proposed, la); }, KeepPlace::Nothing);
        req.ad_hoc = std::move(la);
    }
    req.tolerance = tolerance_option(o);
    req.accept = o.accept;
    const std::vector<Judgement> judgements = check_request(rep, req);
    std::size_t right = 0;
    std::size_t wrong = 0;
    for (const auto& j : judgements) (j.correct ? right : wrong)++;
    const Format f = parse_format(o.format.empty() ? "text" : o.format);
    if (f == Format::Json) {
        out << check_json(judgements);
    } else {
        // One line per judgement and the count, in any document format.
        Document doc;
        doc.title = "Check";
        Lines lines;
        for (const auto& j : judgements) lines.lines.emplace_back(judgement_text(j));
        doc.add(std::move(lines));
        doc.add(Paragraph{Inline(fmt::format("check: {} right, {} wrong", right, wrong))});
        out << render(doc, f, o.render);
    }
    return wrong == 0 ? 0 : 1;
}

}  // namespace exactattn::cli
