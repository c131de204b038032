// SPDX-License-Identifier: MIT
// exactattn crosscheck: exact results against the independent double path.
#include <ostream>

#include "commands.hpp"
#include "exactattn/book.hpp"
#include "exactattn/crosscheck.hpp"

namespace exactattn::cli {

int cmd_crosscheck(const FilesOptions& o, std::ostream& out, Delivery& delivery) {
    const std::vector<std::string> files = scenario_files(o.files);
    std::vector<CrosscheckResult> results(files.size());
    // A refusal while a file is run or compared names the file (and the quantity: crosscheck()).
    run_parallel(files.size(), o.jobs == 0 ? default_jobs() : o.jobs, [&](std::size_t i) {
        results[i] = placed_in_file(files[i], [&] { return crosscheck(run_scenario(load_scenario(files[i]))); });
    });
    bool ok = true;
    for (const auto& r : results) ok = ok && r.passed();
    if (!o.junit.empty()) write_output_file(o.junit, crosscheck_junit(results), "--junit");
    const Format f = parse_format(o.format);
    // A refusal while the report is printed names its file (the table and row are in the
    // reason); a report of several files is placed at the report.
    const auto print = [&] {
        if (f == Format::Json)
            out << crosscheck_json(results);
        else
            emit(crosscheck_document(results), f, o.render, out, delivery);
    };
    if (files.size() == 1) {
        placed_in_file(files.front(), print);
    } else {
        Location where;
        where.context = "the report";
        placed(where, print);
    }
    return ok ? 0 : 1;
}

}  // namespace exactattn::cli
