// SPDX-License-Identifier: MIT
// exactattn eval: the exact calculator.
#include <nlohmann/json.hpp>

#include <numeric>
#include <ostream>

#include "commands.hpp"
#include "exactattn/error.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"

namespace exactattn::cli {

namespace {

void print(const Value& v, const EvalOptions& o, std::ostream& out) {
    const DisplayOptions display{o.display, 0};
    if (o.format == "ascii") {
        out << to_display(v, Notation::Ascii, display) << '\n';
    } else if (o.format == "unicode") {
        out << to_display(v, Notation::Unicode, display) << '\n';
    } else if (o.format == "latex") {
        out << to_display(v, Notation::Latex, display) << '\n';
    } else if (o.format == "mathml") {
        out << to_display(v, Notation::MathML, display) << '\n';
    } else if (o.format == "decimal") {
        out << to_significant(v, o.digits) << '\n';
    } else {
        nlohmann::ordered_json j;
        j["input"] = o.expr;
        j["ascii"] = to_ascii(v);
        j["unicode"] = to_unicode(v);
        j["latex"] = to_latex(v);
        j["decimal"] = to_significant(v, o.digits);
        j["double"] = to_double(v);
        j["degree_in_a"] = v.degree();
        int m = 1;  // the smallest field Q(2^(1/m)) holding every coefficient
        for (const auto& f : v.terms()) m = std::lcm(m, f.root());
        j["field"] = m == 1 ? std::string("Q") : "Q(2^(1/" + std::to_string(m) + "))";
        out << j.dump(2) << '\n';
    }
}

}  // namespace

int cmd_eval(const EvalOptions& o, std::ostream& out) {
    const Value v = parse_value(o.expr);  // its errors are placed at their column already
    // A decimal rounding past max_precision: the place is the option that asked for it.
    placed(
        Location::named("--format " + o.format), [&] { print(v, o, out); }, KeepPlace::Any);
    return 0;
}

}  // namespace exactattn::cli
