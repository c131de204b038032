// SPDX-License-Identifier: MIT
// exactattn answers / check: answer keys and learner-answer judgements.
#include <fmt/format.h>

#include <ostream>

#include "commands.hpp"
#include "exactattn/answer_key.hpp"
#include "exactattn/check.hpp"
#include "exactattn/answer_entry.hpp"
#include "exactattn/error.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"

namespace exactattn::cli {

int cmd_answers(const FilesOptions& o, std::ostream& out) {
    out << render_answers(run_scenario(load_scenario(o.files.at(0))), parse_format(o.format), o.render);
    return 0;
}

namespace {

// --tolerance and --accept override what the scenario declares.
void apply_options(const CheckOptions& o, LearnerAnswer& la) {
    if (!o.tolerance.empty()) {
        Location where;
        where.context = "--tolerance";
        la.tolerance = parse_tolerance(o.tolerance, where);
    }
    if (!o.accept.empty()) la.accept = o.accept;
}

// An ad-hoc target takes `tolerance` and `accept` from the first exercise (in file order) that
// lists it: its read, its intervention, or that intervention's row (docs/cli.md#check).
void inherit_exercise_rules(const Scenario& sc, LearnerAnswer& la) {
    auto under = [&la](const std::string& prefix) {
        return la.target.size() > prefix.size() && la.target.compare(0, prefix.size(), prefix) == 0 &&
               la.target[prefix.size()] == '/';
    };
    auto token = [](const std::string& name) {  // RFC 6901: ~ as ~0, / as ~1
        std::string t;
        for (char ch : name) t += ch == '~' ? "~0" : ch == '/' ? "~1" : std::string(1, ch);
        return t;
    };
    for (const auto& e : sc.exercises) {
        bool lists = false;
        for (const auto& r : e.reads) lists = lists || under("/reads/" + token(r));
        for (const auto& i : e.interventions) {
            const auto slash = i.find('/');
            std::string prefix = "/interventions/" + token(i.substr(0, slash));
            if (slash != std::string::npos) prefix += i.substr(slash);
            lists = lists || under(prefix);
        }
        if (!lists) continue;
        if (!la.tolerance) la.tolerance = e.tolerance;
        if (la.accept.empty()) la.accept = e.accept;
        return;
    }
}

// `check FILE --answers CSV`: one row per answer (student, target, answer, verdict, rule,
// mistake, feedback); an answer that does not parse is `invalid`, with the reason as feedback.
int check_class(const CheckOptions& o, const Report& rep, std::ostream& out) {
    const auto rows = load_class_answers(o.answers);
    struct Row {
        ClassAnswer in;
        std::optional<Judgement> j;
        std::string invalid;
    };
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
            apply_options(o, la);
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
    const Format f = parse_format(o.format == "text" ? "csv" : o.format);
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
    emit(d, f, o.render, out);
    return wrong == 0 ? 0 : 1;
}

}  // namespace

int cmd_check(const CheckOptions& o, std::ostream& out) {
    const Report rep = run_scenario(load_scenario(o.file));
    if (!o.answers.empty()) return check_class(o, rep, out);
    std::vector<LearnerAnswer> answers;
    if (o.ad_hoc) {
        LearnerAnswer la;
        la.name = "answer";
        la.target = o.target;
        Location where;
        where.context = "--proposed";
        try {
            read_proposal(o.proposed, la);
        } catch (const Error& e) {
            throw e.located(where);
        }
        inherit_exercise_rules(rep.scenario, la);
        answers.push_back(std::move(la));
    } else {
        for (const auto& la : rep.scenario.learner_answers) {
            if (o.answer.empty() || la.name == o.answer) answers.push_back(la);
        }
        if (!o.answer.empty() && answers.empty()) {
            Location where;
            where.context = "--answer";
            throw reference_error(fmt::format("unknown learner answer \"{}\"", o.answer), where);
        }
        if (answers.empty()) throw reference_error("the scenario declares no learner_answers to check");
    }
    for (auto& la : answers) apply_options(o, la);
    std::vector<Judgement> judgements;
    try {
        judgements = judge_all(rep, answers);
    } catch (const Error& e) {
        if (!o.ad_hoc) throw;
        // An ad-hoc target is placed at the option that gave it, not in the file.
        Location where;
        where.context = "--target";
        throw Error(e.kind(), where, e.reason());
    }
    std::size_t right = 0;
    std::size_t wrong = 0;
    for (const auto& j : judgements) (j.correct ? right : wrong)++;
    const Format f = parse_format(o.format);
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
