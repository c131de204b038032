// SPDX-License-Identifier: MIT
// exactattn internal: the tokens of an expression, as the parser (parse.cpp) reads them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "exactattn/error.hpp"

namespace exactattn::detail {

enum class Tok {
    End,
    Number,
    Name,
    Plus,
    Minus,
    Star,
    Slash,
    Caret,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Comma,
    Root,
    Super
};

struct Token {
    Tok kind = Tok::End;
    std::string text;  // number literal, name, or the root/superscript payload
    int column = 0;    // 1-based code point
    int root = 0;      // 2, 3, 4 for √ ∛ ∜
    long super = 0;    // value of a superscript power
};

/// The tokens of `text`, the last one End (a ParseError at the column of a byte that is not
/// UTF-8 or a character that is no syntax, naming a look-alike's meant character).
std::vector<Token> lex(std::string_view text);

/// A token as messages name it ("end of input", or its text in quotes).
const char* describe(const Token& t);
std::string show(const Token& t);
/// The place of a column of the expression.
Location at(int column);

}  // namespace exactattn::detail
