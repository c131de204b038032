// SPDX-License-Identifier: MIT
// exactattn internal: where a scenario file's memories stand (memory_file.hpp, find_memory_spans),
// so that each is streamed by the memory reader and the rest of the file read as a document.
#include <simdjson.h>

#include <string>
#include <string_view>
#include <vector>

#include "scenario/memory_file.hpp"

namespace exactattn::detail {

std::vector<MemorySpan> find_memory_spans(std::string_view text, std::size_t readable) {
    // Only the structure is walked: the keys down to sources.<name>.memory, each memory array
    // skipped whole by its brackets (raw_json). Whether the rest of the text is valid JSON is
    // not decided here but by the reader of the rest and the memory reader of each span.
    namespace sj = simdjson;
    std::vector<MemorySpan> spans;
    if (!sj::validate_utf8(text.data(), text.size())) return {};
    sj::padded_string copy;
    sj::padded_string_view view(text.data(), text.size(), readable);
    if (readable < text.size() + sj::SIMDJSON_PADDING) {
        copy = sj::padded_string(text);
        view = copy;
    }
    sj::ondemand::parser parser;
    sj::ondemand::document doc;
    sj::ondemand::object root;
    if (parser.iterate(view).get(doc) != sj::SUCCESS || doc.get_object().get(root) != sj::SUCCESS) return {};
    for (auto field : root) {
        std::string_view key;
        if (field.unescaped_key().get(key) != sj::SUCCESS) return {};
        if (key != "sources") continue;
        sj::ondemand::object sources;
        if (field.value().get_object().get(sources) != sj::SUCCESS) return {};
        for (auto src : sources) {
            std::string name;
            sj::ondemand::value v;
            sj::ondemand::json_type type;
            if (src.unescaped_key().get(key) != sj::SUCCESS) return {};
            name = key;
            if (src.value().get(v) != sj::SUCCESS || v.type().get(type) != sj::SUCCESS) return {};
            if (type != sj::ondemand::json_type::object) continue;
            sj::ondemand::object o;
            if (v.get_object().get(o) != sj::SUCCESS) return {};
            for (auto f : o) {
                if (f.unescaped_key().get(key) != sj::SUCCESS) return {};
                if (key != "memory") continue;
                sj::ondemand::value m;
                if (f.value().get(m) != sj::SUCCESS || m.type().get(type) != sj::SUCCESS) return {};
                if (type != sj::ondemand::json_type::array) continue;
                sj::ondemand::array a;
                std::string_view raw;
                if (m.get_array().get(a) != sj::SUCCESS || a.raw_json().get(raw) != sj::SUCCESS) return {};
                // The span is inside `view`, which may be a copy: the same offsets in `text`.
                const auto offset = static_cast<std::size_t>(raw.data() - view.data());
                while (!raw.empty() && raw.back() != ']') raw.remove_suffix(1);  // trailing blanks
                if (raw.empty() || offset + raw.size() > text.size()) return {};
                spans.push_back(MemorySpan{name, offset, raw.size()});
            }
        }
    }
    return spans;
}

}  // namespace exactattn::detail
