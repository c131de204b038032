// SPDX-License-Identifier: MIT
// exactattn oracle (private): the bodies of kernels.hpp, compiled twice (kernels.cpp for any
// processor, kernels_avx2.cpp with AVX2 and FMA), each time inside its own namespace. Both
// builds use -ffp-contract=off: a contracted a·b + c would break TwoSum and TwoProduct.
// NOLINTBEGIN(llvm-header-guard): included once per namespace on purpose.
// The including file includes <cmath> and <cstdint> first, outside its namespace.

// One step of Dot2: s + c += a·b, the product's error by fma and the sum's by TwoSum, exactly.
inline void dot2_step(double& s, double& c, double a, double b, double p) {
    double cx = c + std::fma(a, b, -p);
    const double t = s + p, z = t - s;
    cx += (s - (t - z)) + (p - z);
    s = t;
    c = cx;
}

inline void dot2_keys_body(const double* q, const double* kt, std::int64_t nk, std::int64_t d, double* s, double* c,
                           double* abs) {
    for (std::int64_t j = 0; j < nk; ++j) s[j] = c[j] = abs[j] = 0;
    for (std::int64_t x = 0; x < d; ++x) {
        const double qx = q[x];
        const double* k = kt + x * nk;
        for (std::int64_t j = 0; j < nk; ++j) {
            const double p = qx * k[j];
            dot2_step(s[j], c[j], qx, k[j], p);
            abs[j] += std::fabs(p);
        }
    }
}

inline void accumulate_numerators_body(const double* e_lo, const double* e_hi, const std::uint8_t* keep,
                                       const double* v, std::int64_t nk, std::int64_t dv, double* s, double* c,
                                       double* abs, double* rad) {
    for (std::int64_t j = 0; j < nk; ++j) {
        if (!keep[j]) continue;
        const double m = e_lo[j] + (e_hi[j] - e_lo[j]) / 2, w = 2 * (e_hi[j] - e_lo[j]);
        const double* vj = v + j * dv;
        for (std::int64_t x = 0; x < dv; ++x) {
            const double p = m * vj[x];
            dot2_step(s[x], c[x], m, vj[x], p);
            abs[x] += std::fabs(p);
            rad[x] += w * std::fabs(vj[x]);
        }
    }
}
inline void abs_products_body(const double* e_hi, const std::uint8_t* keep, const double* v, std::int64_t nk,
                              std::int64_t dv, double* acc) {
    for (std::int64_t j = 0; j < nk; ++j) {
        if (!keep[j]) continue;
        const double e = e_hi[j];
        const double* vj = v + j * dv;
        for (std::int64_t x = 0; x < dv; ++x) acc[x] += e * std::fabs(vj[x]);
    }
}

// The five sums are distinct arrays, none of them an input (running_sums allocates each):
// `__restrict` says so to the compiler, which otherwise cannot vectorise the loop over columns
// (it would need more run-time alias checks than it allows, and stayed scalar).
inline void running_sums_row_body(const double* w, const double* a, const double* g, const double* ws,
                                  const std::uint8_t* keep, const double* v, std::int64_t nk, std::int64_t dv,
                                  const double* olo, const double* ohi, const double* omid, double* __restrict s1,
                                  double* __restrict s2, double* __restrict s3, double* __restrict v1,
                                  double* __restrict gs) {
    for (std::int64_t j = 0; j < nk; ++j) {
        if (!keep[j]) continue;
        const double* vj = v + j * dv;
        const double wj = w[j], aj = a[j], gj = g[j], wsj = ws[j];
        for (std::int64_t x = 0; x < dv; ++x) {
            const double dlo = std::fabs(vj[x] - olo[x]), dhi = std::fabs(vj[x] - ohi[x]);
            const double wd = wj * (dlo < dhi ? dhi : dlo);  // std::max(dlo, dhi)
            s1[x] += wd * aj;
            s2[x] += wd;
            s3[x] += wd * gj;
            v1[x] += std::fabs(vj[x]);
            gs[x] += wsj * (vj[x] - omid[x]);
        }
    }
}
// NOLINTEND(llvm-header-guard)
