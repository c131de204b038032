// SPDX-License-Identifier: MIT
// Test support: exact values evaluated at 60 digits in MPFR (Boost.Multiprecision) from their
// coefficients, independently of the library's certified rounding. Used by the differential
// tests as the floating oracle's common ground.
#pragma once

#include <boost/multiprecision/mpfr.hpp>

#include <map>
#include <vector>

#include "exactattn/memory.hpp"
#include "exactattn/value.hpp"

namespace exactattn::test {

using F = boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<60>>;
using FVector = std::vector<F>;

inline const F& ln2() {
    static const F v = log(F(2));
    return v;
}

inline F to_f(const mpq_class& q) {
    F x;
    mpfr_set_q(x.backend().data(), q.get_mpq_t(), MPFR_RNDN);
    return x;
}

// 2^(i/m) in MPFR, computed once per (i, m).
inline const F& root_power(std::size_t i, int m) {
    static std::map<std::pair<std::size_t, int>, F> cache;
    auto it = cache.find({i, m});
    if (it == cache.end()) it = cache.emplace(std::make_pair(i, m), pow(F(2), F(static_cast<long>(i)) / m)).first;
    return it->second;
}

// An exact value evaluated in MPFR from its coefficients: Σ_k Σ_i c_ki 2^(i/m_k) a^k.
inline F to_f(const Value& v) {
    F total = 0;
    F apow = 1;
    for (const auto& f : v.terms()) {
        const auto& c = f.coefficients();
        for (std::size_t i = 0; i < c.size(); ++i) {
            if (sgn(c[i]) == 0) continue;
            total += to_f(c[i]) * root_power(i, f.root()) * apow;
        }
        apow *= ln2();
    }
    return total;
}

inline FVector to_f(const Vector& v) {
    FVector out;
    for (const auto& x : v) out.push_back(to_f(x));
    return out;
}

}  // namespace exactattn::test
