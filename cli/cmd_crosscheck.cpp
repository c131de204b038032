// SPDX-License-Identifier: MIT
// exactattn crosscheck: exact results against the independent double path.
#include <ostream>

#include "commands.hpp"
#include "exactattn/book.hpp"
#include "exactattn/crosscheck.hpp"

namespace exactattn::cli {

int cmd_crosscheck(const FilesOptions& o, std::ostream& out) {
    const std::vector<std::string> files = scenario_files(o.files);
    std::vector<CrosscheckResult> results(files.size());
    run_parallel(files.size(), o.jobs == 0 ? default_jobs() : o.jobs,
                 [&](std::size_t i) { results[i] = crosscheck(run_scenario(load_scenario(files[i]))); });
    bool ok = true;
    for (const auto& r : results) ok = ok && r.passed();
    if (!o.junit.empty()) write_output_file(o.junit, crosscheck_junit(results), "--junit");
    const Format f = parse_format(o.format);
    if (f == Format::Json)
        out << crosscheck_json(results);
    else
        emit(crosscheck_document(results), f, o.render, out);
    return ok ? 0 : 1;
}

}  // namespace exactattn::cli
