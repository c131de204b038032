// SPDX-License-Identifier: MIT
// exactattn internal: escaping text for the markup the renderers write.
#pragma once

#include <string>

namespace exactattn::detail {

/// Text for HTML and XML: & < > " escaped.
std::string html_escape(const std::string& s);

}  // namespace exactattn::detail
