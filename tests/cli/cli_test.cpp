// SPDX-License-Identifier: MIT
// The command line driven in-process (CLI11's TApp style): exit code, stdout, one stderr line.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "app.hpp"
#include "cli/run_cli.hpp"
#include "support/support.hpp"

namespace {

using exactattn::test::Result;
using exactattn::test::run;

bool one_line(const std::string& s) { return !s.empty() && s.back() == '\n' && s.find('\n') == s.size() - 1; }

}  // namespace

TEST(Cli, EvalExamplesOfIssue2) {
    const std::pair<const char*, const char*> cases[] = {
        {"exp(a)", "2\n"},
        {"exp(a/2)", "2^(1/2)\n"},
        {"2^(1/2)/(2+2^(1/2))", "2^(1/2) - 1\n"},
        {"1/(2+2^(1/2))", "1 - 2^(1/2)/2\n"},
        {"ln2/2 + ln(2)/4", "3a/4\n"},
        {"0.25a", "a/4\n"},
        {"exp(a)^3/(exp(a)+2)", "2\n"},
    };
    for (const auto& [in, expected] : cases) {
        const Result r = run({"eval", in});
        EXPECT_EQ(r.code, 0) << in << ": " << r.err;
        EXPECT_EQ(r.out, expected) << in;
        EXPECT_EQ(r.err, "");
    }
}

TEST(Cli, EvalRefusals) {
    Result r = run({"eval", "exp(1)"});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(one_line(r.err)) << r.err;
    EXPECT_NE(r.err.find("transcendental"), std::string::npos);

    r = run({"eval", "1/(a-a)"});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, "exactattn: expression column 2: division by zero\n");

    r = run({"eval", "2a//3"});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err,
              "exactattn: expression column 4: expected a number, a, a function or '(' after "
              "'/', found '/'\n");
}

TEST(Cli, EvalFormats) {
    EXPECT_EQ(run({"eval", "2^(1/2)-1", "--format", "unicode"}).out, "√2 − 1\n");
    EXPECT_EQ(run({"eval", "2a/3", "--format", "latex"}).out, "\\tfrac{2a}{3}\n");
    EXPECT_EQ(run({"eval", "a", "--format", "decimal", "--digits", "12"}).out, "0.693147180560\n");
    const Result j = run({"eval", "a/2", "--format", "json"});
    EXPECT_EQ(j.code, 0);
    EXPECT_NE(j.out.find("\"ascii\": \"a/2\""), std::string::npos) << j.out;
}

// --display: the author's form; without it the canonical one (docs/notation.md, "Display form").
TEST(Cli, EvalDisplay) {
    // (2^(1/2)/3 - 1/3)a = (√2 − 1)a/3.
    EXPECT_EQ(run({"eval", "(2^(1/2) - 1)a/3", "--format", "unicode", "--display"}).out, "(√2 − 1)a/3\n");
    EXPECT_EQ(run({"eval", "(2^(1/2) - 1)a/3", "--format", "unicode"}).out, "(√2/3 − 1/3)a\n");
    // 2^60 = 1152921504606846976 (19 digits) by default, 2^60 with --display.
    EXPECT_EQ(run({"eval", "2^60"}).out, "1152921504606846976\n");
    EXPECT_EQ(run({"eval", "2^60", "--display"}).out, "2^60\n");
    EXPECT_EQ(run({"eval", "2^(-60)", "--format", "latex", "--display"}).out, "2^{-60}\n");
    EXPECT_EQ(run({"eval", "--format", "mathml", "--", "-a^2"}).out,
              "<math xmlns=\"http://www.w3.org/1998/Math/MathML\"><mrow><mo>−</mo><msup><mi>a</mi><mn>2</mn>"
              "</msup></mrow></math>\n");
}

TEST(Cli, ReadJsonIsTheObjectOfDesign) {
    const Result r =
        run({"read", "--memory", "[[a,0],[0,a],[0,0]]", "--query", "[1,0]", "--readout", "[1,2]", "--format", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find(R"("query":["1","0"],"memory":[["a","0"],["0","a"],["0","0"]],"included":[1,2,3],)"
                         R"("scores":["a","0","0"],"exponentials":["2","1","1"],"denominator":"4",)"
                         R"("weights":["1/2","1/4","1/4"],"context":["a/2","a/4"],"readout":"a")"),
              std::string::npos)
        << r.out;
}

TEST(Cli, ReadRemovedPositionsAreNullAndZero) {
    // Table 14.2, key removed: weights [2/3, 0, 1/3].
    Result r =
        run({"read", "--memory", "[[a,0],[0,a],[0,0]]", "--query", "[1,0]", "--remove", "2", "--format", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find(R"("included":[1,3])"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(R"("scores":["a",null,"0"],"exponentials":["2",null,"1"],"denominator":"3",)"
                         R"("weights":["2/3","0","1/3"],"context":["2a/3","0"])"),
              std::string::npos)
        << r.out;
    // --remove 1 3 and --remove 1 --remove 3 agree.
    const Result a =
        run({"read", "--memory", "[[a,0],[0,a],[0,0]]", "--query", "[1,0]", "--remove", "1", "3", "--format", "json"});
    const Result b = run({"read", "--memory", "[[a,0],[0,a],[0,0]]", "--query", "[1,0]", "--remove", "1", "--remove",
                          "3", "--format", "json"});
    EXPECT_EQ(a.code, 0);
    EXPECT_EQ(a.out, b.out);
    // A zeroed score keeps score 0 and exponential 1.
    r = run({"read", "--memory", "[[a,0],[0,a],[0,0]]", "--query", "[1,0]", "--zero", "1", "--format", "json"});
    EXPECT_NE(r.out.find(R"("scores":["0","0","0"],"exponentials":["1","1","1"])"), std::string::npos) << r.out;
}

TEST(Cli, ReadFieldsSelectKeysOfTheJsonOutput) {
    // Table 14.2, key removed: denominator 2 + 1 = 3, weights [2/3, 0, 1/3]; the selected keys
    // in the output's own order (denominator before weights), nothing else.
    Result r = run({"read", "--memory", "[[a,0],[0,a],[0,0]]", "--query", "[1,0]", "--remove", "2", "--format", "json",
                    "--fields", "weights,denominator"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, R"({"denominator":"3","weights":["2/3","0","1/3"]})"
                     "\n");
    // Every key selected is the default output, byte for byte.
    const Result all = run({"read", "--memory", "[[a,0],[0,a],[0,0]]", "--query", "[1,0]", "--remove", "2", "--format",
                            "json", "--readout", "[1,1]"});
    r = run({"read", "--memory", "[[a,0],[0,a],[0,0]]", "--query", "[1,0]", "--remove", "2", "--format", "json",
             "--readout", "[1,1]", "--fields",
             "query,memory,included,removed,zeroed,scores,exponentials,denominator,weights,context,readout,"
             "context_decimal,readout_decimal"});
    ASSERT_EQ(all.code, 0) << all.err;
    EXPECT_EQ(r.out, all.out);
    for (const std::vector<std::string>& bad :
         {std::vector<std::string>{"--format", "json", "--fields", "weights,weight"},
          std::vector<std::string>{"--format", "json", "--fields", ""},
          std::vector<std::string>{"--fields", "weights"}}) {
        std::vector<std::string> args = {"read", "--memory", "[[a,0],[0,a]]", "--query", "[1,0]"};
        args.insert(args.end(), bad.begin(), bad.end());
        r = run(args);
        EXPECT_EQ(r.code, 2) << bad.back();
        EXPECT_EQ(r.out, "");
        EXPECT_TRUE(one_line(r.err)) << r.err;
        EXPECT_NE(r.err.find("--fields"), std::string::npos) << r.err;
    }
    EXPECT_NE(run({"read", "--memory", "[[a,0]]", "--query", "[1,0]", "--format", "json", "--fields", "weight"})
                  .err.find(R"(unknown field "weight")"),
              std::string::npos);
}

TEST(Cli, ReadWithNoPositionLeftIsAnError) {
    const Result r = run({"read", "--memory", "[[a,0],[0,a],[0,0]]", "--query", "[1,0]", "--remove", "1", "2", "3"});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(one_line(r.err)) << r.err;
    EXPECT_NE(r.err.find("every one of the 3 positions is removed"), std::string::npos);
}

TEST(Cli, ChapterScenarioByDefault) {
    const Result r = run({});
    ASSERT_EQ(r.code, 0) << r.err;
    for (const char* needle : {"[a/2, a/4]", "[a/4, a/2]", "[0, a/3]", "[2/3, 0, 1/3]", "2a/3", "4a/3",
                               "[a, 0]; [a, 0]", "≈ [0.346574, 0.173287]"}) {
        EXPECT_NE(r.out.find(needle), std::string::npos) << needle;
    }
    EXPECT_EQ(run({"run", "chapter14"}).out, r.out);
}

TEST(Cli, EncodeTokens) {
    const Result r = run({"encode", "--tokens", "红色 。", "--format", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    // Deleting the key token: the full stop state becomes [a,0] (§14.5).
    EXPECT_NE(r.out.find(R"("a",)"), std::string::npos);
    const Result bad = run({"encode", "--tokens", "红色 绿色"});
    EXPECT_EQ(bad.code, 2);
    EXPECT_TRUE(one_line(bad.err)) << bad.err;
    EXPECT_NE(bad.err.find("unknown token \"绿色\""), std::string::npos) << bad.err;
}

TEST(Cli, VerifyChapterData) {
    const Result r = run({"verify", exactattn::test::source_path("data/chapter14/chapter14.json")});
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find(" 0 failed"), std::string::npos);
}

TEST(Cli, UsageErrorsExitTwo) {
    Result r = run({"frobnicate"});
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(one_line(r.err)) << r.err;
    r = run({"eval", "a", "--format", "klingon"});
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(one_line(r.err)) << r.err;
    r = run({"run", "/nonexistent/file.json"});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err, "exactattn: cannot read /nonexistent/file.json: No such file or directory\n");
    EXPECT_EQ(run({"--help"}).code, 0);
}

TEST(Cli, VerifyReportsEachMismatch) {
    // A copy of a chapter claim with a deliberately wrong value: Table 14.2's key row readout a/2.
    const std::string path = testing::TempDir() + "wrong-claim.json";
    {
        std::ofstream f(path);
        f << R"({"sources": {"red": {"memory": [["a","0"],["0","a"],["0","0"]]}},
                 "queries": {"q1": [1, 0]}, "readouts": {"r": [1, 2]},
                 "interventions": {"table-14.2": {"kind": "remove-state", "source": "red", "query": "q1", "readout": "r"}},
                 "expect": {"/interventions/table-14.2/rows/2/readout": "a/2",
                            "/interventions/table-14.2/rows/3/readout": "4a/3"}})";
    }
    const Result r = run({"verify", path});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.out, path +
                         ": /interventions/table-14.2/rows/2/readout: expected \"a/2\", computed \"2a/3\"\n"
                         "verify: 1 passed, 1 failed\n");
    EXPECT_EQ(r.err, "");
}

TEST(Cli, CheckExitCodes) {
    Result r = run({"check", "chapter14", "--target", "/reads/example-14.1/weights", "--proposed", "[2/3,1/3,1/3]"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.out.find("mistake: divided by the number of positions (3) instead of the sum of the exponentials (4)"),
              std::string::npos)
        << r.out;
    r = run({"check", "chapter14", "--target", "/reads/example-14.1/context", "--proposed", "[0.5a, a/4]"});
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    r = run({"check", "chapter14", "--target", "/reads/nowhere/context", "--proposed", "[a]"});
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(one_line(r.err)) << r.err;
}

TEST(Cli, MaxWidthElidesOnlyWhenAsked) {
    // 3^100 = 515377520732011331036461129765621272702107522001 (48 digits).
    Result r = run({"read", "--memory", "[[3^100, a], [0, 0]]", "--query", "[0, 1]", "--max-width", "20"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("[51537…2001 (48 digits), a]"), std::string::npos) << r.out;
    r = run({"read", "--memory", "[[3^100, a], [0, 0]]", "--query", "[0, 1]"});
    EXPECT_NE(r.out.find("[515377520732011331036461129765621272702107522001, a]"), std::string::npos) << r.out;
    r = run({"read", "--memory", "[[3^100, a], [0, 0]]", "--query", "[0, 1]", "--max-width", "20", "--format", "json"});
    EXPECT_NE(r.out.find("515377520732011331036461129765621272702107522001"), std::string::npos);  // JSON: in full
}

TEST(Cli, AnswersAndCrosscheck) {
    Result r = run({"answers", "chapter14", "--format", "text"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("2a/5 + 2(2a/5) = 6a/5"), std::string::npos) << r.out;
    r = run({"answers", "chapter14"});  // Markdown with $…$ math
    EXPECT_NE(r.out.find("$\\tfrac{2a}{5} + 2\\left(\\tfrac{2a}{5}\\right) = \\tfrac{6a}{5}$"), std::string::npos)
        << r.out;
    r = run({"crosscheck", "chapter14", "--format", "json"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("\"passed\": true"), std::string::npos);
    r = run({"crosscheck", "chapter14"});
    EXPECT_NE(r.out.find("crosscheck: 1 passed, 0 failed"), std::string::npos);
}

TEST(Cli, CheckClassAnswersCsv) {
    // CSV out is RFC 4180 (CRLF). Example 14.1's weights are [1/2, 1/4, 1/4] (exponentials [2, 1, 1] over 4); Exercise
    // 1's readout is 2a/5 + 2(2a/5) = 6a/5.
    const std::string path = testing::TempDir() + "class.csv";
    {
        std::ofstream f(path, std::ios::binary);
        f << "student,target,answer\r\n"
             "\"Lee, Ann\",/reads/example-14.1/weights,\"[2/3,1/3,1/3]\"\r\n"
             "Bo,/reads/exercise-1/readout,6a/5\r\n"
             "Cy,/reads/exercise-1/readout,6/5\r\n"
             "Di,/reads/example-14.1/weights,\"[0.50, 0.25, 0.25]\"\r\n"
             "Ed,/reads/example-14.1/weights,\"[1/2,,]\"\r\n";
    }
    Result r = run({"check", "chapter14", "--answers", path});
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_EQ(r.out,
              "student,target,answer,verdict,rule,mistake,feedback\r\n"
              "\"Lee, Ann\",/reads/example-14.1/weights,\"[2/3,1/3,1/3]\",wrong,exact value,divide-by-count,Wrong: "
              "divided by the number of positions (3) instead of the sum of the exponentials (4).\r\n"
              "Bo,/reads/exercise-1/readout,6a/5,right,exact value,,Right (exact value).\r\n"
              "Cy,/reads/exercise-1/readout,6/5,wrong,exact value,drop-a,Wrong: the factor a (= ln 2) was dropped from "
              "the answer.\r\n"
              "Di,/reads/example-14.1/weights,\"[0.50, 0.25, 0.25]\",right,a decimal to the 2 decimal places written,,"
              "Right (a decimal to the 2 decimal places written).\r\n"
              "Ed,/reads/example-14.1/weights,\"[1/2,,]\",invalid,,,the answer does not parse: expression column 6: "
              "empty expression\r\n\r\n");
    // --format text asks for the text table, not the default CSV: no comma-separated header.
    r = run({"check", "chapter14", "--answers", path, "--format", "text"});
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_EQ(r.out.find("student,target,answer"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Lee, Ann"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("\r\n"), std::string::npos) << r.out;
    r = run({"check", "chapter14", "--answers", path, "--format", "json"});
    EXPECT_NE(r.out.find("\"mistake_id\": \"drop-a\""), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"right\": 2"), std::string::npos) << r.out;
}

TEST(Cli, CheckRemainingWeightsAcceptedWhereTheExerciseAllows) {
    // Table 14.2, row 2 (remove key): exponentials 2 and 1 remain, so the weights are
    // [2/3, 0, 1/3]; the chapter (Exercise 3's answer) lists them as "weights 2/3 and 1/3".
    // Exercise 3 lists that row and declares accept: ["remaining-weights"], so the ad-hoc
    // answer inherits it: right, with the note.
    Result r = run({"check", "chapter14", "--target", "/interventions/table-14.2/rows/2/weights", "--proposed",
                    "[2/3,1/3]", "--format", "json"});
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("\"correct\": true"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"mistake_id\": \"remaining-weights\""), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("accepted: only the weights of the remaining positions (1 and 3) were listed"),
              std::string::npos)
        << r.out;
    // Row 3 (remove full stop): exponentials 2 and 1 remain again, weights [2/3, 1/3, 0], but
    // only Exercise 4 lists that row (the whole table) and it accepts nothing: wrong, and named.
    r = run({"check", "chapter14", "--target", "/interventions/table-14.2/rows/3/weights", "--proposed", "[2/3,1/3]",
             "--format", "json"});
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("\"correct\": false"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"mistake_id\": \"remaining-weights\""), std::string::npos) << r.out;
}

TEST(Cli, CheckDecimalAndE) {
    // [e, 1, 1] can be entered: the exponentials with e^1 for 2^1 (exit 1, not 2).
    Result r = run({"check", "chapter14", "--target", "/reads/example-14.1/exponentials", "--proposed", "[e,1,1]",
                    "--format", "json"});
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.out.find("\"mistake_id\": \"e-instead-of-2\""), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"rule\": \"exact value, by certified enclosures\""), std::string::npos) << r.out;
    // 2a/5 = 0.277259 (a = 0.6931472): right to the 6 places written, shown as written.
    r = run({"check", "chapter14", "--target", "/reads/exercise-1/context/0", "--proposed", "0.277259"});
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("proposed 0.277259; rule: a decimal to the 6 decimal places written"), std::string::npos)
        << r.out;
}
