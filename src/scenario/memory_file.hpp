// SPDX-License-Identifier: MIT
// exactattn internal: memory files (`read --memory @FILE`, a source's `memory` in a scenario):
// streamed into a compact Memory by a vectorized reader, with nlohmann's reader as the reference.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "exactattn/memory.hpp"
#include "scenario/json.hpp"

namespace exactattn::detail {

/// A memory file's text, `[[v, ...], ...]`, streamed into a Memory: shape and limits checked
/// row by row, entries kept compact (Memory::scaled_integers) whenever they allow it.
/// `readable`: the bytes readable from text.data(); with kJsonPadding past the text (as
/// read_file() leaves), the fast reader needs no copy of the text.
Memory load_memory_json(std::string_view text, const std::string& file, std::size_t readable = 0);
/// The same with nlohmann's reader only: the reference that load_memory_json's fast reader
/// must agree with (it falls back to this one for every error, so errors are this one's).
Memory load_memory_json_reference(std::string_view text, const std::string& file);

/// A memory array of a scenario's source, `sources.<name>.memory`: its bytes in the text.
struct MemorySpan {
    std::string source;
    std::size_t offset = 0;
    std::size_t size = 0;
};
/// The memory arrays of a scenario text's sources, found by a structural walk (simdjson's On
/// Demand reader) without reading the arrays; empty when the text is not a JSON object the
/// walk can follow. The spans are in text order. Validity of the text is not checked: the
/// caller reads each span with load_memory_json and the rest with parse_json_exact.
std::vector<MemorySpan> find_memory_spans(std::string_view text, std::size_t readable = 0);

}  // namespace exactattn::detail
