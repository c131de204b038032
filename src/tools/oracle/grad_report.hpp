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
/// Charges printing `chars` characters to the call's work budget (over_work past it).
void charge_chars(double chars);

}  // namespace exactattn::oracle::detail
