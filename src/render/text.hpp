// SPDX-License-Identifier: MIT
// exactattn internal: escaping text for the markup the renderers and exports write.
#pragma once

#include <string>
#include <string_view>

namespace exactattn::detail {

/// Text for XML 1.0 (and so HTML, SVG, Moodle XML, JUnit): & < > " escaped, and every
/// character XML 1.0 cannot carry at all — the C0 controls but tab, line feed and carriage
/// return, and the noncharacters U+FFFE and U+FFFF — written visibly as <U+XXXX>, and every byte
/// that is not part of valid UTF-8 (a file name with byte 0xFF) as <0xFF>, so that what an author
/// or a file name holds can never make a document ill-formed. In an attribute
/// (`attribute`), ' is escaped too, and tab, line feed and carriage return as character
/// references, which attribute-value normalisation would otherwise turn into spaces.
std::string xml_escape(std::string_view s, bool attribute = false);

/// xml_escape(s): text for HTML element content and double-quoted attributes.
std::string html_escape(const std::string& s);

/// Text for Markdown (CommonMark) outside code spans: & < > as HTML writes them (&amp; &lt;
/// &gt;), so that a title, token or name such as <script> or <img onerror=…> is shown as text
/// and never passes into the page as raw HTML.
std::string markdown_escape(std::string_view s);

/// Text for pandoc's Markdown (and CommonMark) read as the characters written: every ASCII
/// punctuation character backslash-escaped, so that no markup (`<script>`, `$…$` math, links,
/// emphasis, `{{…}}`, a table's `|`) is formed from it. What a manuscript filler puts into
/// Markdown prose from a scenario (a token, a title).
std::string markdown_literal(std::string_view s);

/// A Markdown code span showing s literally: delimited by one backtick more than the longest
/// run of backticks in s (and padded by a space when s starts or ends with one), so that a
/// name holding ` cannot close the span and continue as Markdown or HTML. Inside a span
/// nothing is markup, so nothing else is escaped; `s` for text without backticks.
std::string markdown_code(std::string_view s);

/// Text for a document, without terminal control characters (a scenario string may carry ESC
/// sequences or a carriage return): each C0 and C1 control is written `<U+001B>`, as in error
/// messages. Line breaks and tabs stay.
std::string printable(const std::string& s);

}  // namespace exactattn::detail
