// SPDX-License-Identifier: MIT
// exactattn internal: a memory file (`read --memory @FILE`) streamed into compact form.
//
// A memory of 10^7 rows is within the documented limits, so it must load without a JSON
// document tree and without one heap-allocated exact value per number (together about 1 KB a
// row). The reader below checks the shape and the limits as the rows arrive (row 10^7 + 1 is
// refused before anything past it is read) and keeps the entries as 64-bit multiples of one
// unit r·a^e while they allow it (8 bytes a number, what the fast read path wants); it falls
// back to explicit values only for entries that have no such form.
#include <fmt/format.h>

#include <numeric>
#include <unordered_map>

#include "exactattn/limits.hpp"
#include "exactattn/parse.hpp"
#include "json_io.hpp"

namespace exactattn::detail {

namespace {

constexpr std::int64_t kBound = std::int64_t{1} << 62;  // compact integers stay below this

// Entries as k_j / den · a^e with one den and one e, while every entry allows it.
class CompactBuilder {
public:
    // Appends an entry; false when it has no compact form (the caller switches to values).
    bool add(const Value& v) {
        if (v.is_zero()) {
            k_.push_back(0);
            return true;
        }
        const auto& t = v.terms();
        for (std::size_t i = 0; i + 1 < t.size(); ++i) {
            if (!t[i].is_zero()) return false;
        }
        if (!t.back().is_rational()) return false;
        if (e_ == -1) e_ = v.degree();
        if (v.degree() != e_) return false;
        const mpq_class r = t.back().rational();
        if (!mpz_fits_slong_p(r.get_num_mpz_t()) || !mpz_fits_slong_p(r.get_den_mpz_t())) return false;
        const std::int64_t p = r.get_num().get_si();
        const std::int64_t q = r.get_den().get_si();
        const std::int64_t g = std::gcd(den_, q);
        std::int64_t scale = q / g;  // den grows to lcm(den, q) = den · scale
        if (scale > 1) {
            std::int64_t new_den = 0;
            if (__builtin_mul_overflow(den_, scale, &new_den) || new_den >= kBound) return false;
            // Each growth at least doubles den < 2^62, so this pass runs at most 62 times.
            for (auto k : k_) {
                if (k != 0 && (k >= kBound / scale || -k >= kBound / scale)) return false;
            }
            for (auto& k : k_) k *= scale;
            den_ = new_den;
        }
        std::int64_t k = 0;
        if (__builtin_mul_overflow(p, den_ / q, &k) || k >= kBound || -k >= kBound) return false;
        k_.push_back(k);
        return true;
    }

    [[nodiscard]] std::size_t size() const { return k_.size(); }

    // The unit den^-1 · g · a^e for integers divided by their gcd g (Memory::compacted's form).
    Memory finish(std::size_t rows, std::size_t width) {
        std::int64_t g = 0;
        for (auto k : k_) g = std::gcd(g, k < 0 ? -k : k);
        if (g == 0) return Memory::scaled_integers(rows, width, std::move(k_), Value(1));
        if (g > 1) {
            for (auto& k : k_) k /= g;
        }
        Value unit(mpq_class(mpz_class(static_cast<long>(g)), mpz_class(static_cast<long>(den_))));
        for (int i = 0; i < e_; ++i) unit *= Value::ln2();
        return Memory::scaled_integers(rows, width, std::move(k_), unit);
    }

    // Entry i as an exact value (to switch to the explicit form).
    [[nodiscard]] Value value(std::size_t i) const {
        if (k_[i] == 0) return Value();
        Value v(mpq_class(mpz_class(static_cast<long>(k_[i])), mpz_class(static_cast<long>(den_))));
        for (int j = 0; j < e_; ++j) v *= Value::ln2();
        return v;
    }

    void clear() {
        k_.clear();
        k_.shrink_to_fit();
    }

private:
    std::vector<std::int64_t> k_;
    std::int64_t den_ = 1;
    int e_ = -1;
};

// SAX handler for [[v, ...], ...]: depth 1 is the matrix, depth 2 a row, scalars at depth 2.
class MemorySax {
public:
    using number_integer_t = Json::number_integer_t;
    using number_unsigned_t = Json::number_unsigned_t;
    using number_float_t = Json::number_float_t;
    using string_t = Json::string_t;
    using binary_t = Json::binary_t;

    MemorySax(std::string file, std::string_view text) : file_(std::move(file)), text_(text) {}

    bool null() { return wrong("null"); }
    bool boolean(bool /*unused*/) { return wrong("a boolean"); }
    bool number_integer(number_integer_t v) {
        if (depth_ != 2) return wrong("a number");
        return put(Value(static_cast<long>(v)));
    }
    bool number_unsigned(number_unsigned_t v) {
        if (depth_ != 2) return wrong("a number");
        return put(Value(mpq_class(mpz_class(std::to_string(v)))));
    }
    bool number_float(number_float_t /*rounded*/, const string_t& text) {
        if (depth_ != 2) return wrong("a number");
        return put(parsed(text));  // exact from the decimal text
    }
    bool string(string_t& s) {
        if (depth_ != 2) return wrong("a string");
        return put(parsed(s));
    }
    bool binary(binary_t& /*unused*/) { return wrong("binary data"); }
    bool start_object(std::size_t /*unused*/) { return wrong("an object"); }
    bool key(string_t& /*unused*/) { return true; }
    bool end_object() { return true; }

    bool start_array(std::size_t /*unused*/) {
        if (depth_ == 2) return wrong("an array");
        ++depth_;
        if (depth_ == 2) {
            if (static_cast<std::int64_t>(rows_) >= limits().max_positions) {
                throw limit_error(fmt::format("more than {} memory rows are over the limit "
                                              "(limits: max_positions)",
                                              limits().max_positions),
                                  at(pointer_join("", rows_)));
            }
            in_row_ = 0;
        }
        return true;
    }

    bool end_array() {
        if (depth_ == 2) {
            if (rows_ == 0) {
                width_ = in_row_;
                if (width_ == 0) throw shape_error("memory rows are empty: give at least one coordinate", at(pointer_join("", 0)));
            } else if (in_row_ != width_) {
                throw shape_error(fmt::format("row {} has {} entries, row 1 has {}", rows_ + 1, in_row_,
                                              width_),
                                  at(pointer_join("", rows_)));
            }
            if (!compact_) {
                explicit_.push_back(std::move(row_));
                row_.clear();
                bytes_ += sizeof(Vector) + 16;
            }
            ++rows_;
        }
        --depth_;
        return true;
    }

    bool parse_error(std::size_t position, const std::string& token, const nlohmann::json::exception& ex) {
        throw json_parse_error(file_, text_, position, token, ex);
    }

    Memory finish() {
        if (rows_ == 0) throw shape_error("the memory has no rows", at(""));
        if (compact_) return builder_.finish(rows_, width_);
        return Memory(std::move(explicit_));
    }

private:
    Location at(const std::string& pointer) const {
        Location l;
        l.file = file_;
        l.pointer = pointer.empty() ? "/" : pointer;
        return l;
    }

    std::string here() const {
        if (depth_ == 0) return "";
        if (depth_ == 1) return pointer_join("", rows_);
        return pointer_join(pointer_join("", rows_), in_row_);
    }

    bool wrong(const char* what) {
        switch (depth_) {
            case 0:
                throw shape_error(fmt::format("expected a matrix (an array of rows), found {}", what), at(""));
            case 1:
                throw shape_error(fmt::format("expected a vector (an array of values), found {}", what),
                                  at(here()));
            default:
                throw shape_error(fmt::format("expected an exact value (a number or an expression "
                                              "string), found {}",
                                              what),
                                  at(here()));
        }
    }

    // Expression text to a value; repeated entries ("0", "a") are parsed once.
    Value parsed(const std::string& text) {
        const auto it = cache_.find(text);
        if (it != cache_.end()) return it->second;
        Value v;
        try {
            v = parse_value(text);
        } catch (const Error& e) {
            throw e.located(at(here()));
        }
        if (cache_.size() < 4096) cache_.emplace(text, v);
        return v;
    }

    bool put(const Value& v) {
        const std::int64_t cells = static_cast<std::int64_t>(rows_ * width_ + in_row_) + 1;
        if (cells > limits().max_cells) {
            throw limit_error(fmt::format("more than {} numbers in the memory are over the limit "
                                          "(limits: max_cells)",
                                          limits().max_cells),
                              at(here()));
        }
        if (compact_ && !builder_.add(v)) to_explicit();
        if (!compact_) {
            row_.push_back(v);
            bytes_ += storage_bytes(v);
            check_storage(bytes_, rows_ + 1);
        }
        ++in_row_;
        return true;
    }

    // Switches to explicit values: the rows so far, then this row's entries so far.
    void to_explicit() {
        compact_ = false;
        explicit_.reserve(rows_);
        std::size_t i = 0;
        for (std::size_t j = 0; j < rows_; ++j) {
            Vector r;
            r.reserve(width_);
            for (std::size_t c = 0; c < width_; ++c) {
                r.push_back(builder_.value(i++));
                bytes_ += storage_bytes(r.back());
            }
            explicit_.push_back(std::move(r));
            bytes_ += sizeof(Vector) + 16;
            check_storage(bytes_, j + 1);
        }
        for (; i < builder_.size(); ++i) {
            row_.push_back(builder_.value(i));
            bytes_ += storage_bytes(row_.back());
        }
        builder_.clear();
    }

    std::string file_;
    std::string_view text_;
    int depth_ = 0;
    std::size_t rows_ = 0;
    std::size_t width_ = 0;
    std::size_t in_row_ = 0;
    bool compact_ = true;
    CompactBuilder builder_;
    Matrix explicit_;
    Vector row_;
    std::size_t bytes_ = 0;  // estimated storage of the explicit form
    std::unordered_map<std::string, Value> cache_;
};

}  // namespace

Memory load_memory_json(std::string_view text, const std::string& file) {
    check_json_text(text, file);
    MemorySax sax(file, text);
    nlohmann::json::sax_parse(text.begin(), text.end(), &sax);
    return sax.finish();
}

}  // namespace exactattn::detail
