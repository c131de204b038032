// SPDX-License-Identifier: MIT
// exactattn oracle (private): the double stage's two loops over every key of a row, written so
// that they vectorise (keys or columns in the inner loop) and dispatched at run time to an
// AVX2/FMA build where the processor has one (docs/oracle.md, "Speed and memory"). Each does,
// per key or column, exactly the operations of DoubleArith::dot2 and DoubleArith::add_mul in
// the same order, so the enclosures are the same, bit for bit, on either path: only the order
// in which independent keys and columns are visited changes.
#pragma once

#include <cstdint>

namespace exactattn::oracle::detail {

/// Dot2 of the query q (d values) with every key, the keys transposed (kt[x·nk + j] = k_jx):
/// per key j its unrounded pair s_j + c_j and Σ_x |q_x k_jx|, as DoubleArith::dot2.
void dot2_keys(const double* q, const double* kt, std::int64_t nk, std::int64_t d, double* s, double* c, double* abs);

/// Σ_j E_j v_jc over the visible keys for every column c at once, E_j ∈ [e_lo_j, e_hi_j], into
/// Dot2 accumulators held column by column (s, c, abs, rad), as DoubleArith::add_mul; with
/// abs_hi (distinct from the others), also Σ_j E_j^hi |v_jc| (the bounds' A_c) in the same pass.
void accumulate_numerators(const double* e_lo, const double* e_hi, const std::uint8_t* keep, const double* v,
                           std::int64_t nk, std::int64_t dv, double* s, double* c, double* abs, double* rad,
                           double* abs_hi = nullptr);

/// The running bound's sums of a row (oracle.cpp, running_sums), every column at once: with
/// wd = w_j·max(|v_jc − olo_c|, |v_jc − ohi_c|), s1 += wd·a_j, s2 += wd, s3 += wd·g_j, v1 += |v_jc|;
/// and the temperature's direction gs += ws_j·(v_jc − omid_c) (ws_j = w_j s_j from midpoints).
void running_sums_row(const double* w, const double* a, const double* g, const double* ws, const std::uint8_t* keep,
                      const double* v, std::int64_t nk, std::int64_t dv, const double* olo, const double* ohi,
                      const double* omid, double* s1, double* s2, double* s3, double* v1, double* gs);

/// The scores of a row from dot2_keys' pairs, every key at once: per key j the enclosure
/// [lo_j, hi_j] of c·(s_j + c_j) and abs_up_j ≥ Σ_x |q_x k_jx|, as DoubleArith::dot_of (n = d)
/// then DoubleArith::mul by the scale [c_lo, c_hi].
void scores_keys(const double* s, const double* c, const double* abs, std::int64_t nk, std::int64_t d, double c_lo,
                 double c_hi, double* lo, double* hi, double* abs_up);

/// The exponentials of a row, every key at once: per key j the enclosure [e_lo_j, e_hi_j] of
/// b^(s_j − m) for s_j ∈ [lo_j, hi_j] (b = 2 when base2, else e), as DoubleArith::sub then
/// DoubleArith::exp.
void exp_keys(const double* lo, const double* hi, std::int64_t nk, double m, bool base2, double* e_lo, double* e_hi);

}  // namespace exactattn::oracle::detail
