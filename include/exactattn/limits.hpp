// SPDX-License-Identifier: MIT
// exactattn: resource limits (docs/limits.md) that no honest input reaches.
#pragma once

#include <cstdint>

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
    /// Largest estimated work of one fraction-free elimination (the inverse of an element of
    /// Q(2^(1/m)) for odd m), in work units: every multiplication or exact division of s-bit
    /// numbers counts s^1.35, the nonzero entries followed symbolically. About 3·10^10 units
    /// take a second here (up to 5·10^10 for some shapes), so the limit is under 2.5 s.
    std::int64_t max_work = std::int64_t{1} << 36;
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

}  // namespace exactattn
