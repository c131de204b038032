// SPDX-License-Identifier: MIT
// exactattn crosscheck: exact results against the independent double path.
#include <ostream>

#include "commands.hpp"
#include "exactattn/crosscheck.hpp"

namespace exactattn::cli {

int cmd_crosscheck(const FilesOptions& o, std::ostream& out) {
    std::vector<CrosscheckResult> results;
    bool ok = true;
    for (const auto& f : o.files) {
        results.push_back(crosscheck(run_scenario(load_scenario(f))));
        ok = ok && results.back().passed();
    }
    const Format f = parse_format(o.format);
    if (f == Format::Json) out << crosscheck_json(results);
    else emit(crosscheck_document(results), f, o.render, out);
    return ok ? 0 : 1;
}

}  // namespace exactattn::cli
