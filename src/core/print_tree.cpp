// SPDX-License-Identifier: MIT
// exactattn: a value's display tree (print_tree.hpp): its summands in printing order, as terms.
#include "core/print_tree.hpp"

#include <algorithm>
#include <numeric>

namespace exactattn::detail::print {

namespace {

// Items of a coefficient F (one per nonzero θ^i), each with a-power k, in printing order.
std::vector<Item> field_items(const FieldElem& f, int k) {
    std::vector<Item> items;
    const auto& c = f.coefficients();
    for (std::size_t i = 0; i < c.size(); ++i) {
        if (sgn(c[i]) == 0) continue;
        Item it;
        it.sign = sgn(c[i]);
        it.mag = abs(c[i]);
        const long g = std::gcd(static_cast<long>(i), static_cast<long>(f.root()));
        it.rad_p = static_cast<long>(i) / (g == 0 ? 1 : g);
        it.rad_q = i == 0 ? 1 : f.root() / g;
        it.apow = k;
        items.push_back(it);
    }
    return items;
}

// Positive-first rule: when the first item is negative, bring the first positive one forward.
void positive_first(std::vector<Item>& items) {
    if (items.empty() || items.front().sign > 0) return;
    for (std::size_t i = 1; i < items.size(); ++i) {
        if (items[i].sign > 0) {
            Item p = items[i];
            items.erase(items.begin() + static_cast<std::ptrdiff_t>(i));
            items.insert(items.begin(), p);
            return;
        }
    }
}

// Leading sign of a group as printed (after the positive-first rule).
int group_sign(const FieldElem& f) {
    auto items = field_items(f, 0);
    positive_first(items);
    return items.front().sign;
}

}  // namespace

std::vector<Item> value_items(const Value& v) {
    std::vector<Item> items;
    const auto& t = v.terms();
    for (std::size_t k = 0; k < t.size(); ++k) {
        const FieldElem& f = t[k];
        if (f.is_zero()) continue;
        if (k > 0 && f.term_count() > 1) {
            Item g;
            g.group = true;
            g.apow = static_cast<int>(k);
            g.sign = group_sign(f);
            g.group_value = g.sign > 0 ? f : -f;
            items.push_back(g);
        } else {
            for (auto& it : field_items(f, static_cast<int>(k))) items.push_back(it);
        }
    }
    positive_first(items);
    return items;
}

std::vector<Item> field_items_sorted(const FieldElem& f) {
    auto items = field_items(f, 0);
    positive_first(items);
    return items;
}

Term term_of(const Item& it) {
    Term t;
    t.sign = it.sign;
    t.coef = it.mag.get_num();
    t.den = it.mag.get_den();
    t.rad_p = it.rad_p;
    t.rad_q = it.rad_q;
    t.apow = it.apow;
    return t;
}

Sum sum_of(const std::vector<Item>& items) {
    Sum s;
    for (const Item& it : items) s.terms.push_back(term_of(it));
    return s;
}

// Least common multiple of the denominators of every rational coefficient of v.
mpz_class common_denominator(const Value& v) {
    mpz_class d = 1;
    for (const FieldElem& f : v.terms()) {
        for (const mpq_class& c : f.coefficients()) {
            if (sgn(c) != 0) mpz_lcm(d.get_mpz_t(), d.get_mpz_t(), c.get_den().get_mpz_t());
        }
    }
    return d;
}

}  // namespace exactattn::detail::print
