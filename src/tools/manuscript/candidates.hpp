// SPDX-License-Identifier: MIT
// exactattn internal: the candidates of an unmarked manuscript: every number-like token of its
// math, table cells and prose, with its kind, place, shape and list, and why it is no claim when
// it is none (a reference, a year, a list item's number, a heading's number, a label, a name).
#pragma once

#include <string>
#include <vector>

#include "tools/manuscript/binder.hpp"

namespace exactattn::manuscript::binding {

/// The candidates of the text s (the manuscript's scan with its marks and markup blanked), in
/// text order.
std::vector<Candidate> find_candidates(const Source& src, const std::string& s, const Binder& binder,
                                       const AuditOptions& options);

}  // namespace exactattn::manuscript::binding
