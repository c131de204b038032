// SPDX-License-Identifier: MIT
// exactattn benchmark (issue 6): the exact read against a plain double read and a naive
// mpq_class loop, on data built in-process from fixed seeds. Run it with `bash scripts/bench.sh`;
// ctest runs it tiny (EXACTATTN_BENCH_TINY=1, label bench: n = 2000, 1000 and 200, one
// repetition, 2 processes for W4), so that it cannot rot.
//
// Phases, in this order:
//  1. checks: on a smaller n (same seed, a prefix of the same data) the fast path's trace must
//     equal attend_general's in every field, or the benchmark stops with exit code 1;
//  2. peak memory: every (workload, path) runs once in a fresh process (this program
//     re-executed) that builds its own input; its high-water mark VmHWM is the whole process:
//     input + read + result;
//  3. W4: the exactattn binary, one process per command, repeated;
//  4. timings with Google Benchmark (repetitions randomly interleaved, real time, the minimum
//     and the median over repetitions), all in this one process on the same data;
//  5. W5 (naive mpq_class loop on W1's data, checked for equality with the exact result);
//  6. the summary: the scaling series, the targets, then one line per workload (for scripts).
// Options: --repetitions=N (7), --min-time=SECONDS (0.2 per repetition); for development only,
// --no-naive (skips W5, about a minute) and --timings-only (skips phases 1-3); --profile=W1|W2|W3
// runs that workload's read once, then reduces and prints its context, each step timed (for
// perf record); anything else goes to Google Benchmark (e.g. --benchmark_filter=W1).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "exactattn/print.hpp"
#include "process.hpp"
#include "workloads.hpp"

namespace eb = exactattn::bench;
using eb::run_process;
using exactattn::attend;
using exactattn::attend_general;
using exactattn::Mark;
using exactattn::Memory;
using exactattn::ReadRequest;
using exactattn::ReadTrace;
using exactattn::Value;

namespace {

// ---------------------------------------------------------------------------------------------
// Options

struct Options {
    bool naive = true;
    bool timings_only = false;
    int repetitions = 7;
    double min_time = 0.2;  // seconds per repetition
};

// ---------------------------------------------------------------------------------------------
// Phase 1: the fast path against the general path on a smaller n.

bool check_workload(const eb::Workload& w, std::size_t n) {
    const auto data = eb::integer_data(w, n);
    const Memory memory = eb::exact_memory(w, data, n);
    ReadRequest req = eb::exact_request(data);
    req.readout = exactattn::Vector();
    for (std::size_t i = 0; i < w.d; ++i) req.readout->emplace_back(static_cast<long>(i % 3) - 1);
    bool ok = true;
    for (int variant = 0; variant < 2; ++variant) {
        if (variant == 1) {  // one removed and one zeroed position
            req.marks.assign(n, Mark::Included);
            req.marks[1] = Mark::Removed;
            req.marks[n / 2] = Mark::Zeroed;
        }
        const auto t0 = std::chrono::steady_clock::now();
        const ReadTrace fast = attend(memory, req);
        const auto t1 = std::chrono::steady_clock::now();
        const ReadTrace general = attend_general(memory, req);
        const auto t2 = std::chrono::steady_clock::now();
        std::string diff = eb::trace_difference(fast, general);
        if (!fast.fast_path) diff = "attend did not take the fast path";
        if (general.fast_path) diff = "attend_general reports the fast path";
        const double fs = std::chrono::duration<double>(t1 - t0).count();
        const double gs = std::chrono::duration<double>(t2 - t1).count();
        fmt::print(
            "check {} n={}{}: fast path {} general path in every field "
            "(fast {:.2f} ms, general {:.0f} ms)\n",
            w.name, n, variant == 1 ? " (a removed and a zeroed position)" : "", diff.empty() ? "==" : "!=", fs * 1e3,
            gs * 1e3);
        if (!diff.empty()) {
            fmt::print("  FAILED: {}\n", diff);
            ok = false;
        }
    }
    std::fflush(stdout);
    return ok;
}

// ---------------------------------------------------------------------------------------------
// Phase 3: W4, the exactattn binary as a process.

struct ProcessStats {
    bool ran = false;
    bool ok = true;
    double median_ms = 0;
    double min_ms = 0;
    double maxrss_mib = 0;
};

ProcessStats time_process(const std::vector<std::string>& args, int times) {
    ProcessStats s;
    s.ran = true;
    std::vector<double> ms;
    for (int i = 0; i < times; ++i) {
        const auto r = run_process(args);
        if (r.code != 0) s.ok = false;
        ms.push_back(r.ms);
        s.maxrss_mib = std::max(s.maxrss_mib, r.maxrss_mib);
    }
    std::sort(ms.begin(), ms.end());
    s.median_ms = ms[ms.size() / 2];
    s.min_ms = ms.front();
    return s;
}

// ---------------------------------------------------------------------------------------------
// Phase 2: peak memory of one read, each in a fresh process (this program re-executed with
// --peak-child=W:PATH), so nothing a parent allocated or freed is counted or reused.

long status_kib(const char* field) {
    std::ifstream f("/proc/self/status");
    std::string line;
    const std::size_t len = std::strlen(field);
    while (std::getline(f, line)) {
        if (line.compare(0, len, field) == 0 && line.size() > len && line[len] == ':') {
            return std::strtol(line.c_str() + len + 1, nullptr, 10);
        }
    }
    return -1;
}

// EXACTATTN_BENCH_TINY=1 (the test suite's `bench` label, docs/testing.md): the same
// workloads and every phase on prefixes of their data (n = 2000, 1000, 200), in seconds.
bool tiny_run() {
    const char* t = std::getenv("EXACTATTN_BENCH_TINY");
    return t != nullptr && std::string(t) == "1";
}

eb::Workload sized(eb::Workload w) {
    if (tiny_run()) w.n = w.name == "W1" ? 2000 : w.name == "W2" ? 1000 : 200;
    return w;
}

// The child: builds the workload's input for one path, reads once, prints
// "<VmHWM kiB> <VmRSS before the read kiB>".
int peak_child(const std::string& spec) {
    const auto colon = spec.find(':');
    const std::string name = spec.substr(0, colon);
    const std::string path = colon == std::string::npos ? "" : spec.substr(colon + 1);
    const eb::Workload w = sized(name == "W1" ? eb::w1() : name == "W2" ? eb::w2() : eb::w3());
    long before = -1;
    if (path == "exact") {
        eb::IntegerData data = eb::integer_data(w, w.n);
        const ReadRequest req = eb::exact_request(data);
        const Memory memory = Memory::scaled_integers(w.n, w.d, std::move(data.k), w.unit());
        data.k = {};
        before = status_kib("VmRSS");
        const ReadTrace t = attend(memory, req);
        // Print-ready: a few weights, computed on demand from the compact column, and the context.
        std::size_t chars = 0;
        for (std::size_t j : {std::size_t{0}, w.n / 2, w.n - 1}) {
            chars += exactattn::to_ascii(t.weights.at(j).value_or(Value())).size();
        }
        for (const Value& c : t.context) chars += exactattn::to_ascii(c).size();  // reduced now
        benchmark::DoNotOptimize(chars);
    } else if (path == "double") {
        const eb::DoubleData data = eb::double_data(w, w.n);
        before = status_kib("VmRSS");
        const auto r = eb::read_double(data, w.n, w.d);
        benchmark::DoNotOptimize(r.context.data());
    } else {
        return 2;
    }
    fmt::print("{} {}\n", status_kib("VmHWM"), before);
    return 0;
}

// --profile=W: the read once, then its context reduced (looked at), the first weight, and the
// context printed, each step's real and processor time, for a profiler (perf record …).
int profile(const std::string& name) {
    const eb::Workload w = sized(name == "W1" ? eb::w1() : name == "W2" ? eb::w2() : eb::w3());
    const eb::IntegerData data = eb::integer_data(w, w.n);
    const Memory memory = eb::exact_memory(w, data, w.n);
    const ReadRequest req = eb::exact_request(data);
    auto step = [](const char* what, auto&& f) {
        const auto t0 = std::chrono::steady_clock::now();
        const std::clock_t c0 = std::clock();
        const long f0 = eb::minor_faults();
        f();
        const double cpu = static_cast<double>(std::clock() - c0) / static_cast<double>(CLOCKS_PER_SEC);
        const double real = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        fmt::print("{}: {:.2f} ms (processor {:.2f} ms, {} page faults)\n", what, real * 1e3, cpu * 1e3,
                   eb::minor_faults() - f0);
    };
    std::optional<ReadTrace> t;
    step("read", [&] { t.emplace(attend(memory, req)); });
    step("context reduced", [&] { benchmark::DoNotOptimize(t->context.values().data()); });
    step("first weight", [&] { benchmark::DoNotOptimize(t->weights.at(0)); });
    std::size_t chars = 0;
    step("context printed (ascii)", [&] {
        for (const Value& c : t->context) chars += exactattn::to_ascii(c).size();
    });
    fmt::print("{} n = {}: {} characters printed\n", w.name, w.n, chars);
    return 0;
}

struct Peak {
    double process_mib = -1;  // VmHWM of the process: input + read + result
    double read_mib = -1;     // VmHWM minus VmRSS just before the read
};

Peak peak_of(const eb::Workload& w, const char* path) {
    std::string out;
    const auto r = run_process({"/proc/self/exe", fmt::format("--peak-child={}:{}", w.name, path)}, &out);
    Peak p;
    long hwm = -1;
    long before = -1;
    if (r.code == 0 && std::sscanf(out.c_str(), "%ld %ld", &hwm, &before) == 2 && hwm > 0) {
        p.process_mib = static_cast<double>(hwm) / 1024.0;
        p.read_mib = static_cast<double>(hwm - before) / 1024.0;
    }
    return p;
}

// ---------------------------------------------------------------------------------------------
// Phase 4: timings. Data lives in globals so the benchmark functions share it.

struct Data {
    eb::Workload w;
    std::size_t n = 0;
    eb::IntegerData ints;
    eb::DoubleData doubles;
    std::unique_ptr<Memory> memory;
    ReadRequest request;
};

std::map<std::string, std::unique_ptr<Data>> g_data;  // key: workload name + "/" + n
std::optional<eb::NaiveResult> g_naive;

Data& data_for(const eb::Workload& w, std::size_t n) {
    const std::string key = fmt::format("{}/{}", w.name, n);
    auto& slot = g_data[key];
    if (!slot) {
        slot = std::make_unique<Data>();
        slot->w = w;
        slot->n = n;
        slot->ints = eb::integer_data(w, n);
        slot->doubles = eb::double_data(w, n);
        slot->memory = std::make_unique<Memory>(eb::exact_memory(w, slot->ints, n));
        slot->request = eb::exact_request(slot->ints);
    }
    return *slot;
}

// Every repetition's time per iteration, by benchmark name (seconds).
std::map<std::string, std::vector<double>> g_times;

class Reporter : public benchmark::ConsoleReporter {
  public:
    Reporter() : ConsoleReporter(OO_Tabular) {}  // no colour codes in logs
    void ReportRuns(const std::vector<Run>& runs) override {
        std::vector<Run> shown;
        for (const auto& r : runs) {
            if (r.error_occurred) {
                g_errors = true;
                shown.push_back(r);
                continue;
            }
            if (r.run_type == Run::RT_Iteration) {
                g_times[r.run_name.function_name].push_back(r.real_accumulated_time /
                                                            static_cast<double>(r.iterations));
                if (r.repetitions <= 1) shown.push_back(r);
            } else if (r.aggregate_name == "median" || r.aggregate_name == "min") {
                shown.push_back(r);
            }
        }
        if (!shown.empty()) ConsoleReporter::ReportRuns(shown);
    }
    static inline bool g_errors = false;
};

double min_of(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }
double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}
double min_stat(const std::vector<double>& v) { return min_of(v); }

void register_pair(const std::string& label, const eb::Workload& w, std::size_t n, const Options& o,
                   bool observed = false) {
    Data* data = &data_for(w, n);
    auto common = [&](benchmark::internal::Benchmark* b) {
        b->UseRealTime()
            ->Unit(benchmark::kMillisecond)
            ->Repetitions(o.repetitions)
            ->MinTime(o.min_time)
            ->ComputeStatistics("min", min_stat);
    };
    common(benchmark::RegisterBenchmark((label + "/exact").c_str(), [data](benchmark::State& st) {
        for (auto _ : st) {
            ReadTrace t = attend(*data->memory, data->request);
            if (!t.fast_path) st.SkipWithError("the exact read did not take the fast path");
            benchmark::DoNotOptimize(t);
        }
    }));
    if (observed) {
        // The read and then every context entry looked at (the fast path reduces them to
        // canonical form on first use, deferred.hpp) and the first weight: what a caller that
        // prints the context pays.
        common(benchmark::RegisterBenchmark((label + "/observed").c_str(), [data](benchmark::State& st) {
            for (auto _ : st) {
                ReadTrace t = attend(*data->memory, data->request);
                if (!t.fast_path) st.SkipWithError("the exact read did not take the fast path");
                benchmark::DoNotOptimize(t.context.values().data());
                benchmark::DoNotOptimize(t.weights.at(0));
            }
        }));
    }
    common(benchmark::RegisterBenchmark((label + "/double").c_str(), [data](benchmark::State& st) {
        for (auto _ : st) {
            auto r = eb::read_double(data->doubles, data->n, data->w.d);
            benchmark::DoNotOptimize(r);
        }
    }));
}

std::string mib(double x) { return x < 0 ? std::string("?") : fmt::format("{:.0f}", x); }

}  // namespace

int main(int argc, char** argv) {
    Options o;
    std::vector<char*> gb_args = {argv[0]};
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a.rfind("--peak-child=", 0) == 0) return peak_child(a.substr(13));
        if (a.rfind("--profile=", 0) == 0) return profile(a.substr(10));
        if (a == "--no-naive")
            o.naive = false;
        else if (a == "--timings-only")
            o.timings_only = true;
        else if (a.rfind("--repetitions=", 0) == 0)
            o.repetitions = std::max(1, std::atoi(a.c_str() + 14));
        else if (a.rfind("--min-time=", 0) == 0)
            o.min_time = std::atof(a.c_str() + 11);
        else
            gb_args.push_back(argv[i]);
    }
    std::string interleave = "--benchmark_enable_random_interleaving=true";
    gb_args.insert(gb_args.begin() + 1, interleave.data());
    int gb_argc = static_cast<int>(gb_args.size());

    const eb::Workload W1 = sized(eb::w1());
    const eb::Workload W2 = sized(eb::w2());
    const eb::Workload W3 = sized(eb::w3());
    std::vector<std::size_t> scaling = {10'000, 100'000};
    int times = 25;
    if (tiny_run()) {
        scaling = {200, 1000};
        times = 2;
        o.repetitions = 1;
        o.min_time = 0.01;
    }

    bool ok = true;
    std::map<std::string, std::pair<Peak, Peak>> peaks;
    ProcessStats run_stats;
    ProcessStats verify_stats;
    ProcessStats cross_stats;
    if (!o.timings_only) {
        // 1. Checks.
        fmt::print("== checks: fast path == general path (attend_general), same seeds, smaller n\n");
        ok = check_workload(W1, std::min<std::size_t>(W1.n, 3000));
        ok = check_workload(W2, std::min<std::size_t>(W2.n, 3000)) && ok;
        ok = check_workload(W3, 60) && ok;
        if (!ok) {
            fmt::print("benchmark stopped: the fast path disagrees with the general path\n");
            return 1;
        }

        // 2. Peak memory.
        fmt::print("\n== peak memory (one read per fresh process; input + read + result)\n");
        for (const auto* w : {&W1, &W2, &W3}) {
            const Peak e = peak_of(*w, "exact");
            const Peak d = peak_of(*w, "double");
            peaks[w->name] = {e, d};
            fmt::print(
                "{}: exact {} MiB (read {} MiB), double {} MiB (read {} MiB); "
                "input n·d = {}·{} numbers\n",
                w->name, mib(e.process_mib), mib(e.read_mib), mib(d.process_mib), mib(d.read_mib), w->n, w->d);
        }

        // 3. W4.
        fmt::print("\n== W4: the Chapter 14 scenario, one process per command\n");
        const std::string bin = EXACTATTN_BINARY;
        const std::string scenario = std::string(EXACTATTN_SOURCE_DIR) + "/data/chapter14/chapter14.json";
        std::string help;
        run_process({bin, "--help"}, &help);
        const bool has_crosscheck = help.find("crosscheck") != std::string::npos;
        run_stats = time_process({bin, "run", scenario}, times);
        verify_stats = time_process({bin, "verify", scenario}, times);
        if (has_crosscheck) cross_stats = time_process({bin, "crosscheck", scenario}, times);
        auto show_proc = [&](const char* name, const ProcessStats& s) {
            if (!s.ran) {
                fmt::print("{}: not available in this build (no crosscheck subcommand)\n", name);
                return;
            }
            fmt::print("{}: median {:.1f} ms, min {:.1f} ms over {} processes, peak {} MiB{}\n", name, s.median_ms,
                       s.min_ms, times, mib(s.maxrss_mib), s.ok ? "" : "  (FAILED: nonzero exit)");
        };
        show_proc("exactattn run chapter14.json", run_stats);
        show_proc("exactattn verify chapter14.json", verify_stats);
        show_proc("exactattn crosscheck chapter14.json", cross_stats);
    }

    // 4. Timings.
    fmt::print("\n== timings (Google Benchmark; repetitions interleaved; real time)\n");
    std::fflush(stdout);
    register_pair("W1", W1, W1.n, o, true);
    register_pair("W2", W2, W2.n, o, true);
    register_pair("W3", W3, W3.n, o, true);
    for (auto n : scaling) register_pair(fmt::format("scaling/{}", n), W1, n, o);
    if (o.naive) {
        Data* data = &data_for(W1, W1.n);
        benchmark::RegisterBenchmark("W5/naive",
                                     [data](benchmark::State& st) {
                                         for (auto _ : st) {
                                             g_naive = eb::read_naive(data->ints, data->n, data->w.d);
                                             benchmark::DoNotOptimize(*g_naive);
                                         }
                                     })
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond)
            ->Iterations(1)
            ->Repetitions(1);
    }
    benchmark::Initialize(&gb_argc, gb_args.data());
    Reporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    if (Reporter::g_errors) {
        fmt::print("benchmark stopped: a benchmark reported an error\n");
        return 1;
    }

    // 5. The exact W1 result: print-ready without materializing n values; equal to the naive
    // loop and close to the double read.
    fmt::print("\n== W1's exact result (weights computed on demand from the compact column)\n");
    Data& d1 = data_for(W1, W1.n);
    const ReadTrace t1 = attend(*d1.memory, d1.request);
    {
        const auto t0 = std::chrono::steady_clock::now();
        const std::size_t n = W1.n;
        for (std::size_t j : {std::size_t{0}, std::size_t{1}, n / 2, n - 1}) {
            const Value w = t1.weights.at(j).value_or(Value());
            fmt::print("weight[{}] = {}\n  ≈ {}\n", j + 1, exactattn::to_ascii(w), exactattn::to_significant(w, 15));
        }
        fmt::print("denominator = {}\n  ≈ {}\n", exactattn::to_ascii(t1.denominator),
                   exactattn::to_significant(t1.denominator, 15));
        fmt::print("context[1] = {}\n  ≈ {}\n", exactattn::to_ascii(t1.context[0]),
                   exactattn::to_significant(t1.context[0], 15));
        const auto t2 = std::chrono::steady_clock::now();
        fmt::print("printing these took {:.1f} ms\n", std::chrono::duration<double, std::milli>(t2 - t0).count());
        const auto r = eb::read_double(d1.doubles, n, W1.d);
        double worst = 0;
        for (std::size_t i = 0; i < W1.d; ++i) {
            const double x = exactattn::to_double(t1.context[i]);
            worst = std::max(worst, std::abs(r.context[i] - x) / std::max(std::abs(x), 1e-300));
        }
        fmt::print("double read vs exact context: largest relative difference {:.2e}\n", worst);
    }
    if (g_naive) {
        const std::string diff = eb::naive_difference(*g_naive, t1, {0, 1, W1.n / 2, W1.n - 1});
        fmt::print("naive mpq_class loop vs exact read: {}\n",
                   diff.empty() ? "equal (denominator, every context entry, sampled weights)" : diff);
        if (!diff.empty()) ok = false;
        g_naive.reset();
    }
    {
        std::int64_t lo = 0;
        std::int64_t hi = 0;
        Data& d3 = data_for(W3, W3.n);
        for (std::size_t j = 0; j < W3.n; ++j) {
            std::int64_t s = 0;
            for (std::size_t i = 0; i < W3.d; ++i) s += d3.ints.query[i] * d3.ints.k[j * W3.d + i];
            lo = j == 0 ? s : std::min(lo, s);
            hi = j == 0 ? s : std::max(hi, s);
        }
        fmt::print("W3 scores span [{}, {}]·a\n", lo, hi);
    }

    // 6. Summary.
    // Benchmarks left out by a --benchmark_filter read as NaN.
    auto t = [](const std::string& name) {
        const auto it = g_times.find(name);
        return it == g_times.end() ? std::nan("") : min_of(it->second);
    };
    auto tmed = [](const std::string& name) {
        const auto it = g_times.find(name);
        return it == g_times.end() ? std::nan("") : median_of(it->second);
    };
    fmt::print("\n== scaling of the exact read in n·d (W1's data, d = 16; min over repetitions)\n");
    fmt::print("{:>9} {:>10} {:>11} {:>11} {:>13} {:>15}\n", "n", "n·d", "exact ms", "double ms", "exact/double",
               "exact ns/(n·d)");
    for (std::size_t n : {scaling[0], scaling[1], W1.n}) {
        const std::string label = n == W1.n ? "W1" : fmt::format("scaling/{}", n);
        const double e = t(label + "/exact");
        const double dd = t(label + "/double");
        fmt::print("{:>9} {:>10} {:>11.3f} {:>11.3f} {:>12.2f}x {:>15.2f}\n", n, n * W1.d, e * 1e3, dd * 1e3, e / dd,
                   e * 1e9 / static_cast<double>(n * W1.d));
    }
    // The targets of issue 6, from the numbers above.
    fmt::print("\n== targets (issue 6)\n");
    auto verdict = [](bool pass) { return pass ? "met" : "MISSED"; };
    auto ratio_of = [&](const eb::Workload& w) { return t(w.name + "/exact") / t(w.name + "/double"); };
    fmt::print("W1 exact ≤ 10x the double read (goal ≤ 5x): {:.2f}x, {}\n", ratio_of(W1), verdict(ratio_of(W1) <= 10));
    if (o.naive) {
        const double speedup = t("W5/naive") / t("W1/exact");
        fmt::print("W1 exact ≥ 25x faster than the naive mpq_class loop: {:.0f}x, {}\n", speedup,
                   verdict(speedup >= 25));
    }
    if (!o.timings_only) {
        const double mem = peaks["W1"].first.process_mib / peaks["W1"].second.process_mib;
        fmt::print("W1 peak memory ≤ 2x the double read's: {:.2f}x, {}\n", mem, verdict(mem <= 2));
    }
    fmt::print("W2 ≤ 20x: {:.2f}x, {}\n", ratio_of(W2), verdict(ratio_of(W2) <= 20));
    fmt::print("W3 ≤ 20x: {:.2f}x, {}\n", ratio_of(W3), verdict(ratio_of(W3) <= 20));
    {
        const double observed = t("W3/observed") / t("W3/double");
        fmt::print(
            "W3 ≤ 5x (issue 17): the read {:.2f}x, {}; the read and its context reduced to "
            "canonical form {:.2f}x\n",
            ratio_of(W3), verdict(ratio_of(W3) <= 5), observed);
    }
    if (!o.timings_only) {
        const double worst =
            std::max({run_stats.median_ms, verify_stats.median_ms, cross_stats.ran ? cross_stats.median_ms : 0.0});
        fmt::print("W4 ≤ 20 ms per process: slowest command {:.1f} ms (median), {}\n", worst, verdict(worst <= 20));
    }
    {
        const double lo = t(fmt::format("scaling/{}/exact", scaling[0])) / static_cast<double>(scaling[0]);
        const double hi = t("W1/exact") / static_cast<double>(W1.n);
        fmt::print("linear in n·d: time per n·d at n = {} / at n = {} = {:.2f}\n", W1.n, scaling[0], hi / lo);
    }

    fmt::print("\n== summary (ratios of the minimum over repetitions; medians in parentheses)\n");
    for (const auto* w : {&W1, &W2, &W3}) {
        const auto& [pe, pd] = peaks[w->name];
        const double ratio = t(w->name + "/exact") / t(w->name + "/double");
        const double ratio_med = tmed(w->name + "/exact") / tmed(w->name + "/double");
        fmt::print(
            "{}: exact/double = {:.2f}x, peak memory {} MiB (median ratio {:.2f}x; exact "
            "{:.2f} ms, double {:.2f} ms; double path peak {} MiB, memory ratio {:.2f}x; "
            "with the context looked at {:.2f}x, {:.2f} ms)\n",
            w->name, ratio, mib(pe.process_mib), ratio_med, t(w->name + "/exact") * 1e3, t(w->name + "/double") * 1e3,
            mib(pd.process_mib), pe.process_mib / pd.process_mib, t(w->name + "/observed") / t(w->name + "/double"),
            t(w->name + "/observed") * 1e3);
    }
    fmt::print("W4: run {:.1f} ms, verify {:.1f} ms, crosscheck {} per process, peak memory {} MiB\n",
               run_stats.median_ms, verify_stats.median_ms,
               cross_stats.ran ? fmt::format("{:.1f} ms", cross_stats.median_ms) : std::string("n/a"),
               mib(std::max({run_stats.maxrss_mib, verify_stats.maxrss_mib, cross_stats.maxrss_mib})));
    if (o.naive) {
        const double naive = t("W5/naive");
        fmt::print("W5: naive/exact = {:.0f}x (naive mpq_class loop {:.1f} s, exact {:.1f} ms, on W1's data)\n",
                   naive / t("W1/exact"), naive, t("W1/exact") * 1e3);
    } else {
        fmt::print("W5: skipped (--no-naive)\n");
    }
    if ((run_stats.ran && !run_stats.ok) || (verify_stats.ran && !verify_stats.ok) ||
        (cross_stats.ran && !cross_stats.ok)) {
        ok = false;
    }
    return ok ? 0 : 1;
}
