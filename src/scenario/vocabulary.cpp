// SPDX-License-Identifier: MIT
// exactattn internal: names of the scenario file format defined by the tools above the loader.
#include "scenario/vocabulary.hpp"

namespace exactattn::detail {

const std::vector<std::string>& variation_mistake_ids() {
    static const std::vector<std::string> ids = {
        "divide-by-count",
        "forget-exp",
        "e-instead-of-2",
        "equal-weights",
        "unnormalized-exponentials",
        "forget-renormalize",
        "zero-score-for-removal",
        "delete-without-reencoding",
        "embeddings-instead-of-states",
        "drop-a",
        "forget-scale",
        "no-causal-mask",
        "mask-off-by-one-late",
        "mask-off-by-one-early",
        "wrong-axis",
        "forget-padding-mask",
        "forget-residual",
        "forget-wo",
    };
    return ids;
}

}  // namespace exactattn::detail
