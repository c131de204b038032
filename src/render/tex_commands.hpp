// SPDX-License-Identifier: MIT
// exactattn internal: the one table of TeX commands that stand for one character, read by every
// TeX reader and writer of the renderers (tex_to_text, the MathML reader, latex_escape).
#pragma once

#include <string_view>

namespace exactattn::detail {

/// A command such as \theta or \approx and the character it stands for.
struct TexCommand {
    std::string_view name;  ///< without the backslash
    std::string_view text;  ///< the character in UTF-8
    bool letter;            ///< a letter (MathML <mi>) rather than an operator (<mo>)
    /// latex_escape writes `text` in prose as \ensuremath{\name}: the first such row of a
    /// character (\varepsilon for ε; \sum is Σ when read, but Σ is written \Sigma).
    bool written;
};

/// The command named `name` (without the backslash), or nullptr.
const TexCommand* find_tex_command(std::string_view name);

/// The command latex_escape writes for the character at the start of `s` (UTF-8), or nullptr.
const TexCommand* tex_command_writing(std::string_view s);

}  // namespace exactattn::detail
