// SPDX-License-Identifier: MIT
// exactattn benchmark W6/W7 (issue 12): one exact causal self-attention layer against a double
// layer of the same data (max-subtracted softmax per row), in one process. `bash scripts/bench.sh`
// runs it after the read benchmark; ctest runs it tiny (EXACTATTN_BENCH_TINY=1, label bench).
//
//  W6: n = 2048, d_model = 64, 4 heads of d_k = d_v = 16, scale 1/√16 = 1/4, causal.
//  W7: the same with n = 8192 and one head (the cost grows as n²·d).
// Data (fixed seed, a portable splitmix64 generator): X ∈ [-1, 1]^(n×64) integers, W_Q ∈ [-2, 2],
// W_K ∈ [-1, 1]·a, W_V ∈ [-2, 2], so the scaled scores q·k/4 are multiples of a/4 with a
// standard deviation of about 49a, the spread of W1's scores (about 50a). The weights then lie
// in Q(2^(1/4)). No W_O: the output is the concatenation (the exact W_O product is ordinary
// exact linear algebra on h·d_v-wide rows, not the attention measured here).
//
// Phases: (1) on n = 96 (a prefix of the same data) every row of every head on the fast path
// equals attend_general's read in every field, and the double layer agrees with the exact one
// to 1e-9; otherwise exit 1. (2) Peak memory: each (workload, path) in a fresh process (this
// program re-executed with --peak) that builds its input, runs the layer once and looks at every
// output: VmHWM.
// (3) Times: exact, exact with every head output looked at (reduced to canonical form on first
// use), and double, interleaved, the minimum over the repetitions (wall clock).
// Options: --repetitions=N (3); --profile=W6|W7 runs only the exact layer once (for perf);
// --one=N runs W7's layer over the first N rows once, every output looked at (bench/scaling.py).
#include <fmt/format.h>

#include <exception>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "exactattn/attention.hpp"
#include "workloads.hpp"

using namespace exactattn;

namespace {

struct LayerWorkload {
    const char* name;
    std::size_t n;
    std::size_t heads;
};
constexpr std::size_t kModel = 64;
constexpr std::size_t kHead = 16;
// EXACTATTN_BENCH_TINY=1 (the test suite's `bench` label, docs/testing.md): the same layers at
// n = 48 and 64, checked at n = 32, so that the benchmark runs in seconds and cannot rot.
bool tiny() {
    const char* t = std::getenv("EXACTATTN_BENCH_TINY");
    return t != nullptr && std::string(t) == "1";
}
const LayerWorkload kW6{"W6", tiny() ? 48U : 2048U, 4};
const LayerWorkload kW7{"W7", tiny() ? 64U : 8192U, 1};
const std::size_t kCheckRows = tiny() ? 32 : 96;

// splitmix64: the same numbers on every standard library.
struct SplitMix {
    std::uint64_t s;
    std::uint64_t next() {
        std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    int uniform(int lo, int hi) { return lo + static_cast<int>(next() % static_cast<std::uint64_t>(hi - lo + 1)); }
};

// Integers of one layer: the weights first, then X row by row (a smaller n is a prefix).
struct Data {
    std::size_t n = 0;
    std::size_t heads = 0;
    std::vector<std::vector<int>> wq, wk, wv;  // per head, 64 × 16 row-major
    std::vector<int> x;                        // n × 64
};

Data make_data(const LayerWorkload& w, std::size_t n) {
    SplitMix rng{0x5eed0012ULL + w.heads};
    Data d;
    d.n = n;
    d.heads = w.heads;
    for (std::size_t h = 0; h < w.heads; ++h) {
        auto fill = [&](int lo, int hi) {
            std::vector<int> m(kModel * kHead);
            for (auto& v : m) v = rng.uniform(lo, hi);
            return m;
        };
        d.wq.push_back(fill(-2, 2));
        d.wk.push_back(fill(-1, 1));
        d.wv.push_back(fill(-2, 2));
    }
    d.x.resize(n * kModel);
    for (auto& v : d.x) v = rng.uniform(-1, 1);
    return d;
}

Matrix exact_matrix(const std::vector<int>& k, std::size_t rows, std::size_t cols, const Value& unit) {
    Matrix m(rows, Vector(cols));
    for (std::size_t i = 0; i < rows; ++i) {
        for (std::size_t j = 0; j < cols; ++j) {
            const int v = k[i * cols + j];
            if (v != 0) m[i][j] = Value(v) * unit;
        }
    }
    return m;
}

struct ExactInput {
    AttentionLayer layer;
    Matrix x;
};

ExactInput exact_input(const Data& d) {
    ExactInput in;
    in.layer.rule = ScoreRule::ScaledDot;
    in.layer.causal = true;
    for (std::size_t h = 0; h < d.heads; ++h) {
        in.layer.heads.push_back(AttentionHead{exact_matrix(d.wq[h], kModel, kHead, Value(1)),
                                               exact_matrix(d.wk[h], kModel, kHead, Value::ln2()),
                                               exact_matrix(d.wv[h], kModel, kHead, Value(1))});
    }
    in.x = exact_matrix(d.x, d.n, kModel, Value(1));
    return in;
}

// The double layer: projections, per row the max-subtracted softmax over keys 1..i, the
// weighted sum. It keeps every weight (n × n per head), as the exact trace keeps its rows.
struct DoubleLayer {
    std::vector<std::vector<double>> weights;  // per head, n × n
    std::vector<double> output;                // n × (heads · 16)
};

DoubleLayer double_layer(const Data& d) {
    const std::size_t n = d.n;
    const double ln2 = std::log(2.0);
    const std::size_t width = d.heads * kHead;
    DoubleLayer out;
    out.output.assign(n * width, 0.0);
    std::vector<double> q(n * kHead), k(n * kHead), v(n * kHead), s(n);
    for (std::size_t h = 0; h < d.heads; ++h) {
        std::fill(q.begin(), q.end(), 0.0);
        std::fill(k.begin(), k.end(), 0.0);
        std::fill(v.begin(), v.end(), 0.0);
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t c = 0; c < kModel; ++c) {
                const double x = d.x[i * kModel + c];
                if (x == 0) continue;
                for (std::size_t j = 0; j < kHead; ++j) {
                    q[i * kHead + j] += x * d.wq[h][c * kHead + j];
                    k[i * kHead + j] += x * d.wk[h][c * kHead + j] * ln2;
                    v[i * kHead + j] += x * d.wv[h][c * kHead + j];
                }
            }
        }
        std::vector<double> w(n * n, 0.0);
        for (std::size_t i = 0; i < n; ++i) {
            double mx = -INFINITY;
            for (std::size_t j = 0; j <= i; ++j) {
                double dot = 0;
                for (std::size_t c = 0; c < kHead; ++c) dot += q[i * kHead + c] * k[j * kHead + c];
                s[j] = dot * 0.25;
                mx = std::max(mx, s[j]);
            }
            double sum = 0;
            for (std::size_t j = 0; j <= i; ++j) {
                s[j] = std::exp(s[j] - mx);
                sum += s[j];
            }
            double* o = &out.output[i * width + h * kHead];
            for (std::size_t j = 0; j <= i; ++j) {
                const double wj = s[j] / sum;
                w[i * n + j] = wj;
                for (std::size_t c = 0; c < kHead; ++c) o[c] += wj * v[j * kHead + c];
            }
        }
        out.weights.push_back(std::move(w));
    }
    return out;
}

// Phase 1. Fast rows against the general path; the double layer against the exact one.
bool check(const LayerWorkload& w) {
    const Data d = make_data(w, kCheckRows);
    const ExactInput in = exact_input(d);
    const LayerTrace t = attend_layer(in.layer, in.x);
    const DoubleLayer dl = double_layer(d);
    double worst = 0;
    for (std::size_t h = 0; h < d.heads; ++h) {
        const HeadTrace& ht = t.heads[h];
        for (std::size_t i = 0; i < d.n; ++i) {
            const ReadTrace& r = ht.rows[i];
            if (!r.fast_path) {
                fmt::print(stderr, "{}: head {} row {} left the fast path\n", w.name, h + 1, i + 1);
                return false;
            }
            ReadRequest req;
            req.query = ht.queries.row(i);
            req.rule = ScoreRule::ScaledDot;
            req.marks = r.marks;
            const std::string diff = bench::trace_difference(r, attend_general(ht.keys, ht.values, req));
            if (!diff.empty()) {
                fmt::print(stderr, "{}: head {} row {}: fast and general paths differ: {}\n", w.name, h + 1, i + 1,
                           diff);
                return false;
            }
            for (std::size_t j = 0; j <= i; ++j) {
                const double e = to_double(*r.weights.at(j));
                const double f = dl.weights[h][i * d.n + j];
                worst = std::max(worst, std::abs(e - f) / std::max(std::abs(e), 1e-300));
            }
            for (std::size_t c = 0; c < kHead; ++c) {
                const double e = to_double(ht.rows[i].context[c]);
                const double f = dl.output[i * d.heads * kHead + h * kHead + c];
                worst = std::max(worst, std::abs(e - f) / std::max(1.0, std::abs(e)));
            }
        }
    }
    if (worst > 1e-9) {
        fmt::print(stderr, "{}: the double layer differs from the exact one by {:.3g}\n", w.name, worst);
        return false;
    }
    fmt::print(
        "check {} (n = {}): every row on the fast path equals the general path; double "
        "layer within {:.2g} relative\n",
        w.name, kCheckRows, worst);
    return true;
}

long vm_hwm_kib() {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
    }
    return -1;
}

// Looks at every head output of the layer: the fast rows reduce their contexts to canonical form
// on first use (deferred.hpp), so this is what a caller that prints the outputs pays.
std::size_t observe_outputs(const LayerTrace& t) {
    std::size_t nonzero = 0;
    for (const auto& h : t.heads) {
        for (const auto& r : h.rows) {
            for (const Value& v : r.context) nonzero += v.is_zero() ? 0 : 1;
        }
    }
    return nonzero;
}

// Phase 2, in the child: build the input, run the layer once, report the high-water mark.
int peak_child(const LayerWorkload& w, bool exact) {
    const Data d = make_data(w, w.n);
    std::size_t keep = 0;
    if (exact) {
        const ExactInput in = exact_input(d);
        const LayerTrace t = attend_layer(in.layer, in.x);
        keep = t.heads.size() + observe_outputs(t);  // the peak with every output reduced
    } else {
        const DoubleLayer dl = double_layer(d);
        keep = dl.weights.size();
    }
    fmt::print("{} {}\n", vm_hwm_kib(), keep);
    return 0;
}

double peak_mib(const char* self, const LayerWorkload& w, bool exact) {
    const std::string cmd = fmt::format("{} --peak={}:{}", self, w.name, exact ? "exact" : "double");
    FILE* p = popen(cmd.c_str(), "r");
    if (p == nullptr) return -1;
    long kib = -1;
    long keep = 0;
    if (std::fscanf(p, "%ld %ld", &kib, &keep) != 2) kib = -1;
    pclose(p);
    return static_cast<double>(kib) / 1024.0;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Timing {
    double exact = 1e300;
    double observed = 1e300;  // the exact layer and every head output reduced to canonical form
    double dbl = 1e300;
};

Timing time_layers(const LayerWorkload& w, int repetitions) {
    const Data d = make_data(w, w.n);
    const ExactInput in = exact_input(d);
    Timing t;
    for (int r = 0; r < repetitions; ++r) {
        for (int order = 0; order < 3; ++order) {
            const int which = (order + r) % 3;  // rotate the order between repetitions
            const auto t0 = std::chrono::steady_clock::now();
            if (which == 0) {
                const LayerTrace lt = attend_layer(in.layer, in.x);
                t.exact = std::min(t.exact, seconds_since(t0));
                if (lt.heads.empty()) std::abort();
            } else if (which == 1) {
                const LayerTrace lt = attend_layer(in.layer, in.x);
                if (observe_outputs(lt) == 0) std::abort();
                t.observed = std::min(t.observed, seconds_since(t0));
            } else {
                const DoubleLayer dl = double_layer(d);
                t.dbl = std::min(t.dbl, seconds_since(t0));
                if (dl.weights.empty()) std::abort();
            }
        }
    }
    return t;
}

}  // namespace

namespace {
int bench_main(int argc, char** argv) {
    int repetitions = 3;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a.rfind("--peak=", 0) == 0) {
            const std::string spec = a.substr(7);
            const LayerWorkload& w = spec.rfind("W7", 0) == 0 ? kW7 : kW6;
            return peak_child(w, spec.find(":exact") != std::string::npos);
        }
        if (a.rfind("--one=", 0) == 0) {
            // W7's layer over the first N rows, exact, every output looked at, once (for the
            // scaling curve of bench/scaling.py, which times the process).
            const std::size_t n = std::stoul(a.substr(6));
            const LayerWorkload w{"W7", n, 1};
            const ExactInput in = exact_input(make_data(w, n));
            const LayerTrace lt = attend_layer(in.layer, in.x);
            fmt::print("{} rows: {} nonzero outputs\n", n, observe_outputs(lt));
            return 0;
        }
        if (a.rfind("--repetitions=", 0) == 0) repetitions = std::max(1, std::stoi(a.substr(14)));
        if (a.rfind("--profile=", 0) == 0) {
            // The exact layer once, then every output looked at, for a profiler (perf record …
            // --profile=W6).
            const LayerWorkload& w = a.substr(10) == "W7" ? kW7 : kW6;
            const ExactInput in = exact_input(make_data(w, w.n));
            // Processor time as well as real time: on a shared machine the first is the steadier.
            const auto t0 = std::chrono::steady_clock::now();
            const std::clock_t c0 = std::clock();
            const long f0 = bench::minor_faults();
            const LayerTrace lt = attend_layer(in.layer, in.x);
            const double exact = seconds_since(t0);
            const std::clock_t c1 = std::clock();
            const long f1 = bench::minor_faults();
            const auto t1 = std::chrono::steady_clock::now();
            const std::size_t nonzero = observe_outputs(lt);
            const long f2 = bench::minor_faults();
            const double cpu = static_cast<double>(CLOCKS_PER_SEC);
            fmt::print(
                "{}: exact {:.3f} s (processor {:.3f} s, {} page faults), then every output reduced {:.3f} s "
                "(processor {:.3f} s, {} page faults; {} heads, {} nonzero outputs)\n",
                w.name, exact, static_cast<double>(c1 - c0) / cpu, f1 - f0, seconds_since(t1),
                static_cast<double>(std::clock() - c1) / cpu, f2 - f1, lt.heads.size(), nonzero);
            return 0;
        }
    }
    if (!check(kW6) || !check(kW7)) return 1;
    std::vector<std::string> summary;
    for (const LayerWorkload* w : {&kW6, &kW7}) {
        const double pe = peak_mib(argv[0], *w, true);
        const double pd = peak_mib(argv[0], *w, false);
        const Timing t = time_layers(*w, repetitions);
        // Causal pairs × head width × heads: the n²·d work of the layer.
        const double pairs = static_cast<double>(w->n) * static_cast<double>(w->n + 1) / 2.0;
        const double per = t.exact / (pairs * kHead * static_cast<double>(w->heads)) * 1e9;
        fmt::print(
            "{}: n = {}, {} head(s): exact {:.3f} s, double {:.3f} s, exact per causal pair·d "
            "{:.2f} ns; peak memory exact {:.0f} MiB, double {:.0f} MiB\n",
            w->name, w->n, w->heads, t.exact, t.dbl, per, pe, pd);
        summary.push_back(fmt::format(
            "{}: exact/double = {:.2f}x ({:.3f} s vs {:.3f} s), peak memory "
            "{:.0f} MiB vs {:.0f} MiB ({:.2f}x); {:.2f} ns per causal pair·d; "
            "with every output reduced to canonical form {:.2f}x ({:.3f} s)",
            w->name, t.exact / t.dbl, t.exact, t.dbl, pe, pd, pe / pd, per, t.observed / t.dbl, t.observed));
    }
    for (const auto& s : summary) fmt::print("{}\n", s);
    return 0;
}

}  // namespace

// An error inside the benchmark (a refusal, a limit) is reported, never std::terminate.
int main(int argc, char** argv) {
    try {
        return bench_main(argc, argv);
    } catch (const std::exception& e) {
        fmt::print(stderr, "{}: {}\n", argv[0], e.what());
        return 1;
    }
}
