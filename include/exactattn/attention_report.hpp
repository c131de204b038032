// SPDX-License-Identifier: MIT
// exactattn: an attention layer's output (attention.hpp's LayerTrace) as JSON and as tables of
// a document. The report layer: the model's header knows nothing of documents.
#pragma once

#include <string>
#include <vector>

#include "exactattn/attention.hpp"
#include "exactattn/document.hpp"

namespace exactattn {

/// `attend --format json`: {"input", "masked", "heads": [{"queries", "keys", "values",
/// "scores" (n_q × n_k, masked null), "denominators", "weights" (masked "0"), "outputs"}],
/// "concat", "output"}, every value its canonical ascii string. Arrays are addressed 0-based
/// (RFC 6901): /heads/0/weights/1/2 is head 1, query 2, key 3.
std::string layer_json(const LayerTrace& t);

/// The layer's tables added to a document: per head the score matrix (masked: —), the weight
/// matrix and the outputs, with row and column labels (the tokens, or 1..n when empty), then
/// the layer output.
void add_layer(Document& doc, const LayerTrace& t, const std::vector<std::string>& query_labels = {},
               const std::vector<std::string>& key_labels = {});

}  // namespace exactattn
