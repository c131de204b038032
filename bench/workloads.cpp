// SPDX-License-Identifier: MIT
// exactattn benchmark: workload data, the double and naive reference reads, exact comparisons.
#include "workloads.hpp"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "exactattn/print.hpp"

namespace exactattn::bench {

Value Workload::unit() const { return Value(mpq_class(unit_num, unit_den)) * Value::ln2(); }

double Workload::unit_double() const {
    return std::log(2.0) * static_cast<double>(unit_num) / static_cast<double>(unit_den);
}

Workload w1() { return {"W1", 1'000'000, 16, 8, 4, 1, 1, 20261101}; }
Workload w2() { return {"W2", 100'000, 16, 8, 4, 1, 6, 20261102}; }
// |k| ≤ 3906 makes the scores' standard deviation about 2.3·10^4, so over 10^5 rows they
// spread to about ±10^5 (the benchmark prints the realized range).
Workload w3() { return {"W3", 100'000, 16, 3906, 4, 1, 1, 20261103}; }

namespace {

// Draws the query, then n·d memory integers, and hands each to the sinks.
template <class Q, class K>
void draw(const Workload& w, std::size_t n, Q&& query_sink, K&& memory_sink) {
    std::mt19937_64 rng(w.seed);
    std::uniform_int_distribution<std::int64_t> q(-w.qmax, w.qmax);
    std::uniform_int_distribution<std::int64_t> k(-w.kmax, w.kmax);
    for (std::size_t i = 0; i < w.d; ++i) query_sink(q(rng));
    for (std::size_t c = 0; c < n * w.d; ++c) memory_sink(k(rng));
}

}  // namespace

IntegerData integer_data(const Workload& w, std::size_t n) {
    IntegerData data;
    data.k.reserve(n * w.d);
    draw(
        w, n, [&](std::int64_t x) { data.query.push_back(x); }, [&](std::int64_t x) { data.k.push_back(x); });
    return data;
}

DoubleData double_data(const Workload& w, std::size_t n) {
    DoubleData data;
    data.h.reserve(n * w.d);
    const double u = w.unit_double();
    draw(
        w, n, [&](std::int64_t x) { data.query.push_back(static_cast<double>(x)); },
        [&](std::int64_t x) { data.h.push_back(static_cast<double>(x) * u); });
    return data;
}

Memory exact_memory(const Workload& w, const IntegerData& data, std::size_t n) {
    std::vector<std::int64_t> k(data.k.begin(), data.k.begin() + static_cast<std::ptrdiff_t>(n * w.d));
    return Memory::scaled_integers(n, w.d, std::move(k), w.unit());
}

ReadRequest exact_request(const IntegerData& data) {
    ReadRequest r;
    for (auto x : data.query) r.query.emplace_back(static_cast<long>(x));
    return r;
}

DoubleResult read_double(const DoubleData& data, std::size_t n, std::size_t d) {
    DoubleResult r;
    r.weights.resize(n);
    const double* h = data.h.data();
    const double* q = data.query.data();
    double mx = -std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < n; ++j) {
        double s = 0;
        for (std::size_t i = 0; i < d; ++i) s += q[i] * h[j * d + i];
        r.weights[j] = s;
        mx = std::max(mx, s);
    }
    double den = 0;
    for (std::size_t j = 0; j < n; ++j) {
        r.weights[j] = std::exp(r.weights[j] - mx);
        den += r.weights[j];
    }
    const double inv = 1.0 / den;
    for (std::size_t j = 0; j < n; ++j) r.weights[j] *= inv;
    r.context.assign(d, 0.0);
    for (std::size_t j = 0; j < n; ++j) {
        for (std::size_t i = 0; i < d; ++i) r.context[i] += r.weights[j] * h[j * d + i];
    }
    r.max_score = mx;
    r.denominator = den;
    return r;
}

NaiveResult read_naive(const IntegerData& data, std::size_t n, std::size_t d) {
    NaiveResult r;
    std::vector<mpq_class> e(n);
    r.denominator = 0;
    for (std::size_t j = 0; j < n; ++j) {
        long s = 0;
        for (std::size_t i = 0; i < d; ++i) s += static_cast<long>(data.query[i] * data.k[j * d + i]);
        e[j] = 1;
        if (s >= 0) {
            mpq_mul_2exp(e[j].get_mpq_t(), e[j].get_mpq_t(), static_cast<unsigned long>(s));
        } else {
            mpq_div_2exp(e[j].get_mpq_t(), e[j].get_mpq_t(), static_cast<unsigned long>(-s));
        }
        r.denominator += e[j];
    }
    r.weights.resize(n);
    r.context.assign(d, mpq_class(0));
    mpq_class t;
    for (std::size_t j = 0; j < n; ++j) {
        r.weights[j] = e[j] / r.denominator;
        for (std::size_t i = 0; i < d; ++i) {
            t = r.weights[j] * static_cast<long>(data.k[j * d + i]);
            r.context[i] += t;
        }
    }
    return r;
}

long minor_faults() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

namespace {

std::string show(const std::optional<Value>& v) { return v ? to_ascii(*v) : std::string("none"); }

std::string brief(const std::string& s) { return s.size() <= 80 ? s : s.substr(0, 40) + "…" + s.substr(s.size() - 30); }

}  // namespace

std::string trace_difference(const ReadTrace& x, const ReadTrace& y) {
    if (x.marks != y.marks) return "marks differ";
    if (x.query != y.query) return "queries differ";
    if (x.denominator != y.denominator) {
        return fmt::format("denominator {} != {}", brief(to_ascii(x.denominator)), brief(to_ascii(y.denominator)));
    }
    if (x.context != y.context) return "contexts differ";
    if (x.readout != y.readout) return "readouts differ";
    const std::size_t n = x.marks.size();
    if (x.scores.size() != n || y.scores.size() != n || x.exponentials.size() != n || y.exponentials.size() != n ||
        x.weights.size() != n || y.weights.size() != n) {
        return "column sizes differ";
    }
    for (std::size_t j = 0; j < n; ++j) {
        if (x.scores.at(j) != y.scores.at(j)) {
            return fmt::format("score {}: {} != {}", j + 1, show(x.scores.at(j)), show(y.scores.at(j)));
        }
        if (x.exponentials.at(j) != y.exponentials.at(j)) {
            return fmt::format("exponential {}: {} != {}", j + 1, brief(show(x.exponentials.at(j))),
                               brief(show(y.exponentials.at(j))));
        }
        if (x.weights.at(j) != y.weights.at(j)) {
            return fmt::format("weight {}: {} != {}", j + 1, brief(show(x.weights.at(j))),
                               brief(show(y.weights.at(j))));
        }
    }
    return "";
}

std::string naive_difference(const NaiveResult& naive, const ReadTrace& t, const std::vector<std::size_t>& positions) {
    if (t.denominator != Value(naive.denominator)) return "denominator differs from the naive loop";
    for (std::size_t i = 0; i < naive.context.size(); ++i) {
        if (t.context[i] != Value(naive.context[i]) * Value::ln2()) {
            return fmt::format("context {} differs from the naive loop", i + 1);
        }
    }
    for (auto j : positions) {
        if (t.weights.at(j) != Value(naive.weights[j])) {
            return fmt::format("weight {} differs from the naive loop", j + 1);
        }
    }
    return "";
}

}  // namespace exactattn::bench
