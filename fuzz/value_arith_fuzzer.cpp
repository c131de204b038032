// SPDX-License-Identifier: MIT
// libFuzzer target: value arithmetic. The input bytes describe a random expression tree over
// rationals, a = ln 2, 2^(k/m) and exp(r·a), combined with + − × ÷, integer powers and relu;
// it is evaluated exactly (Value) and, independently, in Boost.Multiprecision mpfr_float at
// two high precisions. When the floating result is conclusive, the exact sign and the
// correctly rounded double must agree with it. A disagreement traps.
#include <boost/multiprecision/mpfr.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>

#include "exactattn/error.hpp"
#include "exactattn/print.hpp"
#include "exactattn/value.hpp"
#include "fuzz_common.hpp"

using namespace exactattn;
// Two fixed precisions (decimal digits); their difference estimates the rounding error.
using Big = boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<700>>;
using Half = boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<350>>;

namespace {

// Reads small integers from the fuzzer's bytes (zeros when they run out).
class Bytes {
  public:
    Bytes(const std::uint8_t* d, std::size_t n) : d_(d), n_(n) {}
    unsigned next() { return i_ < n_ ? d_[i_++] : 0U; }
    int range(int lo, int hi) { return lo + static_cast<int>(next() % static_cast<unsigned>(hi - lo + 1)); }

  private:
    const std::uint8_t* d_;
    std::size_t n_;
    std::size_t i_ = 0;
};

template <class T>
const T& ln2() {
    static const T value = log(T(2));
    return value;
}

// One expression evaluated both ways. `inconclusive` is set when relu meets a floating value
// too close to 0 to decide its sign.
struct Both {
    Value exact;
    Big hi;   // at the high precision
    Half lo;  // at half of it
};

struct Evaluator {
    Bytes& in;
    int nodes = 0;
    bool inconclusive = false;
    const Big& ln2_hi = ln2<Big>();
    const Half& ln2_lo = ln2<Half>();

    Both leaf() {
        switch (in.range(0, 3)) {
            case 0: {  // p/q
                const long p = in.range(-9, 9);
                const long q = in.range(1, 8);
                return {Value(mpq_class(p, q)), Big(p) / q, Half(p) / q};
            }
            case 1:  // a
                return {Value::ln2(), ln2_hi, ln2_lo};
            case 2: {  // 2^(k/m)
                static const int roots[] = {1, 2, 3, 4, 6, 8};
                const long k = in.range(-9, 9);
                const long m = roots[in.range(0, 5)];
                return {Value::exp2(mpq_class(k, m)), pow(Big(2), Big(k) / m), pow(Half(2), Half(k) / m)};
            }
            default: {  // exp(k/m · a)
                const long k = in.range(-12, 12);
                const long m = in.range(1, 6);
                const Value x = Value(mpq_class(k, m)) * Value::ln2();
                return {exp(x), exp(ln2_hi * k / m), exp(ln2_lo * k / m)};
            }
        }
    }

    Both node(int depth) {
        if (depth == 0 || ++nodes > 40) return leaf();
        const int op = in.range(0, 9);
        if (op <= 1) return leaf();
        Both x = node(depth - 1);
        switch (op) {
            case 2: {
                Both y = node(depth - 1);
                return {x.exact + y.exact, x.hi + y.hi, x.lo + y.lo};
            }
            case 3: {
                Both y = node(depth - 1);
                return {x.exact - y.exact, x.hi - y.hi, x.lo - y.lo};
            }
            case 4: {
                Both y = node(depth - 1);
                return {x.exact * y.exact, x.hi * y.hi, x.lo * y.lo};
            }
            case 5: {  // division: the exact side refuses a divisor with a or zero
                Both y = node(depth - 1);
                return {x.exact / y.exact, x.hi / y.hi, x.lo / y.lo};
            }
            case 6: {
                const int n = in.range(-3, 4);
                return {x.exact.pow(n), pow(x.hi, n), pow(x.lo, n)};
            }
            case 7:
                return {-x.exact, -x.hi, -x.lo};
            case 8: {
                // relu: decided exactly; the floating side follows only a clear sign.
                const Big err = abs(x.hi - Big(x.lo)) * 4;
                if (abs(x.hi) <= err) inconclusive = true;
                const bool pos = x.hi > 0;
                return {relu(x.exact), pos ? x.hi : Big(0), pos ? x.lo : Half(0)};
            }
            default: {  // exp of r·a only: the exact side refuses anything else
                return {exp(x.exact), exp(x.hi), exp(x.lo)};
            }
        }
    }
};

int sign_of(const Big& x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Bytes in(data, size);
    Evaluator ev{in};
    std::optional<Both> r;
    try {
        r = ev.node(in.range(1, 6));
    } catch (const Error&) {
        return 0;  // outside the domain or past a (small) limit: nothing to compare
    }
    if (ev.inconclusive) return 0;
    const Value& v = r->exact;
    if (!v.is_canonical()) __builtin_trap();
    // The two floating evaluations estimate their own error; the exact value must lie within.
    const Big err = abs(r->hi - Big(r->lo)) * 16 + pow(Big(2), -2000) * (1 + abs(r->hi));
    int s = 0;
    double d = 0;
    try {
        s = v.sign();
        d = to_double(v);
    } catch (const Error&) {
        return 0;  // past the precision limit
    }
    if (v.is_zero()) {
        if (abs(r->hi) > err) __builtin_trap();
        return 0;
    }
    if (abs(r->hi) <= err) return 0;  // too close to 0 to decide in floating point
    if (s != sign_of(r->hi)) __builtin_trap();
    const Big mag = abs(r->hi);
    if (mag < pow(Big(2), -1000) || mag > pow(Big(2), 1000)) return 0;  // outside normal doubles
    const double lo = Big(r->hi - err).convert_to<double>();
    const double hi = Big(r->hi + err).convert_to<double>();
    if (lo == hi && d != lo) __builtin_trap();  // correctly rounded double
    return 0;
}
