// SPDX-License-Identifier: MIT
// exactattn oracle (private): the double stage's row loops for any processor, and the dispatch
// to their AVX2/FMA build (kernels_avx2.cpp) where the processor has AVX2 and FMA.
#include "kernels.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "exp_double.hpp"

namespace exactattn::oracle::detail {

// kernels_body.hpp's 32-byte vectors are two SSE2 registers here; GCC notes that passing such a
// vector by value would differ from the AVX ABI, which matters nowhere: they never leave this file
// (GCC reports it at the end of the file, so the whole file ignores it).
#pragma GCC diagnostic ignored "-Wpsabi"
namespace portable {
#include "kernels_body.hpp"
}  // namespace portable

#if defined(EXACTATTN_ORACLE_AVX2)
namespace avx2 {
void dot2_keys(const double* q, const double* kt, std::int64_t nk, std::int64_t d, double* s, double* c, double* abs);
void accumulate_numerators(const double* e_lo, const double* e_hi, const std::uint8_t* keep, const double* v,
                           std::int64_t nk, std::int64_t dv, double* s, double* c, double* abs, double* rad,
                           double* abs_hi);
void running_sums_row(const double* w, const double* a, const double* g, const double* ws, const std::uint8_t* keep,
                      const double* v, std::int64_t nk, std::int64_t dv, const double* olo, const double* ohi,
                      const double* omid, double* s1, double* s2, double* s3, double* v1, double* gs);
void scores_keys(const double* s, const double* c, const double* abs, std::int64_t nk, std::int64_t d, double c_lo,
                 double c_hi, double* lo, double* hi, double* abs_up);
void exp_keys(const double* lo, const double* hi, std::int64_t nk, double m, bool base2, double* e_lo, double* e_hi);
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
                           std::int64_t nk, std::int64_t dv, double* s, double* c, double* abs, double* rad,
                           double* abs_hi) {
#if defined(EXACTATTN_ORACLE_AVX2)
    if (has_avx2()) return avx2::accumulate_numerators(e_lo, e_hi, keep, v, nk, dv, s, c, abs, rad, abs_hi);
#endif
    portable::accumulate_numerators_body(e_lo, e_hi, keep, v, nk, dv, s, c, abs, rad, abs_hi);
}

void running_sums_row(const double* w, const double* a, const double* g, const double* ws, const std::uint8_t* keep,
                      const double* v, std::int64_t nk, std::int64_t dv, const double* olo, const double* ohi,
                      const double* omid, double* s1, double* s2, double* s3, double* v1, double* gs) {
#if defined(EXACTATTN_ORACLE_AVX2)
    if (has_avx2()) return avx2::running_sums_row(w, a, g, ws, keep, v, nk, dv, olo, ohi, omid, s1, s2, s3, v1, gs);
#endif
    portable::running_sums_row_body(w, a, g, ws, keep, v, nk, dv, olo, ohi, omid, s1, s2, s3, v1, gs);
}

void scores_keys(const double* s, const double* c, const double* abs, std::int64_t nk, std::int64_t d, double c_lo,
                 double c_hi, double* lo, double* hi, double* abs_up) {
#if defined(EXACTATTN_ORACLE_AVX2)
    if (has_avx2()) return avx2::scores_keys(s, c, abs, nk, d, c_lo, c_hi, lo, hi, abs_up);
#endif
    portable::scores_keys_body(s, c, abs, nk, d, c_lo, c_hi, lo, hi, abs_up);
}

void exp_keys(const double* lo, const double* hi, std::int64_t nk, double m, bool base2, double* e_lo, double* e_hi) {
#if defined(EXACTATTN_ORACLE_AVX2)
    if (has_avx2()) return avx2::exp_keys(lo, hi, nk, m, base2, e_lo, e_hi);
#endif
    portable::exp_keys_body(lo, hi, nk, m, base2, e_lo, e_hi);
}

}  // namespace exactattn::oracle::detail
