// SPDX-License-Identifier: MIT
// exactattn answers / check: answer keys and learner-answer judgements.
#include <fmt/format.h>

#include <ostream>

#include "commands.hpp"
#include "exactattn/answers.hpp"
#include "exactattn/check.hpp"
#include "exactattn/error.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"

namespace exactattn::cli {

int cmd_answers(const FilesOptions& o, std::ostream& out) {
    out << render_answers(run_scenario(load_scenario(o.files.at(0))), parse_format(o.format), o.render);
    return 0;
}

int cmd_check(const CheckOptions& o, std::ostream& out) {
    const Report rep = run_scenario(load_scenario(o.file));
    std::vector<LearnerAnswer> answers;
    if (o.ad_hoc) {
        LearnerAnswer la;
        la.name = "answer";
        la.target = o.target;
        Location where;
        where.context = "--proposed";
        try {
            if (o.proposed.rfind("[[", 0) == 0) {
                const Matrix m = parse_matrix(o.proposed);
                la.columns = m.empty() ? 0 : m.front().size();
                for (const auto& row : m) la.proposed.insert(la.proposed.end(), row.begin(), row.end());
            } else if (!o.proposed.empty() && o.proposed.front() == '[') {
                la.proposed = parse_vector(o.proposed);
            } else {
                la.proposed = {parse_value(o.proposed)};
                la.scalar = true;
            }
        } catch (const Error& e) {
            throw e.located(where);
        }
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
