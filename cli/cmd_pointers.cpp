// SPDX-License-Identifier: MIT
// exactattn pointers: every quantity of a scenario's report by JSON pointer, with its exact value
// and what it is (docs/manuscript.md, "Finding a pointer").
#include <CLI/CLI.hpp>

#include <ostream>

#include "commands.hpp"
#include "exactattn/pointers.hpp"
#include "exactattn/scenario.hpp"

namespace exactattn::cli {

void add_pointers_options(CLI::App& sub, PointersOptions& o) {
    sub.add_option("file", o.file, "Scenario file, or chapter14 (the default)");
    sub.add_option("--under", o.under, "Only the quantities at or below this JSON pointer, e.g. /reads/example-14.1");
    add_format_option(sub, o.format);
}

int cmd_pointers(const PointersOptions& o, std::ostream& out, Delivery& delivery) {
    const Report report = run_scenario(load_scenario(o.file), ReportUse::Values);
    const std::vector<PointerEntry> entries = for_option("--under", [&] { return list_pointers(report, o.under); });
    const Format f = parse_format(o.format);
    if (f == Format::Json)
        out << pointers_json(entries);
    else
        emit(pointers_document(report, entries), f, o.render, out, delivery);
    return 0;
}

}  // namespace exactattn::cli
