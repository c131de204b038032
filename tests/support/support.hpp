// SPDX-License-Identifier: MIT
// Test support: seeded randomness (FLINT-style biased generators) and error assertions.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

#include "exactattn/error.hpp"
#include "exactattn/value.hpp"

namespace exactattn::test {

/// The seed of every randomized test: fixed, overridable with EXACTATTN_TEST_SEED.
std::uint64_t seed();
/// Work multiplier from EXACTATTN_TEST_MULTIPLIER (default 1).
int multiplier();
/// Whether this build runs under AddressSanitizer (gcc defines __SANITIZE_ADDRESS__, clang has
/// __has_feature). Tests of a size (a megabyte read in one pass, hundreds of random scenarios)
/// run smaller there: the sanitizers check memory, which the smaller size exercises the same way,
/// and the release build runs the full size.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kUnderSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kUnderSanitizer = true;
#else
inline constexpr bool kUnderSanitizer = false;
#endif
#else
inline constexpr bool kUnderSanitizer = false;
#endif
/// A generator seeded from seed() and the test's name, so tests are independent.
std::mt19937_64 rng_for(const std::string& name);

/// Random rational, biased toward 0, ±1, ±2 and denominators 1 and 2 (fmpq_randtest).
mpq_class random_rational(std::mt19937_64& rng, int bits);
/// Random element of K_m for a random m dividing one of the allowed roots, ≤ max_m.
FieldElem random_field_elem(std::mt19937_64& rng, int bits, int max_m);
/// Random value of degree ≤ max_degree in a.
Value random_value(std::mt19937_64& rng, int bits, int max_m, int max_degree);

/// Root of the source tree and a data file path.
std::string source_path(const std::string& relative);

/// A file's bytes (empty when it cannot be read).
std::string slurp(const std::string& path);
/// Writes `text` to `path` as bytes, creating its directory.
void write_file(const std::string& path, const std::string& text);

}  // namespace exactattn::test

/// Asserts that `stmt` throws exactattn::Error of `kind` whose full message equals `msg`.
#define EXPECT_ERROR(stmt, expected_kind, msg)                                                   \
    do {                                                                                         \
        try {                                                                                    \
            (void)(stmt);                                                                        \
            ADD_FAILURE() << "no exception from " #stmt;                                         \
        } catch (const ::exactattn::Error& e_) {                                                 \
            EXPECT_EQ(::exactattn::kind_name(e_.kind()), ::exactattn::kind_name(expected_kind)); \
            EXPECT_EQ(std::string(e_.what()), std::string(msg));                                 \
        }                                                                                        \
    } while (0)

/// Asserts the kind and that the message contains `part`.
#define EXPECT_ERROR_HAS(stmt, expected_kind, part)                                              \
    do {                                                                                         \
        try {                                                                                    \
            (void)(stmt);                                                                        \
            ADD_FAILURE() << "no exception from " #stmt;                                         \
        } catch (const ::exactattn::Error& e_) {                                                 \
            EXPECT_EQ(::exactattn::kind_name(e_.kind()), ::exactattn::kind_name(expected_kind)); \
            EXPECT_NE(std::string(e_.what()).find(part), std::string::npos) << e_.what();        \
        }                                                                                        \
    } while (0)
