// SPDX-License-Identifier: MIT
// exactattn oracle (private): the double stage's row loops built with AVX2 and FMA (this file
// alone: -mavx2 -mfma -ffp-contract=off), called only where the processor has both.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "exp_double.hpp"

namespace exactattn::oracle::detail::avx2 {

#include "kernels_body.hpp"

void dot2_keys(const double* q, const double* kt, std::int64_t nk, std::int64_t d, double* s, double* c, double* abs) {
    dot2_keys_body(q, kt, nk, d, s, c, abs);
}

void accumulate_numerators(const double* e_lo, const double* e_hi, const std::uint8_t* keep, const double* v,
                           std::int64_t nk, std::int64_t dv, double* s, double* c, double* abs, double* rad,
                           double* abs_hi) {
    accumulate_numerators_body(e_lo, e_hi, keep, v, nk, dv, s, c, abs, rad, abs_hi);
}

void running_sums_row(const double* w, const double* a, const double* g, const double* ws, const std::uint8_t* keep,
                      const double* v, std::int64_t nk, std::int64_t dv, const double* olo, const double* ohi,
                      const double* omid, double* s1, double* s2, double* s3, double* v1, double* gs) {
    running_sums_row_body(w, a, g, ws, keep, v, nk, dv, olo, ohi, omid, s1, s2, s3, v1, gs);
}

void scores_keys(const double* s, const double* c, const double* abs, std::int64_t nk, std::int64_t d, double c_lo,
                 double c_hi, double* lo, double* hi, double* abs_up) {
    scores_keys_body(s, c, abs, nk, d, c_lo, c_hi, lo, hi, abs_up);
}

void exp_keys(const double* lo, const double* hi, std::int64_t nk, double m, bool base2, double* e_lo, double* e_hi) {
    exp_keys_body(lo, hi, nk, m, base2, e_lo, e_hi);
}

}  // namespace exactattn::oracle::detail::avx2
