// SPDX-License-Identifier: MIT
// The display form of docs/notation.md ("Display form"): what an author would print.
// Expected strings are typed by hand from the mathematics shown in each comment.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "support/support.hpp"

using namespace exactattn;

namespace {

Value v(const std::string& s) { return parse_value(s); }
Value pow2(long k) { return Value::exp2(mpq_class(k)); }

std::string uni(const Value& x) { return to_display(x, Notation::Unicode); }
std::string tex(const Value& x) { return to_display(x, Notation::Latex); }
std::string asc(const Value& x) { return to_display(x, Notation::Ascii); }

const std::string kMath = "<math xmlns=\"http://www.w3.org/1998/Math/MathML\"><mrow>";
const std::string kEnd = "</mrow></math>";

}  // namespace

// 3√2/7 − 2/7 = (3√2 − 2)/7: both 11 columns, and the common denominator wins a tie.
TEST(Display, CommonDenominator) {
    const Value x = v("3*2^(1/2)/7 - 2/7");
    EXPECT_EQ(uni(x), "(3√2 − 2)/7");
    EXPECT_EQ(tex(x), "\\tfrac{3\\sqrt{2} - 2}{7}");
    EXPECT_EQ(asc(x), "(3*2^(1/2) - 2)/7");
    // The canonical forms are unchanged.
    EXPECT_EQ(to_unicode(x), "3√2/7 − 2/7");
    EXPECT_EQ(to_ascii(x), "3*2^(1/2)/7 - 2/7");
    // −3√2/7 − 2/7 = −(2 + 3√2)/7: the sign comes out of the numerator, whose terms go by
    // rising power of √2 as in every form.
    EXPECT_EQ(uni(v("-3*2^(1/2)/7 - 2/7")), "−(2 + 3√2)/7");
    // 1/2 + a/2 = (1 + a)/2 (9 columns each).
    EXPECT_EQ(uni(v("1/2 + a/2")), "(1 + a)/2");
}

// (2^(1/2)/3 − 1/3)a = (√2 − 1)a/3.
TEST(Display, GroupOverItsDenominator) {
    const Value x = v("(2^(1/2)/3 - 1/3)a");
    EXPECT_EQ(uni(x), "(√2 − 1)a/3");
    EXPECT_EQ(tex(x), "\\tfrac{\\left(\\sqrt{2} - 1\\right)a}{3}");
    EXPECT_EQ(to_ascii(x), "(2^(1/2)/3 - 1/3)a");
    // 1 + (√2 − 1)a/3: the whole over 3 would be (3 + (√2 − 1)a)/3, longer.
    EXPECT_EQ(uni(v("1 + (2^(1/2)/3 - 1/3)a")), "1 + (√2 − 1)a/3");
}

// The chapter's values keep the chapter's notation.
TEST(Display, ChapterFormsUnchanged) {
    EXPECT_EQ(uni(v("2a/3")), "2a/3");
    EXPECT_EQ(uni(v("a/2")), "a/2");
    EXPECT_EQ(uni(v("1/2")), "1/2");
    EXPECT_EQ(uni(v("-a/4")), "−a/4");
    EXPECT_EQ(uni(v("2^(1/2) - 1")), "√2 − 1");
    EXPECT_EQ(tex(v("2a/3")), "\\tfrac{2a}{3}");
    // 1 − √2/2 (8 columns) beats (2 − √2)/2 (10).
    EXPECT_EQ(uni(v("1 - 2^(1/2)/2")), "1 − √2/2");
    EXPECT_EQ(uni(v("1/4")), "1/4");
    EXPECT_EQ(tex(v("1/4")), "\\tfrac{1}{4}");
    EXPECT_EQ(uni(v("0")), "0");
    EXPECT_EQ(to_display(std::vector<Value>{v("a/2"), v("a/4")}, Notation::Unicode), "[a/2, a/4]");
    EXPECT_EQ(to_display(std::vector<Value>{v("a/2"), v("a/4")}, Notation::Latex), "[\\tfrac{a}{2}, \\tfrac{a}{4}]");
}

// Roots of 2 keep their signs; a fraction of a root keeps its bar.
TEST(Display, Roots) {
    EXPECT_EQ(uni(v("2^(1/4)")), "∜2");
    EXPECT_EQ(tex(v("2^(1/4)")), "\\sqrt[4]{2}");
    EXPECT_EQ(to_mathml(v("2^(1/4)")), kMath + "<mroot><mn>2</mn><mn>4</mn></mroot>" + kEnd);
    EXPECT_EQ(asc(v("2^(1/4)")), "2^(1/4)");
    // −2^(3/4)/3 = −∜8/3.
    EXPECT_EQ(uni(v("-2^(3/4)/3")), "−∜8/3");
    EXPECT_EQ(tex(v("-2^(3/4)/3")), "-\\tfrac{\\sqrt[4]{8}}{3}");
    // 1/7 + 3·2^(1/5)/7 = (1 + 3·2^(1/5))/7: 17 columns each, and the common denominator wins.
    EXPECT_EQ(uni(v("3*2^(1/5)/7 + 1/7")), "(1 + 3·2^(1/5))/7");
    EXPECT_EQ(tex(v("3*2^(1/5)/7 + 1/7")), "\\tfrac{1 + 3 \\cdot 2^{1/5}}{7}");
}

// Polynomials in a: terms by rising power; over a common denominator only where no longer.
TEST(Display, Polynomials) {
    EXPECT_EQ(uni(v("a^2")), "a²");
    EXPECT_EQ(tex(v("a^2")), "a^{2}");
    EXPECT_EQ(uni(v("-a^2/2")), "−a²/2");
    // a/3 + a²/2 (10 columns) against (2a + 3a²)/6 (12).
    EXPECT_EQ(uni(v("a^2/2 + a/3")), "a/3 + a²/2");
    // (1/6 + √2/6)a² − 1/3: the group over 6 gives (1 + √2)a²/6 − 1/3 (18 columns), the whole
    // over 6 ((1 + √2)a² − 2)/6 (18): a tie, and the common denominator wins.
    EXPECT_EQ(uni(v("(1 + 2^(1/2))a^2/6 - 1/3")), "((1 + √2)a² − 2)/6");
    EXPECT_EQ(tex(v("(1 + 2^(1/2))a^2/6 - 1/3")), "\\tfrac{\\left(1 + \\sqrt{2}\\right)a^{2} - 2}{6}");
    // 1 + a + a²: nothing to gather.
    EXPECT_EQ(uni(v("1 + a + a^2")), "1 + a + a²");
}

// Integers of more than 12 digits that are s·2^k + t (s odd, s and |t| of at most 4 digits)
// are written so where that is shorter than the digits.
TEST(Display, PowersOfTwo) {
    // exp(1100a) = 2^1100 (332 digits).
    EXPECT_EQ(uni(pow2(1100)), "2^1100");
    EXPECT_EQ(tex(pow2(1100)), "2^{1100}");
    EXPECT_EQ(to_mathml(pow2(1100)), kMath + "<msup><mn>2</mn><mn>1100</mn></msup>" + kEnd);
    EXPECT_EQ(uni(pow2(-1100)), "2^(−1100)");
    EXPECT_EQ(asc(pow2(-1100)), "2^(-1100)");
    EXPECT_EQ(tex(pow2(-1100)), "2^{-1100}");
    // Scores [1100a, 0]: weight of the first 2^1100/(2^1100 + 1).
    const Value w = pow2(1100) / (pow2(1100) + 1);
    EXPECT_EQ(uni(w), "2^1100/(2^1100 + 1)");
    EXPECT_EQ(tex(w), "\\tfrac{2^{1100}}{2^{1100} + 1}");
    // Scores [1100a, 1099a, 0]: 2^1100 + 2^1099 + 1 = 3·2^1099 + 1.
    const Value sum = pow2(1100) + pow2(1099) + 1;
    EXPECT_EQ(uni(sum), "3·2^1099 + 1");
    EXPECT_EQ(tex(sum), "3 \\cdot 2^{1099} + 1");
    EXPECT_EQ(asc(sum), "3*2^1099 + 1");
    EXPECT_EQ(uni(pow2(1100) - 1), "2^1100 − 1");
    // Weight of the last: 1/(3·2^1099 + 1); of the middle 2^1099/(3·2^1099 + 1).
    EXPECT_EQ(uni(Value(1) / sum), "1/(3·2^1099 + 1)");
    EXPECT_EQ(uni(pow2(1099) / sum), "2^1099/(3·2^1099 + 1)");
    // A power in front of a or of a root takes a visible dot: 2^1100·a, not 2^1100a.
    EXPECT_EQ(uni(pow2(1100) * Value::ln2()), "2^1100·a");
    EXPECT_EQ(uni(Value::exp2(mpq_class(2201, 2))), "2^1100·√2");
    EXPECT_EQ(uni(pow2(-1100) * Value::ln2()), "2^(−1100)·a");
    // A compound integer times a: (2^1100 + 1)a; negated in a sum: −(2^1100 + 1).
    EXPECT_EQ(uni((pow2(1100) + 1) * Value::ln2()), "(2^1100 + 1)a");
    EXPECT_EQ(uni(Value::ln2() - pow2(1100) - 1), "a − (2^1100 + 1)");
    // 3/2^1100: a numerator other than 1 keeps the fraction.
    EXPECT_EQ(uni(Value(3) / pow2(1100)), "3/2^1100");
    EXPECT_EQ(uni(Value(3) / pow2(1100) / 5), "3/(5·2^1100)");
}

TEST(Display, PowerRuleBoundaries) {
    // 2^39 = 549755813888 has 12 digits: decimal. 2^40 = 1099511627776 has 13: a power.
    EXPECT_EQ(uni(pow2(39)), "549755813888");
    EXPECT_EQ(uni(pow2(40)), "2^40");
    EXPECT_EQ(uni(pow2(40) + 1), "2^40 + 1");
    EXPECT_EQ(uni(pow2(40) * 5), "5·2^40");  // 5497558138880
    // 9999·2^40 + 9999 = 10994016766142223 (17 digits; "9999·2^40 + 9999" is 16): a power.
    EXPECT_EQ(uni(pow2(40) * 9999 + 9999), "9999·2^40 + 9999");
    // 10001·2^40: s has 5 digits: decimal (10001 × 1099511627776 = 10996215789387776).
    EXPECT_EQ(uni(pow2(40) * 10001), "10996215789387776");
    // 10^13 = 5^13·2^13, s = 5^13 = 1220703125: decimal.
    EXPECT_EQ(uni(v("10000000000000")), "10000000000000");
    // The place counts: 2^40 + 9999 = 1099511637775 (13 digits) is "2^40 + 9999" (11) alone,
    // but as a factor of a "(2^40 + 9999)a" is 14 columns, no shorter than "1099511637775a".
    EXPECT_EQ(uni(pow2(40) + 9999), "2^40 + 9999");
    EXPECT_EQ(uni((pow2(40) + 9999) * Value::ln2()), "1099511637775a");
    EXPECT_EQ(uni((pow2(40) + 1) * Value::ln2()), "(2^40 + 1)a");
    // 3^700 is odd and far from any s·2^k: all its digits, by default never elided.
    mpz_class three;
    mpz_ui_pow_ui(three.get_mpz_t(), 3, 700);
    EXPECT_EQ(uni(Value(mpq_class(three))), three.get_str());
    EXPECT_EQ(three.get_str().size(), 334U);
}

TEST(Display, ElisionOnlyWhenAsked) {
    mpz_class three;
    mpz_ui_pow_ui(three.get_mpz_t(), 3, 700);
    const std::string digits = three.get_str();
    const Value x{mpq_class(three)};
    // The narrowest elision keeps 9 digits: the first 5 and the last 4.
    const std::string narrow = to_display(x, Notation::Unicode, DisplayOptions{true, 10});
    EXPECT_EQ(narrow, digits.substr(0, 5) + "…" + digits.substr(330) + " (334 digits)");
    // A width of 40 columns is met with as many digits as fit.
    const std::string fit = to_display(x, Notation::Unicode, DisplayOptions{true, 40});
    EXPECT_LE(display_width(fit), 40U);
    EXPECT_GT(display_width(fit), 36U);
    EXPECT_NE(fit.find(" (334 digits)"), std::string::npos);
    // Values that fit are untouched.
    EXPECT_EQ(to_display(v("2a/3"), Notation::Unicode, DisplayOptions{true, 4}), "2a/3");
    EXPECT_EQ(to_display(x, Notation::Latex, DisplayOptions{true, 10}),
              digits.substr(0, 5) + "\\ldots " + digits.substr(330) + "\\ (\\text{334 digits})");
}

TEST(Display, BreakableLatexPutsEverySignAtTheTopLevel) {
    // docs/output.md, "A value wider than a line": a sum over a denominator is written with a
    // slash and \bigl( \bigr), as the Unicode form (3√2 − 2)/7 and (√2 − 1)a/3 are.
    const DisplayOptions breaks{true, 0, true};
    EXPECT_EQ(to_display(v("3*2^(1/2)/7 - 2/7"), Notation::Latex, breaks), "\\bigl(3\\sqrt{2} - 2\\bigr)/7");
    EXPECT_EQ(to_display(v("(2^(1/2) - 1)a/3"), Notation::Latex, breaks), "\\bigl(\\sqrt{2} - 1\\bigr)a/3");
    // A coefficient group without a denominator: (√2 − 1)a.
    EXPECT_EQ(to_display(v("(2^(1/2) - 1)a"), Notation::Latex, breaks), "\\bigl(\\sqrt{2} - 1\\bigr)a");
    // A short fraction keeps its bar; a long one (27 + 1 digits) takes the slash.
    EXPECT_EQ(to_display(v("2a/3"), Notation::Latex, breaks), "\\tfrac{2a}{3}");
    EXPECT_EQ(to_display(v("123456789012345678901234567/7"), Notation::Latex, breaks), "123456789012345678901234567/7");
    // The other notations ignore the option.
    EXPECT_EQ(to_display(v("3*2^(1/2)/7 - 2/7"), Notation::Unicode, breaks), "(3√2 − 2)/7");
    EXPECT_EQ(tex(v("3*2^(1/2)/7 - 2/7")), "\\tfrac{3\\sqrt{2} - 2}{7}");
}

TEST(Display, MathMLForms) {
    // 2a/3
    EXPECT_EQ(
        to_mathml(v("2a/3")),
        kMath + "<mfrac><mrow><mn>2</mn><mo>&#x2062;</mo><mi>a</mi></mrow><mrow><mn>3</mn></mrow></mfrac>" + kEnd);
    // √2 − 1
    EXPECT_EQ(to_mathml(v("2^(1/2) - 1")), kMath + "<msqrt><mn>2</mn></msqrt><mo>−</mo><mn>1</mn>" + kEnd);
    // (3√2 − 2)/7: the fraction bar groups, no parentheses.
    EXPECT_EQ(to_mathml(v("3*2^(1/2)/7 - 2/7")),
              kMath +
                  "<mfrac><mrow><mn>3</mn><mo>&#x2062;</mo><msqrt><mn>2</mn></msqrt><mo>−</mo><mn>2</mn></mrow>"
                  "<mrow><mn>7</mn></mrow></mfrac>" +
                  kEnd);
    // −a², ∛4
    EXPECT_EQ(to_mathml(v("-a^2")), kMath + "<mo>−</mo><msup><mi>a</mi><mn>2</mn></msup>" + kEnd);
    EXPECT_EQ(to_mathml(v("2^(2/3)")), kMath + "<mroot><mn>4</mn><mn>3</mn></mroot>" + kEnd);
    EXPECT_EQ(
        to_display(std::vector<Value>{v("a/2"), v("0")}, Notation::MathML),
        kMath +
            "<mo>[</mo><mfrac><mrow><mi>a</mi></mrow><mrow><mn>2</mn></mrow></mfrac><mo>,</mo><mn>0</mn><mo>]</mo>" +
            kEnd);
}

TEST(Display, CanonicalWhenNotDisplay) {
    const DisplayOptions canonical{false, 0};
    EXPECT_EQ(to_display(v("3*2^(1/2)/7 - 2/7"), Notation::Unicode, canonical), "3√2/7 − 2/7");
    EXPECT_EQ(to_display(pow2(50), Notation::Ascii, canonical), "1125899906842624");  // 2^50
}

namespace {

// Random values, and random values scaled by long powers of two and shifted by small integers
// (the shapes s·2^k + t the power rule looks for).
std::vector<Value> sample(const std::string& name) {
    auto rng = test::rng_for(name);
    std::vector<Value> out;
    const int n = 400 * test::multiplier();
    std::uniform_int_distribution<long> exponent(-200, 200);
    std::uniform_int_distribution<long> small(-20, 20);
    for (int i = 0; i < n; ++i) {
        Value x = test::random_value(rng, 16, 12, 2);
        if (i % 3 == 1) x = x * pow2(exponent(rng)) + small(rng);
        if (i % 3 == 2) x = x / (pow2(exponent(rng) + 200) + small(rng) + 21);
        out.push_back(x);
    }
    return out;
}

// Braces never close before they open and all close; every \\left has its \\right.
bool balanced_latex(const std::string& t) {
    long depth = 0;
    for (char c : t) {
        depth += c == '{' ? 1 : c == '}' ? -1 : 0;
        if (depth < 0) return false;
    }
    const auto count = [&t](const std::string& w) {
        long n = 0;
        for (auto i = t.find(w); i != std::string::npos; i = t.find(w, i + 1)) ++n;
        return n;
    };
    return depth == 0 && count("\\left(") == count("\\right)");
}

}  // namespace

// The unicode and ascii display forms read back to the value (parse_value reads √ ∛ ∜ − ·), are
// never wider than the canonical form, and the LaTeX form's groups are balanced.
TEST(DisplayProperty, ParsesBack) {
    for (const Value& x : sample("DisplayProperty.ParsesBack")) {
        SCOPED_TRACE(to_ascii(x) + " seed " + std::to_string(test::seed()));
        EXPECT_EQ(parse_value(uni(x)), x) << uni(x);
        EXPECT_EQ(parse_value(asc(x)), x) << asc(x);
        EXPECT_LE(display_width(uni(x)), display_width(to_unicode(x)));
        EXPECT_TRUE(balanced_latex(tex(x))) << tex(x);
    }
}

// Every MathML form is well-formed XML: xmllint (libxml2) or, without it, Python's expat.
TEST(DisplayProperty, MathMLIsWellFormed) {
    const auto dir = std::filesystem::temp_directory_path();
    const auto file = dir / ("exactattn_mathml_" + std::to_string(::getpid()) + ".xml");
    {
        std::ofstream out(file);
        out << "<root>\n";
        for (const Value& x : sample("DisplayProperty.MathMLIsWellFormed")) {
            out << to_mathml(x) << '\n' << to_string(x, Notation::MathML) << '\n';
        }
        out << to_display(std::vector<Value>{pow2(1100), v("a/2")}, Notation::MathML) << '\n';
        mpz_class three;
        mpz_ui_pow_ui(three.get_mpz_t(), 3, 700);
        out << to_display(Value(mpq_class(three)), Notation::MathML, DisplayOptions{true, 20}) << '\n';
        out << "</root>\n";
    }
    std::string command;
    if (std::filesystem::exists("/usr/bin/xmllint")) {
        command = "/usr/bin/xmllint --noout '" + file.string() + "'";
    } else if (std::filesystem::exists("/usr/bin/python3")) {
        command = "/usr/bin/python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' '" +
                  file.string() + "'";
    } else {
        std::filesystem::remove(file);
        GTEST_SKIP() << "neither xmllint nor /usr/bin/python3 to parse XML";
    }
    const int rc = std::system(command.c_str());
    EXPECT_EQ(rc, 0) << command;
    if (rc == 0) std::filesystem::remove(file);
}
