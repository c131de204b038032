// SPDX-License-Identifier: MIT
// exactattn: inline content — text, emphasis, code, tokens and math in a run — and the
// author's Markdown spans read into it.
#include <fmt/format.h>

#include "exactattn/document.hpp"
#include "render/text.hpp"

namespace exactattn {

// ---------------------------------------------------------------------------------------------
// Inline content

namespace {

void add_text(std::vector<Inline::Part>& parts, const std::string& raw, bool author) {
    const std::string s = detail::printable(raw);
    if (!parts.empty() && parts.back().kind == Inline::Kind::Text && parts.back().author == author) {
        parts.back().text += s;
    } else {
        parts.push_back(Inline::Part{Inline::Kind::Text, s, {}, author});
    }
}

}  // namespace

Inline& Inline::text(const std::string& raw) {
    add_text(parts_, raw, false);
    return *this;
}
Inline& Inline::author_text(const std::string& raw) {
    add_text(parts_, raw, true);
    return *this;
}
Inline& Inline::emph(const std::string& s) {
    parts_.push_back(Part{Kind::Emph, detail::printable(s), {}, false});
    return *this;
}
Inline& Inline::strong(const std::string& s) {
    parts_.push_back(Part{Kind::Strong, detail::printable(s), {}, false});
    return *this;
}
Inline& Inline::code(const std::string& s) {
    parts_.push_back(Part{Kind::Code, detail::printable(s), {}, false});
    return *this;
}
Inline& Inline::math(const Formula& f) {
    if (!parts_.empty() && parts_.back().kind == Kind::Math) {
        parts_.back().math.append(f);
        return *this;
    }
    parts_.push_back(Part{Kind::Math, {}, f, false});
    return *this;
}
Inline& Inline::token(const std::string& s) {
    parts_.push_back(Part{Kind::Token, detail::printable(s), {}, false});
    return *this;
}
Inline& Inline::append(const Inline& other) {
    for (const auto& p : other.parts_) {
        if (p.kind == Kind::Text)
            add_text(parts_, p.text, p.author);
        else
            parts_.push_back(p);
    }
    return *this;
}

Inline inline_markdown(const std::string& md, const Location& where) {
    Inline out;
    std::size_t i = 0;
    std::string plain;
    auto flush = [&] {
        if (!plain.empty()) out.author_text(plain);
        plain.clear();
    };
    while (i < md.size()) {
        const char c = md[i];
        if (c == '\\' && i + 1 < md.size() && std::string("*_`$\\").find(md[i + 1]) != std::string::npos) {
            plain += md[i + 1];
            i += 2;
            continue;
        }
        auto word = [&](std::size_t at) {
            return at < md.size() && (std::isalnum(static_cast<unsigned char>(md[at])) != 0 ||
                                      static_cast<unsigned char>(md[at]) >= 0x80);
        };
        auto span = [&](const std::string& open, Inline::Kind kind) {
            if (md.compare(i, open.size(), open) != 0) return false;
            const bool underscore = open == "_";
            if (underscore && i > 0 && word(i - 1)) return false;  // intraword: h_t
            auto end = md.find(open, i + open.size());
            while (underscore && end != std::string::npos && word(end + 1)) end = md.find(open, end + 1);
            if (end == std::string::npos || end == i + open.size()) return false;
            flush();
            const std::string inner = md.substr(i + open.size(), end - i - open.size());
            switch (kind) {
                case Inline::Kind::Strong:
                    out.strong(inner);
                    break;
                case Inline::Kind::Emph:
                    out.emph(inner);
                    break;
                case Inline::Kind::Code:
                    out.code(inner);
                    break;
                default: {
                    // Author math goes to LaTeX as written; with unbalanced braces it would break
                    // the document, so it is kept as text (`$` included).
                    int depth = 0;
                    bool balanced = true;
                    for (std::size_t k = 0; k < inner.size() && balanced; ++k) {
                        if (inner[k] == '\\')
                            ++k;  // \{ and \} are characters
                        else if (inner[k] == '{')
                            ++depth;
                        else if (inner[k] == '}')
                            balanced = --depth >= 0;
                    }
                    if (balanced && depth == 0)
                        out.math(Formula().tex(inner, where));
                    else
                        out.author_text("$" + inner + "$");
                    break;
                }
            }
            i = end + open.size();
            return true;
        };
        if (span("**", Inline::Kind::Strong) || span("`", Inline::Kind::Code) || span("$", Inline::Kind::Math) ||
            span("*", Inline::Kind::Emph) || span("_", Inline::Kind::Emph)) {
            continue;
        }
        plain += c;
        ++i;
    }
    flush();
    return out;
}

}  // namespace exactattn
