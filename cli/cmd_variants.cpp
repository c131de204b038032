// SPDX-License-Identifier: MIT
// exactattn variants: N variants of an exercise, their keys, a sheet and a Moodle XML export.
#include <fmt/format.h>

#include <ostream>

#include "commands.hpp"
#include "exactattn/error.hpp"
#include "exactattn/variants.hpp"

namespace exactattn::cli {

int cmd_variants(const VariantsOptions& o, std::ostream& out) {
    if (o.output.empty()) {
        Location where;
        where.context = "--output";
        throw usage_error("variants writes many files (scenario files, keys, a sheet, Moodle XML): give -o DIR, a "
                          "directory (created when missing)",
                          where);
    }
    VariantRequest request;
    request.exercise = o.exercise;
    request.count = o.count;
    request.seed = o.variant_seed ? *o.variant_seed : o.seed;
    request.variant_seed = o.variant_seed.has_value();
    const VariantSet set = draw_variants(load_scenario(o.file), request);
    const auto files = variant_files(set);
    std::vector<std::pair<std::string, std::string>> named;
    for (const auto& f : files) named.emplace_back(f.name, f.text);
    write_files(o.output, named);
    for (const auto& v : set.variants) {
        out << fmt::format("variant {}: seed {}, {} draw{}\n", v.number, v.seed, v.draws, v.draws == 1 ? "" : "s");
    }
    out << fmt::format("variants: {} variants of exercise {} written to {} ({} files)\n", set.variants.size(),
                       set.exercise.id, o.output, files.size());
    return 0;
}

}  // namespace exactattn::cli
