// SPDX-License-Identifier: MIT
// exactattn: the values of exercise variants as their documents write them (variant_values.hpp).
#include "tools/variant_values.hpp"

#include <optional>
#include <string>
#include <vector>

#include "exactattn/print.hpp"
#include "report/report_json.hpp"
#include "scenario/pointer.hpp"

namespace exactattn::detail {

namespace {

/// Every scalar of a report quantity, row by row (null where the report has none).
void flatten_values(const Json& j, std::vector<std::optional<Value>>& out, const Location& where) {
    if (j.is_array()) {
        for (const auto& x : j) flatten_values(x, out, where);
    } else if (j.is_null()) {
        out.emplace_back();
    } else {
        out.emplace_back(detail::json_value(j, where));
    }
}

}  // namespace

/// A quantity's exact values in canonical ascii, shaped as in the report: equal strings are
/// equal quantities.
std::string canonical(const Json& j, const Location& where) {
    if (j.is_array()) {
        std::string s = "[";
        for (std::size_t i = 0; i < j.size(); ++i) s += (i ? ", " : "") + canonical(j[i], where);
        return s + "]";
    }
    if (j.is_null()) return "—";
    return to_ascii(detail::json_value(j, where));
}

/// A report quantity as a formula: a value, a row, or rows (states).
Formula quantity_formula(const Json& j, const Location& where) {
    Formula f;
    if (!j.is_array()) {
        std::vector<std::optional<Value>> v;
        flatten_values(j, v, where);
        return v.front() ? Formula(*v.front()) : f.column(v);
    }
    if (!j.empty() && j.front().is_array()) {
        f.op(Formula::Op::Open);
        for (std::size_t i = 0; i < j.size(); ++i) {
            if (i > 0) f.op(Formula::Op::Comma);
            std::vector<std::optional<Value>> row;
            flatten_values(j[i], row, where);
            f.column(row);
        }
        return f.op(Formula::Op::Close);
    }
    std::vector<std::optional<Value>> row;
    flatten_values(j, row, where);
    return f.column(row);
}

/// A terminating decimal (the loader checks the tolerance is one) written exactly.
std::string exact_decimal(const Value& v) {
    int places = 0;
    mpq_class q = v.rational();
    while (q.get_den() != 1) {
        q *= 10;
        ++places;
    }
    return to_fixed(v, places);
}

const Json& report_at(const Json& doc, const std::string& pointer, const Location& where) {
    return detail::resolve_pointer(doc, pointer, where);
}

}  // namespace exactattn::detail
