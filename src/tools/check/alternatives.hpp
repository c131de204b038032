// SPDX-License-Identifier: MIT
// exactattn internal: the wrong ways of computing a read or a layer that `check`'s known
// mistakes compare an answer with — a read with other weights, a layer with another rule, mask
// or softmax axis.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "exactattn/error.hpp"
#include "exactattn/report.hpp"
#include "report/targets.hpp"
#include "scenario/json.hpp"
#include "tools/check/locate.hpp"

namespace exactattn::detail {

/// A wrong way of computing the read: its weights over some rows (entries outside the exact
/// domain, e^k, are enclosed reals), and its exponentials and denominator when it changes them.
struct Alternative {
    std::vector<Real> weights;
    Matrix rows;
    std::optional<std::vector<Real>> exponentials;  ///< included positions only
    std::optional<Real> denominator;
};

/// Each value enclosed as a Real.
std::vector<Real> reals(const std::vector<Value>& v);

/// The situation's quantity computed the alternative's way (none for scores, which no
/// alternative changes, and for exponentials or a denominator it leaves as they are).
std::optional<std::vector<Real>> alternative_quantity(const Alternative& a, const Situation& s);

/// Whether query i's key k is masked.
using MaskFn = std::function<bool(std::size_t, std::size_t)>;

/// The layer recomputed with another rule or mask (rows through the one read), or with the
/// softmax taken down each column (over the queries) instead of along each row: a document of
/// the same form as `right` (/layers/<name>), a row the wrong way cannot compute null.
Json alternative_layer(const Json& right, const LayerResult& lr, ScoreRule rule, const Value& scale,
                       const MaskFn& masked, bool column_softmax);

/// The part of an alternative document at `sub`, flattened as flatten() does; none when it is
/// missing or holds a row the wrong way cannot compute.
std::optional<Flat> alternative_part(const Json& doc, const std::string& sub, const Location& where);

/// The layer's mask without its causal part (the explicit mask and the padding).
MaskFn layer_other_mask(const LayerResult& lr);
/// The layer's mask, whole.
MaskFn layer_same_mask(const LayerResult& lr);

}  // namespace exactattn::detail
