// SPDX-License-Identifier: MIT
// exactattn oracle: tensors from .npy (NumPy's format, versions 1 to 3), JSON and CSV files.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <sstream>

#include "exactattn/limits.hpp"
#include "exactattn/oracle.hpp"
#include "exactattn/scenario.hpp"
#include "scenario/json.hpp"  // private: the JSON checks every reader makes

namespace exactattn::oracle {

namespace {

Location at(const std::string& name) {
    Location l;
    l.file = name;
    return l;
}

// The header dictionary, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }.
struct Header {
    std::string descr;
    bool fortran = false;
    std::vector<std::int64_t> shape;
};

// The text after `'key':` in the header, or throws.
std::size_t value_of(const std::string& h, const char* key, const std::string& name) {
    const std::string k = fmt::format("'{}'", key);
    const auto p = h.find(k);
    if (p == std::string::npos) throw parse_error(at(name), fmt::format("the .npy header has no {}", k));
    auto q = h.find(':', p + k.size());
    if (q == std::string::npos) throw parse_error(at(name), fmt::format("the .npy header's {} has no value", k));
    ++q;
    while (q < h.size() && h[q] == ' ') ++q;
    return q;
}

std::vector<std::int64_t> parse_shape(const std::string& h, std::size_t p, const std::string& name) {
    if (p >= h.size() || h[p] != '(') throw parse_error(at(name), "the .npy header's shape is not a tuple");
    const auto e = h.find(')', p);
    if (e == std::string::npos) throw parse_error(at(name), "the .npy header's shape tuple is not closed");
    std::vector<std::int64_t> shape;
    std::istringstream in(h.substr(p + 1, e - p - 1));
    std::string item;
    while (std::getline(in, item, ',')) {
        const auto b = item.find_first_not_of(' ');
        if (b == std::string::npos) continue;
        const std::string t = item.substr(b, item.find_last_not_of(' ') - b + 1);
        if (t.empty() || t.size() > 18 || t.find_first_not_of("0123456789") != std::string::npos)
            throw parse_error(at(name), fmt::format("the .npy shape has the entry '{}'", escape_controls(t)));
        shape.push_back(std::stoll(t));
    }
    return shape;
}

Header parse_header(const std::string& h, const std::string& name) {
    Header r;
    const auto d = value_of(h, "descr", name);
    if (d >= h.size() || h[d] != '\'')
        throw parse_error(at(name), "the .npy dtype is not a simple type (structured and object arrays are refused)");
    const auto de = h.find('\'', d + 1);
    if (de == std::string::npos) throw parse_error(at(name), "the .npy dtype string is not closed");
    r.descr = h.substr(d + 1, de - d - 1);
    const auto f = value_of(h, "fortran_order", name);
    if (h.compare(f, 4, "True") == 0)
        r.fortran = true;
    else if (h.compare(f, 5, "False") != 0)
        throw parse_error(at(name), "the .npy fortran_order is not True or False");
    r.shape = parse_shape(h, value_of(h, "shape", name), name);
    return r;
}

// One element's value from its bytes (little-endian after any swap).
double element(const unsigned char* b, char kind, int size, FloatFormat& fmt_out, bool bf16,
               std::optional<FloatFormat> fp8) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, b, static_cast<std::size_t>(size));  // x86-64 and ARM64 are little-endian
    if (kind == 'f') {
        const FloatFormat f = size == 2   ? FloatFormat::Float16
                              : size == 4 ? FloatFormat::Float32
                                          : FloatFormat::Float64;
        fmt_out = f;
        return decode_bits(bits, f);
    }
    if (kind == 'u' && size == 2 && bf16) return decode_bits(bits, FloatFormat::BFloat16);
    if ((kind == 'u' || kind == 'V') && size == 1 && fp8) return decode_bits(bits, *fp8);
    if (kind == 'i') return static_cast<double>(static_cast<std::int8_t>(bits));
    return static_cast<double>(bits);  // 'u' and 'b' of one byte
}

}  // namespace

Tensor parse_npy(std::string_view bytes, const std::string& name, std::optional<FloatFormat> declared) {
    if (bytes.size() < 6 || bytes.substr(0, 6) != std::string_view("\x93NUMPY", 6))
        throw parse_error(at(name), "not a .npy file (no \\x93NUMPY magic)");
    if (bytes.size() < 8) throw parse_error(at(name), "truncated .npy header (no version)");
    const int major = static_cast<unsigned char>(bytes[6]);
    if (major < 1 || major > 3) throw parse_error(at(name), fmt::format("unsupported .npy version {}", major));
    const std::size_t lsize = major == 1 ? 2 : 4;
    if (bytes.size() < 8 + lsize) throw parse_error(at(name), "truncated .npy header");
    std::uint32_t hlen = 0;
    for (std::size_t x = 0; x < lsize; ++x)
        hlen |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[8 + x])) << (8 * x);
    const std::size_t start = 8 + lsize;
    if (hlen > (1u << 20) || bytes.size() < start + hlen)
        throw parse_error(at(name), fmt::format("truncated .npy header ({} bytes declared)", hlen));
    const Header h = parse_header(std::string(bytes.substr(start, hlen)), name);
    const std::string& d = h.descr;
    if (d.size() >= 2 && d[1] == 'O')
        throw parse_error(at(name), "the .npy file holds an object array (refused: it would need pickle)");
    if (d.size() < 3) throw parse_error(at(name), fmt::format("unknown .npy dtype '{}'", escape_controls(d)));
    const char order = d[0], kind = d[1];
    const std::string sz = d.substr(2);
    const int size = sz == "1" ? 1 : sz == "2" ? 2 : sz == "4" ? 4 : sz == "8" ? 8 : 0;
    const bool bf16 = declared == FloatFormat::BFloat16;
    // 8-bit floats: NumPy has none; torch's `t.view(torch.uint8).numpy()` writes '|u1' bit patterns,
    // ml_dtypes' arrays '|V1' (which of the 8-bit formats is not said: the declared one decides).
    const std::optional<FloatFormat> fp8 =
        declared && is_fp8(*declared) && (kind == 'u' || kind == 'V') && size == 1 ? declared : std::nullopt;
    const bool ok = (kind == 'f' && size >= 2) || (kind == 'u' && size == 2 && bf16) ||
                    ((kind == 'b' || kind == 'u' || kind == 'i') && size == 1) || fp8;
    if (!ok || (order != '<' && order != '>' && order != '|' && order != '='))
        throw parse_error(
            at(name),
            fmt::format("unsupported .npy dtype '{}' ({}){}", escape_controls(d),
                        kind == 'O' ? "object arrays are refused"
                                    : "f2, f4, f8; u2 with bfloat16; u1 or V1 with float8_e4m3fn or float8_e5m2; b1, "
                                      "u1, i1",
                        kind == 'u' && size == 2 ? ": declare the input format bfloat16 for bit patterns" : ""));
    std::int64_t count = 1;
    for (auto s : h.shape) {
        if (s > limits().max_cells || (s > 0 && count > limits().max_cells / s))
            throw over_limit(Limit::max_cells,
                             fmt::format("the .npy shape has more than {} elements", limits().max_cells), at(name));
        count *= s;
    }
    const std::size_t need = static_cast<std::size_t>(count) * static_cast<std::size_t>(size);
    if (bytes.size() - start - hlen != need)
        throw parse_error(
            at(name), fmt::format("the .npy data has {} bytes, the shape needs {}", bytes.size() - start - hlen, need));
    Tensor t;
    t.shape = h.shape;
    t.format = kind == 'f' ? FloatFormat::Float64 : bf16 ? FloatFormat::BFloat16 : fp8.value_or(FloatFormat::Float64);
    t.data.resize(static_cast<std::size_t>(count));
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + start + hlen);
    unsigned char buf[8];
    for (std::int64_t x = 0; x < count; ++x) {
        std::memcpy(buf, p + x * size, static_cast<std::size_t>(size));
        if (order == '>') std::reverse(buf, buf + size);
        t.data[x] = element(buf, kind, size, t.format, bf16, fp8);
    }
    if (h.fortran && t.shape.size() >= 2) {  // column-major → row-major, any rank (4-D heads too)
        const std::size_t rank = t.shape.size();
        std::vector<std::int64_t> index(rank, 0), stride(rank, 1);  // Fortran strides: the first axis fastest
        for (std::size_t a = 1; a < rank; ++a) stride[a] = stride[a - 1] * t.shape[a - 1];
        std::vector<double> o(t.data.size());
        for (std::int64_t x = 0; x < count; ++x) {  // x walks the C order; index is its multi-index
            std::int64_t from = 0;
            for (std::size_t a = 0; a < rank; ++a) from += index[a] * stride[a];
            o[x] = t.data[from];
            for (std::size_t a = rank; a-- > 0;) {
                if (++index[a] < t.shape[a]) break;
                index[a] = 0;
            }
        }
        t.data = std::move(o);
    }
    if (declared) t.format = *declared;
    return t;
}

std::string write_npy(const Tensor& t) {
    static const char* kDescr[] = {"<f2", "<u2", "<f4", "<f8", "|u1", "|u1"};  // 8-bit: bit patterns
    std::string shape;
    for (std::size_t x = 0; x < t.shape.size(); ++x) shape += (x ? ", " : "") + std::to_string(t.shape[x]);
    if (t.shape.size() == 1) shape += ",";
    std::string h = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}",
                                kDescr[static_cast<int>(t.format)], shape);
    const std::size_t total = (10 + h.size() + 1 + 63) / 64 * 64;  // header padded to 64 bytes
    h.append(total - 10 - h.size() - 1, ' ');
    h += '\n';
    std::string out("\x93NUMPY\x01\x00", 8);
    out += static_cast<char>(h.size() & 0xFF);
    out += static_cast<char>(h.size() >> 8);
    out += h;
    const int size = t.format == FloatFormat::Float64   ? 8
                     : t.format == FloatFormat::Float32 ? 4
                     : is_fp8(t.format)                 ? 1
                                                        : 2;
    for (double v : t.data) {
        const std::uint64_t bits = encode_bits(v, t.format);
        out.append(reinterpret_cast<const char*>(&bits), static_cast<std::size_t>(size));
    }
    return out;
}

namespace {

double json_number(const nlohmann::json& j, const std::string& path) {
    if (j.is_number()) return j.get<double>();
    if (j.is_string()) {
        const auto s = j.get<std::string>();
        if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
        if (s == "inf") return std::numeric_limits<double>::infinity();
        if (s == "-inf") return -std::numeric_limits<double>::infinity();
    }
    throw parse_error(at(path), fmt::format("an entry is not a number: {}", escape_controls(j.dump()).substr(0, 40)));
}

Tensor from_json(const std::string& text, const std::string& path) {
    // UTF-8 and max_nesting first, as for every JSON file the engine reads: nesting is a
    // matrix's two levels here, and a document 100 000 levels deep would overflow the stack of
    // every recursive pass over it (the dump of an entry named in a message).
    exactattn::detail::check_json_text(text, path);
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw parse_error(at(path), fmt::format("not JSON: {}", e.what()));
    }
    Tensor t;
    if (!j.is_array()) throw shape_error("the JSON must be an array (a vector or a matrix of rows)", at(path));
    const bool matrix = !j.empty() && j[0].is_array();
    t.shape = {static_cast<std::int64_t>(j.size())};
    if (matrix) t.shape.push_back(static_cast<std::int64_t>(j[0].size()));
    std::size_t r = 0;  // the row's index (a row of 0 entries leaves t.data no wiser)
    for (const auto& row : j) {
        if (!matrix) {
            t.data.push_back(json_number(row, path));
            continue;
        }
        if (!row.is_array() || static_cast<std::int64_t>(row.size()) != t.shape[1])
            throw shape_error(fmt::format("row {} does not have {} entries", r, t.shape[1]), at(path));
        ++r;
        for (const auto& x : row) t.data.push_back(json_number(x, path));
    }
    return t;
}

Tensor from_csv(const std::string& text, const std::string& path) {
    Tensor t;
    std::int64_t rows = 0, cols = -1, line_no = 0;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        const std::string_view line(text.data() + start, end - start);
        start = end + 1;
        ++line_no;
        const Location where{path, static_cast<int>(line_no), 0, "", ""};
        for (std::size_t x = 0; x < line.size(); ++x) {  // a NUL or a control byte ends no number silently
            const auto c = static_cast<unsigned char>(line[x]);
            if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7F)
                throw parse_error(
                    Location{path, static_cast<int>(line_no), static_cast<int>(x + 1), "", ""},
                    fmt::format("a control character ({}) in a CSV file", escape_controls(line.substr(x, 1))));
        }
        if (line.find_first_not_of(" \r\t") == std::string_view::npos) continue;
        std::int64_t n = 0;
        std::size_t cell_start = 0;
        for (;;) {
            const std::size_t comma = line.find(',', cell_start);
            const std::string cell(
                line.substr(cell_start, comma == std::string_view::npos ? std::string_view::npos : comma - cell_start));
            char* stop = nullptr;
            const auto b = cell.find_first_not_of(" \r\t");
            const double v = b == std::string::npos ? 0 : std::strtod(cell.c_str() + b, &stop);
            if (stop == nullptr || stop == cell.c_str() + b ||
                std::string_view(stop, cell.c_str() + cell.size() - stop).find_first_not_of(" \r\t") !=
                    std::string_view::npos)
                throw parse_error(where, b == std::string::npos
                                             ? fmt::format("an empty entry (entry {}; a trailing comma?)", n + 1)
                                             : fmt::format("'{}' is not a number", escape_controls(cell)));
            t.data.push_back(v);
            ++n;
            if (comma == std::string_view::npos) break;
            cell_start = comma + 1;
        }
        if (cols >= 0 && n != cols)
            throw shape_error(fmt::format("line {} has {} entries, line 1 has {}", rows + 1, n, cols), at(path));
        cols = n;
        ++rows;
    }
    t.shape = {rows, std::max<std::int64_t>(cols, 0)};
    return t;
}

}  // namespace

Tensor read_tensor(const std::string& path, std::optional<FloatFormat> declared) {
    // The one reader of every input file: a FIFO, device, socket or directory is refused at once
    // without blocking, a file past max_file_bytes before it is read.
    const std::string bytes = read_input_file(path);
    const auto ext = std::filesystem::path(path).extension().string();
    if (ext == ".npy") return parse_npy(bytes, path, declared);
    Tensor t;
    if (ext == ".json")
        t = from_json(bytes, path);
    else if (ext == ".csv")
        t = from_csv(bytes, path);
    else
        throw usage_error("unknown file type (.npy, .json, .csv)", at(path));
    t.format = declared.value_or(FloatFormat::Float64);
    return t;
}

}  // namespace exactattn::oracle
