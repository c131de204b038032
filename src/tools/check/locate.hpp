// SPDX-License-Identifier: MIT
// exactattn internal: what a `check` target was computed from — the read or intervention row
// whose quantity it names, or the attention layer —, so the known mistakes can recompute it.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exactattn/error.hpp"
#include "exactattn/report.hpp"
#include "report/targets.hpp"
#include "scenario/json.hpp"

namespace exactattn::detail {

/// The reference tokens of a target pointer the resolver has already validated.
std::vector<std::string> target_tokens(const std::string& pointer);

/// What the target quantity was computed from, when it is a quantity of one read: a scenario's
/// read, an intervention row, a row of an attention layer's head, a decoder step's read (the
/// quantities whose Chapter 14 mistakes can be recomputed; docs/check.md).
struct Situation {
    const Source* source = nullptr;  ///< none for a layer row
    Memory memory;                   ///< the keys the query is compared with
    Memory values;                   ///< what the weights combine (a layer's V; else `memory`)
    const ReadTrace* trace = nullptr;
    std::optional<Vector> readout;
    ReadRequest request;
    std::optional<InterventionKind> kind;
    std::size_t position = 0;  ///< intervention row's position (0: none)
    std::string quantity;
    std::optional<std::size_t> element;  ///< a single element of the quantity (0-based)
};

/// The situation of a quantity of one read (a read's, an intervention row's, one row of a layer
/// head's scores, denominators, weights or outputs, a rollout step's read); none for any other
/// target.
std::optional<Situation> locate(const Report& rep, const std::string& target);

struct RowContexts;

/// What the mistakes are recomputed from.
struct Ctx {
    const Report& rep;
    const Json& doc;
    const Flat& exact;
    std::optional<Situation> s;     ///< the target is a quantity of one read (locate())
    std::vector<std::size_t> incl;  ///< … and these of its positions are not removed
    std::vector<std::size_t> removed;
    const LayerResult* layer = nullptr;  ///< the target is a layer's quantity
    std::string layer_sub;               ///< … at this pointer below /layers/<name>
    Location where;
    /// A layer head's whole quantity: each of its rows as a read with its own context, made the
    /// first time a mistake asks and then shared by the others (mistakes.cpp, per_row).
    std::shared_ptr<RowContexts> rows;
};

/// The rows of a layer head's quantity, each a read: its exact values and its context.
struct RowContexts {
    bool made = false;
    std::vector<Flat> exact;  ///< filled before `rows`, whose contexts refer to its elements
    std::vector<Ctx> rows;
};

/// What the mistakes at `target` are recomputed from: its read or intervention row (and which of
/// its positions are removed), or its layer.
Ctx context_at(const Report& rep, const Json& doc, const Flat& exact, const std::string& target, const Location& where);

/// A quantity of a trace with an entry for each included position only (scores,
/// exponentials), or whole (weights, 0 for a removed position; context; readout).
std::vector<Value> quantity_of(const ReadTrace& t, const std::string& q);

/// 1-based positions in prose: `1`, `1 and 3`, `1, 2 and 3`.
std::string position_list(const std::vector<std::size_t>& ps);

}  // namespace exactattn::detail
