// SPDX-License-Identifier: MIT
// exactattn internal: the sentences of answer keys — how a sentence is put together from text
// and math (answer_key.cpp, answer_key_layers.cpp), and a layer's derivation sentences.
#pragma once

#include <string>
#include <vector>

#include "exactattn/document.hpp"
#include "exactattn/report.hpp"

namespace exactattn::detail {

// A sentence from text and math in order: say("Weights are ", v(w), ".").
inline void add(Inline& out, const std::string& text) { out.text(text); }
inline void add(Inline& out, const char* text) { out.text(text); }
inline void add(Inline& out, const Inline& in) { out.append(in); }
template <class... Parts>
Inline say(const Parts&... parts) {
    Inline out;
    (add(out, parts), ...);
    return out;
}

inline Inline v(const Value& x) { return Inline().value(x); }
inline Inline v(const std::vector<Value>& x) { return Inline().vector(x); }

// An exercise's layer reference "<name>[/rest]": its sentences (docs/attention.md#exercises-on-a-layer).
std::vector<Inline> layer_sentences(const Report& rep, const std::string& ref);

}  // namespace exactattn::detail
