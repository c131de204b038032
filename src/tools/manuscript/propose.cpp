// SPDX-License-Identifier: MIT
// exactattn: `manuscript propose` — the manuscript with a mark on every number audit bound, so
// that an author reviews marks instead of typing them (docs/manuscript.md).
#include <fmt/format.h>

#include "exactattn/manuscript.hpp"
#include "tools/manuscript/bind.hpp"
#include "tools/manuscript/marks.hpp"
#include "tools/manuscript/quantities.hpp"

namespace exactattn {

ProposeResult propose_marks_text(std::string_view text, const std::string& file, ManuscriptFormat format,
                                 const ManuscriptOptions& options, const AuditOptions& audit) {
    manuscript::Source src = manuscript::prepare(text, file, format);
    manuscript::inherit_scenario(src, options.inherited_scenario);
    const auto marks = manuscript::find_marks(src);
    manuscript::Quantities q(src, options.scenario);
    const auto numbers = manuscript::bind_numbers(src, marks, q, audit);
    ProposeResult r;
    std::size_t from = 0;
    const std::size_t bom = text.size() - src.text.size();  // a BOM is kept as it was
    r.text.assign(text.substr(0, bom));
    for (const auto& n : numbers) {
        const AuditFinding& f = n.finding;
        if (f.verdict == AuditVerdict::NotAClaim) continue;
        const std::string at = fmt::format("{}:{}:{}: ", file, f.line, f.column);
        const bool bound =
            (f.verdict == AuditVerdict::Verified || f.verdict == AuditVerdict::Wrong) && !f.bound.empty();
        if (!bound || !n.markable || n.begin < from) {
            std::string why =
                !bound ? fmt::format("{} ({})", audit_verdict_name(f.verdict), f.reason)
                       : "bound to " + f.bound[0].pointer + ", but it is one statement of a formula that holds several";
            r.listing.push_back(escape_controls(fmt::format("{}left unmarked: {}: {}", at, f.text, why)));
            continue;
        }
        const std::string written = src.text.substr(n.begin, n.end - n.begin);
        const std::string& pointer = f.bound[0].pointer;
        r.text.append(src.text, from, n.begin - from);
        if (format == ManuscriptFormat::Latex) {
            r.text += fmt::format("\\exact{{{}}}{{{}}}", pointer, written);
        } else {
            r.text += fmt::format("[{}]{{.exact ref=\"{}\"}}", written, pointer);
        }
        from = n.end;
        ++r.marked;
        r.listing.push_back(escape_controls(fmt::format(
            "{}marked {} as {} ({}){}{}", at, f.text, pointer, f.bound[0].description,
            f.reason.empty() ? "" : fmt::format("; cues: {}", f.reason),
            f.verdict == AuditVerdict::Wrong ? fmt::format("; WRONG: the quantity is {}", f.bound[0].value) : "")));
    }
    r.text.append(src.text, from, std::string::npos);
    return r;
}

}  // namespace exactattn
