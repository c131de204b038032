// SPDX-License-Identifier: MIT
// exactattn: the one error type, with a place and an exit code (docs/errors.md).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace exactattn {

/// Exit codes of the command line contract (docs/cli.md, "Exit codes").
enum class ExitCode : int {
    Success = 0,
    CheckFailed = 1,   ///< a verify mismatch, a cross-check over tolerance, a wrong learner answer
    InvalidInput = 2,  ///< parse error, shape mismatch, value outside the domain, limit, usage
};

/// Where an error happened: `file:line:column`, a JSON pointer, an expression column, or an
/// option name. Rendered as the prefix of the one-line message.
struct Location {
    std::string file;     ///< file name, or empty
    int line = 0;         ///< 1-based, 0 when unknown
    int column = 0;       ///< 1-based (code points), 0 when unknown
    std::string pointer;  ///< JSON pointer (RFC 6901), or empty
    std::string context;  ///< free text such as "expression" or "--memory", or empty

    /// `file:line:column`, `file: /pointer`, `expression column 4`, … (never empty).
    [[nodiscard]] std::string str() const;
    [[nodiscard]] bool empty() const {
        return file.empty() && line == 0 && column == 0 && pointer.empty() && context.empty();
    }
    /// The place named by `context` alone: an option (`--memory`), an argument, `position 3`.
    [[nodiscard]] static Location named(std::string context);
};

/// Which errors a placing leaves as they are, because they have a place of this kind already
/// (the innermost place holds). The one rule of placing an error (docs/contributing.md):
/// every wrapper is placed() with one of these, and every test of "already placed" is
/// Error::keeps_place.
enum class KeepPlace {
    InFile,               ///< a file or a JSON pointer (Error::in_file): the reader's and the runner's rule
    File,                 ///< a file: an option's place yields to a file read for it
    Any,                  ///< any place: an expression's column, a position, a step, an option
    AnyOrUsage,           ///< any place, and every UsageError (its reason names its file already)
    AnyButFilelessLimit,  ///< everything but a LimitError that names no file (a budget's refusal)
    AnyButName,           ///< a file, line, column or pointer: a bare name may still be renamed
    Nothing,              ///< none: every error is placed (Error::located merges the places)
};

/// Kinds of failure. Each has a stable name that tests and the README list.
enum class ErrorKind {
    Parse,        ///< text that does not follow the grammar (expression, JSON, UTF-8)
    Domain,       ///< mathematically outside the exact domain (exp(1), 1/a, division by zero)
    Limit,        ///< over a resource limit (exponent, root degree, number size, rows)
    Shape,        ///< wrong vector or matrix shape, width mismatch, empty memory
    Reference,    ///< unknown name, token, position or JSON pointer
    Usage,        ///< command line usage, unreadable or unwritable files
    CheckFailed,  ///< a verify mismatch or cross-check over tolerance (exit 1)
};

/// Stable name of a kind, e.g. "ParseError".
const char* kind_name(ErrorKind kind);

/// The only exception type the library throws on purpose. `what()` is the full one-line
/// message `place: reason`; `reason()` is the message without the place.
class Error : public std::runtime_error {
  public:
    Error(ErrorKind kind, Location where, std::string reason);

    [[nodiscard]] ErrorKind kind() const { return kind_; }
    [[nodiscard]] const Location& where() const { return where_; }
    [[nodiscard]] const std::string& reason() const { return reason_; }
    [[nodiscard]] ExitCode exit_code() const {
        return kind_ == ErrorKind::CheckFailed ? ExitCode::CheckFailed : ExitCode::InvalidInput;
    }
    /// A copy of this error with a place filled in where it had none (or with a file added).
    [[nodiscard]] Error located(const Location& outer) const;
    /// Whether the error names a file or a JSON pointer: a place that callers further out keep.
    [[nodiscard]] bool in_file() const { return !where_.file.empty() || !where_.pointer.empty(); }
    /// Whether a placing under `rule` leaves this error as it is.
    [[nodiscard]] bool keeps_place(KeepPlace rule) const;

  private:
    ErrorKind kind_;
    Location where_;
    std::string reason_;
};

/// `text` with every control character (C0, DEL, C1) shown as `<U+001B>` and every byte that
/// is not valid UTF-8 as `<0xFF>`, so that names echoed from files and arguments cannot carry
/// terminal escape sequences or carriage returns into a one-line message. Idempotent.
[[nodiscard]] std::string escape_controls(std::string_view text);

/// Runs f, placing an error at `where` (Error::located) unless it keeps its place under `keep`
/// (by default: unless it is in_file() already): the one rule by which the scenario reader
/// places an error at its declaration, the runner at the declaration it ran, a front end at
/// its option or argument, and the engine at a position, a step or an expression's column.
/// An error that keeps its place is rethrown as it is (a WorkRefusal stays one). `where` is a
/// Location, or a function that makes one, called only on an error (a place that costs a
/// format or a search, inside a loop).
template <class W, class F>
auto placed(const W& where, F&& f, KeepPlace keep = KeepPlace::InFile) -> decltype(f()) {
    try {
        return f();
    } catch (const Error& e) {
        if (e.keeps_place(keep)) throw;
        if constexpr (std::is_invocable_r_v<Location, const W&>) {
            throw e.located(where());
        } else {
            throw e.located(where);
        }
    }
}

/// Named factories (CLI11 style) so that messages are uniform.
[[nodiscard]] Error parse_error(Location where, std::string reason);
[[nodiscard]] Error domain_error(std::string reason, Location where = {});
[[nodiscard]] Error limit_error(std::string reason, Location where = {});
[[nodiscard]] Error shape_error(std::string reason, Location where = {});
[[nodiscard]] Error reference_error(std::string reason, Location where = {});
[[nodiscard]] Error usage_error(std::string reason, Location where = {});

}  // namespace exactattn
