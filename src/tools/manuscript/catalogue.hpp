// SPDX-License-Identifier: MIT
// exactattn internal: the catalogue the binder scores against (docs/manuscript.md, "How audit
// binds a number"): every numeric quantity of the report with its entity (a read, an
// intervention, a cost case, a source, a layer…), its field and its indexes, and the phrases
// that name each entity in prose.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "exactattn/scenario.hpp"
#include "tools/manuscript/quantities.hpp"

namespace exactattn::manuscript::binding {

using detail::Json;

enum class EntityKind { Read, Intervention, Cost, Source, Constant, Vocabulary, Layer, Other };

struct Entity {
    std::string name;
    EntityKind kind = EntityKind::Other;
    std::string source;
    std::string query;
    std::string intervention;       ///< remove-state, delete-token, zero-score
    std::vector<std::string> cues;  ///< lower-case phrases naming it: "example 14.1", "table 14.2"
    int same_read = -1;             ///< an intervention: the read its row 0 equals (same source, query)
};

struct Item {
    std::string pointer;
    const Json* value = nullptr;
    int entity = -1;
    std::string field;
    int pos = 0;    ///< 1-based position (scores, weights, exponentials, states), 0: none
    int coord = 0;  ///< 1-based coordinate (context, query, a state's entry), 0: none
    int row = -1;   ///< intervention row, -1: none
    int head = 0;   ///< a layer's head (1-based), 0: none (the layer's input, concat, output)
    int qrow = 0;   ///< a layer's query row, the token that attends (1-based), 0: none
    int entries = -1;
    bool matrix = false;
};

struct Catalogue {
    std::vector<Entity> entities;
    std::vector<Item> items;
    std::vector<std::string> labels;  ///< position labels and tokens (lower-case), 1-based by index+1
    std::vector<std::vector<std::string>> label_positions;  ///< label → positions it names
    std::vector<std::string> query_names;                   ///< declared order
    std::vector<std::string> query_vectors;                 ///< "[1,0]" (no spaces), same order
    std::vector<std::string> source_names;
    /// The tokens of the layers' sequences (lower-case), each with its 1-based row: a layer's
    /// query rows and key positions are named by them ("elm attends to pine").
    std::vector<std::pair<std::string, int>> layer_tokens;
    bool has_layers = false;
};

/// Every numeric quantity of the report `q` holds, with the entities they belong to.
Catalogue catalogue_of(Quantities& q);

}  // namespace exactattn::manuscript::binding
