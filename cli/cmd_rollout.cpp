// SPDX-License-Identifier: MIT
// exactattn rollout: one declared decoder rollout, both regimes step by step.
#include <fmt/format.h>

#include <ostream>

#include "commands.hpp"
#include "exactattn/error.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/report.hpp"

namespace exactattn::cli {

namespace {

int rollout_file(const RolloutOptions& o, std::ostream& out, Delivery& delivery) {
    Scenario s = load_scenario(o.file);
    const Format f = parse_format(o.format);
    Location where;
    where.context = "--rollout";
    std::string names;
    for (const auto& r : s.rollouts) names += (names.empty() ? "" : ", ") + r.name;
    // `--rollout ''` names nothing; it is not read as "the only rollout", which would hide a
    // script's empty variable.
    if (o.name && o.name->empty()) {
        throw usage_error(fmt::format("an empty name names no rollout; {} declares {}", s.file,
                                      names.empty() ? std::string("none") : names),
                          where);
    }
    std::string name = o.name.value_or("");
    if (name.empty()) {
        if (s.rollouts.empty()) {
            throw usage_error(fmt::format("{} declares no rollouts (a rollout needs \"decoder\" and \"rollouts\" "
                                          "sections, docs/decoder.md)",
                                          s.file),
                              where);
        }
        if (s.rollouts.size() != 1) {
            throw usage_error(fmt::format("{} declares {} rollouts: name one ({})", s.file, s.rollouts.size(), names),
                              where);
        }
        name = s.rollouts.front().name;
    }
    placed(
        where, [&] { (void)s.rollout(name); }, KeepPlace::Nothing);  // an unknown name is refused before the run
    if (o.digits) {
        for (auto& r : s.rollouts) r.digits = *o.digits;
    }
    const Report rep = run_scenario(s, f == Format::Json ? ReportUse::Values : ReportUse::Tables);
    const RolloutResult& r = rep.rollout(name);
    if (f == Format::Json)
        out << render_rollout(rep, r, f);
    else
        emit(rollout_document(rep, r), f, o.render, out, delivery);
    return 0;
}

}  // namespace

int cmd_rollout(const RolloutOptions& o, std::ostream& out, Delivery& delivery) {
    return placed_in_file(o.file, [&] { return rollout_file(o, out, delivery); });
}

}  // namespace exactattn::cli
