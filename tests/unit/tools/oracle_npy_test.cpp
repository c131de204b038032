// SPDX-License-Identifier: MIT
// The oracle's .npy reader: headers of versions 1 to 3 built byte by byte here (the layout of
// NumPy's format description), both byte orders, Fortran order, bfloat16 bit patterns, and the
// malformed files it must refuse with a placed error before allocating anything.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "exactattn/limits.hpp"
#include "exactattn/oracle.hpp"

using namespace exactattn;
using namespace exactattn::oracle;

namespace {

// A .npy file: magic, version, header length (2 bytes for v1, 4 for v2/v3), header, data.
std::string npy(int version, const std::string& header, const std::string& data) {
    std::string h = header;
    const std::size_t lsize = version == 1 ? 2 : 4;
    while ((6 + 2 + lsize + h.size() + 1) % 64 != 0) h += ' ';
    h += '\n';
    std::string out("\x93NUMPY", 6);
    out += static_cast<char>(version);
    out += '\0';
    for (std::size_t b = 0; b < lsize; ++b) out += static_cast<char>((h.size() >> (8 * b)) & 0xFF);
    return out + h + data;
}

std::string bytes_of(std::initializer_list<int> b) {
    std::string s;
    for (int x : b) s += static_cast<char>(x);
    return s;
}

std::string reason(const std::string& file) {
    try {
        (void)parse_npy(file, "x.npy", std::nullopt);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(OracleNpy, LittleAndBigEndianFloat32ReadTheSameValues) {
    // 1.0f = 0x3F800000, -2.5f = 0xC0200000.
    const std::string le = npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                               bytes_of({0, 0, 0x80, 0x3F, 0, 0, 0x20, 0xC0}));
    const std::string be = npy(2, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }",
                               bytes_of({0x3F, 0x80, 0, 0, 0xC0, 0x20, 0, 0}));
    for (const auto& f : {le, be}) {
        const Tensor t = parse_npy(f, "x.npy", std::nullopt);
        ASSERT_EQ(t.data.size(), 2u);
        EXPECT_EQ(t.data[0], 1.0);
        EXPECT_EQ(t.data[1], -2.5);
        EXPECT_EQ(t.format, FloatFormat::Float32);
    }
}

TEST(OracleNpy, FortranOrderIsTransposedToRowMajor) {
    // The 2 × 3 matrix [[1, 2, 3], [4, 5, 6]] stored by columns: 1 4 2 5 3 6 as float16.
    std::string data;
    for (double x : {1, 4, 2, 5, 3, 6}) {
        const auto b = encode_bits(x, FloatFormat::Float16);
        data += static_cast<char>(b & 0xFF);
        data += static_cast<char>(b >> 8);
    }
    const Tensor t =
        parse_npy(npy(3, "{'descr': '<f2', 'fortran_order': True, 'shape': (2, 3), }", data), "x.npy", std::nullopt);
    EXPECT_EQ(t.data, (std::vector<double>{1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(t.format, FloatFormat::Float16);
}

TEST(OracleNpy, Uint16IsBfloat16OnlyWhenDeclared) {
    const std::string f = npy(1, "{'descr': '<u2', 'fortran_order': False, 'shape': (1,), }", bytes_of({0x80, 0x3F}));
    EXPECT_EQ(parse_npy(f, "x.npy", FloatFormat::BFloat16).data[0], 1.0);
    EXPECT_NE(reason(f).find("bfloat16"), std::string::npos);
}

TEST(OracleNpy, WrittenFilesReadBack) {
    const Tensor t{{2, 2}, {1, -0.5, 65504, std::ldexp(1.0, -24)}, FloatFormat::Float16};
    const Tensor back = parse_npy(write_npy(t), "x.npy", std::nullopt);
    EXPECT_EQ(back.shape, t.shape);
    EXPECT_EQ(back.data, t.data);
    const Tensor b16{{1}, {1.5}, FloatFormat::BFloat16};
    EXPECT_EQ(parse_npy(write_npy(b16), "x.npy", FloatFormat::BFloat16).data[0], 1.5);
}

TEST(OracleNpy, MalformedFilesAreRefusedWithThePlace) {
    const std::string ok_header = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }";
    EXPECT_NE(reason("not a npy file").find("x.npy: not a .npy file"), std::string::npos);
    EXPECT_NE(reason(npy(1, ok_header, std::string(8, '\0'))).find("the shape needs 16"),
              std::string::npos);                                                                 // truncated data
    EXPECT_NE(reason(npy(1, ok_header, "").substr(0, 20)).find("truncated"), std::string::npos);  // truncated header
    EXPECT_NE(reason(npy(1, "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", "")).find("object"),
              std::string::npos);
    EXPECT_NE(
        reason(npy(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", "")).find("structured"),
        std::string::npos);
    EXPECT_NE(reason(npy(1, "{'descr': '<f8', 'fortran_order': Maybe, 'shape': (2,), }", "")).find("fortran_order"),
              std::string::npos);
    EXPECT_NE(reason(npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (-2,), }", "")).find("shape"),
              std::string::npos);
    EXPECT_NE(reason(npy(7, ok_header, "")).find("version 7"), std::string::npos);
}

TEST(OracleNpy, HugeShapesAreRefusedBeforeAllocating) {
    // 10^9 × 10^9 elements: refused by max_cells, from the header alone (the file has no data).
    const std::string f = npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000, 1000000000), }", "");
    try {
        (void)parse_npy(f, "x.npy", std::nullopt);
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Limit);
        EXPECT_NE(std::string(e.what()).find("max_cells"), std::string::npos);
    }
}
