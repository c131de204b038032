// SPDX-License-Identifier: MIT
// exactattn oracle (private): the double stage's row loops built with AVX2 and FMA (this file
// alone: -mavx2 -mfma -ffp-contract=off), called only where the processor has both.
#include <cmath>
#include <cstdint>

namespace exactattn::oracle::detail::avx2 {

#include "kernels_body.hpp"

void dot2_keys(const double* q, const double* kt, std::int64_t nk, std::int64_t d, double* s, double* c, double* abs) {
    dot2_keys_body(q, kt, nk, d, s, c, abs);
}

void accumulate_numerators(const double* e_lo, const double* e_hi, const std::uint8_t* keep, const double* v,
                           std::int64_t nk, std::int64_t dv, double* s, double* c, double* abs, double* rad) {
    accumulate_numerators_body(e_lo, e_hi, keep, v, nk, dv, s, c, abs, rad);
}

void abs_products(const double* e_hi, const std::uint8_t* keep, const double* v, std::int64_t nk, std::int64_t dv,
                  double* acc) {
    abs_products_body(e_hi, keep, v, nk, dv, acc);
}

void running_sums_row(const double* w, const double* a, const double* g, const double* ws, const std::uint8_t* keep,
                      const double* v, std::int64_t nk, std::int64_t dv, const double* olo, const double* ohi,
                      const double* omid, double* s1, double* s2, double* s3, double* v1, double* gs) {
    running_sums_row_body(w, a, g, ws, keep, v, nk, dv, olo, ohi, omid, s1, s2, s3, v1, gs);
}

}  // namespace exactattn::oracle::detail::avx2
