// SPDX-License-Identifier: MIT
// exactattn oracle, the backward's reports (backward_report.cpp, oracle_grad_batch.cpp): the number
// forms and the printing charge they share.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "exactattn/oracle_grad.hpp"

namespace exactattn::oracle::detail {

/// A value as the gradients' text shows it: 9 digits and the exact hex (`0.333333343 (0x1.555556p-2)`),
/// or nan, inf, -inf.
std::string number(double x);
/// A JSON number, or the strings "nan", "inf", "-inf".
nlohmann::json json_number(double x);
/// A field as the JSON reports give it: `shape`, `values`, `lo`, `hi`, `kind` (exact | certified).
nlohmann::ordered_json field_json(const GradField& f);
/// The claim the gradients were judged under, as the JSON reports name it (`claim`): algorithm,
/// accumulate, storage, delta_from, bound, and the 8-bit casts of P and dS when it makes them.
template <class Json>
Json claim_json(const GradSpec& s, FloatFormat output) {
    Json c = {{"algorithm", grad_algorithm_name(s.algorithm)},
              {"accumulate", info(s.accumulate).name},
              {"storage", info(s.storage_format(output)).name},
              {"delta_from", s.delta_from() == DeltaFrom::Out ? "o" : "p"},
              {"bound", "running"}};
    if (s.p_format) {
        c["p_dtype"] = info(*s.p_format).name;
        c["p_descale"] = s.p_descale.per_block ? Json("block") : Json(s.p_descale.value);
    }
    if (s.ds_format) {
        c["ds_dtype"] = info(*s.ds_format).name;
        c["ds_descale"] = s.ds_descale.per_block ? Json("block") : Json(s.ds_descale.value);
    }
    if (s.p_format || s.ds_format) c["fp8_overflow"] = fp8_overflow_name(s.fp8_overflow);
    return c;
}
/// Charges printing `chars` characters to the call's work budget (over_work past it).
void charge_chars(double chars);
/// Whether a batch field is laid out as the caller's tensors (dq, dk, dv, out), not (B, H, …).
inline bool in_caller_layout(const std::string& name) {
    return name == "dq" || name == "dk" || name == "dv" || name == "out";
}

}  // namespace exactattn::oracle::detail
