// SPDX-License-Identifier: MIT
// exactattn run / encode / verify: scenario files through the library.
#include <fmt/format.h>

#include <ostream>

#include "commands.hpp"
#include "exactattn/error.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/report.hpp"
#include "exactattn/verify.hpp"

namespace exactattn::cli {

int cmd_run(const RunOptions& o, std::ostream& out) {
    const Scenario s = load_scenario(o.file);
    const Format f = parse_format(o.format);
    const Report rep = run_scenario(s);
    if (f == Format::Json) out << render_report(rep, f);
    else emit(report_document(rep), f, o.render, out);
    return 0;
}

int cmd_encode(const EncodeOptions& o, std::ostream& out) {
    const Scenario s = load_scenario(o.scenario);
    Location where;
    where.context = "--tokens";
    // Tokens are compared with the scenario's UTF-8 vocabulary; invalid bytes would otherwise
    // be echoed raw in "unknown token" messages.
    try {
        check_utf8(o.tokens, "");
    } catch (const Error& e) {
        where.column = e.where().column;
        throw parse_error(where, e.reason().substr(0, e.reason().find(" at line")));
    }
    where.column = 0;
    const auto tokens = split_tokens(o.tokens);
    try {
        const Format f = parse_format(o.format);
        if (f == Format::Json) out << render_encoding(s, tokens, f);
        else emit(encoding_document(s, tokens), f, o.render, out);
    } catch (const Error& e) {
        if (e.where().empty()) throw e.located(where);
        throw;
    }
    return 0;
}

int cmd_verify(const FilesOptions& o, std::ostream& out) {
    std::size_t passed = 0;
    std::size_t failed = 0;
    for (const auto& f : o.files) {
        const VerifyResult r = verify_report(run_scenario(load_scenario(f)));
        passed += r.passed;
        failed += r.failures.size();
        for (const auto& m : r.failures) {
            out << fmt::format("{}: {}: expected {}, computed {}\n", r.file, m.pointer, m.expected,
                               m.computed);
        }
    }
    out << fmt::format("verify: {} passed, {} failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}

}  // namespace exactattn::cli
