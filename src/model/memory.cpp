// SPDX-License-Identifier: MIT
// exactattn: Memory and Column storage.
#include "exactattn/memory.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "exactattn/error.hpp"
#include "model/memory_detail.hpp"
#include "exactattn/limits.hpp"

namespace exactattn {

namespace {

void check_size(std::size_t rows, std::size_t width) {
    if (static_cast<std::int64_t>(rows) > limits().max_positions) {
        throw over_limit(Limit::max_positions, fmt::format("{} memory rows", rows));
    }
    if (width != 0 && static_cast<std::int64_t>(rows) > limits().max_cells / static_cast<std::int64_t>(width)) {
        throw over_limit(Limit::max_cells, fmt::format("a memory of {} × {} numbers", rows, width));
    }
}

}  // namespace

namespace detail {

std::size_t storage_bytes(const Value& v) {
    std::size_t bytes = sizeof(Value);
    for (const auto& f : v.terms()) {
        bytes += sizeof(FieldElem) + 16;  // 16: an allocator's per-block overhead
        for (const auto& c : f.coefficients()) {
            const auto limbs = static_cast<std::size_t>(c.get_num_mpz_t()->_mp_alloc) +
                               static_cast<std::size_t>(c.get_den_mpz_t()->_mp_alloc);
            bytes += sizeof(mpq_class) + 16 + limbs * sizeof(mp_limb_t) + 32;
        }
    }
    return bytes;
}

const mpq_class* monomial_of(const Value& v, Monomial& mono) {
    if (v.is_zero()) return nullptr;
    const auto& t = v.terms();
    for (std::size_t k = 0; k + 1 < t.size(); ++k) {
        if (!t[k].is_zero()) return nullptr;
    }
    const auto& c = t.back().coefficients();
    const mpq_class* r = nullptr;
    for (std::size_t l = 0; l < c.size(); ++l) {
        if (sgn(c[l]) == 0) continue;
        if (r != nullptr) return nullptr;  // two powers of 2^(1/m)
        r = &c[l];
        mono = Monomial{v.degree(), t.back().root(), static_cast<int>(l)};
    }
    return r;
}

Value monomial_value(const mpq_class& r, const Monomial& mono) {
    std::vector<mpq_class> c(static_cast<std::size_t>(mono.l) + 1);
    c.back() = r;
    std::vector<FieldElem> terms(static_cast<std::size_t>(mono.e) + 1);
    terms.back() = FieldElem::from_coefficients(mono.m, std::move(c));
    return Value::from_terms(std::move(terms));
}

bool UnitFit::add(const Value& v) {
    if (v.is_zero()) return true;
    Monomial mono;
    const mpq_class* r = monomial_of(v, mono);
    if (r == nullptr) return false;
    if (mono_.e == -1) mono_ = mono;
    if (!(mono == mono_)) return false;
    // The loops skip the gcd once it is 1 and the lcm for integer entries (the common cases).
    if (!g_is_one_) {
        mpz_gcd(g_num_.get_mpz_t(), g_num_.get_mpz_t(), r->get_num_mpz_t());
        g_is_one_ = g_num_ == 1;
    }
    if (mpz_cmp_ui(r->get_den_mpz_t(), 1) != 0) mpz_lcm(l_den_.get_mpz_t(), l_den_.get_mpz_t(), r->get_den_mpz_t());
    return true;
}

bool UnitFit::integer(const Value& v, std::int64_t& k) {
    if (v.is_zero()) {
        k = 0;
        return true;
    }
    Monomial mono;
    const mpq_class& r = *monomial_of(v, mono);  // add(v) accepted it
    // k = r / unit = num·(l_den/den)/g_num, an integer; it must fit in 62 bits.
    if (g_num_ == 1 && l_den_ == 1) {
        q_ = r.get_num();
    } else {
        mpz_divexact(q_.get_mpz_t(), l_den_.get_mpz_t(), r.get_den_mpz_t());
        q_ *= r.get_num();
        mpz_divexact(q_.get_mpz_t(), q_.get_mpz_t(), g_num_.get_mpz_t());
    }
    if (mpz_sizeinbase(q_.get_mpz_t(), 2) > 62) return false;  // |k| < 2^62 fails
    k = q_.get_si();
    return true;
}

Value UnitFit::unit() const {
    if (mono_.e == -1) return Value(1);  // every entry 0
    return monomial_value(mpq_class(g_num_, l_den_), mono_);
}

void check_storage(std::size_t bytes, std::size_t rows) {
    if (static_cast<std::int64_t>(bytes) > limits().max_memory_bytes) {
        throw over_limit(
            Limit::max_memory_bytes,
            fmt::format("the memory's values need more than {} MB by row {}", limits().max_memory_bytes >> 20, rows),
            {}, "integer multiples of one unit r·a^e would take 8 bytes a number");
    }
}

}  // namespace detail

Memory::Memory(Matrix rows) : rows_(rows.size()), explicit_(std::move(rows)) {
    width_ = explicit_.empty() ? 0 : explicit_[0].size();
    check_size(rows_, width_);
    for (std::size_t j = 0; j < explicit_.size(); ++j) {
        if (explicit_[j].size() != width_) {
            throw shape_error(
                fmt::format("memory row {} has width {}; row 1 has width {}", j + 1, explicit_[j].size(), width_));
        }
    }
    std::size_t bytes = 0;
    for (const auto& row : explicit_) {
        bytes += sizeof(Vector) + 16;
        for (const auto& v : row) bytes += detail::storage_bytes(v);
    }
    detail::check_storage(bytes, rows_);
}

Memory Memory::scaled_integers(std::size_t rows, std::size_t width, std::vector<std::int64_t> k, Value unit) {
    check_size(rows, width);
    if (k.size() != rows * width) {
        throw shape_error(fmt::format("{} integers for a memory of {} × {}", k.size(), rows, width));
    }
    Memory m;
    m.rows_ = rows;
    m.width_ = width;
    m.compact_ = true;
    m.k_ = std::move(k);
    m.unit_ = std::move(unit);
    return m;
}

Memory Memory::column_multiples(std::size_t rows, std::size_t width, std::vector<std::int64_t> k,
                                std::vector<Value> units) {
    if (units.size() != width) {
        throw shape_error(fmt::format("{} column units for a memory of width {}", units.size(), width));
    }
    const bool one = std::all_of(units.begin(), units.end(), [&](const Value& u) { return u == units.front(); });
    Memory m = scaled_integers(rows, width, std::move(k), width == 0 ? Value(1) : units.front());
    if (!one) m.units_ = std::move(units);
    return m;
}

Value Memory::at(std::size_t j, std::size_t i) const {
    if (!compact_) return explicit_[j][i];
    const std::int64_t k = k_[j * width_ + i];
    return k == 0 ? Value() : Value(static_cast<long>(k)) * column_unit(i);  // in place: a constant factor
}

Vector Memory::row(std::size_t j) const {
    if (!compact_) return explicit_[j];
    Vector r(width_);
    for (std::size_t i = 0; i < width_; ++i) r[i] = at(j, i);
    return r;
}

Matrix Memory::matrix() const {
    if (!compact_) return explicit_;
    Matrix m(rows_);
    for (std::size_t j = 0; j < rows_; ++j) m[j] = row(j);
    return m;
}

Memory Memory::compacted() const {
    if (compact_) return *this;
    // One unit for every entry (the chapter's memories), else one per column.
    detail::UnitFit all;
    bool one = true;
    for (const auto& row : explicit_) {
        for (const auto& v : row) one = one && all.add(v);
    }
    std::vector<std::int64_t> k(rows_ * width_);
    if (one) {
        bool fits = true;
        for (std::size_t j = 0; j < rows_ && fits; ++j) {
            for (std::size_t i = 0; i < width_ && fits; ++i) fits = all.integer(explicit_[j][i], k[j * width_ + i]);
        }
        if (fits) return scaled_integers(rows_, width_, std::move(k), all.unit());
    }
    std::vector<detail::UnitFit> cols(width_);
    for (const auto& row : explicit_) {
        for (std::size_t i = 0; i < width_; ++i) {
            if (!cols[i].add(row[i])) return *this;
        }
    }
    for (std::size_t j = 0; j < rows_; ++j) {
        for (std::size_t i = 0; i < width_; ++i) {
            if (!cols[i].integer(explicit_[j][i], k[j * width_ + i])) return *this;
        }
    }
    std::vector<Value> units(width_);
    for (std::size_t i = 0; i < width_; ++i) units[i] = cols[i].unit();
    return column_multiples(rows_, width_, std::move(k), std::move(units));
}

bool operator==(const Memory& x, const Memory& y) {
    if (x.rows_ != y.rows_ || x.width_ != y.width_) return false;
    if (x.compact_ && y.compact_ && x.unit_ == y.unit_ && x.units_ == y.units_) return x.k_ == y.k_;
    for (std::size_t j = 0; j < x.rows_; ++j) {
        for (std::size_t i = 0; i < x.width_; ++i) {
            if (x.at(j, i) != y.at(j, i)) return false;
        }
    }
    return true;
}

Memory Memory::without_row(std::size_t j) const {
    if (!compact_) {
        Matrix m = explicit_;
        m.erase(m.begin() + static_cast<std::ptrdiff_t>(j));
        return Memory(std::move(m));
    }
    std::vector<std::int64_t> k = k_;
    k.erase(k.begin() + static_cast<std::ptrdiff_t>(j * width_),
            k.begin() + static_cast<std::ptrdiff_t>((j + 1) * width_));
    Memory m = scaled_integers(rows_ - 1, width_, std::move(k), unit_);
    m.units_ = units_;
    return m;
}

Column Column::multiples(std::vector<std::int64_t> k, std::vector<bool> present, Value unit) {
    return multiples(std::make_shared<const std::vector<std::int64_t>>(std::move(k)),
                     std::make_shared<const std::vector<bool>>(std::move(present)), std::move(unit));
}

Column Column::multiples(Shared<std::int64_t> k, Shared<bool> present, Value unit) {
    Column c;
    c.kind_ = Kind::Multiples;
    c.k_ = std::move(k);
    c.present_ = std::move(present);
    c.factor_ = std::move(unit);
    return c;
}

Column Column::powers_of_two(std::vector<std::int64_t> k, std::int64_t m, std::vector<bool> present, Value factor,
                             std::optional<Value> absent) {
    return powers_of_two(std::make_shared<const std::vector<std::int64_t>>(std::move(k)), m,
                         std::make_shared<const std::vector<bool>>(std::move(present)), std::move(factor),
                         std::move(absent));
}

Column Column::powers_of_two(Shared<std::int64_t> k, std::int64_t m, Shared<bool> present, Deferred<Value> factor,
                             std::optional<Value> absent) {
    Column c;
    c.kind_ = Kind::PowersOfTwo;
    c.k_ = std::move(k);
    c.m_ = m;
    c.present_ = std::move(present);
    c.factor_ = std::move(factor);
    c.absent_ = std::move(absent);
    return c;
}

// The integers may stop at the last present entry (a causal row's keys); `present` covers all.
std::size_t Column::size() const { return kind_ == Kind::Explicit ? values_.size() : present_->size(); }

std::optional<Value> Column::at(std::size_t j) const {
    switch (kind_) {
        case Kind::Explicit:
            return values_[j];
        case Kind::Multiples:
            if (!(*present_)[j]) return std::nullopt;
            return Value(static_cast<long>((*k_)[j])) * factor_.get();
        case Kind::PowersOfTwo:
            if (!(*present_)[j]) return absent_;
            return Value::exp2(mpq_class(static_cast<long>((*k_)[j]), static_cast<long>(m_))) * factor_.get();
    }
    return std::nullopt;
}

std::optional<std::int64_t> Column::key(std::size_t j) const {
    if (kind_ == Kind::Explicit || !(*present_)[j]) return std::nullopt;
    return (*k_)[j];
}

std::vector<std::optional<Value>> Column::all() const {
    if (kind_ == Kind::Explicit) return values_;
    std::vector<std::optional<Value>> out(size());
    for (std::size_t j = 0; j < out.size(); ++j) out[j] = at(j);
    return out;
}

std::vector<Value> Column::values_or(const Value& absent) const {
    std::vector<Value> out(size());
    for (std::size_t j = 0; j < out.size(); ++j) out[j] = at(j).value_or(absent);
    return out;
}

}  // namespace exactattn
