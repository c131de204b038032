// SPDX-License-Identifier: MIT
// exactattn: exact vector × matrix, matrix × matrix, transpose and sums, with shape errors.
#include "exactattn/linalg.hpp"

#include <fmt/format.h>

#include "exactattn/error.hpp"

namespace exactattn {

std::string shape_of(const Matrix& m) { return fmt::format("{}×{}", m.size(), m.empty() ? 0 : m[0].size()); }

void check_rectangular(const Matrix& m, std::string_view name) {
    if (m.empty() || m[0].empty()) {
        throw shape_error(fmt::format("{} is empty: it needs at least one row and one column", name));
    }
    for (std::size_t i = 1; i < m.size(); ++i) {
        if (m[i].size() != m[0].size()) {
            throw shape_error(
                fmt::format("{}: row {} has {} entries; row 1 has {}", name, i + 1, m[i].size(), m[0].size()));
        }
    }
}

Vector vec_mat(const Vector& row, const Matrix& m, std::string_view row_name, std::string_view m_name) {
    if (row.size() != m.size()) {
        throw shape_error(
            fmt::format("{} (1×{}) · {} ({}): the row has {} entries and the matrix "
                        "{} rows",
                        row_name, row.size(), m_name, shape_of(m), row.size(), m.size()));
    }
    const std::size_t c = m.empty() ? 0 : m[0].size();
    Vector out(c);
    for (std::size_t i = 0; i < row.size(); ++i) {
        if (row[i].is_zero()) continue;
        for (std::size_t j = 0; j < c; ++j) {
            if (!m[i][j].is_zero()) out[j] += row[i] * m[i][j];
        }
    }
    return out;
}

Matrix mat_mul(const Matrix& a, const Matrix& b, std::string_view a_name, std::string_view b_name) {
    const std::size_t inner = a.empty() ? 0 : a[0].size();
    if (inner != b.size()) {
        throw shape_error(fmt::format("{} ({}) · {} ({}): {} columns against {} rows", a_name, shape_of(a), b_name,
                                      shape_of(b), inner, b.size()));
    }
    Matrix out;
    out.reserve(a.size());
    for (const auto& row : a) out.push_back(vec_mat(row, b, a_name, b_name));
    return out;
}

Matrix transpose(const Matrix& a) {
    const std::size_t c = a.empty() ? 0 : a[0].size();
    Matrix t(c, Vector(a.size()));
    for (std::size_t i = 0; i < a.size(); ++i) {
        for (std::size_t j = 0; j < c; ++j) t[j][i] = a[i][j];
    }
    return t;
}

Matrix mat_add(const Matrix& a, const Matrix& b, std::string_view a_name, std::string_view b_name) {
    bool same = a.size() == b.size();
    for (std::size_t i = 0; same && i < a.size(); ++i) same = a[i].size() == b[i].size();
    if (!same) {
        throw shape_error(
            fmt::format("{} ({}) + {} ({}): the shapes differ", a_name, shape_of(a), b_name, shape_of(b)));
    }
    Matrix out = a;
    for (std::size_t i = 0; i < a.size(); ++i) {
        for (std::size_t j = 0; j < a[i].size(); ++j) out[i][j] += b[i][j];
    }
    return out;
}

Matrix hconcat(const Matrix& a, const Matrix& b) {
    if (a.size() != b.size()) {
        throw shape_error(fmt::format("[{} | {}]: the row counts differ", shape_of(a), shape_of(b)));
    }
    Matrix out = a;
    for (std::size_t i = 0; i < a.size(); ++i) out[i].insert(out[i].end(), b[i].begin(), b[i].end());
    return out;
}

}  // namespace exactattn
