// SPDX-License-Identifier: MIT
// The oracle's designed test vectors: the same seed gives the same bytes, the manifest names
// every file, the exact tie is flagged, the exp2 case is exact and the overflow rows leave the
// naive softmax without a bound.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <map>

#include "exactattn/oracle.hpp"

using namespace exactattn::oracle;

namespace {
std::map<std::string, std::string> as_map(const std::vector<std::pair<std::string, std::string>>& files) {
    return {files.begin(), files.end()};
}
}  // namespace

TEST(OracleVectors, TheSameSeedGivesTheSameBytesAndAnotherSeedOthers) {
    const auto a = write_vectors(7, FloatFormat::Float16, 1000);
    EXPECT_EQ(a, write_vectors(7, FloatFormat::Float16, 1000));
    EXPECT_NE(as_map(a).at("ties-q.npy"), as_map(write_vectors(8, FloatFormat::Float16, 1000)).at("ties-q.npy"));
}

TEST(OracleVectors, TheManifestDescribesEveryCaseWithItsAnswersAndFlags) {
    const auto files = as_map(write_vectors(1, FloatFormat::Float16, 1000));
    const auto m = nlohmann::json::parse(files.at("manifest.json"));
    ASSERT_EQ(m["cases"].size(), 5u);
    for (const auto& c : m["cases"])
        for (const auto& [key, name] : c["files"].items()) EXPECT_TRUE(files.count(name.get<std::string>())) << name;
    const auto& ties = m["cases"][0];
    ASSERT_FALSE(ties["near_ties"].empty());
    EXPECT_TRUE(ties["near_ties"][0]["exact_tie"].get<bool>());  // keys 0 and 1 are the same key
    const auto& exp2 = m["cases"][4];
    for (const auto& k : exp2["out_kind"]) EXPECT_EQ(k, "exact");
    // The overflow case: rows 1 and 2 exceed ln 65504, so the naive bound there is infinite.
    const Tensor naive = parse_npy(files.at("overflow-threshold-bound-naive.npy"), "b.npy", std::nullopt);
    EXPECT_TRUE(std::isfinite(naive.data[0]));
    EXPECT_TRUE(std::isinf(naive.data[1]) && std::isinf(naive.data[2]));
    const Tensor safe = parse_npy(files.at("overflow-threshold-bound-safe.npy"), "b.npy", std::nullopt);
    EXPECT_TRUE(std::isfinite(safe.data[2]));
    // The masked case under "zeros": row 0 is 0 exactly; row 1 sees one key, so its output is that v row.
    const Tensor out = parse_npy(files.at("masked-rows-out.npy"), "o.npy", std::nullopt);
    const Tensor v = parse_npy(files.at("masked-rows-v.npy"), "v.npy", std::nullopt);
    EXPECT_EQ(out.data[0], 0.0);
    EXPECT_EQ(out.data[2], v.data[0]);
    EXPECT_EQ(out.data[3], v.data[1]);
}
