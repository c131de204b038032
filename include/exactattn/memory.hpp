// SPDX-License-Identifier: MIT
// exactattn: attention memories and per-position columns, stored explicitly or compactly.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "exactattn/deferred.hpp"
#include "exactattn/value.hpp"

namespace exactattn {

using Vector = std::vector<Value>;
using Matrix = std::vector<Vector>;  ///< row-major: Matrix[i] is row i

/// What happens to one position in a read.
enum class Mark {
    Included,  ///< scored and summed
    Removed,   ///< dropped from the scores and the sum (remove-state)
    Zeroed,    ///< kept, but its score is set to 0 (zero-score: exponential 1)
};

/// Memory rows h_1..h_n of width d, in one of three forms that denote the same values:
///  - explicit exact values;
///  - compact: every entry is k·u with k a 64-bit integer and u one shared unit (for the
///    chapter, u = a; for entries k·a/6, u = a/6);
///  - compact per column: entry (j, i) is k·u_i with one unit per column, for memories whose
///    columns are of different kinds (k·a in some, constants k/2, k·2^(1/2) or k·a² in others).
/// The compact forms take 8 bytes a number; they are what lets a read over 10^6 positions stay
/// small and fast (see fastpath.hpp).
class Memory {
  public:
    Memory() = default;
    /// Explicit rows; ShapeError when the rows have different widths.
    explicit Memory(Matrix rows);
    /// Compact rows: entry (j, i) is k[j·width + i] · unit.
    static Memory scaled_integers(std::size_t rows, std::size_t width, std::vector<std::int64_t> k, Value unit);
    /// Compact rows with one unit per column: entry (j, i) is k[j·width + i] · units[i]
    /// (`units` has `width` entries). When every unit is the same this is scaled_integers.
    static Memory column_multiples(std::size_t rows, std::size_t width, std::vector<std::int64_t> k,
                                   std::vector<Value> units);

    [[nodiscard]] std::size_t rows() const { return rows_; }
    [[nodiscard]] std::size_t width() const { return width_; }
    [[nodiscard]] bool is_compact() const { return compact_ && units_.empty(); }  ///< one unit
    [[nodiscard]] bool is_columnwise() const { return !units_.empty(); }          ///< a unit per column
    [[nodiscard]] Value at(std::size_t j, std::size_t i) const;
    [[nodiscard]] Vector row(std::size_t j) const;
    [[nodiscard]] Matrix matrix() const;  ///< all rows as values (small memories only)

    /// Compact forms: integers row-major. Precondition is_compact() or is_columnwise().
    [[nodiscard]] const std::vector<std::int64_t>& integers() const { return k_; }
    /// The unit; precondition is_compact().
    [[nodiscard]] const Value& unit() const { return unit_; }
    /// The unit of column i in either compact form.
    [[nodiscard]] const Value& column_unit(std::size_t i) const { return units_.empty() ? unit_ : units_[i]; }

    /// The same memory in compact form when every entry is an integer multiple of one unit
    /// r·a^e (e fixed; the common unit is the gcd of the entries' rational coefficients) and
    /// the integers fit in 62 bits; else compact per column when every column's entries are
    /// integer multiples of one unit r·2^(l/m)·a^e of its own (one power of 2^(1/m) and of a
    /// a column); otherwise a copy of this memory.
    [[nodiscard]] Memory compacted() const;

    /// The memory without row j (0-based).
    [[nodiscard]] Memory without_row(std::size_t j) const;

    /// The same rows and entries, whatever the form (explicit or compact).
    friend bool operator==(const Memory& x, const Memory& y);

  private:
    std::size_t rows_ = 0;
    std::size_t width_ = 0;
    bool compact_ = false;
    Matrix explicit_;
    std::vector<std::int64_t> k_;
    Value unit_;
    std::vector<Value> units_;  ///< one per column in the columnwise form, else empty
};

/// One exact value per position, or none (a removed position's score). Stored explicitly, or
/// compactly as 2^(k_j/m)·factor or k_j·unit, computed on demand.
class Column {
  public:
    /// Immutable storage that the columns of one read share (scores, exponentials and weights
    /// are all keyed by the same integers).
    template <class T>
    using Shared = std::shared_ptr<const std::vector<T>>;

    Column() = default;
    explicit Column(std::vector<std::optional<Value>> values) : values_(std::move(values)) {}
    /// v_j = k_j · unit where present[j], none elsewhere.
    static Column multiples(std::vector<std::int64_t> k, std::vector<bool> present, Value unit);
    static Column multiples(Shared<std::int64_t> k, Shared<bool> present, Value unit);
    /// v_j = 2^(k_j/m) · factor where present[j]; elsewhere none, or `absent` if given.
    static Column powers_of_two(std::vector<std::int64_t> k, std::int64_t m, std::vector<bool> present, Value factor,
                                std::optional<Value> absent);
    static Column powers_of_two(Shared<std::int64_t> k, std::int64_t m, Shared<bool> present, Deferred<Value> factor,
                                std::optional<Value> absent);

    [[nodiscard]] std::size_t size() const;
    [[nodiscard]] std::optional<Value> at(std::size_t j) const;
    /// For a compact column, the integer k_j that determines entry j (equal keys, equal
    /// entries), so printers can compute each distinct entry once; nullopt for an explicit
    /// column or an absent entry.
    [[nodiscard]] std::optional<std::int64_t> key(std::size_t j) const;
    /// Computes now the factor that a compact column's entries share when it is deferred (a
    /// read's 1/denominator, reduced when first needed), so that the work of each entry computed
    /// after it is the entry's own (a printer that computes each distinct entry once).
    void compute_factor() const {
        if (kind_ != Kind::Explicit) (void)factor_.get();
    }
    /// Every entry, computed (for small columns).
    [[nodiscard]] std::vector<std::optional<Value>> all() const;
    /// Every entry, computed, an absent one as `absent` (a removed weight as 0).
    [[nodiscard]] std::vector<Value> values_or(const Value& absent) const;

  private:
    enum class Kind { Explicit, Multiples, PowersOfTwo };
    Kind kind_ = Kind::Explicit;
    std::vector<std::optional<Value>> values_;
    Shared<std::int64_t> k_;
    Shared<bool> present_;
    std::int64_t m_ = 1;
    Deferred<Value> factor_;  ///< a read's 1/denominator is reduced when first needed
    std::optional<Value> absent_;
};

}  // namespace exactattn
