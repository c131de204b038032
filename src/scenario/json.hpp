// SPDX-License-Identifier: MIT
// exactattn internal: exact JSON loading (numbers kept as their decimal text) and typed
// accessors that report errors with the file and JSON pointer.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exactattn/error.hpp"
#include "exactattn/memory.hpp"
#include "exactattn/value.hpp"
#include "scenario/pointer.hpp"

namespace exactattn {
struct Scenario;
}  // namespace exactattn

namespace exactattn::detail {

using Json = nlohmann::ordered_json;

/// The JSON array of f(x) for each x of `range`: the one loop of the writers' vectors,
/// matrices and lists (the report writes values as strings, the scenario writer small
/// integers as numbers; each passes its own f).
template <class Range, class F>
Json json_array(const Range& range, F&& f) {
    Json a = Json::array();
    for (const auto& x : range) a.push_back(f(x));
    return a;
}

/// Parses JSON text exactly: integers stay integers; other numbers are kept as strings of
/// their decimal text ("0.1" stays 1/10); duplicate keys are an error (ParseError with the
/// pointer); malformed JSON is a ParseError at file:line:column.
Json parse_json_exact(std::string_view text, const std::string& file);

/// Appends `key: value` to `object` (made an object if null) when its keys are known to be
/// distinct (a reader that refused duplicates, the names of a scenario's map), without
/// ordered_json's linear search: an object of n keys built with operator[] costs n²
/// (`verify` of an 80 000-token vocabulary took 6 s). Returns the appended value.
Json& append_distinct(Json& object, std::string key, Json value);

/// The place of byte `position` (as nlohmann counts: characters read, the offending one
/// included) as file:line:column, the column in code points.
Location text_location(const std::string& file, std::string_view text, std::size_t position);

/// The ParseError (or LimitError) for a nlohmann parse error at `position` in `text`.
Error json_parse_error(const std::string& file, std::string_view text, std::size_t position, const std::string& token,
                       const nlohmann::json::exception& ex);

/// Bytes past a text that read_input_file() leaves readable (allocated) for a vectorized reader.
inline constexpr std::size_t kJsonPadding = 64;

/// Checks JSON text before parsing: valid UTF-8 (ParseError at file:line:column) and nesting
/// no deeper than limits().max_nesting (LimitError at the bracket past it).
void check_json_text(std::string_view text, const std::string& file);

/// The text of an input file is UTF-8: ParseError at `file:line:column` otherwise (a scenario,
/// a memory, a class's CSV answers).
void check_file_utf8(std::string_view text, const std::string& file);

/// Typed access with errors that name the file and the pointer.
class Reader {
  public:
    Reader(std::string file) : file_(std::move(file)) {}
    [[nodiscard]] const std::string& file() const { return file_; }
    [[nodiscard]] Location at(const std::string& pointer) const;

    [[nodiscard]] Value value(const Json& j, const std::string& pointer) const;
    [[nodiscard]] Vector vector(const Json& j, const std::string& pointer) const;
    [[nodiscard]] Matrix matrix(const Json& j, const std::string& pointer) const;
    [[nodiscard]] std::string string(const Json& j, const std::string& pointer) const;
    [[nodiscard]] std::int64_t integer(const Json& j, const std::string& pointer, std::int64_t min,
                                       std::int64_t max) const;
    /// Checks the type; returns the value for chaining (ignoring it is fine: it is a check).
    const Json& object(const Json& j, const std::string& pointer) const;
    const Json& array(const Json& j, const std::string& pointer) const;
    /// Throws ReferenceError "unknown key" for keys not in `allowed`.
    void only_keys(const Json& obj, const std::string& pointer, std::initializer_list<const char*> allowed) const;

    /// The value paired with the string at `pointer`, or ReferenceError
    /// `unknown <what> "<s>"; expected a, b or c` naming the strings in the order given.
    template <class T>
    T choice(const Json& j, const std::string& pointer, const char* what,
             std::initializer_list<std::pair<const char*, T>> names) const {
        return choice_in<T>(j, pointer, what, names);
    }
    /// choice() over an enum's one name table (scenario/enum_names.hpp).
    template <class T>
    T choice(const Json& j, const std::string& pointer, const char* what,
             const std::vector<std::pair<const char*, T>>& names) const {
        return choice_in<T>(j, pointer, what, names);
    }

  private:
    template <class T, class Names>
    T choice_in(const Json& j, const std::string& pointer, const char* what, const Names& names) const {
        const std::string s = string(j, pointer);
        std::string list;
        std::size_t i = 0;
        for (const auto& [name, value] : names) {
            if (s == name) return value;
            list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + std::string(name);
            ++i;
        }
        throw reference_error("unknown " + std::string(what) + " \"" + s + "\"; expected " + list, at(pointer));
    }

  public:
    /// f(name, value, pointer) for every member of the object root[key], when root has `key`.
    template <class F>
    void each(const Json& root, const char* key, F&& f) const {
        if (!root.contains(key)) return;
        const std::string base = std::string("/") + key;
        for (const auto& [name, v] : object(root[key], base).items()) f(name, v, pointer_join(base, name));
    }

    /// f(name, value, pointer) for every member of the object root[key], when root has `key`,
    /// each member first checked to be an object with keys from `allowed` only: a section of
    /// named declarations.
    template <class F>
    void each_object(const Json& root, const char* key, std::initializer_list<const char*> allowed, F&& f) const {
        each(root, key, [&](const std::string& name, const Json& v, const std::string& pointer) {
            object(v, pointer);
            only_keys(v, pointer, allowed);
            f(name, v, pointer);
        });
    }

    /// Runs f, placing any error that has no place yet at `pointer` of this file.
    template <class F>
    auto located(const std::string& pointer, F&& f) const -> decltype(f()) {
        return placed(at(pointer), std::forward<F>(f));
    }

  private:
    std::string file_;
};

/// Binary subtype that tags a non-integer JSON number kept as its exact decimal text.
inline constexpr std::uint64_t kExactNumber = 0x45;
/// The decimal text of a tagged non-integer number, or nothing for any other entry.
std::optional<std::string> exact_number_text(const Json& j);
/// `j` with every tagged number turned into its decimal text as a string (for dumping).
Json plain_json(const Json& j);

/// Type name of a JSON value for messages ("a string", "an array", …).
std::string json_type(const Json& j);

/// The exact value of a scalar JSON entry (number or expression string), or throws.
Value json_value(const Json& j, const Location& where);

}  // namespace exactattn::detail
