// SPDX-License-Identifier: MIT
// exactattn: `verify` — exact comparison of expected values with the report.
#include "exactattn/verify.hpp"

#include <fmt/format.h>

#include "exactattn/error.hpp"
#include "exactattn/parse.hpp"
#include "report/report_json.hpp"

namespace exactattn {

namespace {

using detail::Json;

// Exact structural equality; throws for an expected scalar that does not parse.
bool same(const Json& expected, const Json& computed, const Location& where) {
    if (expected.is_array() || computed.is_array()) {
        if (!expected.is_array() || !computed.is_array() || expected.size() != computed.size()) return false;
        for (std::size_t i = 0; i < expected.size(); ++i) {
            if (!same(expected[i], computed[i], where)) return false;
        }
        return true;
    }
    if (expected.is_null() || computed.is_null()) return expected.is_null() && computed.is_null();
    if (expected.is_object() || computed.is_object()) return expected == computed;
    if (expected.is_boolean() || computed.is_boolean()) return expected == computed;
    // Scalars: exact values when the computed one is a value, else text.
    Value c;
    try {
        c = detail::json_value(computed, where);
    } catch (const Error&) {
        return expected == computed;
    }
    const Value e = detail::json_value(expected, where);
    return e == c;
}

}  // namespace

std::string report_value_at(const Report& report, const std::string& pointer) {
    detail::ReportJson doc(report);
    Location where;
    where.file = report.scenario.file;
    where.pointer = pointer;
    return doc.at(pointer, where).dump();
}

VerifyResult verify_report(const Report& report) {
    // Only the arrays the expect pointers reach are built (a 10^5-position read's tree holds
    // millions of strings).
    detail::ReportJson doc(report);
    VerifyResult r;
    r.file = report.scenario.file;
    for (const auto& [pointer, expected_text] : report.scenario.expect) {
        Location where;
        where.file = report.scenario.file;
        where.pointer = "/expect";
        const Json expected = Json::parse(expected_text);
        const Json& computed = doc.at(pointer, where);
        Location entry = where;  // names the entry whose expected value does not parse
        entry.context = fmt::format("entry {},", pointer);
        const bool ok = same(expected, computed, entry);
        r.entries.push_back(Checked{pointer, expected.dump(), computed.dump(), ok});
        if (ok) {
            ++r.passed;
        } else {
            r.failures.push_back(Mismatch{pointer, expected.dump(), computed.dump()});
        }
    }
    return r;
}

}  // namespace exactattn
