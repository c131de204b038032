// SPDX-License-Identifier: MIT
// exactattn: cross-check of exact results against an independent double-precision path.
#pragma once

#include <string>
#include <vector>

#include "exactattn/report.hpp"

namespace exactattn {

/// One compared quantity.
struct CrossRow {
    std::string quantity;     ///< e.g. "/reads/example-14.1/weights/0"
    std::string exact;        ///< ascii form of the exact value
    double rounded = 0;       ///< the exact value correctly rounded to double
    double computed = 0;      ///< the independent double path's result
    double ulp_error = 0;     ///< (computed − exact) / ulp(rounded), signed, fractional
    double rel_error = 0;     ///< |computed − exact| / |exact| (0 when exact is 0 and computed is 0)
    double abs_error = 0;     ///< |computed − exact|
    bool dyadic = false;      ///< the exact value is a dyadic rational (exactly representable)
};

/// Per read (and intervention row): what a naive softmax without max subtraction gives.
struct NaiveRow {
    std::string read;         ///< pointer of the read or row
    double max_score = 0;     ///< the largest score in double
    bool overflows = false;   ///< exp(score) overflowed to infinity (weights NaN)
    double max_ulp_error = 0; ///< of the naive weights, when finite
};

struct CrosscheckResult {
    std::string file;
    double tolerance_ulps = 0;
    std::string rationale;
    std::vector<CrossRow> rows;
    std::vector<NaiveRow> naive;
    double max_abs_ulp = 0;
    double mean_abs_ulp = 0;
    std::size_t worst = 0;          ///< index of the worst row
    std::size_t dyadic_count = 0;
    std::size_t dyadic_exact = 0;   ///< dyadic rows with 0 ulp error
    [[nodiscard]] bool passed() const {
        return max_abs_ulp <= tolerance_ulps && dyadic_exact == dyadic_count;
    }
};

/// Recomputes every source, read, intervention row and readout of the report's scenario in
/// double precision, independently (a = log(2.0), max-subtracted softmax, inputs converted
/// term by term), and compares each quantity with the exact value evaluated at high precision
/// (not first rounded to double).
CrosscheckResult crosscheck(const Report& report);

/// Markdown report: a table per file, the summary, the naive-softmax table.
std::string crosscheck_markdown(const std::vector<CrosscheckResult>& results);
/// The same as JSON.
std::string crosscheck_json(const std::vector<CrosscheckResult>& results);

}  // namespace exactattn
