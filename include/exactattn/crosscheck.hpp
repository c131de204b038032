// SPDX-License-Identifier: MIT
// exactattn: cross-check of exact results against an independent double-precision path.
// The contract (what is compared, the error bound per quantity and its derivation, the naive
// softmax's cases, tolerance semantics, exit codes) is docs/crosscheck.md.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <gmpxx.h>

#include "exactattn/document.hpp"
#include "exactattn/report.hpp"

namespace exactattn {

/// One compared quantity.
struct CrossRow {
    std::string quantity;   ///< e.g. "/reads/example-14.1/weights/0"
    std::string exact;      ///< ascii form of the exact value
    double rounded = 0;     ///< the exact value correctly rounded to double
    double computed = 0;    ///< the independent double path's result
    double ulp_error = 0;   ///< (computed − exact) / ulp(rounded), signed, fractional
    double rel_error = 0;   ///< |computed − exact| / |exact| (0 when exact is 0 and computed is 0)
    double abs_error = 0;   ///< |computed − exact|
    double bound = 0;       ///< a-priori bound on |computed − exact| (docs/crosscheck.md); inf: unbounded
    double bound_ulps = 0;  ///< bound / ulp(rounded)
    bool dyadic = false;    ///< the exact value is a double (a dyadic rational in range)
    bool passed = true;     ///< abs_error ≤ bound, and |ulp_error| ≤ the declared tolerance if any
};

/// What a naive softmax without max subtraction produced for one read.
enum class NaiveOutcome {
    Finite,          ///< every weight finite (some exponentials may have underflowed to 0)
    ExpOverflow,     ///< an exponential overflowed to inf: its weight is inf/inf = NaN, the others 0
    SumOverflow,     ///< every exponential finite, their sum inf: every weight finite/inf = 0
    Underflow,       ///< every exponential underflowed to 0: every weight 0/0 = NaN
    ScoreNotFinite,  ///< a score itself is inf or NaN in double (an input past the double range)
};
const char* naive_outcome_name(NaiveOutcome o);

/// Per read (and intervention row): what a naive softmax without max subtraction gives.
struct NaiveRow {
    std::string read;      ///< pointer of the read or row
    double max_score = 0;  ///< the largest score in double
    NaiveOutcome outcome = NaiveOutcome::Finite;
    std::size_t underflowed = 0;  ///< included exponentials that are 0 in double
    double sum = 0;               ///< the naive denominator Σ exp(score)
    std::vector<double> weights;  ///< the naive weights (0 where removed), NaN where 0/0 or inf/inf
    double max_ulp_error = 0;     ///< of the naive weights; NaN when a weight is not finite
};

/// A decoder step where the double path's argmax is not the exact choice: an exact tie that
/// rounding broke, or a near-tie that rounding reversed (docs/crosscheck.md, "Rollouts").
struct RolloutSplit {
    std::string rollout;
    std::string regime;                     ///< "teacher-forcing" or "generation"
    std::size_t step = 0;                   ///< t, from 1
    std::vector<std::string> exact_argmax;  ///< every token with the exact largest score
    std::string exact_choice;               ///< "" when the tie rule refused the tie
    std::string double_choice;
    double double_margin = 0;                ///< the double score of double's choice minus that of the exact choice
    std::vector<std::string> exact_tokens;   ///< the exact regime's choices from this step on
    std::vector<std::string> double_tokens;  ///< the double path's choices from this step on
    [[nodiscard]] bool exact_tie() const { return exact_argmax.size() > 1; }
};

struct CrosscheckResult {
    std::string file;
    std::optional<double> tolerance_ulps;  ///< declared by the author; tightens the bound only
    std::string rationale;
    std::vector<CrossRow> rows;
    std::vector<NaiveRow> naive;
    /// Rollout steps where the double argmax differs from the exact one (information: a
    /// discrete choice, not a quantity with an error bound, so they do not fail the check).
    std::vector<RolloutSplit> splits;
    double max_abs_ulp = 0;
    double mean_abs_ulp = 0;
    std::size_t worst = 0;   ///< index of the row with the largest |ULP| error
    double worst_ratio = 0;  ///< largest abs_error / bound over rows with a finite bound > 0
    std::size_t worst_ratio_row = 0;
    std::size_t failed = 0;        ///< rows over their bound or the declared tolerance
    std::size_t unbounded = 0;     ///< rows whose bound is inf (the double path overflowed): unchecked
    std::size_t dyadic_count = 0;  ///< exact values that are doubles (information only)
    std::size_t dyadic_exact = 0;  ///< of those, computed exactly by the double path
    /// Declarations the double path does not recompute (attention layers, as /layers/<name>):
    /// named in the report, so that a PASS says what it covers.
    std::vector<std::string> not_compared;
    [[nodiscard]] bool passed() const { return failed == 0; }
    /// No row at all: the scenario declares nothing the double path recomputes (only layers,
    /// only cost cases). Not a failure, but not a PASS either: the report says NOTHING COMPARED.
    [[nodiscard]] bool compared_nothing() const { return rows.empty(); }
};

/// Test hook: a planted error. `perturb(quantity, computed)` replaces the double path's result
/// for a quantity before it is compared (the identity when empty).
struct CrosscheckOptions {
    std::function<double(const std::string& quantity, double computed)> perturb;
};

/// Recomputes every source, read, intervention row and readout of the report's scenario in
/// double precision, independently (a = log(2.0), max-subtracted softmax, inputs converted
/// term by term), bounds each result's error a priori from the double operations performed,
/// and compares each quantity with the exact value evaluated at high precision (not first
/// rounded to double).
CrosscheckResult crosscheck(const Report& report, const CrosscheckOptions& options = {});

/// The exact value of a finite double. DomainError for inf and NaN: a non-finite double has no
/// exact value, and every double → exact conversion of the cross-check goes through here.
mpq_class exact_of_double(double x);

/// Markdown report: a table per file, the summary, the naive-softmax table.
std::string crosscheck_markdown(const std::vector<CrosscheckResult>& results);
/// The cross-check as a document (per file: the comparison table, the summary, the naive
/// softmax table; then the pass/fail count), and in any format (JSON: crosscheck_json).
Document crosscheck_document(const std::vector<CrosscheckResult>& results);
std::string render_crosscheck(const std::vector<CrosscheckResult>& results, Format format,
                              const RenderOptions& options = {});
/// The same as JSON.
std::string crosscheck_json(const std::vector<CrosscheckResult>& results);

}  // namespace exactattn
