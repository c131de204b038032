// SPDX-License-Identifier: MIT
// Exact vector × matrix, matrix × matrix, transpose and sums, with their shape errors.
#include <gtest/gtest.h>

#include "exactattn/linalg.hpp"
#include "exactattn/parse.hpp"
#include "support/support.hpp"

using namespace exactattn;

TEST(Linalg, ProductsByHand) {
    const Matrix a = parse_matrix("[[1, 2], [0, a]]");
    const Matrix b = parse_matrix("[[a/2, 1, 0], [1/4, 0, 2^(1/2)]]");
    // By hand: row 1 = [a/2 + 1/2, 1, 2√2]; row 2 = [a/4, 0, √2·a].
    EXPECT_EQ(mat_mul(a, b), parse_matrix("[[a/2 + 1/2, 1, 2*2^(1/2)], [a/4, 0, 2^(1/2)a]]"));
    EXPECT_EQ(vec_mat(parse_vector("[3, -1]"), b), parse_vector("[3a/2 - 1/4, 3, -2^(1/2)]"));
    EXPECT_EQ(transpose(b), parse_matrix("[[a/2, 1/4], [1, 0], [0, 2^(1/2)]]"));
    EXPECT_EQ(mat_add(a, a), parse_matrix("[[2, 4], [0, 2a]]"));
    EXPECT_EQ(hconcat(a, b), parse_matrix("[[1, 2, a/2, 1, 0], [0, a, 1/4, 0, 2^(1/2)]]"));
    EXPECT_EQ(shape_of(b), "2×3");
}

TEST(Linalg, ShapeErrorsNameTheShapes) {
    const Matrix a = parse_matrix("[[1, 2, 3]]");
    const Matrix w = parse_matrix("[[1], [2]]");
    EXPECT_ERROR_HAS(mat_mul(a, w, "X", "W_Q"), ErrorKind::Shape, "X (1×3) · W_Q (2×1)");
    EXPECT_ERROR_HAS(vec_mat(parse_vector("[1]"), w, "x", "W_x"), ErrorKind::Shape, "x (1×1) · W_x (2×1)");
    EXPECT_ERROR_HAS(mat_add(a, w, "X", "P"), ErrorKind::Shape, "X (1×3) + P (2×1)");
    EXPECT_ERROR_HAS(check_rectangular(Matrix{parse_vector("[1, 2]"), parse_vector("[1]")}, "W_K"), ErrorKind::Shape,
                     "W_K: row 2 has 1 entries; row 1 has 2");
    EXPECT_ERROR_HAS(check_rectangular(Matrix{}, "W_V"), ErrorKind::Shape, "W_V is empty");
}
