// SPDX-License-Identifier: MIT
// exactattn: error type and message formatting.
#include "exactattn/error.hpp"

#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "core/assert.hpp"
#include "core/text.hpp"
#include "core/utf8.hpp"

namespace exactattn {

std::string Location::str() const {
    std::string out;
    auto part = [&out](const std::string& text) {
        if (!out.empty()) out += ": ";
        out += text;
    };
    if (!file.empty()) {
        std::string head = file;
        if (line > 0) {
            head += fmt::format(":{}", line);
            if (column > 0) head += fmt::format(":{}", column);
        }
        part(head);
    }
    if (!pointer.empty()) part(pointer);
    const bool loose_column = column > 0 && (file.empty() || line == 0);
    if (!context.empty()) {
        part(loose_column ? context + " column " + std::to_string(column) : context);
    } else if (loose_column) {
        part("column " + std::to_string(column));
    }
    return out;
}

const char* kind_name(ErrorKind kind) {
    switch (kind) {
        case ErrorKind::Parse:
            return "ParseError";
        case ErrorKind::Domain:
            return "DomainError";
        case ErrorKind::Limit:
            return "LimitError";
        case ErrorKind::Shape:
            return "ShapeError";
        case ErrorKind::Reference:
            return "ReferenceError";
        case ErrorKind::Usage:
            return "UsageError";
        case ErrorKind::CheckFailed:
            return "CheckFailed";
    }
    return "Error";
}

std::string escape_controls(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    while (i < text.size()) {
        if (const std::size_t n = detail::append_shown_control(out, text, i); n > 0) {
            i += n;
            continue;
        }
        const unsigned char c = byte(i);
        if (c < 0x80) {
            out += static_cast<char>(c);
            ++i;
            continue;
        }
        char32_t cp = 0;
        const std::size_t len = detail::decode_utf8(text, i, cp);
        if (len == 0) {
            out += fmt::format("<0x{:02X}>", c);
            ++i;
        } else {
            out.append(text.substr(i, len));
            i += len;
        }
    }
    return out;
}

namespace {
std::string render(const Location& where, const std::string& reason) {
    std::string place = where.str();
    return escape_controls(place.empty() ? reason : place + ": " + reason);
}
}  // namespace

Error::Error(ErrorKind kind, Location where, std::string reason)
    : std::runtime_error(render(where, reason)), kind_(kind), where_(std::move(where)), reason_(std::move(reason)) {}

Location Location::named(std::string context) {
    Location where;
    where.context = std::move(context);
    return where;
}

bool Error::keeps_place(KeepPlace rule) const {
    const Location& w = where_;
    switch (rule) {
        case KeepPlace::InFile:
            return in_file();
        case KeepPlace::File:
            return !w.file.empty();
        case KeepPlace::Any:
            return !w.empty();
        case KeepPlace::AnyOrUsage:
            return !w.empty() || kind_ == ErrorKind::Usage;
        case KeepPlace::AnyButFilelessLimit:
            return kind_ != ErrorKind::Limit || !w.file.empty();
        case KeepPlace::AnyButName:
            return !w.file.empty() || !w.pointer.empty() || w.line != 0 || w.column != 0;
        case KeepPlace::Nothing:
            return false;
    }
    return false;  // unreachable: every rule is a case above (-Wswitch)
}

Error Error::located(const Location& outer) const {
    Location merged = where_;
    if (merged.file.empty()) {
        merged.file = outer.file;
        if (merged.line == 0) {
            merged.line = outer.line;
            if (merged.column == 0) merged.column = outer.column;
        }
    }
    if (merged.pointer.empty()) merged.pointer = outer.pointer;
    if (!outer.context.empty()) {
        // "expression column 3" inside a JSON string becomes "/pointer: expression column 3".
        merged.context = merged.context.empty() ? outer.context : outer.context + " " + merged.context;
    }
    return Error(kind_, merged, reason_);
}

Error parse_error(Location where, std::string reason) {
    return Error(ErrorKind::Parse, std::move(where), std::move(reason));
}
Error domain_error(std::string reason, Location where) {
    return Error(ErrorKind::Domain, std::move(where), std::move(reason));
}
Error limit_error(std::string reason, Location where) {
    return Error(ErrorKind::Limit, std::move(where), std::move(reason));
}
Error shape_error(std::string reason, Location where) {
    return Error(ErrorKind::Shape, std::move(where), std::move(reason));
}
Error reference_error(std::string reason, Location where) {
    return Error(ErrorKind::Reference, std::move(where), std::move(reason));
}
Error usage_error(std::string reason, Location where) {
    return Error(ErrorKind::Usage, std::move(where), std::move(reason));
}

namespace detail {
void assert_failed(const char* cond, const char* file, int line, const char* func) {
    std::fprintf(stderr, "%s:%d: %s: internal invariant failed: %s\n", file, line, func, cond);
    std::abort();
}
}  // namespace detail

}  // namespace exactattn
