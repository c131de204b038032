// SPDX-License-Identifier: MIT
// The one placing rule (exactattn/error.hpp, issue #33): placed() places an error at a place
// unless Error::keeps_place says, under the caller's KeepPlace, that it has one of that kind.
// Expected messages are Location::str's documented form, `file:line:col: /pointer: context
// column N: reason`, written by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"

using namespace exactattn;

namespace {

Location in_file(const std::string& file, int line = 0, int column = 0) {
    Location where;
    where.file = file;
    where.line = line;
    where.column = column;
    return where;
}

Location at_pointer(const std::string& pointer) {
    Location where;
    where.pointer = pointer;
    return where;
}

Location expression_column(int column) {
    Location where = Location::named("expression");
    where.column = column;
    return where;
}

// The message f throws, or "" when it throws nothing.
template <class F>
std::string message_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(Placing, NamedIsAPlaceOfContextAlone) {
    const Location where = Location::named("--memory");
    EXPECT_EQ(where.context, "--memory");
    EXPECT_TRUE(where.file.empty());
    EXPECT_TRUE(where.pointer.empty());
    EXPECT_EQ(where.line, 0);
    EXPECT_EQ(where.column, 0);
    EXPECT_EQ(where.str(), "--memory");
}

// One row per rule: which of seven errors (no place; a name; an expression's column; a file;
// a file, line and column; a pointer; a usage error without a place; a limit without a file)
// the rule leaves as they are.
TEST(Placing, EachRuleKeepsExactlyTheErrorsItNames) {
    const std::vector<Error> errors = {
        domain_error("r"),                                 // 0 no place
        domain_error("r", Location::named("position 2")),  // 1 a name
        domain_error("r", expression_column(4)),           // 2 a column
        domain_error("r", in_file("s.json")),              // 3 a file
        domain_error("r", in_file("s.json", 3, 5)),        // 4 a file, line and column
        domain_error("r", at_pointer("/reads/r")),         // 5 a pointer
        usage_error("r"),                                  // 6 a usage error, no place
        limit_error("r"),                                  // 7 a limit, no place
        limit_error("r", Location::named("--target")),     // 8 a limit at an option, no file
    };
    struct Row {
        KeepPlace rule;
        std::vector<bool> keeps;
    };
    const std::vector<Row> rows = {
        {KeepPlace::InFile, {false, false, false, true, true, true, false, false, false}},
        {KeepPlace::File, {false, false, false, true, true, false, false, false, false}},
        {KeepPlace::Any, {false, true, true, true, true, true, false, false, true}},
        {KeepPlace::AnyOrUsage, {false, true, true, true, true, true, true, false, true}},
        {KeepPlace::AnyButFilelessLimit, {true, true, true, true, true, true, true, false, false}},
        {KeepPlace::AnyButName, {false, false, true, true, true, true, false, false, false}},
        {KeepPlace::Nothing, {false, false, false, false, false, false, false, false, false}},
    };
    for (std::size_t r = 0; r < rows.size(); ++r) {
        for (std::size_t i = 0; i < errors.size(); ++i) {
            EXPECT_EQ(errors[i].keeps_place(rows[r].rule), rows[r].keeps[i]) << "rule " << r << ", error " << i;
        }
    }
}

TEST(Placing, AnErrorWithoutAPlaceTakesTheOuterOne) {
    EXPECT_EQ(message_of([] { placed(in_file("s.json"), [] { throw domain_error("division by zero"); }); }),
              "s.json: division by zero");
    EXPECT_EQ(message_of([] {
                  placed(
                      Location::named("--tokens"), [] { throw reference_error("unknown token \"x\""); },
                      KeepPlace::Any);
              }),
              "--tokens: unknown token \"x\"");
}

TEST(Placing, TheDefaultRuleKeepsAFileOrPointerAndPlacesAColumnInsideThePointer) {
    // In a file already: the outer pointer is not added.
    EXPECT_EQ(message_of([] {
                  placed(at_pointer("/reads/r"), [] { throw domain_error("exp(1)", in_file("m.json", 2, 7)); });
              }),
              "m.json:2:7: exp(1)");
    // An expression's column inside a JSON string: the pointer goes before it.
    EXPECT_EQ(message_of([] {
                  placed(at_pointer("/reads/r/query/0"), [] { throw domain_error("exp(1)", expression_column(3)); });
              }),
              "/reads/r/query/0: expression column 3: exp(1)");
}

TEST(Placing, NothingKeepsItsPlaceUnderNothingAndTheNamesJoin) {
    // An option around an expression's column: the option's name before the error's own.
    EXPECT_EQ(message_of([] {
                  placed(
                      Location::named("--proposed"),
                      [] { throw parse_error(expression_column(6), "division by zero"); }, KeepPlace::Nothing);
              }),
              "--proposed expression column 6: division by zero");
    // A file around an error that has a pointer: the file is added, the pointer stays.
    EXPECT_EQ(message_of([] {
                  placed(
                      in_file("book.md"), [] { throw reference_error("no such quantity", at_pointer("/x")); },
                      KeepPlace::Nothing);
              }),
              "book.md: /x: no such quantity");
}

TEST(Placing, AValueIsReturnedAndTheLazyPlaceIsMadeOnlyOnAnError) {
    int made = 0;
    auto where = [&made] {
        ++made;
        return Location::named("position 3");
    };
    EXPECT_EQ(placed(
                  where, [] { return 7; }, KeepPlace::Any),
              7);
    EXPECT_EQ(made, 0);
    // Kept: the place is not needed.
    EXPECT_EQ(message_of([&] {
                  placed(
                      where, [] { throw domain_error("r", in_file("f")); }, KeepPlace::Any);
              }),
              "f: r");
    EXPECT_EQ(made, 0);
    EXPECT_EQ(message_of([&] {
                  placed(
                      where, [] { throw domain_error("r"); }, KeepPlace::Any);
              }),
              "position 3: r");
    EXPECT_EQ(made, 1);
}

TEST(Placing, AnErrorThatKeepsItsPlaceIsRethrownAsItIs) {
    // The very exception object goes on (a WorkRefusal the writers catch to name their cell
    // stays one), not a copy.
    const Error* thrown = nullptr;
    const Error* caught = nullptr;
    try {
        placed(at_pointer("/reads/r"), [&] {
            try {
                throw domain_error("r", in_file("s.json", 1, 2));
            } catch (const Error& e) {
                thrown = &e;
                throw;
            }
        });
    } catch (const Error& e) {
        caught = &e;
    }
    ASSERT_NE(thrown, nullptr);
    EXPECT_EQ(caught, thrown);
}

TEST(Placing, AnErrorThatIsPlacedIsAnErrorOfItsKindWithItsReason) {
    try {
        placed(
            Location::named("--x"), [] { throw over_work(1e6, "printing a value"); }, KeepPlace::AnyButFilelessLimit);
        FAIL() << "no error";
    } catch (const WorkRefusal&) {
        FAIL() << "a placed refusal is a new Error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Limit);
        EXPECT_EQ(e.where().context, "--x");
        EXPECT_EQ(std::string(e.what()), "--x: " + e.reason());
    }
}
