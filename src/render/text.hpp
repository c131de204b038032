// SPDX-License-Identifier: MIT
// exactattn internal: escaping text for the markup the renderers and exports write.
#pragma once

#include <string>
#include <string_view>

namespace exactattn::detail {

/// Text for XML 1.0 (and so HTML, SVG, Moodle XML, JUnit): & < > " escaped, and every
/// character XML 1.0 cannot carry at all — the C0 controls but tab, line feed and carriage
/// return, and the noncharacters U+FFFE and U+FFFF — written visibly as <U+XXXX>, so that what
/// an author or a file name holds can never make a document ill-formed. In an attribute
/// (`attribute`), ' is escaped too, and tab, line feed and carriage return as character
/// references, which attribute-value normalisation would otherwise turn into spaces.
std::string xml_escape(std::string_view s, bool attribute = false);

/// xml_escape(s): text for HTML element content and double-quoted attributes.
std::string html_escape(const std::string& s);

}  // namespace exactattn::detail
