// SPDX-License-Identifier: MIT
// exactattn internal: exact JSON loading with a SAX builder.
#include "json_io.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "exactattn/limits.hpp"
#include "exactattn/parse.hpp"

namespace exactattn::detail {

std::string pointer_join(const std::string& base, const std::string& token) {
    std::string escaped;
    for (char c : token) {
        if (c == '~') escaped += "~0";
        else if (c == '/') escaped += "~1";
        else escaped += c;
    }
    return base + "/" + escaped;
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

    ExactSax(Json& root, std::string file) : root_(root), file_(std::move(file)) {}

    bool null() { return put(Json(nullptr)); }
    bool boolean(bool v) { return put(Json(v)); }
    bool number_integer(number_integer_t v) { return put(Json(v)); }
    bool number_unsigned(number_unsigned_t v) { return put(Json(v)); }
    bool number_float(number_float_t /*rounded*/, const string_t& text) { return put(Json(text)); }
    bool string(string_t& v) { return put(Json(v)); }
    bool binary(binary_t& /*unused*/) { return put(Json(nullptr)); }

    bool start_object(std::size_t /*unused*/) {
        Json* j = put_ptr(Json::object());
        stack_.push_back(Frame{j, current_pointer(), {}});
        return true;
    }
    bool key(string_t& k) {
        Frame& f = stack_.back();
        if (f.node->contains(k)) {
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
        stack_.push_back(Frame{j, current_pointer(), {}});
        return true;
    }
    bool end_array() {
        stack_.pop_back();
        return true;
    }

    bool parse_error(std::size_t /*pos*/, const std::string& /*token*/,
                     const nlohmann::json::exception& ex) {
        // "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error …"
        std::string what = ex.what();
        const auto colon = what.find(": ");
        std::string reason = colon == std::string::npos ? what : what.substr(colon + 2);
        int line = 0;
        int column = 0;
        const auto at = what.find("at line ");
        if (at != std::string::npos) {
            std::sscanf(what.c_str() + at, "at line %d, column %d", &line, &column);
        }
        Location l;
        l.file = file_;
        l.line = line;
        l.column = column;
        throw exactattn::parse_error(l, "invalid JSON: " + reason);
    }

private:
    struct Frame {
        Json* node;
        std::string pointer;
        std::string key;
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
        if (f.node->is_object()) {
            (*f.node)[f.key] = std::move(v);
            return &(*f.node)[f.key];
        }
        f.node->push_back(std::move(v));
        return &f.node->back();
    }
    bool put(Json v) {
        put_ptr(std::move(v));
        return true;
    }

    Json& root_;
    std::string file_;
    std::vector<Frame> stack_;
};

}  // namespace

Json parse_json_exact(std::string_view text, const std::string& file) {
    try {
        check_utf8(text, "");
    } catch (const Error& e) {
        Location l;
        l.file = file;
        l.line = e.where().line;
        l.column = e.where().column;
        throw exactattn::parse_error(l, fmt::format("invalid UTF-8: {}", e.reason()));
    }
    Json root;
    ExactSax sax(root, file);
    nlohmann::json::sax_parse(text.begin(), text.end(), &sax);
    return root;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw usage_error(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
    }
    in.seekg(0, std::ios::end);
    const auto size = static_cast<std::int64_t>(in.tellg());
    if (size < 0) throw usage_error(fmt::format("cannot read {}: not a regular file", path));
    if (size > limits().max_file_bytes) {
        throw limit_error(fmt::format("{} has {} bytes, over the limit of {} (limits: max_file_bytes)",
                                      path, size, limits().max_file_bytes));
    }
    in.seekg(0, std::ios::beg);
    std::string s(static_cast<std::size_t>(size), '\0');
    in.read(s.data(), size);
    if (!in) throw usage_error(fmt::format("cannot read {}", path));
    return s;
}

std::string json_type(const Json& j) {
    switch (j.type()) {
        case Json::value_t::null: return "null";
        case Json::value_t::boolean: return "a boolean";
        case Json::value_t::string: return "a string";
        case Json::value_t::array: return "an array";
        case Json::value_t::object: return "an object";
        default: return "a number";
    }
}

Value json_value(const Json& j, const Location& where) {
    try {
        if (j.is_number_integer()) {
            if (j.is_number_unsigned()) return Value(mpq_class(mpz_class(std::to_string(j.get<std::uint64_t>()))));
            return Value(mpq_class(mpz_class(std::to_string(j.get<std::int64_t>()))));
        }
        if (j.is_string()) return parse_value(j.get_ref<const std::string&>());
    } catch (const Error& e) {
        throw e.located(where);
    }
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

Value Reader::value(const Json& j, const std::string& pointer) const {
    return json_value(j, at(pointer));
}

Vector Reader::vector(const Json& j, const std::string& pointer) const {
    if (!j.is_array()) {
        throw shape_error(fmt::format("expected a vector (an array of values), found {}", json_type(j)),
                          at(pointer));
    }
    Vector v;
    v.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) v.push_back(value(j[i], pointer_join(pointer, i)));
    return v;
}

Matrix Reader::matrix(const Json& j, const std::string& pointer) const {
    if (!j.is_array()) {
        throw shape_error(fmt::format("expected a matrix (an array of rows), found {}", json_type(j)),
                          at(pointer));
    }
    Matrix m;
    m.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) {
        m.push_back(vector(j[i], pointer_join(pointer, i)));
        if (m.back().size() != m.front().size()) {
            throw shape_error(fmt::format("row {} has {} entries, row 1 has {}", i + 1,
                                          m.back().size(), m.front().size()),
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

std::int64_t Reader::integer(const Json& j, const std::string& pointer, std::int64_t min,
                             std::int64_t max) const {
    const Value v = value(j, pointer);
    if (!v.is_rational() || v.rational().get_den() != 1 ||
        !mpz_fits_slong_p(v.rational().get_num_mpz_t())) {
        throw shape_error(fmt::format("expected a whole number from {} to {}", min, max), at(pointer));
    }
    const long x = v.rational().get_num().get_si();
    if (x < min || x > max) {
        throw shape_error(fmt::format("{} is out of range: expected a whole number from {} to {}", x,
                                      min, max),
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

void Reader::only_keys(const Json& obj, const std::string& pointer,
                       std::initializer_list<const char*> allowed) const {
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
