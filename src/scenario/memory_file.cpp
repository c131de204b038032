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
#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include <limits>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include "exactattn/limits.hpp"
#include "model/memory_detail.hpp"
#include "exactattn/parse.hpp"
#include "scenario/memory_file.hpp"
#include "exactattn/scenario.hpp"
#include "exactattn/error.hpp"

namespace exactattn::detail {

namespace {

constexpr std::int64_t kBound = std::int64_t{1} << 62;  // compact integers stay below this

// An entry's compact form p/q · 2^(l/m) · a^e (q > 0, |p| and q in 64 bits), or zero, or none.
struct Ratio {
    bool zero = false;
    bool compact = false;
    std::int64_t p = 0;
    std::int64_t q = 1;
    Monomial mono{0, 1, 0};
};

Ratio ratio_of(const Value& v) {
    Ratio r;
    if (v.is_zero()) {
        r.zero = true;
        return r;
    }
    const mpq_class* q = monomial_of(v, r.mono);
    if (q == nullptr || !mpz_fits_slong_p(q->get_num_mpz_t()) || !mpz_fits_slong_p(q->get_den_mpz_t())) return r;
    r.compact = true;
    r.p = q->get_num().get_si();
    r.q = q->get_den().get_si();
    return r;
}

// Entries as k / den_i · u_i in column i (u_i = 2^(l/m)·a^e, one monomial a column), while
// every entry allows it; at the end one unit for the whole memory when the columns share
// their monomial (Memory::compacted's forms).
class CompactBuilder {
  public:
    // Appends entry (row, i), rows before it have `width` entries (0 in the first row); false
    // when it has no compact form (the caller switches to values).
    bool add(const Ratio& r, std::size_t i, std::size_t width) {
        if (r.zero) {
            k_.push_back(0);
            return true;
        }
        if (!r.compact) return false;
        if (i >= cols_.size()) cols_.resize(i + 1);
        Column& c = cols_[i];
        if (c.mono.e == -1) c.mono = r.mono;
        if (!(r.mono == c.mono)) return false;
        const std::int64_t p = r.p;
        const std::int64_t q = r.q;
        // den grows to lcm(den, q) = den · scale; usually q divides den (q = 1 for integer
        // multiples), and the gcd is skipped.
        const std::int64_t scale = q == 1 || c.den % q == 0 ? 1 : q / std::gcd(c.den, q);
        if (scale > 1) {
            std::int64_t new_den = 0;
            if (__builtin_mul_overflow(c.den, scale, &new_den) || new_den >= kBound) return false;
            // Each growth at least doubles den < 2^62, so this pass runs at most 62 times a
            // column. In the first row (width 0) the column has no entries yet.
            if (width != 0 && !rescale(i, width, scale)) return false;
            c.den = new_den;
        }
        std::int64_t k = 0;
        if (__builtin_mul_overflow(p, q == 1 ? c.den : c.den / q, &k) || k >= kBound || k <= -kBound) return false;
        k_.push_back(k);
        return true;
    }

    // Room for `cells` entries without touching the pages (a vector that doubles holds the
    // old and the new array at once: 1.5x the final size at the peak).
    void reserve(std::size_t cells) {
        try {
            k_.reserve(cells);
        } catch (const std::bad_alloc&) {
            // only a hint
        }
    }

    [[nodiscard]] std::size_t size() const { return k_.size(); }

    // One unit g/den · u when every column with a nonzero entry has the same monomial u and
    // the integers fit over the common den (Memory::compacted's form), else one unit
    // g_i/den_i · u_i per column; the integers are divided by their gcd g (g_i).
    Memory finish(std::size_t rows, std::size_t width) {
        cols_.resize(width);
        const Monomial* shared = nullptr;
        bool one = true;
        std::int64_t den = 1;
        for (const auto& c : cols_) {
            if (c.mono.e == -1) continue;  // all zero
            if (shared == nullptr) shared = &c.mono;
            one = one && c.mono == *shared;
            if (one) {
                const std::int64_t scale = den % c.den == 0 ? 1 : c.den / std::gcd(den, c.den);
                one = !__builtin_mul_overflow(den, scale, &den) && den < kBound;
            }
        }
        if (shared == nullptr) return Memory::scaled_integers(rows, width, std::move(k_), Value(1));
        if (one) {
            for (std::size_t i = 0; i < width && one; ++i) {
                if (cols_[i].den == den) continue;
                one = rescale(i, width, den / cols_[i].den);
                if (one) cols_[i].den = den;
            }
        }
        if (one) {
            const std::int64_t g = divide_by_gcd(0, 1);
            return Memory::scaled_integers(rows, width, std::move(k_), unit(g, den, *shared));
        }
        std::vector<Value> units(width, Value(1));
        for (std::size_t i = 0; i < width; ++i) {
            if (cols_[i].mono.e == -1) continue;
            units[i] = unit(divide_by_gcd(i, width), cols_[i].den, cols_[i].mono);
        }
        return Memory::column_multiples(rows, width, std::move(k_), std::move(units));
    }

    // Entry `at` (column i) as an exact value (to switch to the explicit form).
    [[nodiscard]] Value value(std::size_t at, std::size_t i) const {
        if (k_[at] == 0) return Value();
        const Column& c = cols_[i];
        return monomial_value(mpq_class(mpz_class(static_cast<long>(k_[at])), mpz_class(static_cast<long>(c.den))),
                              c.mono);
    }

    void clear() {
        k_.clear();
        k_.shrink_to_fit();
    }

  private:
    struct Column {
        Monomial mono;  // e = -1 until the column's first nonzero entry
        std::int64_t den = 1;
    };

    // Multiplies column i's entries by `scale`; false when one would reach 2^62.
    bool rescale(std::size_t i, std::size_t width, std::int64_t scale) {
        for (std::size_t at = i; at < k_.size(); at += width) {
            const std::int64_t k = k_[at];
            if (k != 0 && (k >= kBound / scale || -k >= kBound / scale)) return false;
        }
        for (std::size_t at = i; at < k_.size(); at += width) k_[at] *= scale;
        return true;
    }

    // Divides the entries i, i + step, ... by their gcd and returns it (1 when all are 0).
    std::int64_t divide_by_gcd(std::size_t i, std::size_t step) {
        std::int64_t g = 0;
        for (std::size_t at = i; at < k_.size() && g != 1; at += step) {
            if (k_[at] != 0) g = std::gcd(g, k_[at] < 0 ? -k_[at] : k_[at]);  // usually 1 at once
        }
        if (g > 1) {
            for (std::size_t at = i; at < k_.size(); at += step) k_[at] /= g;
        }
        return g == 0 ? 1 : g;
    }

    static Value unit(std::int64_t g, std::int64_t den, const Monomial& mono) {
        return monomial_value(mpq_class(mpz_class(static_cast<long>(g)), mpz_class(static_cast<long>(den))), mono);
    }

    std::vector<std::int64_t> k_;
    std::vector<Column> cols_;
};

// SAX handler for [[v, ...], ...]: depth 1 is the matrix, depth 2 a row, scalars at depth 2.
class MemorySax {
  public:
    using number_integer_t = Json::number_integer_t;
    using number_unsigned_t = Json::number_unsigned_t;
    using number_float_t = Json::number_float_t;
    using string_t = Json::string_t;
    using binary_t = Json::binary_t;

    MemorySax(std::string file, std::string_view text)
        : file_(std::move(file)), text_(text), max_cells_(limits().max_cells) {}

    bool null() { return wrong("null"); }
    bool boolean(bool /*unused*/) { return wrong("a boolean"); }
    bool number_integer(number_integer_t v) {
        if (depth_ != 2) return wrong("a number");
        if (v == 0) return put(Entry{Value(), Ratio{true, false, 0, 1, Monomial{0, 1, 0}}});
        return put(Entry{Value(), Ratio{false, true, v, 1, Monomial{0, 1, 0}}}, /*integer=*/true);
    }
    bool number_unsigned(number_unsigned_t v) {
        if (depth_ != 2) return wrong("a number");
        if (v <= static_cast<number_unsigned_t>(std::numeric_limits<std::int64_t>::max())) {
            return number_integer(static_cast<number_integer_t>(v));
        }
        const Value x(mpq_class(mpz_class(std::to_string(v))));
        return put(Entry{x, ratio_of(x)});
    }
    bool number_float(number_float_t /*rounded*/, const string_t& text) {
        if (depth_ != 2) return wrong("a number");
        return put(parsed(text));  // exact from the decimal text
    }
    bool string(string_t& s) { return text(s); }
    bool text(std::string_view s) {
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
                throw over_limit(Limit::max_positions, fmt::format("more than {} memory rows", limits().max_positions),
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
                if (width_ == 0)
                    throw shape_error("memory rows are empty: give at least one coordinate", at(pointer_join("", 0)));
            } else if (in_row_ != width_) {
                throw shape_error(fmt::format("row {} has {} entries, row 1 has {}", rows_ + 1, in_row_, width_),
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

    // Room for up to `cells` compact entries (a hint; nothing is touched).
    void reserve(std::size_t cells) { builder_.reserve(cells); }

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
                throw shape_error(fmt::format("expected a vector (an array of values), found {}", what), at(here()));
            default:
                throw shape_error(fmt::format("expected an exact value (a number or an expression "
                                              "string), found {}",
                                              what),
                                  at(here()));
        }
    }

    // An entry: its value (unset for an integer: computed only if the memory is explicit) and
    // its compact form.
    struct Entry {
        Value value;
        Ratio ratio;
    };

    // Hashes std::string and std::string_view alike (lookups without a temporary string).
    struct TextHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };

    // Expression text to an entry; repeated entries ("0", "a") are parsed once.
    const Entry& parsed(std::string_view text) {
        Slot* slot = nullptr;
        std::uint64_t key = 0;
        if (text.size() <= 8) {
            // Byte by byte: a memcpy of a variable length into `key` stalled every lookup.
            for (std::size_t i = 0; i < text.size(); ++i) {
                key |= std::uint64_t{static_cast<unsigned char>(text[i])} << (8 * i);
            }
            slot = &slots_[(key * 0x9E3779B97F4A7C15ULL) >> 54];
            if (slot->size == text.size() && slot->key == key) return *slot->entry;
        }
        const auto it = cache_.find(text);
        if (it != cache_.end()) {
            if (slot != nullptr) *slot = Slot{key, text.size(), &it->second};
            return it->second;
        }
        Entry entry;
        entry.value = placed([&] { return at(here()); }, [&] { return parse_value(text); }, KeepPlace::Nothing);
        entry.ratio = ratio_of(entry.value);
        if (cache_.size() >= 4096) return scratch_ = std::move(entry);
        const Entry& cached = cache_.emplace(std::string(text), std::move(entry)).first->second;
        if (slot != nullptr) *slot = Slot{key, text.size(), &cached};
        return cached;
    }

    bool put(const Entry& entry, bool integer = false) {
        const std::int64_t cells = static_cast<std::int64_t>(rows_ * width_ + in_row_) + 1;
        if (cells > max_cells_) {
            throw over_limit(Limit::max_cells, fmt::format("more than {} numbers in the memory", limits().max_cells),
                             at(here()));
        }
        if (compact_ && !builder_.add(entry.ratio, in_row_, rows_ == 0 ? 0 : width_)) to_explicit();
        if (!compact_) {
            row_.push_back(integer ? Value(static_cast<long>(entry.ratio.p)) : entry.value);
            const Value& v = row_.back();
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
                r.push_back(builder_.value(i++, c));
                bytes_ += storage_bytes(r.back());
            }
            explicit_.push_back(std::move(r));
            bytes_ += sizeof(Vector) + 16;
            check_storage(bytes_, j + 1);
        }
        for (std::size_t c = 0; i < builder_.size(); ++i, ++c) {
            row_.push_back(builder_.value(i, c));
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
    std::int64_t max_cells_;
    std::unordered_map<std::string, Entry, TextHash, std::equal_to<>> cache_;
    Entry scratch_;
    // In front of cache_: texts of at most 8 bytes ("0", "-3a"), packed into an integer, in a
    // direct-mapped table (a 10^6-row memory has 1.6·10^7 such entries).
    struct Slot {
        std::uint64_t key = 0;
        std::size_t size = 9;  // no text has 9 bytes here: an empty slot
        const Entry* entry = nullptr;
    };
    std::vector<Slot> slots_ = std::vector<Slot>(1024);
};

// Whether `t` is a JSON number (RFC 8259 §6); `integer` says it has no fraction or exponent.
bool json_number(std::string_view t, bool& integer) {
    const auto digits = [&](std::size_t& i) {
        const std::size_t start = i;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
        return i > start;
    };
    std::size_t i = 0;
    if (i < t.size() && t[i] == '-') ++i;
    if (i < t.size() && t[i] == '0') {
        ++i;
    } else if (i >= t.size() || t[i] < '1' || t[i] > '9' || !digits(i)) {
        return false;
    }
    integer = true;
    if (i < t.size() && t[i] == '.') {
        integer = false;
        ++i;
        if (!digits(i)) return false;
    }
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
        integer = false;
        ++i;
        if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
        if (!digits(i)) return false;
    }
    return i == t.size();
}

// A number's raw text handed to the handler as nlohmann's reader would: an integer in 64
// bits as one, any other number as its text; false for a number that reader refuses (one
// past the double range), so that the caller lets it report the error.
bool put_number(std::string_view raw, MemorySax& sax, std::string& buffer) {
    while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\t' || raw.back() == '\n' || raw.back() == '\r')) {
        raw.remove_suffix(1);
    }
    bool integer = false;
    if (!json_number(raw, integer)) return false;
    const char* end = raw.data() + raw.size();
    if (integer) {
        std::int64_t v = 0;
        if (std::from_chars(raw.data(), end, v).ec == std::errc()) return sax.number_integer(v);
        std::uint64_t u = 0;
        if (raw[0] != '-' && std::from_chars(raw.data(), end, u).ec == std::errc()) return sax.number_unsigned(u);
    }
    buffer.assign(raw);
    const double rounded = std::strtod(buffer.c_str(), nullptr);
    if (!std::isfinite(rounded)) return false;
    return sax.number_float(rounded, buffer);
}

// The fast route: simdjson's On Demand reader (several hundred MB/s; it hands over a number's
// raw text, so numbers stay exact) walks the memory into the same handler. It answers only
// for a document it reads to the end without doubt; on anything else (invalid JSON, a value
// that is not a string or a number, any error of the handler) it returns false or throws,
// and the caller reads the text again with nlohmann's reader, whose answers (the documented
// errors and their places) stay the reference.
bool read_fast(std::string_view text, std::size_t readable, MemorySax& sax) {
    namespace sj = simdjson;
    if (limits().max_nesting < 2 || !sj::validate_utf8(text.data(), text.size())) return false;
    sj::padded_string copy;
    sj::padded_string_view view(text.data(), text.size(), readable);
    if (readable < text.size() + sj::SIMDJSON_PADDING) {
        copy = sj::padded_string(text);
        view = copy;
    }
    sax.reserve(std::min<std::size_t>((text.size() + 1) / 2, static_cast<std::size_t>(limits().max_cells)));
    sj::ondemand::parser parser;
    sj::ondemand::document doc;
    if (parser.iterate(view).get(doc) != sj::SUCCESS) return false;
    sj::ondemand::array rows;
    if (doc.get_array().get(rows) != sj::SUCCESS) return false;
    std::string buffer;
    sax.start_array(0);
    for (auto row : rows) {
        sj::ondemand::array cells;
        if (row.get_array().get(cells) != sj::SUCCESS) return false;
        sax.start_array(0);
        for (auto cell_result : cells) {
            sj::ondemand::value cell;
            sj::ondemand::json_type type;
            if (cell_result.get(cell) != sj::SUCCESS || cell.type().get(type) != sj::SUCCESS) return false;
            if (type == sj::ondemand::json_type::string) {
                std::string_view s;
                if (cell.get_string().get(s) != sj::SUCCESS) return false;
                // A raw control character is invalid JSON (and an escaped one is rare): the
                // reference reader decides.
                if (std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; })) {
                    return false;
                }
                sax.text(s);
            } else if (type == sj::ondemand::json_type::number) {
                if (!put_number(cell.raw_json_token(), sax, buffer)) return false;
            } else {
                return false;
            }
        }
        sax.end_array();
    }
    sax.end_array();
    const char* rest = nullptr;
    return doc.current_location().get(rest) == sj::OUT_OF_BOUNDS;  // nothing after the matrix
}

}  // namespace

Memory load_memory_json(std::string_view text, const std::string& file, std::size_t readable) {
    static_assert(kJsonPadding >= simdjson::SIMDJSON_PADDING);
    {
        MemorySax sax(file, text);
        try {
            if (read_fast(text, readable, sax)) return sax.finish();
        } catch (const Error&) {
            // decided below, by the reference reader
        }
    }
    return load_memory_json_reference(text, file);
}

Memory load_memory_json_reference(std::string_view text, const std::string& file) {
    check_json_text(text, file);
    MemorySax sax(file, text);
    nlohmann::json::sax_parse(text.begin(), text.end(), &sax);
    return sax.finish();
}

}  // namespace exactattn::detail

namespace exactattn {

Memory load_memory_argument(const std::string& arg) {
    if (!arg.empty() && arg[0] == '@') {
        const std::string path = arg.substr(1);
        const std::string text = read_input_file(path);
        return detail::load_memory_json(text, path, text.capacity());
    }
    Matrix m = parse_matrix(arg);
    if (m.empty()) throw shape_error("the memory has no rows: give at least one row, e.g. [[a,0]]");
    if (m.front().empty()) throw shape_error("memory rows are empty: give at least one coordinate");
    return Memory(std::move(m));
}

}  // namespace exactattn
