// SPDX-License-Identifier: MIT
// exactattn internal: exact JSON loading with a SAX builder.
#include "scenario/json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <unordered_set>
#include <vector>

#include "exactattn/limits.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/scenario.hpp"

namespace exactattn::detail {

Error json_parse_error(const std::string& file, std::string_view text, std::size_t position, const std::string& token,
                       const nlohmann::json::exception& ex) {
    Location l = text_location(file, text, position);
    if (ex.id == 406) {
        // nlohmann's position is the number's last character; point at its first.
        l = text_location(file, text, position + 1 > token.size() ? position + 1 - token.size() : 0);
        // A number past the double range: nlohmann refuses it before handing over its text.
        // Its exact value is often fine (1e400), but the reader cannot go on, so say how to
        // write it; past a limit (1e999999999) report the limit itself.
        try {
            (void)parse_value(token);
        } catch (const Error& e) {
            return Error(e.kind(), l, e.reason());
        }
        return exactattn::parse_error(
            l, fmt::format("the number {} is outside the range the JSON reader accepts; write it "
                           "as a string, \"{}\", to keep it exact",
                           token, token));
    }
    // "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error …": keep
    // the reason; the place is recomputed in code points (nlohmann counts bytes).
    const std::string what = ex.what();
    const auto colon = what.find(": ");
    const std::string reason = colon == std::string::npos ? what : what.substr(colon + 2);
    return exactattn::parse_error(l, "invalid JSON: " + reason);
}

namespace {

// Builds an ordered_json DOM like nlohmann's json_sax_dom_parser, but keeps non-integer
// numbers as their exact text and refuses duplicate keys.
class ExactSax {
  public:
    using number_integer_t = Json::number_integer_t;
    using number_unsigned_t = Json::number_unsigned_t;
    using number_float_t = Json::number_float_t;
    using string_t = Json::string_t;
    using binary_t = Json::binary_t;

    ExactSax(Json& root, std::string file, std::string_view text) : root_(root), file_(std::move(file)), text_(text) {}

    bool null() { return put(Json(nullptr)); }
    bool boolean(bool v) { return put(Json(v)); }
    bool number_integer(number_integer_t v) { return put(Json(v)); }
    bool number_unsigned(number_unsigned_t v) { return put(Json(v)); }
    // A non-integer number keeps its decimal text, tagged so that it is still a number: it
    // cannot pass where a string is required ("title": 1.5), nor be read as an expression.
    bool number_float(number_float_t /*rounded*/, const string_t& text) {
        return put(Json::binary(Json::binary_t::container_type(text.begin(), text.end()), kExactNumber));
    }
    bool string(string_t& v) { return put(Json(v)); }
    bool binary(binary_t& /*unused*/) { return put(Json(nullptr)); }

    bool start_object(std::size_t /*unused*/) {
        Json* j = put_ptr(Json::object());
        stack_.push_back(Frame{j, current_pointer(), {}, {}});
        return true;
    }
    bool key(string_t& k) {
        Frame& f = stack_.back();
        // A hash set per open object: ordered_json looks keys up linearly, so checking (and
        // inserting) through it made an object of n keys cost n² (80 000 keys: 72 s).
        if (!f.keys.insert(k).second) {
            Location l;
            l.file = file_;
            l.pointer = pointer_join(f.pointer, k);
            throw exactattn::parse_error(l, fmt::format("duplicate key \"{}\" in the same object", k));
        }
        f.key = k;
        return true;
    }
    bool end_object() {
        stack_.pop_back();
        return true;
    }
    bool start_array(std::size_t /*unused*/) {
        Json* j = put_ptr(Json::array());
        stack_.push_back(Frame{j, current_pointer(), {}, {}});
        return true;
    }
    bool end_array() {
        stack_.pop_back();
        return true;
    }

    bool parse_error(std::size_t position, const std::string& token, const nlohmann::json::exception& ex) {
        throw json_parse_error(file_, text_, position, token, ex);
    }

  private:
    struct Frame {
        Json* node;
        std::string pointer;
        std::string key;
        std::unordered_set<std::string> keys;  // of an object, to refuse duplicates in O(1)
    };

    std::string current_pointer() const {
        if (stack_.empty()) return "";
        const Frame& f = stack_.back();
        if (f.node->is_object()) return pointer_join(f.pointer, f.key);
        return pointer_join(f.pointer, f.node->size() - 1);
    }

    Json* put_ptr(Json v) {
        if (stack_.empty()) {
            root_ = std::move(v);
            return &root_;
        }
        Frame& f = stack_.back();
        if (f.node->is_object()) return &append_distinct(*f.node, f.key, std::move(v));  // key() checked it
        f.node->push_back(std::move(v));
        return &f.node->back();
    }
    bool put(Json v) {
        put_ptr(std::move(v));
        return true;
    }

    Json& root_;
    std::string file_;
    std::string_view text_;
    std::vector<Frame> stack_;
};

}  // namespace

Location text_location(const std::string& file, std::string_view text, std::size_t position) {
    // nlohmann's position counts the characters read, the offending one included.
    const std::size_t at = std::min(position > 0 ? position - 1 : 0, text.size());
    Location l;
    l.file = file;
    l.line = 1;
    std::size_t start = 0;
    for (std::size_t i = 0; i < at; ++i) {
        if (text[i] == '\n') {
            ++l.line;
            start = i + 1;
        }
    }
    l.column = 1;
    for (std::size_t i = start; i < at; ++i) {
        if ((static_cast<unsigned char>(text[i]) & 0xC0U) != 0x80U) ++l.column;  // code points
    }
    return l;
}

void check_json_nesting(std::string_view text, const std::string& file) {
    // Refused before parsing: nothing in a scenario or memory nests deeper than a few levels,
    // and a deep document costs time and stack in every later pass over it.
    int depth = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > limits().max_nesting) {
                throw over_limit(Limit::max_nesting, fmt::format("JSON nests at least {} levels deep", depth),
                                 text_location(file, text, i + 1));
            }
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
}

void check_file_utf8(std::string_view text, const std::string& file) {
    try {
        check_utf8(text, "");
    } catch (const Error& e) {
        Location l;
        l.file = file;
        l.line = e.where().line;
        l.column = e.where().column;
        throw exactattn::parse_error(l, fmt::format("invalid UTF-8: {}", e.reason()));
    }
}

void check_json_text(std::string_view text, const std::string& file) {
    check_file_utf8(text, file);
    check_json_nesting(text, file);
}

Json& append_distinct(Json& object, std::string key, Json value) {
    if (object.is_null()) object = Json::object();
    auto& items = static_cast<std::vector<Json::object_t::value_type>&>(object.get_ref<Json::object_t&>());
    items.emplace_back(std::move(key), std::move(value));
    return items.back().second;
}

Json parse_json_exact(std::string_view text, const std::string& file) {
    check_json_text(text, file);
    Json root;
    ExactSax sax(root, file, text);
    nlohmann::json::sax_parse(text.begin(), text.end(), &sax);
    return root;
}

std::string json_type(const Json& j) {
    switch (j.type()) {
        case Json::value_t::null:
            return "null";
        case Json::value_t::boolean:
            return "a boolean";
        case Json::value_t::string:
            return "a string";
        case Json::value_t::array:
            return "an array";
        case Json::value_t::object:
            return "an object";
        default:
            return "a number";
    }
}

std::optional<std::string> exact_number_text(const Json& j) {
    if (!j.is_binary() || !j.get_binary().has_subtype() || j.get_binary().subtype() != kExactNumber)
        return std::nullopt;
    const auto& b = j.get_binary();
    return std::string(b.begin(), b.end());
}

Json plain_json(const Json& j) {
    if (const auto text = exact_number_text(j)) return Json(*text);
    if (j.is_array() || j.is_object()) {
        Json out = j;
        for (auto& x : out) x = plain_json(x);
        return out;
    }
    return j;
}

Value json_value(const Json& j, const Location& where) {
    const std::optional<Value> v = placed(
        where,
        [&]() -> std::optional<Value> {
            if (j.is_number_integer()) {
                if (j.is_number_unsigned()) return Value(mpq_class(mpz_class(std::to_string(j.get<std::uint64_t>()))));
                return Value(mpq_class(mpz_class(std::to_string(j.get<std::int64_t>()))));
            }
            if (j.is_string()) return parse_value(j.get_ref<const std::string&>());
            if (const auto text = exact_number_text(j)) return parse_value(*text);
            return std::nullopt;
        },
        KeepPlace::Nothing);
    if (v) return *v;
    throw shape_error(fmt::format("expected an exact value (a number or an expression string), "
                                  "found {}",
                                  json_type(j)),
                      where);
}

Location Reader::at(const std::string& pointer) const {
    Location l;
    l.file = file_;
    l.pointer = pointer.empty() ? "/" : pointer;
    return l;
}

Value Reader::value(const Json& j, const std::string& pointer) const { return json_value(j, at(pointer)); }

Vector Reader::vector(const Json& j, const std::string& pointer) const {
    if (!j.is_array()) {
        throw shape_error(fmt::format("expected a vector (an array of values), found {}", json_type(j)), at(pointer));
    }
    Vector v;
    v.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) v.push_back(value(j[i], pointer_join(pointer, i)));
    return v;
}

Matrix Reader::matrix(const Json& j, const std::string& pointer) const {
    if (!j.is_array()) {
        throw shape_error(fmt::format("expected a matrix (an array of rows), found {}", json_type(j)), at(pointer));
    }
    Matrix m;
    m.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) {
        m.push_back(vector(j[i], pointer_join(pointer, i)));
        if (m.back().size() != m.front().size()) {
            throw shape_error(
                fmt::format("row {} has {} entries, row 1 has {}", i + 1, m.back().size(), m.front().size()),
                at(pointer_join(pointer, i)));
        }
    }
    return m;
}

std::string Reader::string(const Json& j, const std::string& pointer) const {
    if (!j.is_string()) {
        throw shape_error(fmt::format("expected a string, found {}", json_type(j)), at(pointer));
    }
    return j.get<std::string>();
}

std::int64_t Reader::integer(const Json& j, const std::string& pointer, std::int64_t min, std::int64_t max) const {
    const Value v = value(j, pointer);
    if (!v.is_rational() || v.rational().get_den() != 1 || !mpz_fits_slong_p(v.rational().get_num_mpz_t())) {
        throw shape_error(fmt::format("expected a whole number from {} to {}", min, max), at(pointer));
    }
    const long x = v.rational().get_num().get_si();
    if (x < min || x > max) {
        throw shape_error(fmt::format("{} is out of range: expected a whole number from {} to {}", x, min, max),
                          at(pointer));
    }
    return x;
}

const Json& Reader::object(const Json& j, const std::string& pointer) const {
    if (!j.is_object()) {
        throw shape_error(fmt::format("expected an object, found {}", json_type(j)), at(pointer));
    }
    return j;
}

const Json& Reader::array(const Json& j, const std::string& pointer) const {
    if (!j.is_array()) {
        throw shape_error(fmt::format("expected an array, found {}", json_type(j)), at(pointer));
    }
    return j;
}

void Reader::only_keys(const Json& obj, const std::string& pointer, std::initializer_list<const char*> allowed) const {
    for (const auto& [k, v] : obj.items()) {
        bool ok = false;
        for (const char* a : allowed) ok = ok || k == a;
        if (!ok) {
            std::string list;
            for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
            throw reference_error(fmt::format("unknown key \"{}\"; expected one of: {}", k, list),
                                  at(pointer_join(pointer, k)));
        }
    }
}

}  // namespace exactattn::detail

namespace exactattn {

// The one reader of every input file (scenarios, memories, manuscripts and the chapters they
// include, a LaTeX preamble, class answers, the oracle's CSV, JSON and .npy tensors).
std::string read_input_file(const std::string& path) {
    // Opened without blocking and checked on the open descriptor: a FIFO or a device given as
    // a file would otherwise block forever in open() (a FIFO with no writer) before any check.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) throw usage_error(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0) throw usage_error(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
    if (S_ISDIR(st.st_mode)) throw usage_error(fmt::format("cannot read {}: it is a directory", path));
    if (!S_ISREG(st.st_mode)) {
        throw usage_error(
            fmt::format("cannot read {}: not a regular file (a FIFO, device or socket is not "
                        "read, so that nothing can block)",
                        path));
    }
    const auto size = static_cast<std::int64_t>(st.st_size);
    if (size > limits().max_file_bytes) {
        Location where;
        where.file = path;
        throw over_limit(Limit::max_file_bytes, fmt::format("the file has {} bytes", size), where);
    }
    std::string s;
    s.reserve(static_cast<std::size_t>(size) + detail::kJsonPadding);
    s.resize(static_cast<std::size_t>(size));
    std::size_t done = 0;
    while (done < s.size()) {
        const ssize_t r = ::read(fd, s.data() + done, s.size() - done);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) throw usage_error(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
        if (r == 0) break;  // the file shrank while it was read
        done += static_cast<std::size_t>(r);
    }
    s.resize(done);
    return s;
}

}  // namespace exactattn
