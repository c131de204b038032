// SPDX-License-Identifier: MIT
// exactattn: small exact linear algebra on row vectors and row-major matrices (Matrix[i] is
// row i), with shape errors that name both shapes.
#pragma once

#include <string>
#include <string_view>

#include "exactattn/memory.hpp"

namespace exactattn {

/// "3×4" for a matrix with 3 rows of width 4 ("0×0" when empty).
std::string shape_of(const Matrix& m);

/// ShapeError unless every row of `m` has the same width and there is at least one row and
/// one column; `name` goes into the message ("W_Q has 2 rows of width 3 and row 3 of width 2").
void check_rectangular(const Matrix& m, std::string_view name);

/// row · M for a row vector of width r and an r×c matrix. ShapeError naming both shapes
/// ("x (1×3) · W_x (4×2): 3 ≠ 4") otherwise.
Vector vec_mat(const Vector& row, const Matrix& m, std::string_view row_name = "the row",
               std::string_view m_name = "the matrix");

/// A · B for an n×r and an r×c matrix; ShapeError naming both shapes otherwise. Zero entries
/// are skipped, so sparse exact matrices cost only their nonzero products.
Matrix mat_mul(const Matrix& a, const Matrix& b, std::string_view a_name = "A", std::string_view b_name = "B");

/// Aᵀ (the rows of A must have equal widths).
Matrix transpose(const Matrix& a);

/// A + B entrywise, for equal shapes; ShapeError naming both shapes otherwise.
Matrix mat_add(const Matrix& a, const Matrix& b, std::string_view a_name = "A", std::string_view b_name = "B");

/// The rows of A followed, row by row, by the columns of B: [A | B] (equal row counts).
Matrix hconcat(const Matrix& a, const Matrix& b);

}  // namespace exactattn
