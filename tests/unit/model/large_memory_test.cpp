// SPDX-License-Identifier: MIT
// Memory files streamed into compact form, their limits, and the streaming read printers
// (compared with the document-tree and Table renderers they replace for large reads).
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <filesystem>
#include <algorithm>
#include <fstream>
#include <sstream>

#include "exactattn/limits.hpp"
#include "exactattn/encoder.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "exactattn/report.hpp"
#include "exactattn/scenario.hpp"
#include "scenario/json.hpp"
#include "scenario/memory_file.hpp"
#include "report/report_json.hpp"
#include "support/support.hpp"

using namespace exactattn;

namespace {

// A file in the test's temporary directory holding `text`.
std::string temp_file(const std::string& name, const std::string& text) {
    const auto dir = std::filesystem::temp_directory_path() / "exactattn-large-memory-test";
    std::filesystem::create_directories(dir);
    const auto path = (dir / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

Memory load(const std::string& name, const std::string& text) {
    return load_memory_argument("@" + temp_file(name, text));
}

}  // namespace

TEST(MemoryFile, RationalMultiplesOfOnePowerOfAAreCompact) {
    const Memory m = load("compact.json", R"([["a/2", "0"], ["-a/3", "2a"], ["0.25a", 0]])");
    EXPECT_TRUE(m.is_compact());
    EXPECT_EQ(m.matrix(), parse_matrix("[[a/2, 0], [-a/3, 2a], [a/4, 0]]"));
    // Unit: gcd(1/2, 1/3, 2, 1/4) = 1/12 of a, integers 6, −4, 24, 3.
    EXPECT_EQ(m.unit(), Value(mpq_class(1, 12)) * Value::ln2());
    EXPECT_EQ(m.integers(), (std::vector<std::int64_t>{6, 0, -4, 24, 3, 0}));
}

// Columns of different kinds: no unit for the whole memory, one a column. Column 1: a, −2a, a/3
// over the denominator 3 are 3, −6, 1 times a/3; column 2: 1/2, 3, 1/2 are 1, 6, 1 times 1/2;
// column 3: 2^(1/2), 0, −2^(1/2)/2 are 2, 0, −1 times 2^(1/2)/2.
TEST(MemoryFile, ColumnsOfDifferentKindsAreCompactPerColumn) {
    const Memory m =
        load("columns.json", R"j([["a", "1/2", "2^(1/2)"], ["-2a", 3, "0"], ["a/3", 0.5, "-2^(1/2)/2"]])j");
    EXPECT_FALSE(m.is_compact());
    ASSERT_TRUE(m.is_columnwise());
    EXPECT_EQ(m.matrix(), parse_matrix("[[a, 1/2, 2^(1/2)], [-2a, 3, 0], [a/3, 1/2, -2^(1/2)/2]]"));
    EXPECT_EQ(m.column_unit(0), parse_value("a/3"));
    EXPECT_EQ(m.column_unit(1), parse_value("1/2"));
    EXPECT_EQ(m.column_unit(2), parse_value("2^(1/2)/2"));
    EXPECT_EQ(m.integers(), (std::vector<std::int64_t>{3, 1, 2, -6, 6, 0, 1, 1, -1}));
    // A column whose kind changes (1, then a) has no unit: explicit values.
    const Memory mixed = load("mixed.json", R"([["a", "1"], ["2a", "a"]])");
    EXPECT_FALSE(mixed.is_compact() || mixed.is_columnwise());
    EXPECT_EQ(mixed.matrix(), parse_matrix("[[a, 1], [2a, a]]"));
}

TEST(MemoryFile, NumbersAreExactFromTheirText) {
    const Memory m = load("numbers.json", "[[1, 0.5], [1e2, -3], [0.1, 2.5e-1]]");
    EXPECT_TRUE(m.is_compact());
    EXPECT_EQ(m.matrix(), parse_matrix("[[1, 1/2], [100, -3], [1/10, 1/4]]"));
}

TEST(MemoryFile, OtherEntriesFallBackToExactValues) {
    // A surd, a different power of a, and an integer past 62 bits each end the compact form;
    // the entries before the switch keep their values.
    const char* cases[][2] = {
        {R"([["a", "0"], ["2^(1/2)a", "1"]])", "[[a, 0], [2^(1/2)a, 1]]"},
        {R"([["a", "a/7"], ["a^2", "0"]])", "[[a, a/7], [a^2, 0]]"},
        {R"([[1, 2], [123456789012345678901234567890, 3]])", "[[1, 2], [123456789012345678901234567890, 3]]"},
        {R"([["a/3", "a/5"], ["a/4611686018427387903", "0"]])", "[[a/3, a/5], [a/4611686018427387903, 0]]"},
    };
    for (const auto& [text, expected] : cases) {
        const Memory m = load("fallback.json", text);
        EXPECT_FALSE(m.is_compact()) << text;
        EXPECT_EQ(m.matrix(), parse_matrix(expected)) << text;
    }
}

TEST(MemoryFile, EverySpellingOfAMultipleOfOneUnitIsCompact) {
    // "a", "1*a", "2a/2", "a*1", "\u0061" and 1·a written as "(4a)/4" are all a; "0.5a" and
    // "a/2" are a/2; the unit is gcd(1, 1/2) · a = a/2, so the integers are 2 and 1.
    const Memory m =
        load("spellings.json", R"([["a", "1*a", "2a/2"], ["a*1", "\u0061", "(4a)/4"], ["0.5a", "a/2", "0"]])");
    EXPECT_TRUE(m.is_compact());
    EXPECT_EQ(m.unit(), Value(mpq_class(1, 2)) * Value::ln2());
    EXPECT_EQ(m.integers(), (std::vector<std::int64_t>{2, 2, 2, 2, 2, 2, 1, 1, 0}));
}

TEST(MemoryFile, FastReaderAgreesWithTheReferenceReader) {
    // load_memory_json reads with simdjson and hands over to nlohmann's reader (the
    // reference) on any doubt; on every text both must give the same memory or the same error.
    auto rng = test::rng_for("MemoryFile.FastReaderAgreesWithTheReferenceReader");
    const std::vector<std::string> entries = {
        "0", "1", "-1", "7", "-0", "0.5", "-2.5e-1", "1E2", "1e+2", "9223372036854775807", "-9223372036854775808",
        "9223372036854775808", "18446744073709551615", "18446744073709551616", "123456789012345678901234567890",
        R"("a")", R"("-3a")", R"("1*a")", R"("2a/2")", R"("a/6")", R"("\u0061")", "\"2^(1/2)\"", R"("a^2")", R"("0")",
        R"(" a ")", R"("0.1")",
        // Texts the fast reader leaves to the reference (the error is the reference's):
        "01", "1.", ".5", "-", "1e", "+1", "1e400", "null", "true", "{}", "[]", R"("a\u0001")", R"("a\x")", R"("2**")",
        "[1]"};
    for (int it = 0; it < 400 * test::multiplier(); ++it) {
        const std::size_t rows = 1 + rng() % 3;
        const std::size_t width = 1 + rng() % 3;
        const bool bad_shape = rng() % 10 == 0;
        // Mostly entries of one kind (compact memories), sometimes any.
        const std::size_t kinds = rng() % 3 == 0 ? entries.size() : 26;
        std::string text = rng() % 5 == 0 ? " [ " : "[";
        for (std::size_t j = 0; j < rows; ++j) {
            text += j > 0 ? (rng() % 2 ? ",\n" : ",") : "";
            text += "[";
            const std::size_t w = bad_shape && j == rows - 1 ? width + 1 : width;
            for (std::size_t i = 0; i < w; ++i) {
                text += i > 0 ? (rng() % 4 == 0 ? " , " : ",") : "";
                text += entries[rng() % kinds];
            }
            text += "]";
        }
        text += rng() % 8 == 0 ? "] x" : rng() % 8 == 0 ? "]  \n" : "]";
        if (rng() % 16 == 0) text = text.substr(0, rng() % text.size());
        SCOPED_TRACE(text);
        std::string fast_error;
        std::string reference_error;
        Memory fast;
        Memory reference;
        try {
            fast = detail::load_memory_json(text, "m.json");
        } catch (const Error& e) {
            fast_error = e.what();
        }
        try {
            reference = detail::load_memory_json_reference(text, "m.json");
        } catch (const Error& e) {
            reference_error = e.what();
        }
        ASSERT_EQ(fast_error, reference_error);
        if (!fast_error.empty()) continue;
        EXPECT_EQ(fast.is_compact(), reference.is_compact());
        EXPECT_EQ(fast.is_columnwise(), reference.is_columnwise());
        EXPECT_EQ(fast.matrix(), reference.matrix());
        // With the padding read_file leaves, the text is read in place: the same memory.
        std::string padded = text;
        padded.reserve(text.size() + detail::kJsonPadding);
        EXPECT_EQ(detail::load_memory_json(padded, "m.json", padded.capacity()).matrix(), reference.matrix());
    }
}

TEST(MemoryFile, RowsPastTheLimitAreRefusedAsTheyArrive) {
    Limits l;
    l.max_positions = 3;
    const ScopedLimits scoped(l);
    const std::string path = temp_file("rows.json", R"([["a"], ["a"], ["a"], ["a"], ["a"]])");
    EXPECT_ERROR(load_memory_argument("@" + path), ErrorKind::Limit,
                 path + ": /3: more than 3 memory rows, over the limit of 3 (limits: max_positions)");
    EXPECT_EQ(load("rows3.json", R"([["a"], ["a"], ["a"]])").rows(), 3U);
}

TEST(MemoryFile, NumbersPastTheLimitAreRefusedAsTheyArrive) {
    Limits l;
    l.max_cells = 5;
    const ScopedLimits scoped(l);
    const std::string path = temp_file("cells.json", "[[1, 2], [3, 4], [5, 6]]");
    EXPECT_ERROR(load_memory_argument("@" + path), ErrorKind::Limit,
                 path + ": /2/1: more than 5 numbers in the memory, over the limit of 5 (limits: max_cells)");
}

TEST(MemoryFile, ExplicitValuesAreBoundedByTheirStorage) {
    Limits l;
    l.max_memory_bytes = 4096;
    const ScopedLimits scoped(l);
    std::string rows;
    // Entries of two terms have no compact form (2^(1/2)a alone would: k·2^(1/2)a).
    for (int j = 0; j < 100; ++j) rows += std::string(j > 0 ? "," : "") + R"(["1 + 2^(1/2)a"])";
    EXPECT_ERROR_HAS(load("surds.json", "[" + rows + "]"), ErrorKind::Limit, "(limits: max_memory_bytes)");
    // The same number of compact entries is 8 bytes each.
    rows.clear();
    for (int j = 0; j < 100; ++j) rows += std::string(j > 0 ? "," : "") + R"(["a/2"])";
    EXPECT_TRUE(load("halves.json", "[" + rows + "]").is_compact());
}

namespace {

// Random small reads, compact (in one unit, or a unit a column: a last column of constants
// k/2 that the query does not read) and explicit, with random marks.
struct RandomRead {
    Memory memory;
    ReadTrace trace;
};

RandomRead random_read(std::mt19937_64& rng, bool compact) {
    std::uniform_int_distribution<int> small(-3, 3);
    const std::size_t n = std::uniform_int_distribution<std::size_t>(1, 6)(rng);
    const std::size_t d = std::uniform_int_distribution<std::size_t>(1, 5)(rng);
    const Value unit = Value(mpq_class(1, std::uniform_int_distribution<int>(1, 4)(rng))) * Value::ln2();
    const bool constants = compact && rng() % 3 == 0;
    Matrix rows(n, Vector(d));
    for (auto& r : rows) {
        for (auto& v : r) {
            v = Value(static_cast<long>(small(rng))) * unit;
            if (!compact && (rng() % 3 == 0)) v *= Value(FieldElem::pow2(mpq_class(2)));  // still rational
        }
        if (constants) r.back() = Value(mpq_class(small(rng), 2));
    }
    ReadRequest req;
    for (std::size_t i = 0; i < d; ++i) req.query.push_back(Value(static_cast<long>(small(rng))));
    if (constants) req.query.back() = Value();
    req.marks.assign(n, Mark::Included);
    for (std::size_t j = 0; j + 1 < n; ++j) {
        const auto k = rng() % 4;
        if (k == 0) req.marks[j] = Mark::Removed;
        if (k == 1) req.marks[j] = Mark::Zeroed;
    }
    if (rng() % 2 == 0) {
        req.readout = Vector(d);
        for (auto& c : *req.readout) c = Value(static_cast<long>(small(rng)));
    }
    Memory m(rows);
    if (compact) m = m.compacted();
    RandomRead r{m, {}};
    r.trace = compact ? attend(m, req) : attend_general(m, req);
    return r;
}

}  // namespace

TEST(ReadPrinters, JsonTextIsTheDocumentsDump) {
    auto rng = test::rng_for("ReadPrinters.JsonTextIsTheDocumentsDump");
    for (int it = 0; it < 200 * test::multiplier(); ++it) {
        const RandomRead r = random_read(rng, it % 2 == 0);
        SCOPED_TRACE(testing::Message() << "iteration " << it);
        EXPECT_EQ(read_json(r.memory, r.trace), detail::trace_to_json(&r.memory, r.trace).dump() + "\n");
    }
    // A memory with a unit a column wider than the printer's tables a column.
    Matrix rows(2, Vector(300, Value::ln2()));
    rows[0][299] = parse_value("1/2");
    rows[1][299] = parse_value("3/2");
    const Memory wide = Memory(rows).compacted();
    ASSERT_TRUE(wide.is_columnwise());
    ReadRequest req;
    req.query = Vector(300, Value());
    req.query[0] = Value(1);
    const ReadTrace t = attend(wide, req);
    EXPECT_EQ(read_json(wide, t), detail::trace_to_json(&wide, t).dump() + "\n");
}

TEST(ReadPrinters, StreamedJsonIsTheDocumentsDumpAndFieldsSelectItsKeys) {
    // `read --format json` writes in chunks (write_read_json): byte for byte the document's
    // dump; --fields keeps the selected keys of that document, in its order.
    auto rng = test::rng_for("ReadPrinters.StreamedJsonIsTheDocumentsDumpAndFieldsSelectItsKeys");
    for (int it = 0; it < 200 * test::multiplier(); ++it) {
        const RandomRead r = random_read(rng, it % 2 == 0);
        SCOPED_TRACE(testing::Message() << "iteration " << it);
        const detail::Json doc = detail::trace_to_json(&r.memory, r.trace);
        std::ostringstream all;
        write_read_json(r.memory, r.trace, all);
        EXPECT_EQ(all.str(), doc.dump() + "\n");
        std::vector<std::string> fields;
        for (const auto& f : read_json_fields()) {
            if (rng() % 3 == 0) fields.push_back(f);
        }
        if (fields.empty()) fields.push_back("weights");
        std::ostringstream some;
        write_read_json(r.memory, r.trace, some, fields);
        detail::Json expected = detail::Json::object();
        for (const auto& [k, v] : doc.items()) {
            if (std::find(fields.begin(), fields.end(), k) != fields.end()) expected[k] = v;
        }
        EXPECT_EQ(some.str(), expected.dump() + "\n");
    }
    std::ostringstream out;
    const RandomRead r = random_read(rng, true);
    EXPECT_THROW(write_read_json(r.memory, r.trace, out, {"weights", "weight"}), Error);
    EXPECT_EQ(out.str(), "");
}

TEST(ReadPrinters, EveryFormatRendersOneRowPerPosition) {
    auto rng = test::rng_for("ReadPrinters.EveryFormatRendersOneRowPerPosition");
    for (int it = 0; it < 200 * test::multiplier(); ++it) {
        const RandomRead r = random_read(rng, it % 2 == 0);
        SCOPED_TRACE(testing::Message() << "iteration " << it);
        const std::string text = read_text(r.memory, r.trace);
        EXPECT_EQ(text, render(read_document(r.memory, r.trace), Format::Text));
        // The summary lists the weights of every position, 0 where removed.
        std::string weights = "Weights [";
        for (std::size_t p = 0; p < r.trace.marks.size(); ++p) {
            weights += (p > 0 ? ", " : "") + to_display(r.trace.weights.at(p).value_or(Value()), Notation::Unicode);
        }
        EXPECT_NE(text.find(weights + "].\n"), std::string::npos) << text;
        // Markdown: a header row, the rule, then one pipe row per position (the row generator
        // is the same for every format).
        const std::string md = render(read_document(r.memory, r.trace), Format::Markdown);
        std::size_t pipe_rows = 0;
        for (std::size_t at = 0; (at = md.find("\n|", at)) != std::string::npos; ++at) ++pipe_rows;
        if (md.rfind("|", 0) == 0) ++pipe_rows;
        EXPECT_EQ(pipe_rows, r.trace.marks.size() + 2) << md;
    }
}

// The documented extreme: max_positions rows. Slow (a 90 MB file), so it runs only with
// EXACTATTN_TEST_MULTIPLIER ≥ 10; it checks the read completes and the process stays small.
TEST(LargeMemory, TenMillionRowsStayWithinMemory) {
    if (test::multiplier() < 10) GTEST_SKIP() << "set EXACTATTN_TEST_MULTIPLIER=10 to run";
    const std::size_t n = static_cast<std::size_t>(limits().max_positions);
    std::string text = "[";
    text.reserve(n * 10 + 2);
    for (std::size_t j = 0; j < n; ++j) text += j == 0 ? R"(["a","0"])" : R"(,["a","0"])";
    text += "]";
    const std::string path = temp_file("ten-million.json", text);
    text.clear();
    text.shrink_to_fit();
    const Memory m = load_memory_argument("@" + path);
    EXPECT_TRUE(m.is_compact());
    ReadRequest req;
    req.query = {Value(1), Value(0)};
    const ReadTrace t = attend(m, req);
    EXPECT_EQ(t.context, (Vector{Value::ln2(), Value()}));  // every row is [a, 0]
    const std::string json = read_json(m, t);
    EXPECT_GT(json.size(), n * 30);
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    EXPECT_LT(usage.ru_maxrss, 3L << 20) << "peak resident set, KB";
    std::filesystem::remove(path);
}
