// SPDX-License-Identifier: MIT
// exactattn internal: the display tree every printed form is rendered from (print_tree.cpp builds
// it, print.cpp renders it).
#pragma once

#include <gmpxx.h>

#include <memory>
#include <vector>

#include "exactattn/value.hpp"

namespace exactattn::detail::print {

// One printed summand: sign, a rational magnitude, a radical 2^(p/q) (q = 1: none), a power
// of a, or a parenthesised group (a coefficient with several terms) times a^k.
struct Item {
    int sign = 1;
    mpq_class mag;   // > 0, unused for a group
    long rad_p = 0;  // radical 2^(rad_p/rad_q), rad_q == 1 means none
    long rad_q = 1;
    int apow = 0;
    bool group = false;
    FieldElem group_value;  // positive-leading not required; printed inside parentheses
};

// ---- The display tree -------------------------------------------------------------------
// One term: sign · coef · 2^(rad_p/rad_q) · (group) · a^apow / den. Every printed form, the
// canonical one included, is this tree rendered in one notation; the display form only builds a
// different tree (common denominators) and renders long integers differently (powers of two).
struct Sum;
struct Term {
    int sign = 1;
    mpz_class coef = 1;  // > 0; 1 is not printed when another factor is
    long rad_p = 0;      // radical 2^(rad_p/rad_q), rad_q == 1 means none
    long rad_q = 1;
    std::shared_ptr<const Sum> group;  // a parenthesised sum
    int apow = 0;
    mpz_class den = 1;  // > 0
};
struct Sum {
    std::vector<Term> terms;
};

// The printed summands of v, in printing order.
std::vector<Item> value_items(const Value& v);
// The summands of a coefficient with several terms, positive first.
std::vector<Item> field_items_sorted(const FieldElem& f);
Term term_of(const Item& it);
Sum sum_of(const std::vector<Item>& items);
// Least common multiple of the denominators of every rational coefficient of v.
mpz_class common_denominator(const Value& v);

}  // namespace exactattn::detail::print
