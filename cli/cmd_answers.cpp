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
    out << render_answers(run_scenario(load_scenario(o.files.at(0))), parse_format(o.format));
    return 0;
}

int cmd_check(const CheckOptions& o, std::ostream& out) {
    const Report rep = run_scenario(load_scenario(o.file));
    std::vector<LearnerAnswer> answers;
    if (!o.target.empty() || !o.proposed.empty()) {
        if (o.target.empty() || o.proposed.empty()) {
            throw usage_error("--target and --proposed go together");
        }
        LearnerAnswer la;
        la.name = "answer";
        la.target = o.target;
        Location where;
        where.context = "--proposed";
        try {
            if (!o.proposed.empty() && o.proposed.front() == '[') {
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
            throw reference_error(fmt::format("unknown learner answer \"{}\"", o.answer));
        }
        if (answers.empty()) throw reference_error("the scenario declares no learner_answers to check");
    }
    std::size_t right = 0;
    std::size_t wrong = 0;
    const bool ad_hoc = !o.target.empty();
    for (const auto& la : answers) {
        Judgement j;
        try {
            j = judge(rep, la);
        } catch (const Error& e) {
            if (!ad_hoc || !e.where().empty()) throw;
            Location where;
            where.context = "--target";
            throw e.located(where);
        }
        (j.correct ? right : wrong)++;
        out << judgement_text(j) << '\n';
    }
    out << fmt::format("check: {} right, {} wrong\n", right, wrong);
    return wrong == 0 ? 0 : 1;
}

}  // namespace exactattn::cli
