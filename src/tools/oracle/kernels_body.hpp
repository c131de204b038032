// SPDX-License-Identifier: MIT
// exactattn oracle (private): the bodies of kernels.hpp, compiled twice (kernels.cpp for any
// processor, kernels_avx2.cpp with AVX2 and FMA), each time inside its own namespace. Both
// builds use -ffp-contract=off: a contracted a·b + c would break TwoSum and TwoProduct.
// NOLINTBEGIN(llvm-header-guard): included once per namespace on purpose.
// The including file includes <cmath>, <cstdint>, <cstring>, <limits> and exp_double.hpp first,
// outside its namespace.

// Four keys at a time in GCC's vector extension (an AVX2 register in kernels_avx2.cpp, two SSE2
// registers in kernels.cpp): every operation lane by lane as the scalar one, IEEE double
// arithmetic rounded to nearest, no contraction; the branches of the scalar code become
// selections (all lanes compute every path; a lane keeps the path its scalar code would take).
using V = double __attribute__((vector_size(32)));
using VU = std::uint64_t __attribute__((vector_size(32)));
using VM = std::int64_t __attribute__((vector_size(32)));  // a comparison's lanes: −1 true, 0 false
inline V splat(double x) { return V{x, x, x, x}; }
inline V vsel(VM m, V a, V b) { return m ? a : b; }
inline V vabs(V x) { return reinterpret_cast<V>(reinterpret_cast<VU>(x) & (~std::uint64_t{0} >> 1)); }
// arith.hpp's up (nextafter toward +inf), the same bits for every double: x > 0 steps its pattern
// up, x < 0 (−inf and −0 included) down, then ±0 gives the least subnormal (−0's pattern − 1,
// a NaN, is replaced), and NaN and +inf stay. down(x) = −up(−x), as arith.hpp's.
inline V vup(V x) {
    const VU b = reinterpret_cast<VU>(x);
    const V r = reinterpret_cast<V>(x > splat(0) ? b + 1 : b - 1);
    const V z = vsel(x == splat(0), splat(std::numeric_limits<double>::denorm_min()), r);
    return vsel((x != x) | (x == splat(std::numeric_limits<double>::infinity())), x, z);
}
inline V vdown(V x) { return -vup(-x); }
inline V vmin(V a, V b) { return vsel(b < a, b, a); }  // std::min(a, b)'s choice, NaN included
inline V vmax(V a, V b) { return vsel(a < b, b, a); }  // std::max(a, b)'s
inline VM vfinite(V x) { return vabs(x) <= splat(std::numeric_limits<double>::max()); }  // std::isfinite
// An integer-valued x with |x| ≤ 2^51 rounded to the nearest integer, ties to even: x + 1.5·2^52
// lies in [2^52, 2^53), where the doubles are the integers, so the addition rounds x as
// nearbyint does in the default rounding mode, and the subtraction is exact.
inline V vnearest(V x) { return (x + splat(0x1.8p52)) - splat(0x1.8p52); }
// 2^a for an integer-valued a in [−1022, 1023]: a + 2^52 + 1023 is exact, its low 11 bits are
// a + 1023, shifted into the exponent field (the sign bit gets bit 11, which is 0).
inline V vpow2(V a) { return reinterpret_cast<V>(reinterpret_cast<VU>(a + splat(0x1p52 + 1023)) << 52); }
inline V vload(const double* p) {
    V x;
    std::memcpy(&x, p, sizeof x);
    return x;
}
inline void vstore(double* p, V x) { std::memcpy(p, &x, sizeof x); }
// f(j, in, out) for every 4 keys from j, on n_in input and n_out output arrays; the last keys
// through zero-padded copies.
template <int NIn, int NOut, class F>
void by_four(std::int64_t nk, const double* const (&in)[NIn], double* const (&out)[NOut], F f) {
    std::int64_t j = 0;
    V x[NIn], y[NOut];
    for (; j + 4 <= nk; j += 4) {
        for (int a = 0; a < NIn; ++a) x[a] = vload(in[a] + j);
        f(x, y);
        for (int a = 0; a < NOut; ++a) vstore(out[a] + j, y[a]);
    }
    if (j == nk) return;
    double buf[4] = {0, 0, 0, 0};
    for (int a = 0; a < NIn; ++a) {
        for (std::int64_t t = 0; t < 4; ++t) buf[t] = j + t < nk ? in[a][j + t] : 0;
        x[a] = vload(buf);
    }
    f(x, y);
    for (int a = 0; a < NOut; ++a) {
        vstore(buf, y[a]);
        for (std::int64_t t = 0; j + t < nk; ++t) out[a][j + t] = buf[t];
    }
}

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

// With kAbsHi, also abs_hi_c += E_j^hi |v_jc| (the bounds' A_c; once a pass of its own, the same operations in
// the same order) in the same pass over V. The outputs are distinct arrays, none an input.
template <bool kAbsHi>
inline void numerators_body(const double* e_lo, const double* e_hi, const std::uint8_t* keep, const double* v,
                            std::int64_t nk, std::int64_t dv, double* __restrict s, double* __restrict c,
                            double* __restrict abs, double* __restrict rad, double* __restrict abs_hi) {
    for (std::int64_t j = 0; j < nk; ++j) {
        if (!keep[j]) continue;
        const double m = e_lo[j] + (e_hi[j] - e_lo[j]) / 2, w = 2 * (e_hi[j] - e_lo[j]), eh = e_hi[j];
        const double* vj = v + j * dv;
        for (std::int64_t x = 0; x < dv; ++x) {
            const double p = m * vj[x];
            dot2_step(s[x], c[x], m, vj[x], p);
            abs[x] += std::fabs(p);
            rad[x] += w * std::fabs(vj[x]);
            if constexpr (kAbsHi) abs_hi[x] += eh * std::fabs(vj[x]);
        }
    }
}
inline void accumulate_numerators_body(const double* e_lo, const double* e_hi, const std::uint8_t* keep,
                                       const double* v, std::int64_t nk, std::int64_t dv, double* s, double* c,
                                       double* abs, double* rad, double* abs_hi) {
    if (abs_hi != nullptr)
        numerators_body<true>(e_lo, e_hi, keep, v, nk, dv, s, c, abs, rad, abs_hi);
    else
        numerators_body<false>(e_lo, e_hi, keep, v, nk, dv, s, c, abs, rad, nullptr);
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
// The scores of a row from dot2_keys' pairs: per key DoubleArith::dot_of (the Dot2 finish, with
// n = d and no radii, and Σ|q k| rounded up) then DoubleArith::mul by the scale [c_lo, c_hi], the
// same operations in the same order (arith.cpp), so the same enclosures bit for bit.
inline void scores_keys_body(const double* s, const double* c, const double* abs, std::int64_t nk, std::int64_t d,
                             double c_lo, double c_hi, double* lo, double* hi, double* abs_up) {
    const double n = static_cast<double>(d), u = 0x1p-53, g = 2 * n * u / (1 - 2 * n * u), g_abs = n * 0x1p-53;
    const V vu = splat(u), gg = splat(g * g), one_g = splat(1 - g), eta = splat(4 * n * 0x1p-1074);
    const V widen = splat(1 + 0x1p-40), one_ga = splat(1 - g_abs), cl = splat(c_lo), ch = splat(c_hi);
    const VM too_long = splat(n * u) >= splat(0.25);
    const V inf = splat(std::numeric_limits<double>::infinity());
    by_four<3, 3>(nk, {s, c, abs}, {lo, hi, abs_up}, [&](const V* x, V* y) {
        const V mid = x[0] + x[1];
        const V e = (vu * vabs(mid) + (gg * x[2] + splat(0)) / one_g + eta) * widen;  // + the radii, 0
        const VM wide = ~vfinite(mid) | ~vfinite(e) | too_long;
        const V xl = vsel(wide, -inf, vdown(mid - e)), xh = vsel(wide, inf, vup(mid + e));
        y[2] = x[2] / one_ga * widen;
        // DoubleArith::mul: the four products, 0 for 0·inf, their least and greatest in order.
        const V p0 = xl * cl, p1 = xl * ch, p2 = xh * cl, p3 = xh * ch;
        const V q0 = vsel(p0 != p0, splat(0), p0), q1 = vsel(p1 != p1, splat(0), p1);
        const V q2 = vsel(p2 != p2, splat(0), p2), q3 = vsel(p3 != p3, splat(0), p3);
        y[0] = vdown(vmin(vmin(vmin(vmin(p0, q0), q1), q2), q3));
        y[1] = vup(vmax(vmax(vmax(vmax(p0, q0), q1), q2), q3));
    });
}

// The exponentials of a row: per key DoubleArith::sub of the shift m then DoubleArith::exp with
// its exp_double (arith.cpp), the same operations in the same order, so the same enclosures bit
// for bit. Where exp_double's k = nearbyint(·) is an int, here it is the same integer as a double
// (|k| ≤ 1587 on the path taken: exact either way); ldexp(ldexp(p, k/2), k − k/2) becomes
// (p·2^a)·2^(k−a), a = k/2 rounded to nearest: both are p·2^k correctly rounded, since p ∈
// [0.70, 1.42] (|r| ≤ 0.35) makes the first scaling exact and normal (a ≥ −794) and the second a
// single rounding, as ldexp's (correctly rounded, also into the subnormals). Every lane computes
// every path; the branches of DoubleArith::exp are selections at the end.
inline void exp_keys_body(const double* lo, const double* hi, std::int64_t nk, double m, bool base2, double* e_lo,
                          double* e_hi) {
    const V vm = splat(m), top = splat(base2 ? 1023 : 709), zero = splat(0);
    namespace ec = ::exactattn::oracle::detail::exp_double_constants;  // exp_double's, shared
    const V ln2_hi = splat(ec::kLn2Hi), ln2_lo = splat(ec::kLn2Lo);
    const double* kC = ec::kTaylor;
    by_four<2, 2>(nk, {lo, hi}, {e_lo, e_hi}, [&](const V* x, V* y) {
        const V tl = vdown(x[0] - vm), th = vup(x[1] - vm);
        const V mm = tl + (th - tl) / splat(2), rho = vup(vmax(th - mm, mm - tl));
        // exp_double(mm): k, the reduced r, the Taylor polynomial by Horner
        V k, r;
        if (base2) {
            k = vnearest(mm);
            r = (mm - k) * splat(ec::kLn2);
        } else {
            k = vnearest(mm * splat(ec::kInvLn2));
            r = (mm - k * ln2_hi) - k * ln2_lo;
        }
        V p = splat(kC[13]);
        for (int t = 12; t >= 0; --t) p = p * r + splat(kC[t]);
        const V a = vnearest(k * splat(0.5));
        const V v = p * vpow2(a) * vpow2(k - a);
        const V l = vdown(vdown(v * splat(1 - 0x1p-46)) * vdown(splat(1) - splat(2) * rho)) - splat(0x1p-1074);
        const V h = vup(vup(v * splat(1 + 0x1p-46)) * vup(splat(1) + splat(2) * rho)) + splat(0x1p-1074);
        const VM wide = ~(rho <= splat(0.5)) | ~(mm <= top), below = mm < splat(-1100);
        y[0] = vsel(wide | below, zero, vmax(l, zero));
        y[1] = vsel(wide, splat(std::numeric_limits<double>::infinity()), vsel(below, splat(0x1p-1074), h));
    });
}
// NOLINTEND(llvm-header-guard)
