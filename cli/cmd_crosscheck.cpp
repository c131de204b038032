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
    out << render_crosscheck(results, parse_format(o.format), o.render);
    return ok ? 0 : 1;
}

}  // namespace exactattn::cli
