// SPDX-License-Identifier: MIT
// exactattn: the limits in force (a thread's innermost ScopedLimits, else the process
// defaults), their one table of names, the one phrasing of a refusal, and the job's work budget.
#include "exactattn/limits.hpp"

#include <fmt/format.h>
#include <gmp.h>
#include <mpfr.h>

#include <array>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <iterator>
#include <limits>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include "exactattn/print.hpp"

// GMP's own memory functions (exported by libgmp, declared only in its private gmp-impl.h).
extern "C" {
void* __gmp_default_allocate(std::size_t);
void* __gmp_default_reallocate(void*, std::size_t, std::size_t);
void __gmp_default_free(void*, std::size_t);
}

namespace exactattn {

namespace {
Limits& process_defaults() {
    static Limits l;
    return l;
}
// The calling thread's innermost ScopedLimits, or null. Thread-local, so two threads (two
// Python calls with the GIL released) each compute under their own limits.
thread_local const Limits* scoped = nullptr;
// The calling thread's job (WorkBudget), or null.
thread_local WorkBudget* current_job = nullptr;
thread_local std::vector<double>* current_recorder = nullptr;  // WorkRecorder
std::atomic<LimitAudience> audience{LimitAudience::Library};

struct LimitRow {
    Limit which;
    const char* name;
    const char* unit;            // appended to the value in messages
    const char* option;          // the command line option that sets it, or null
    std::int64_t Limits::*wide;  // the field (one of the two)
    int Limits::*narrow;
};

// The one table of the limits: every message names a limit through it, and the Python module
// lists, reads and sets them through it (in this order: `current_limits()` is a dict in it).
// A new field of Limits is one enumerator of Limit and one row here; `LimitTable.*`
// (tests/unit/core/limits_test.cpp) fails while a field has no row.
constexpr LimitRow kRows[] = {
    {Limit::max_exponent, "max_exponent", "", nullptr, &Limits::max_exponent, nullptr},
    {Limit::max_root, "max_root", "", nullptr, nullptr, &Limits::max_root},
    {Limit::max_bits, "max_bits", " bits", nullptr, &Limits::max_bits, nullptr},
    {Limit::max_degree, "max_degree", "", nullptr, nullptr, &Limits::max_degree},
    {Limit::max_precision, "max_precision", " bits", nullptr, &Limits::max_precision, nullptr},
    {Limit::max_positions, "max_positions", "", nullptr, &Limits::max_positions, nullptr},
    {Limit::max_cells, "max_cells", "", nullptr, &Limits::max_cells, nullptr},
    {Limit::max_memory_bytes, "max_memory_bytes", " bytes", nullptr, &Limits::max_memory_bytes, nullptr},
    {Limit::max_value_bits, "max_value_bits", " bits", nullptr, &Limits::max_value_bits, nullptr},
    {Limit::max_file_bytes, "max_file_bytes", " bytes", nullptr, &Limits::max_file_bytes, nullptr},
    {Limit::max_nesting, "max_nesting", "", nullptr, nullptr, &Limits::max_nesting},
    {Limit::max_work, "max_work", " work units", "--max-work", &Limits::max_work, nullptr},
    {Limit::max_report_cells, "max_report_cells", "", nullptr, &Limits::max_report_cells, nullptr},
    {Limit::max_decoder_steps, "max_decoder_steps", "", nullptr, &Limits::max_decoder_steps, nullptr},
    {Limit::max_target_vocabulary, "max_target_vocabulary", "", nullptr, &Limits::max_target_vocabulary, nullptr},
    {Limit::max_figure_positions, "max_figure_positions", "", nullptr, &Limits::max_figure_positions, nullptr},
    {Limit::max_variants, "max_variants", "", nullptr, &Limits::max_variants, nullptr},
    {Limit::max_variant_draws, "max_variant_draws", "", nullptr, &Limits::max_variant_draws, nullptr},
};

const LimitRow& row(Limit which) {
    for (const auto& r : kRows) {
        if (r.which == which) return r;
    }
    return kRows[0];  // unreachable: every enumerator has a row (the static_assert below)
}

constexpr bool one_row_each() {
    constexpr std::size_t n = std::size(kRows);
    for (std::size_t i = 0; i < n; ++i) {
        const auto w = static_cast<std::size_t>(kRows[i].which);
        if (w >= n || (kRows[i].wide == nullptr) == (kRows[i].narrow == nullptr)) return false;
        for (std::size_t j = 0; j < i; ++j) {
            if (kRows[j].which == kRows[i].which) return false;
        }
    }
    return true;
}
// Every enumerator of Limit (numbered 0 to n - 1) has exactly one row, with one field.
static_assert(one_row_each(), "one row a Limit in kRows, each naming one field of Limits");

double clamp_units(double v) { return std::isfinite(v) ? v : 1e300; }
void* gmp_allocate(std::size_t n) {
    for (;;) {
        if (void* p = std::malloc(n)) return p;
        if (const auto handler = std::get_new_handler()) {
            handler();
        } else {
            throw std::bad_alloc();
        }
    }
}
void* gmp_reallocate(void* old, std::size_t /*old_size*/, std::size_t n) {
    for (;;) {
        if (void* p = std::realloc(old, n)) return p;
        if (const auto handler = std::get_new_handler()) {
            handler();
        } else {
            throw std::bad_alloc();
        }
    }
}
void gmp_free(void* p, std::size_t /*size*/) { std::free(p); }
}  // namespace

void use_throwing_gmp_allocator() { mp_set_memory_functions(gmp_allocate, gmp_reallocate, gmp_free); }

bool use_throwing_gmp_allocator_if_default() {
    void* (*a)(std::size_t) = nullptr;
    void* (*r)(void*, std::size_t, std::size_t) = nullptr;
    void (*f)(void*, std::size_t) = nullptr;
    mp_get_memory_functions(&a, &r, &f);
    if (a == gmp_allocate && r == gmp_reallocate && f == gmp_free) return true;
    if (a != __gmp_default_allocate || r != __gmp_default_reallocate || f != __gmp_default_free) return false;
    use_throwing_gmp_allocator();
    return true;
}

const Limits& limits() { return scoped != nullptr ? *scoped : process_defaults(); }
void set_limits(const Limits& l) { process_defaults() = l; }

ScopedLimits::ScopedLimits(const Limits& l) : limits_(l), saved_(scoped) { scoped = &limits_; }
ScopedLimits::~ScopedLimits() { scoped = saved_; }

void release_thread_caches() { mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE); }

const char* limit_name(Limit which) { return row(which).name; }

std::span<const Limit> all_limits() {
    static const auto order = [] {
        std::array<Limit, std::size(kRows)> a{};
        for (std::size_t i = 0; i < a.size(); ++i) a[i] = kRows[i].which;
        return a;
    }();
    return order;
}

std::optional<Limit> find_limit(std::string_view name) {
    for (const auto& r : kRows) {
        if (name == r.name) return r.which;
    }
    return std::nullopt;
}

std::int64_t limit_ceiling(Limit which) {
    return row(which).wide != nullptr ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<int>::max();
}

void set_limit_value(Limits& l, Limit which, std::int64_t value) {
    const auto& r = row(which);
    if (r.wide != nullptr) {
        l.*(r.wide) = value;
    } else {
        l.*(r.narrow) = static_cast<int>(value);
    }
}

std::int64_t limit_value(const Limits& l, Limit which) {
    const auto& r = row(which);
    return r.wide != nullptr ? l.*(r.wide) : static_cast<std::int64_t>(l.*(r.narrow));
}

void set_limit_audience(LimitAudience a) { audience.store(a); }
LimitAudience limit_audience() { return audience.load(); }

Error over_limit(Limit which, std::string_view what, Location where, std::string_view advice) {
    const auto& r = row(which);
    std::string hint;
    switch (audience.load()) {
        case LimitAudience::CommandLine:
            if (r.option != nullptr) hint = fmt::format("; {} raises it", r.option);
            break;
        case LimitAudience::Python:
            hint = fmt::format("; exactattn.limits({}=...) raises it", r.name);
            break;
        case LimitAudience::Library:
            break;
    }
    return limit_error(fmt::format("{}, over the limit of {}{} (limits: {}{}){}{}", what, limit_value(limits(), which),
                                   r.unit, r.name, hint, advice.empty() ? "" : "; ", advice),
                       std::move(where));
}

WorkBudget::WorkBudget() : parent_(current_job) { current_job = this; }
WorkBudget::~WorkBudget() { current_job = parent_; }
WorkBudget* WorkBudget::current() { return current_job; }

WorkBudget::Share::Share(WorkBudget* job) : saved_(current_job) { current_job = job; }
WorkBudget::Share::~Share() { current_job = saved_; }

// s^1.35 fits GMP's products from schoolbook through Toom (and the elimination's estimate);
// past about 10^5 bits FFT multiplication grows as s·log s, which the second term follows (the
// two meet there), so that a product of 60-Mbit numbers is not overestimated fivefold.
// Small numbers cost what allocating and reducing a fraction costs, about 0.1 µs whatever
// their size: a fixed share per operation, so that millions of small operations (a rollout's
// distributions over a vocabulary) are counted as what they take, not as a few products.
constexpr double kWorkPerOperation = 4000;
double multiplication_work(double bits) {
    const double s = std::max(bits, 2.0);
    return kWorkPerOperation + std::min(std::pow(s, 1.35), 3.4 * s * std::log2(s));
}

bool work_fits(double units) {
    const double spent = current_job != nullptr ? current_job->spent() : 0;
    return spent + clamp_units(units) <= static_cast<double>(limits().max_work);
}

bool charge_work(double units) {
    units = clamp_units(units);
    const double budget = static_cast<double>(limits().max_work);
    if (current_job == nullptr) {
        if (units > budget) return false;
        if (current_recorder != nullptr) current_recorder->push_back(units);
        return true;
    }
    for (WorkBudget* job = current_job; job != nullptr; job = job->parent_) {
        const double before = job->spent_.fetch_add(units, std::memory_order_relaxed);
        if (before + units > budget) {
            // Not spent after all: the step does not run, so a caller that catches the refusal
            // and goes on is charged only for what ran.
            for (WorkBudget* undo = current_job;; undo = undo->parent_) {
                undo->spent_.fetch_sub(units, std::memory_order_relaxed);
                if (undo == job) break;
            }
            return false;
        }
    }
    if (current_recorder != nullptr) current_recorder->push_back(units);
    return true;
}

WorkRecorder::WorkRecorder(std::vector<double>& steps) : saved_(current_recorder) { current_recorder = &steps; }
WorkRecorder::~WorkRecorder() { current_recorder = saved_; }

bool charge_steps(const std::vector<double>& steps) {
    double total = 0;
    for (const double u : steps) total += u;
    if (current_job == nullptr) {  // each step alone is held to the limit; nothing is spent
        for (const double u : steps) {
            if (!charge_work(u)) return false;
        }
        return true;
    }
    if (!work_fits(total)) return false;
    // Each step as it was charged: the job adds the same steps as computing the value again would.
    for (const double u : steps) {
        if (!charge_work(u)) throw over_work(u, "charging a value printed before");  // rounding at the limit
    }
    return true;
}

namespace {

Error work_error(double units, const std::string& what, double spent) {
    if (spent <= 0)
        return over_limit(Limit::max_work, fmt::format("{} would take about {:.2g} work units", what, units));
    return over_limit(Limit::max_work,
                      fmt::format("{} would take about {:.2g} work units, after {:.2g} spent already by "
                                  "this job (the budget is the whole job's)",
                                  what, units, spent));
}

}  // namespace

WorkRefusal::WorkRefusal(const Error& error, double units, std::string what, double spent, bool has_place)
    : Error(error), units_(units), what_(std::move(what)), spent_(spent), has_place_(has_place) {}

WorkRefusal::WorkRefusal(double units, std::string what, double spent)
    : WorkRefusal(work_error(units, what, spent), units, what, spent, false) {}

WorkRefusal WorkRefusal::at(std::string_view place) const {
    if (has_place_) return *this;
    std::string what = what_ + std::string(place);
    const Error rebuilt = work_error(units_, what, spent_);
    return {Error(rebuilt.kind(), where(), rebuilt.reason()), units_, std::move(what), spent_, true};
}

WorkRefusal over_work(double units, std::string_view what) {
    units = clamp_units(units);
    return {units, std::string(what), current_job != nullptr ? current_job->spent() : 0};
}

void run_parallel(std::size_t count, std::size_t jobs, const std::function<void(std::size_t)>& task) {
    std::atomic<std::size_t> next{0};
    // The lowest index that failed (count: none); indices above it are not started.
    std::atomic<std::size_t> stop{count};
    std::mutex mu;
    std::exception_ptr first;
    std::size_t first_at = count;
    auto work = [&] {
        for (;;) {
            const std::size_t i = next.fetch_add(1);
            if (i >= count || i > stop.load()) return;
            try {
                task(i);
            } catch (...) {
                const std::lock_guard<std::mutex> lock(mu);
                if (i < first_at) {
                    first_at = i;
                    first = std::current_exception();
                    stop.store(i);
                }
            }
        }
    };
    const std::size_t n = std::min(jobs, count);
    if (n <= 1) {
        work();
    } else {
        std::vector<std::thread> pool;
        pool.reserve(n);
        // The workers compute under the caller's limits and charge the caller's job: the
        // budget is the whole command's, not one file's (docs/limits.md).
        const Limits caller = limits();
        WorkBudget* const job = WorkBudget::current();
        for (std::size_t t = 0; t < n; ++t) {
            pool.emplace_back([&work, &caller, job] {
                {
                    const ScopedLimits scoped(caller);
                    const WorkBudget::Share share(job);
                    work();
                }
                // The library's per-thread caches outlive a thread's exit: freed here, or every
                // file verified in parallel leaks them.
                release_thread_caches();
            });
        }
        for (auto& t : pool) t.join();
    }
    if (first) std::rethrow_exception(first);
}

}  // namespace exactattn
