// SPDX-License-Identifier: MIT
// exactattn benchmark: the workloads of issue 6, built in-process from a fixed seed, and the
// two reference reads (plain double, naive mpq_class) that the exact read is measured against.
#pragma once

#include <gmpxx.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "exactattn/memory.hpp"
#include "exactattn/encoder.hpp"

namespace exactattn::bench {

/// One synthetic read: memory entries k·(unit_num/unit_den)·a with k uniform in [-kmax, kmax],
/// query entries integers uniform in [-qmax, qmax]. The query is drawn first, then the memory
/// row by row, so a smaller n gives a prefix of the same data (same seed).
struct Workload {
    std::string name;
    std::size_t n = 0;
    std::size_t d = 16;
    std::int64_t kmax = 8;
    std::int64_t qmax = 4;
    long unit_num = 1;  ///< memory unit = (unit_num / unit_den) · a
    long unit_den = 1;
    std::uint64_t seed = 0;

    [[nodiscard]] Value unit() const;
    [[nodiscard]] double unit_double() const;  ///< the unit in double (a = log(2.0))
};

Workload w1();  ///< n = 10^6, d = 16, k·a, k ∈ [-8, 8], q ∈ [-4, 4]
Workload w2();  ///< as W1 with k·a/6, n = 10^5
Workload w3();  ///< as W1 with scores spread to about ±10^5·a, n = 10^5

/// The integers of the first `n` rows (and the query) of a workload.
struct IntegerData {
    std::vector<std::int64_t> query;
    std::vector<std::int64_t> k;  ///< row-major, n × d
};
IntegerData integer_data(const Workload& w, std::size_t n);

/// The same rows as doubles (entry = k · unit_double), drawn directly (no integer copy).
struct DoubleData {
    std::vector<double> query;
    std::vector<double> h;
};
DoubleData double_data(const Workload& w, std::size_t n);

/// The exact inputs: a compact Memory and the query as exact integers.
Memory exact_memory(const Workload& w, const IntegerData& data, std::size_t n);
ReadRequest exact_request(const IntegerData& data);

/// A plain double read, max-subtracted softmax: all n weights, the denominator Σ exp(e_j − max)
/// and the context.
struct DoubleResult {
    double max_score = 0;
    double denominator = 0;
    std::vector<double> weights;
    std::vector<double> context;
};
DoubleResult read_double(const DoubleData& data, std::size_t n, std::size_t d);

/// The straightforward exact loop in mpq_class, for integer multiples of a (unit a): e_j = 2^s_j,
/// the denominator, every weight e_j / Σ e, and the context's coefficients of a.
struct NaiveResult {
    mpq_class denominator;
    std::vector<mpq_class> weights;
    std::vector<mpq_class> context;  ///< context_i = context[i] · a
};
NaiveResult read_naive(const IntegerData& data, std::size_t n, std::size_t d);

/// Minor page faults of this process so far: first touches of fresh memory, each a trap that
/// costs microseconds on a virtual machine, so a step that touches much new memory pays for it.
long minor_faults();

/// "" when the two traces agree exactly in every field (scores, exponentials, weights at every
/// position, denominator, context, readout, marks); otherwise the first difference.
std::string trace_difference(const ReadTrace& x, const ReadTrace& y);

/// "" when the naive result equals the trace (denominator, context, weights at `positions`).
std::string naive_difference(const NaiveResult& naive, const ReadTrace& t, const std::vector<std::size_t>& positions);

}  // namespace exactattn::bench
