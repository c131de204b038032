// SPDX-License-Identifier: MIT
// exactattn oracle (internal): IEEE arithmetic of one float format emulated with MPFR, shared by
// the forward's emulation (emulate.cpp) and the backward's (grad_emulate.cpp).
#pragma once

#include <mpfr.h>

#include "exactattn/oracle.hpp"

namespace exactattn::oracle::detail {

// IEEE arithmetic of one format: MPFR's exponent range set to the format's for the scope (the
// range is per thread in a thread-safe MPFR), so each result is the correctly rounded IEEE one.
class Ieee {
  public:
    explicit Ieee(FloatFormat f) : f_(f), emin_(mpfr_get_emin()), emax_(mpfr_get_emax()) {
        const auto& i = info(f);
        mpfr_init2(x_, i.precision);
        mpfr_init2(a_, 53);
        mpfr_init2(b_, 53);
        mpfr_set_emin(i.emin - i.precision + 2);  // the least subnormal is 0.1₂ · 2^emin
        mpfr_set_emax(i.emax + 1);
    }
    ~Ieee() {
        mpfr_set_emin(emin_);
        mpfr_set_emax(emax_);
        mpfr_clears(x_, a_, b_, static_cast<mpfr_ptr>(nullptr));
    }
    Ieee(const Ieee&) = delete;
    Ieee& operator=(const Ieee&) = delete;

    double add(double a, double b) { return op(a, b, mpfr_add); }
    double sub(double a, double b) { return op(a, b, mpfr_sub); }
    double mul(double a, double b) { return op(a, b, mpfr_mul); }
    double div(double a, double b) { return op(a, b, mpfr_div); }
    /// b^a correctly rounded: exp, or exp2 for an exp2 kernel (base 2).
    double exp(double a, ExpBase b) {
        mpfr_set_d(a_, a, MPFR_RNDN);
        return finish(b == ExpBase::Two ? mpfr_exp2(x_, a_, MPFR_RNDN) : mpfr_exp(x_, a_, MPFR_RNDN));
    }
    /// log_b(a) correctly rounded: ln, or log2 for base 2.
    double log(double a, ExpBase b) {
        mpfr_set_d(a_, a, MPFR_RNDN);
        return finish(b == ExpBase::Two ? mpfr_log2(x_, a_, MPFR_RNDN) : mpfr_log(x_, a_, MPFR_RNDN));
    }
    double tanh(double a) {
        mpfr_set_d(a_, a, MPFR_RNDN);
        return finish(mpfr_tanh(x_, a_, MPFR_RNDN));
    }
    double sqrt(double a) {
        mpfr_set_d(a_, a, MPFR_RNDN);
        return finish(mpfr_sqrt(x_, a_, MPFR_RNDN));
    }
    [[nodiscard]] FloatFormat format() const { return f_; }

  private:
    using Op = int (*)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t);
    double op(double a, double b, Op f) {
        mpfr_set_d(a_, a, MPFR_RNDN);  // exact: 53 bits hold every value of every format
        mpfr_set_d(b_, b, MPFR_RNDN);
        return finish(f(x_, a_, b_, MPFR_RNDN));
    }
    double finish(int t) {
        t = mpfr_check_range(x_, t, MPFR_RNDN);
        mpfr_subnormalize(x_, t, MPFR_RNDN);
        return mpfr_get_d(x_, MPFR_RNDN);  // exact: the value is one of the format's
    }
    FloatFormat f_;
    mpfr_exp_t emin_, emax_;
    mpfr_t x_, a_, b_;
};

}  // namespace exactattn::oracle::detail
