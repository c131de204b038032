// SPDX-License-Identifier: MIT
// exactattn oracle (private): the double stage's row loops for any processor, and the dispatch
// to their AVX2/FMA build (kernels_avx2.cpp) where the processor has AVX2 and FMA.
#include "kernels.hpp"

#include <cmath>
#include <cstdint>

namespace exactattn::oracle::detail {

namespace portable {
#include "kernels_body.hpp"
}  // namespace portable

#if defined(EXACTATTN_ORACLE_AVX2)
namespace avx2 {
void dot2_keys(const double* q, const double* kt, std::int64_t nk, std::int64_t d, double* s, double* c, double* abs);
void accumulate_numerators(const double* e_lo, const double* e_hi, const std::uint8_t* keep, const double* v,
                           std::int64_t nk, std::int64_t dv, double* s, double* c, double* abs, double* rad);
void abs_products(const double* e_hi, const std::uint8_t* keep, const double* v, std::int64_t nk, std::int64_t dv,
                  double* acc);
void running_sums_row(const double* w, const double* a, const double* g, const double* ws, const std::uint8_t* keep,
                      const double* v, std::int64_t nk, std::int64_t dv, const double* olo, const double* ohi,
                      const double* omid, double* s1, double* s2, double* s3, double* v1, double* gs);
}  // namespace avx2

namespace {
bool has_avx2() {
    static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return yes;
}
}  // namespace
#endif

void dot2_keys(const double* q, const double* kt, std::int64_t nk, std::int64_t d, double* s, double* c, double* abs) {
#if defined(EXACTATTN_ORACLE_AVX2)
    if (has_avx2()) return avx2::dot2_keys(q, kt, nk, d, s, c, abs);
#endif
    portable::dot2_keys_body(q, kt, nk, d, s, c, abs);
}

void accumulate_numerators(const double* e_lo, const double* e_hi, const std::uint8_t* keep, const double* v,
                           std::int64_t nk, std::int64_t dv, double* s, double* c, double* abs, double* rad) {
#if defined(EXACTATTN_ORACLE_AVX2)
    if (has_avx2()) return avx2::accumulate_numerators(e_lo, e_hi, keep, v, nk, dv, s, c, abs, rad);
#endif
    portable::accumulate_numerators_body(e_lo, e_hi, keep, v, nk, dv, s, c, abs, rad);
}

void abs_products(const double* e_hi, const std::uint8_t* keep, const double* v, std::int64_t nk, std::int64_t dv,
                  double* acc) {
#if defined(EXACTATTN_ORACLE_AVX2)
    if (has_avx2()) return avx2::abs_products(e_hi, keep, v, nk, dv, acc);
#endif
    portable::abs_products_body(e_hi, keep, v, nk, dv, acc);
}

void running_sums_row(const double* w, const double* a, const double* g, const double* ws, const std::uint8_t* keep,
                      const double* v, std::int64_t nk, std::int64_t dv, const double* olo, const double* ohi,
                      const double* omid, double* s1, double* s2, double* s3, double* v1, double* gs) {
#if defined(EXACTATTN_ORACLE_AVX2)
    if (has_avx2()) return avx2::running_sums_row(w, a, g, ws, keep, v, nk, dv, olo, ohi, omid, s1, s2, s3, v1, gs);
#endif
    portable::running_sums_row_body(w, a, g, ws, keep, v, nk, dv, olo, ohi, omid, s1, s2, s3, v1, gs);
}

}  // namespace exactattn::oracle::detail
