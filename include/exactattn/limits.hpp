// SPDX-License-Identifier: MIT
// exactattn: resource limits (docs/limits.md) that no honest input reaches.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "exactattn/error.hpp"

namespace exactattn {

/// Caps on the work one input may ask for. Past a cap the engine throws a LimitError that
/// names the cap, instead of exhausting memory or time. The defaults are documented in
/// docs/limits.md.
struct Limits {
    /// Largest |r| in 2^r = exp(r·a) (and in an integer power x^n, largest |n|).
    std::int64_t max_exponent = std::int64_t{1} << 20;
    /// Largest root degree m of the field Q(2^(1/m)).
    int max_root = 64;
    /// Largest size, in bits, of a numerator or denominator.
    std::int64_t max_bits = std::int64_t{1} << 24;
    /// Largest power of a in a value.
    int max_degree = 64;
    /// Largest working precision, in bits, of certified sign and rounding.
    std::int64_t max_precision = std::int64_t{1} << 22;
    /// Largest number of memory rows (positions) of one read or source.
    std::int64_t max_positions = 10'000'000;
    /// Largest number of exact numbers in one memory (rows × width).
    std::int64_t max_cells = 40'000'000;
    /// Largest storage of one memory's exact numbers, in bytes (estimated from their sizes; a
    /// compact memory takes 8 bytes a number, general values about 100 to 300 bytes each and
    /// more for large numbers). It keeps max_positions rows of large values from exhausting
    /// the machine's memory.
    std::int64_t max_memory_bytes = std::int64_t{1} << 30;
    /// Largest total size, in bits, of the numerators and denominators of one value (all its
    /// coefficients together; max_bits caps each one).
    std::int64_t max_value_bits = std::int64_t{1} << 27;
    /// The work budget of one job (a command, a Python call; see WorkBudget), in work units:
    /// every multiplication or exact division of s-bit numbers counts s^1.35 (an elimination's
    /// entries followed symbolically, a certified evaluation at its working precision). Each
    /// costly step is estimated before it starts and refused when it would take the job past
    /// the budget; outside a job each step alone is held to it. About 5·10^10 to 10^11 units
    /// take a second here, so a job stays under about 3 s (docs/limits.md, "The work budget").
    std::int64_t max_work = std::int64_t{1} << 37;
    /// Largest number of exact values one run report may hold (states, scores, exponentials,
    /// weights, contexts of every read and intervention row), estimated from the declarations
    /// before anything is computed. An intervention table over n positions has n + 1 rows of n
    /// positions each, so a few kilobytes of tokens can ask for gigabytes of report.
    std::int64_t max_report_cells = std::int64_t{1} << 21;
    /// Largest number of decoder steps of one rollout regime (each step is a read over the source,
    /// a state update and a softmax over the target vocabulary).
    std::int64_t max_decoder_steps = 1024;
    /// Largest target vocabulary of a decoder (each step scores and compares every token).
    std::int64_t max_target_vocabulary = 4096;
    /// Largest number of positions (source positions, query or key positions, decoder steps,
    /// intervention rows) one figure draws, and of reads side by side: past it the labels
    /// would not be legible at a column's width of 12 cm.
    std::int64_t max_figure_positions = 32;
    /// Largest input file, in bytes.
    std::int64_t max_file_bytes = std::int64_t{1} << 30;
    /// Largest nesting depth of an expression (parentheses, unary signs, powers) and of a JSON
    /// document.
    int max_nesting = 200;
    /// Largest number of variants one `variants` run may write.
    std::int64_t max_variants = 1000;
    /// Largest number of draws for one variant (docs/variants.md): a variant that fails its
    /// constraints is redrawn, and a request still unmet after this many draws is refused
    /// with the constraint that failed most.
    std::int64_t max_variant_draws = 200;
};

/// The limits in force on the calling thread: its innermost ScopedLimits, else the process
/// defaults.
const Limits& limits();
/// Sets the process defaults, which every thread without a ScopedLimits of its own uses
/// (call it before starting threads).
void set_limits(const Limits& l);

/// RAII: other limits for the calling thread only, for a scope (tests; the Python module's
/// `exactattn.limits`). Other threads keep theirs, so two threads may compute at once under
/// different limits. Scopes nest and end in reverse order on the thread that began them.
class ScopedLimits {
  public:
    explicit ScopedLimits(const Limits& l);
    ~ScopedLimits();
    ScopedLimits(const ScopedLimits&) = delete;
    ScopedLimits& operator=(const ScopedLimits&) = delete;

  private:
    Limits limits_;
    const Limits* saved_;
};

/// Frees what the library keeps per thread (MPFR's constants, such as ln 2 for the certified
/// intervals): a thread's exit does not free it, so a thread of your own that used the library
/// calls this last, or each such thread leaks it.
void release_thread_caches();

/// The fields of Limits, one name each (the table in src/core/limits.cpp gives each its name,
/// unit and accessor; messages, the command line and the Python module read it).
enum class Limit {
    max_exponent,
    max_root,
    max_bits,
    max_value_bits,
    max_degree,
    max_precision,
    max_work,
    max_positions,
    max_cells,
    max_memory_bytes,
    max_report_cells,
    max_figure_positions,
    max_file_bytes,
    max_decoder_steps,
    max_target_vocabulary,
    max_nesting,
    max_variants,
    max_variant_draws,
};
/// The field's name, e.g. "max_bits".
[[nodiscard]] const char* limit_name(Limit which);
/// The field's value in `l`.
[[nodiscard]] std::int64_t limit_value(const Limits& l, Limit which);
/// Every limit, each once, in the order the Python module lists them (`current_limits()`).
[[nodiscard]] std::span<const Limit> all_limits();
/// The limit whose field is named `name` ("max_bits"), or none.
[[nodiscard]] std::optional<Limit> find_limit(std::string_view name);
/// The largest value the field can hold (an `int` field's is INT_MAX).
[[nodiscard]] std::int64_t limit_ceiling(Limit which);
/// Sets the field in `l` to `value` (at most limit_ceiling(which); the caller checks the range).
void set_limit_value(Limits& l, Limit which, std::int64_t value);

/// Who reads the refusals, so that they name the option that raises a limit: the command line
/// tool (`--max-work`), the Python module (`exactattn.limits(max_work=…)`), or a C++ program
/// (`set_limits`, the default). Set once by the front end.
enum class LimitAudience { Library, CommandLine, Python };
void set_limit_audience(LimitAudience audience);
/// The audience set_limit_audience set (Library until a front end sets one): a library message
/// that names an option names it as its reader writes it.
[[nodiscard]] LimitAudience limit_audience();

/// The one phrasing of a refusal at a limit: `<what>, over the limit of <value><unit>
/// (limits: <name>[; <option> raises it])[; <advice>]`, with the value in force on the calling
/// thread. `what` says what asked for how much, e.g. "a number would need 20000000 bits";
/// `advice`, if any, what to do instead.
[[nodiscard]] Error over_limit(Limit which, std::string_view what, Location where = {}, std::string_view advice = {});

/// Makes GMP (and MPFR, which allocates through GMP) report an allocation failure as
/// std::bad_alloc, after calling the new-handler like operator new does, instead of printing
/// "GNU MP: Cannot allocate memory" and aborting the process. The command line tool installs
/// it at start, so running out of memory inside a big-number operation is the one-line `out
/// of memory` error (exit 2) like any other. The exception unwinds through GMP's C frames
/// (built with unwind tables on the supported platforms); what GMP had allocated for the
/// failed operation is lost, once. GMP's memory functions are global to the process and another
/// extension (gmpy2) may own them: the Python module installs it only over GMP's defaults.
void use_throwing_gmp_allocator();
/// use_throwing_gmp_allocator() when GMP still has its own default memory functions (none
/// installed by another extension such as gmpy2), which allocate with the same malloc, realloc
/// and free; true when the throwing allocator is in place. The Python module calls it at import.
bool use_throwing_gmp_allocator_if_default();

/// One job's work budget (docs/limits.md, "The work budget"): while it lives, every costly
/// step on the calling thread (and on threads that share it) is charged to it, and a step that
/// would take the total past limits().max_work is refused with a LimitError naming the step.
/// The command line tool runs each command as one job, the Python module each call. Jobs
/// nest: an inner one charges its own total and its parent's.
class WorkBudget {
  public:
    WorkBudget();
    ~WorkBudget();
    WorkBudget(const WorkBudget&) = delete;
    WorkBudget& operator=(const WorkBudget&) = delete;

    /// Work charged so far, in work units.
    [[nodiscard]] double spent() const { return spent_.load(std::memory_order_relaxed); }
    /// The calling thread's job, or null.
    [[nodiscard]] static WorkBudget* current();

    /// RAII: makes `job` the calling thread's job for a scope (the worker threads of a command
    /// that runs files in parallel share its budget). A null job is no job.
    class Share {
      public:
        explicit Share(WorkBudget* job);
        ~Share();
        Share(const Share&) = delete;
        Share& operator=(const Share&) = delete;

      private:
        WorkBudget* saved_;
    };

  private:
    friend bool charge_work(double);
    std::atomic<double> spent_{0};
    WorkBudget* parent_;
};

/// Runs `task(i)` for i in [0, count) on `jobs` threads (a pool of std::thread taking indices in
/// increasing order; jobs ≤ 1 runs them in this thread). Results are the caller's, stored by
/// index, so their order never depends on scheduling. When tasks throw, the exception of the
/// lowest index is rethrown after every started task has finished, and indices above it are not
/// started: the error reported is the one a sequential run would report.
/// The workers compute under the calling thread's limits and charge its job (the budget is the
/// whole command's or call's), and free their per-thread caches at their end.
void run_parallel(std::size_t count, std::size_t jobs, const std::function<void(std::size_t)>& task);

/// Charges the estimated work of a step about to start to the calling thread's job (and the
/// jobs it nests in); returns false, charging nothing, when that would take a job's total past
/// limits().max_work, or, outside a job, when the step alone is over it. The caller then
/// throws over_work(units, what) instead of running the step.
[[nodiscard]] bool charge_work(double units);
/// The same test without charging: for a step whose parts charge themselves as they go, so
/// that a step too big for what is left is refused before any of it runs.
[[nodiscard]] bool work_fits(double units);
/// Records the units of every step this thread charges while it lives (each recorder its own
/// steps: an inner one hides them from an outer one), so that the steps of a value computed and
/// printed once can be charged again, in the same order, each time it is reused
/// (charge_steps): a layer's table prints each distinct entry of a row once.
class WorkRecorder {
  public:
    explicit WorkRecorder(std::vector<double>& steps);
    ~WorkRecorder();
    WorkRecorder(const WorkRecorder&) = delete;
    WorkRecorder& operator=(const WorkRecorder&) = delete;

  private:
    std::vector<double>* saved_;
};
/// Charges recorded steps in order, as running them again would, when all of them fit what is
/// left of the budget; false, charging nothing, otherwise (the caller then runs the steps
/// themselves, which refuse where the budget runs out with their own message).
[[nodiscard]] bool charge_steps(const std::vector<double>& steps);
/// A refusal of the work budget (a LimitError of max_work) that keeps what the refused step was
/// doing, so that the code that knows where the step was going names it: a writer adds the
/// column, row and table of the value it was printing, `printing a value of 3 characters
/// (column "Weight", row 3 of table 14.1) would take …`.
class WorkRefusal : public Error {
  public:
    WorkRefusal(double units, std::string what, double spent);
    /// The same refusal with `place` (` (row 3 of table 14.1)`) after what the step was doing;
    /// a refusal that has its place already is returned as it is (the innermost place holds).
    [[nodiscard]] WorkRefusal at(std::string_view place) const;
    [[nodiscard]] bool has_place() const { return has_place_; }

  private:
    WorkRefusal(const Error& error, double units, std::string what, double spent, bool has_place);
    double units_;
    std::string what_;
    double spent_;
    bool has_place_;
};
/// The refusal of a step of `units` work units that charge_work or work_fits did not admit:
/// `<what> would take about <units> work units[, after <spent> already spent by this job],
/// over the limit of … (limits: max_work…)`.
[[nodiscard]] WorkRefusal over_work(double units, std::string_view what);
/// Work units charged per character of a printed value (docs/limits.md): a report is laid out,
/// escaped and written around every value it prints, so that the budget bounds how much a job
/// prints, not only what it computes.
inline constexpr double kWorkPerPrintedCharacter = 8000;
/// The work units of one multiplication of numbers of `bits` bits in all (bits^1.35).
[[nodiscard]] double multiplication_work(double bits);

}  // namespace exactattn
