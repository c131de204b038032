// SPDX-License-Identifier: MIT
// The fast path (fastpath.hpp) against the general value arithmetic (attend_general): equal in
// every field on random memories (fixed seeds), hand-computed reads, and the cases where the
// fast path must decline.
#include <gtest/gtest.h>

#include <array>
#include <sstream>

#include "model/fastpath.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/encoder.hpp"
#include "exactattn/parse.hpp"
#include "exactattn/print.hpp"
#include "support/support.hpp"

using namespace exactattn;

namespace {

int iterations(int base) { return base * exactattn::test::multiplier(); }

std::string show(const std::optional<Value>& v) { return v ? to_ascii(*v) : std::string("none"); }

// Every field of two traces, exactly; `fast` must have come from the fast path.
void expect_same_trace(const ReadTrace& fast, const ReadTrace& general) {
    EXPECT_FALSE(general.fast_path);
    EXPECT_EQ(fast.query, general.query);
    EXPECT_EQ(fast.marks, general.marks);
    EXPECT_EQ(fast.denominator, general.denominator)
        << to_ascii(fast.denominator) << " vs " << to_ascii(general.denominator);
    ASSERT_EQ(fast.context.size(), general.context.size());
    for (std::size_t i = 0; i < fast.context.size(); ++i) {
        EXPECT_EQ(fast.context[i], general.context[i])
            << "context " << i + 1 << ": " << to_ascii(fast.context[i]) << " vs " << to_ascii(general.context[i]);
        EXPECT_TRUE(fast.context[i].is_canonical());
    }
    EXPECT_EQ(fast.readout, general.readout) << show(fast.readout) << " vs " << show(general.readout);
    const std::size_t n = general.marks.size();
    ASSERT_EQ(fast.scores.size(), n);
    ASSERT_EQ(fast.exponentials.size(), n);
    ASSERT_EQ(fast.weights.size(), n);
    Value total;
    for (std::size_t j = 0; j < n; ++j) {
        EXPECT_EQ(fast.scores.at(j), general.scores.at(j))
            << "score " << j + 1 << ": " << show(fast.scores.at(j)) << " vs " << show(general.scores.at(j));
        EXPECT_EQ(fast.exponentials.at(j), general.exponentials.at(j))
            << "exponential " << j + 1 << ": " << show(fast.exponentials.at(j)) << " vs "
            << show(general.exponentials.at(j));
        EXPECT_EQ(fast.weights.at(j), general.weights.at(j))
            << "weight " << j + 1 << ": " << show(fast.weights.at(j)) << " vs " << show(general.weights.at(j));
        if (fast.weights.at(j)) total += *fast.weights.at(j);
    }
    EXPECT_EQ(total, Value(1));  // the weights are a distribution, exactly
}

// Reads `memory` with both paths and compares them; the fast path must take the read.
void check_fast_equals_general(const Memory& memory, const ReadRequest& req) {
    const ReadTrace fast = attend(memory, req);
    EXPECT_TRUE(fast.fast_path) << "the fast path declined";
    expect_same_trace(fast, attend_general(memory, req));
}

// The memory in the form asked: compact (k·unit) or explicit exact values.
Memory make_memory(std::size_t n, std::size_t d, const std::vector<std::int64_t>& k, const Value& unit, bool compact) {
    if (compact) return Memory::scaled_integers(n, d, k, unit);
    Matrix rows(n, Vector(d));
    for (std::size_t j = 0; j < n; ++j) {
        for (std::size_t i = 0; i < d; ++i) rows[j][i] = Value(static_cast<long>(k[j * d + i])) * unit;
    }
    return Memory(rows);
}

std::string describe(std::size_t n, std::size_t d, const std::vector<std::int64_t>& k, const Value& unit, bool compact,
                     const ReadRequest& req) {
    std::ostringstream os;
    os << "n=" << n << " d=" << d << " unit=" << to_ascii(unit) << (compact ? " compact" : " explicit") << " k=[";
    for (auto x : k) os << x << ' ';
    os << "] query=" << to_string(req.query) << " marks=";
    for (auto m : req.marks) os << (m == Mark::Included ? 'i' : m == Mark::Removed ? 'r' : 'z');
    if (req.readout) os << " readout=" << to_string(*req.readout);
    return os.str();
}

// Random marks for n positions, at least one included: about a tenth removed, a tenth zeroed.
template <class Pick>
std::vector<Mark> random_marks(Pick& pick, std::size_t n) {
    std::vector<Mark> marks(n, Mark::Included);
    for (auto& m : marks) {
        const int r = pick(0, 9);
        m = r == 0 ? Mark::Removed : r == 1 ? Mark::Zeroed : Mark::Included;
    }
    marks[static_cast<std::size_t>(pick(0, static_cast<int>(n) - 1))] = Mark::Included;
    return marks;
}

}  // namespace

// Hand mathematics: Example 14.1 of the chapter (docs/report.md, "Structure").
TEST(FastPath, ChapterExample) {
    const Memory memory(Matrix{parse_vector("[a,0]"), parse_vector("[0,a]"), parse_vector("[0,0]")});
    ReadRequest req;
    req.query = parse_vector("[1,0]");
    req.readout = parse_vector("[1,2]");
    const ReadTrace t = attend(memory, req);
    EXPECT_TRUE(t.fast_path);
    EXPECT_EQ(t.denominator, Value(4));
    EXPECT_EQ(t.weights.at(0), parse_value("1/2"));
    EXPECT_EQ(t.weights.at(1), parse_value("1/4"));
    EXPECT_EQ(t.weights.at(2), parse_value("1/4"));
    EXPECT_EQ(t.context, parse_vector("[a/2, a/4]"));
    EXPECT_EQ(t.readout, parse_value("a"));
    expect_same_trace(t, attend_general(memory, req));
}

// A long read whose scores are all distinct: keys s·a for s = A … B (A = −4999, B = 5000),
// query 1, so the rows go straight into the big sums (10^4 scores, more than rows/4), with
// carries across 10^4 bits. By hand: Σ_{s=A}^{B} 2^s = 2^(B+1) − 2^A, and
// since (s − 1)·2^(s+1) − (s − 2)·2^s = s·2^s, Σ_{s=A}^{B} s·2^s telescopes to
// (B − 1)·2^(B+1) − (A − 2)·2^A; the context is that over the denominator, times a, and the
// weight of s = B is 2^B / (2^(B+1) − 2^A).
TEST(FastPath, LongSpreadReadByHand) {
    const long lo = -4999;
    const long hi = 5000;
    std::vector<std::int64_t> k;
    for (long s = lo; s <= hi; ++s) k.push_back(s);
    const Memory memory = Memory::scaled_integers(k.size(), 1, k, parse_value("a"));
    ReadRequest req;
    req.query = parse_vector("[1]");
    const ReadTrace t = attend(memory, req);
    ASSERT_TRUE(t.fast_path);
    auto pow2 = [](long e) {
        mpq_class x = 1;
        if (e >= 0)
            mpq_mul_2exp(x.get_mpq_t(), x.get_mpq_t(), static_cast<mp_bitcnt_t>(e));
        else
            mpq_div_2exp(x.get_mpq_t(), x.get_mpq_t(), static_cast<mp_bitcnt_t>(-e));
        return x;
    };
    const mpq_class den = pow2(hi + 1) - pow2(lo);
    const mpq_class num = mpq_class(hi - 1) * pow2(hi + 1) - mpq_class(lo - 2) * pow2(lo);
    EXPECT_EQ(t.denominator, Value(FieldElem(den)));
    ASSERT_EQ(t.context.size(), 1U);
    EXPECT_EQ(t.context[0], Value(FieldElem(mpq_class(num / den))) * parse_value("a"));
    EXPECT_EQ(t.weights.at(k.size() - 1), Value(FieldElem(mpq_class(pow2(hi) / den))));
}

// Hand mathematics in Q(√2): scores a/2 and 0, so the denominator is 1 + √2, the weights
// √2/(1 + √2) = 2 − √2 and 1/(1 + √2) = √2 − 1, and the context (2 − √2)·a/2.
TEST(FastPath, HalfIntegerExponents) {
    const Memory memory = Memory::scaled_integers(2, 1, {1, 0}, parse_value("a/2"));
    ReadRequest req;
    req.query = parse_vector("[1]");
    const ReadTrace t = attend(memory, req);
    EXPECT_TRUE(t.fast_path);
    EXPECT_EQ(t.scores.at(0), parse_value("a/2"));
    EXPECT_EQ(t.exponentials.at(0), parse_value("sqrt(2)"));
    EXPECT_EQ(t.denominator, parse_value("1 + sqrt(2)"));
    EXPECT_EQ(t.weights.at(0), parse_value("2 - sqrt(2)"));
    EXPECT_EQ(t.weights.at(1), parse_value("sqrt(2) - 1"));
    EXPECT_EQ(t.context, parse_vector("[(1 - sqrt(2)/2)a]"));
    expect_same_trace(t, attend_general(memory, req));
}

// Scores 3a and h·a (h ≡ 0 mod 3, h − 3 odd), so the denominator is 2^3 + 2^h =
// 8·(1 + 2^(h−3)) and the context (3·2^3 + h·2^h)/(2^3 + 2^h)·a = (3 + h·2^(h−3))/(1 + 2^(h−3))·a.
// Since h − 3 is odd, 3 divides 1 + 2^(h−3), and it divides the numerator: the fraction reduces
// (by 3 at least).
static void expect_common_factor_found(long h) {
    const Memory memory = Memory::scaled_integers(2, 2, {3, 3, h, h}, Value::ln2());
    ReadRequest req;
    req.query = parse_vector("[1, 0]");
    const ReadTrace t = attend(memory, req);
    EXPECT_TRUE(t.fast_path);
    mpz_class big = 1;
    big <<= static_cast<mp_bitcnt_t>(h - 3);
    const mpz_class num = 3 + h * big;
    const mpz_class den = 1 + big;
    mpq_class expected(num, den);
    expected.canonicalize();                        // GMP's gcd, independent of the read
    EXPECT_NE(mpz_class(expected.get_den()), den);  // it did reduce
    const Value c = Value(expected) * Value::ln2();
    EXPECT_EQ(t.context[0], c);
    EXPECT_EQ(t.context[1], c);
    const mpz_class total = 8 * den;
    EXPECT_EQ(t.denominator, Value(mpq_class(total)));
    expect_same_trace(t, attend_general(memory, req));
}

// Hand mathematics with large exponents and a common factor the fast path must find: h = 4104,
// N_o = 1 + 2^4101 of 65 limbs, where the shared gcd multiplies by Barrett's reduction.
TEST(FastPath, LargeExponentsWithACommonFactor) { expect_common_factor_found(4104); }

// The same at about 1200 bits, where the shared gcd multiplies by Montgomery products (N_o of at
// most 64 limbs): h = 1206, N_o = 1 + 2^1203.
TEST(FastPath, MidSizeExponentsWithACommonFactor) { expect_common_factor_found(1206); }

// Hand mathematics with an even denominator: scores 3a, 3a and 4103a, so the denominator is
// 2^3·(2 + 2^4100), even after the power 2^3 is taken out, and the contexts
// (3·2 + 4103·2^4100)/(2 + 2^4100)·a and (2 + 4 + 6·2^4100)/(2 + 2^4100)·a share its factor 2.
TEST(FastPath, LargeExponentsWithAnEvenDenominator) {
    const Memory memory = Memory::scaled_integers(3, 2, {3, 2, 3, 4, 4103, 6}, Value::ln2());
    ReadRequest req;
    req.query = parse_vector("[1, 0]");
    const ReadTrace t = attend(memory, req);
    EXPECT_TRUE(t.fast_path);
    mpz_class big = 1;
    big <<= 4100;
    const mpz_class den = 2 + big;
    const mpz_class num1 = 6 + 4103 * big;
    const mpz_class num2 = 6 + 6 * big;
    mpq_class c1(num1, den);
    mpq_class c2(num2, den);
    c1.canonicalize();
    c2.canonicalize();
    EXPECT_EQ(t.context[0], Value(c1) * Value::ln2());
    EXPECT_EQ(t.context[1], Value(c2) * Value::ln2());
    const mpz_class total = 8 * den;
    EXPECT_EQ(t.denominator, Value(mpq_class(total)));
    expect_same_trace(t, attend_general(memory, req));
}

// Exponents at the limit: the general path accepts 2^r when |trunc(r)| ≤ max_exponent, so
// must the fast path (score −50.5a has floor −51 but is allowed), and it must leave past the
// limit to the general path's LimitError.
TEST(FastPath, ExponentLimitBoundary) {
    Limits l;
    l.max_exponent = 50;
    const ScopedLimits scoped(l);
    ReadRequest req;
    req.query = parse_vector("[1]");
    check_fast_equals_general(Memory::scaled_integers(3, 1, {-101, 101, 0}, parse_value("a/2")), req);
    check_fast_equals_general(Memory::scaled_integers(2, 1, {-50, 50}, Value::ln2()), req);
    const Memory under = Memory::scaled_integers(2, 1, {-51, 0}, Value::ln2());
    EXPECT_ERROR_HAS(attend(under, req), ErrorKind::Limit, "max_exponent");
    EXPECT_FALSE(detail::fast_attend(under, under, req, {Mark::Included, Mark::Included}, Value(1)));
    const Memory over = Memory::scaled_integers(2, 1, {51, 0}, Value::ln2());
    EXPECT_ERROR_HAS(attend(over, req), ErrorKind::Limit, "max_exponent");
    EXPECT_FALSE(detail::fast_attend(over, over, req, {Mark::Included, Mark::Included}, Value(1)));
    // A zeroed position takes no exponent: the read is in range.
    req.marks = {Mark::Zeroed, Mark::Included};
    check_fast_equals_general(over, req);
}

// The smallest root degree: unit a/6 with every score a multiple of 3a/6 = a/2 lives in Q(√2),
// inside a root limit of 4 that Q(2^(1/6)) would pass.
TEST(FastPath, SmallestRootDegree) {
    Limits l;
    l.max_root = 4;
    const ScopedLimits scoped(l);
    ReadRequest req;
    req.query = parse_vector("[1, 1]");
    const Memory halves = Memory::scaled_integers(3, 2, {3, 0, 6, 3, -3, 0}, parse_value("a/6"));
    check_fast_equals_general(halves, req);
    EXPECT_EQ(attend(halves, req).exponentials.at(0), parse_value("sqrt(2)"));
    const Memory sixths = Memory::scaled_integers(2, 2, {1, 0, 0, 0}, parse_value("a/6"));
    EXPECT_ERROR_HAS(attend(sixths, req), ErrorKind::Limit, "max_root");
}

// Explicit memories are compacted to one unit: mixed denominators (unit a/15), and entries
// too large for 62 bits over any unit (the general path takes those).
TEST(FastPath, CompactsExplicitMemories) {
    ReadRequest req;
    req.query = parse_vector("[1, 2]");
    const Memory mixed(Matrix{parse_vector("[a/3, -a/5]"), parse_vector("[2a/5, 0]"), parse_vector("[0, 0]")});
    const Memory compact = mixed.compacted();
    ASSERT_TRUE(compact.is_compact());
    EXPECT_EQ(compact.unit(), parse_value("a/15"));
    EXPECT_EQ(compact.integers(), (std::vector<std::int64_t>{5, -3, 6, 0, 0, 0}));
    EXPECT_EQ(compact.matrix(), mixed.matrix());
    check_fast_equals_general(mixed, req);
    // Column 1 holds 2^62·a and a: no unit of its own leaves both integers below 2^62.
    const Memory big(Matrix{parse_vector("[2^62 a, a]"), parse_vector("[a, a]")});
    EXPECT_FALSE(big.compacted().is_compact());
    EXPECT_FALSE(big.compacted().is_columnwise());
    req.query = parse_vector("[0, 1]");
    const ReadTrace t = attend(big, req);
    EXPECT_FALSE(t.fast_path);
    EXPECT_EQ(t.denominator, Value(4));
    // 2^62 − 1 fits the compact form; the fast path's bucket sums (n·|k| < 2^62) do not, so
    // the general path reads it.
    const Memory fits(Matrix{parse_vector("[(2^62 - 1)a, a]"), parse_vector("[0, a]")});
    EXPECT_TRUE(fits.compacted().is_compact());
    EXPECT_FALSE(attend(fits, req).fast_path);
    check_fast_equals_general(Memory(Matrix{parse_vector("[2^60 a, a]"), parse_vector("[0, a]")}), req);
}

// Entries whose products leave 64 bits: the dot product in 128 bits. Unit a/2^40 and query
// [2^40, 0] give the score 2^40·1·a/2^40 = a at position 1 and 0 at position 2.
TEST(FastPath, WideDotProducts) {
    mpz_class two40 = 1;
    two40 <<= 40;
    const Memory memory = Memory::scaled_integers(2, 2, {1, std::int64_t{1} << 30, 0, 5},
                                                  Value(mpq_class(mpz_class(1), two40)) * Value::ln2());
    ReadRequest req;
    req.query = {Value(mpq_class(two40)), Value()};
    const ReadTrace t = attend(memory, req);
    EXPECT_TRUE(t.fast_path);
    EXPECT_EQ(t.scores.at(0), Value::ln2());
    EXPECT_EQ(t.denominator, Value(3));
    expect_same_trace(t, attend_general(memory, req));
}

// Memories the fast path must leave to the general path, which then gives the read (or the
// error) alone.
TEST(FastPath, DeclinesOutsideItsStructure) {
    ReadRequest req;
    req.query = parse_vector("[0, 1]");
    // A radical entry: not an integer multiple of one unit r·a^e.
    const Memory radical(Matrix{parse_vector("[2^(1/2)a, 0]"), parse_vector("[a, a]")});
    EXPECT_FALSE(detail::fast_attend(radical, radical, req, {Mark::Included, Mark::Included}, Value(1)));
    ReadTrace t = attend(radical, req);
    EXPECT_FALSE(t.fast_path);
    // Scores 0 and a: weights 1/3 and 2/3, context [√2a/3 + 2a/3, 2a/3] by hand.
    EXPECT_EQ(t.context, parse_vector("[(2 + 2^(1/2))a/3, 2a/3]"));
    // Entries of different powers of a.
    const Memory mixed(Matrix{parse_vector("[1, a]"), parse_vector("[a, 0]")});
    EXPECT_FALSE(detail::fast_attend(mixed, mixed, req, {Mark::Included, Mark::Included}, Value(1)));
    t = attend(mixed, req);
    EXPECT_FALSE(t.fast_path);
    EXPECT_EQ(t.denominator, Value(3));
    // Scores that are not multiples of a: exp(1) is refused (e is transcendental).
    const Memory rational = Memory::scaled_integers(2, 2, {1, 2, 0, 1}, Value(1));
    EXPECT_FALSE(detail::fast_attend(rational, rational, req, {Mark::Included, Mark::Included}, Value(1)));
    EXPECT_ERROR_HAS(attend(rational, req), ErrorKind::Domain, "position 1");
    // ... but a zero query scores 0 everywhere, which the fast path takes.
    req.query = parse_vector("[0, 0]");
    check_fast_equals_general(rational, req);
    // A scale that is not rational: 1/√2 for d_k = 2.
    req.query = parse_vector("[1, 1]");
    req.rule = ScoreRule::ScaledDot;
    const Memory surd = Memory::scaled_integers(2, 2, {2, 0, 0, 0}, Value::ln2());
    EXPECT_FALSE(detail::fast_attend(surd, surd, req, {Mark::Included, Mark::Included}, parse_value("2^(1/2)/2")));
    // By hand: q·h_1/√2 = 2a/√2 = √2·a, and 2^√2 is transcendental: refused.
    EXPECT_ERROR_HAS(attend(surd, req), ErrorKind::Domain, "q·k_1/√2 = 2a/√2");
}

// A rational scale stays on the fast path: 1/√d_k for d_k = 4, and declared scales.
TEST(FastPath, RationalScalesStayOnIt) {
    ReadRequest req;
    req.query = parse_vector("[1, 1, 1, 1]");
    req.rule = ScoreRule::ScaledDot;
    const Memory wide = Memory::scaled_integers(2, 4, {2, 0, 0, 0, 0, 0, 0, 0}, Value::ln2());
    const ReadTrace t = attend(wide, req);
    EXPECT_TRUE(t.fast_path);
    EXPECT_EQ(t.exponentials.at(0), Value(2));  // by hand: (q·h)/√4 = 2a/2 = a
    check_fast_equals_general(wide, req);
    req.rule = ScoreRule::Scaled;
    for (const char* s : {"1/3", "-2", "0", "3/8"}) {
        req.scale = parse_value(s);
        check_fast_equals_general(wide, req);
    }
    // d_k = 9: 1/√9 = 1/3 is rational too; d_k = 8: 1/√8 = √2/4 is not.
    EXPECT_EQ(score_scale(ScoreRule::ScaledDot, 9, Value(1)), parse_value("1/3"));
    EXPECT_EQ(score_scale(ScoreRule::ScaledDot, 8, Value(1)), parse_value("2^(1/2)/4"));
    EXPECT_ERROR_HAS(score_scale(ScoreRule::ScaledDot, 3, Value(1)), ErrorKind::Domain, "perfect square");
}

// Separate keys and values (the Transformer form), fast against general, with marks.
TEST(FastPath, SeparateKeysAndValues) {
    auto rng = exactattn::test::rng_for("FastPath.SeparateKeysAndValues");
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    for (int it = 0; it < iterations(200); ++it) {
        const std::size_t n = static_cast<std::size_t>(pick(1, 8));
        const std::size_t dk = static_cast<std::size_t>(pick(1, 4)) * (pick(0, 1) == 0 ? 1 : 4);
        const std::size_t dv = static_cast<std::size_t>(pick(1, 5));
        std::vector<std::int64_t> k(n * dk);
        std::vector<std::int64_t> v(n * dv);
        for (auto& x : k) x = pick(-6, 6);
        for (auto& x : v) x = pick(-9, 9);
        const Memory keys = Memory::scaled_integers(n, dk, k, pick(0, 1) == 0 ? Value::ln2() : parse_value("a/2"));
        const Memory values = Memory::scaled_integers(n, dv, v, pick(0, 1) == 0 ? Value(1) : parse_value("3a/4"));
        ReadRequest req;
        for (std::size_t i = 0; i < dk; ++i) req.query.push_back(Value(pick(-3, 3)));
        req.rule = dk == 4 || dk == 16 ? ScoreRule::ScaledDot : ScoreRule::Scaled;
        req.scale = parse_value(pick(0, 1) == 0 ? "1/2" : "-1/3");
        req.marks.assign(n, Mark::Included);
        for (std::size_t j = 0; j + 1 < n; ++j) {
            if (pick(0, 3) == 0) req.marks[j] = Mark::Removed;
        }
        SCOPED_TRACE(testing::Message() << "n=" << n << " dk=" << dk << " dv=" << dv);
        const ReadTrace fast = attend(keys, values, req);
        EXPECT_TRUE(fast.fast_path);
        expect_same_trace(fast, attend_general(keys, values, req));
    }
}

// The digit accumulator of the big sums (fastpath.cpp, DigitSums) across its guard. With 16
// rows of values at most B in magnitude, Σ|v| into one integer is at most 16·(B + 1), and
// the digits are w = 32, 16, 8 bits wide while that is at most 2^(62−w); past 2^54 the sums
// are ShiftedSums. Each boundary 2^L (L = 30, 46, 54) is read from both sides:
// B = 2^L/16 − 1 (the total exactly 2^L) and B = 2^L/16, and L = 62: B = 2^58 − 1, the largest
// the fast path takes (there even 8-bit digits would overflow), and 2^58, which it declines. Keys k·a or k·a/2 with
// query 1 put row j at bit offset ⌊k_j⌋ or ⌊k_j/2⌋: offsets at and around the digit boundaries 8, 16, 32, 64 and 128,
// spread wider than the bucket window (rows straight into the sums) or within it (bucket sums, some of two rows). Value
// columns: random in [−B, B] with −B and B present; a column that cancels across offsets (2c·2^31 − c·2^32 = 0, 2c·2^63
// − c·2^64 = 0, and a bucket c + (−c)), so its context is 0 for unit a; a column of negative values (a negative sum).
// Expected: the general path's exact arithmetic (attend_general), field by field.
TEST(FastPath, DigitSumsAcrossTheirGuard) {
    auto rng = exactattn::test::rng_for("FastPath.DigitSumsAcrossTheirGuard");
    auto pick = [&](std::int64_t lo, std::int64_t hi) {
        return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
    };
    const std::size_t n = 16;
    const std::size_t dv = 3;
    const std::vector<std::int64_t> spread = {0, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 127, 128, 129, 200, 255};
    const std::vector<std::int64_t> bucketed = {0, 1, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 31, 8, 16, 0};
    for (const int bits : {30, 46, 54, 62}) {
        for (const std::int64_t over : {0, 1}) {
            // |v| = 2^58 = 2^62/16 passes the 64-bit bucket sums: the fast path declines.
            const bool declines = bits == 62 && over == 1;
            const std::int64_t big_b = (std::int64_t{1} << bits) / static_cast<std::int64_t>(n) - 1 + over;
            for (const bool wide : {true, false}) {
                for (const char* unit : {"a", "a/2"}) {
                    std::vector<std::int64_t> v(n * dv);
                    for (std::size_t j = 0; j < n; ++j) {
                        v[j * dv] = pick(-big_b, big_b);
                        v[j * dv + 2] = pick(-big_b, -1);
                    }
                    v[0] = -big_b;
                    v[dv] = big_b;
                    v[2 * dv + 2] = -big_b;
                    const std::int64_t c = big_b / 2;
                    // Pairs (2c at offset o, −c at o + 1), or a bucket of c and −c (score 31).
                    const std::vector<std::pair<std::size_t, std::size_t>> pairs =
                        wide ? std::vector<std::pair<std::size_t, std::size_t>>{{5, 6}, {8, 9}}
                             : std::vector<std::pair<std::size_t, std::size_t>>{{3, 4}};
                    for (const auto& [lo, hi] : pairs) {
                        v[lo * dv + 1] = 2 * c;
                        v[hi * dv + 1] = -c;
                    }
                    if (!wide) {
                        v[11 * dv + 1] = c;
                        v[12 * dv + 1] = -c;
                    }
                    const Memory keys = Memory::scaled_integers(n, 1, wide ? spread : bucketed, parse_value(unit));
                    const Memory values = Memory::scaled_integers(n, dv, v, Value(1));
                    ReadRequest req;
                    req.query = parse_vector("[1]");
                    SCOPED_TRACE(testing::Message()
                                 << "seed " << exactattn::test::seed() << ": B = 2^" << bits << "/16 - 1 + " << over
                                 << (wide ? ", spread" : ", bucketed") << ", unit " << unit);
                    const ReadTrace fast = attend(keys, values, req);
                    ASSERT_EQ(fast.fast_path, !declines);
                    const ReadTrace general = attend_general(keys, values, req);
                    if (!declines) expect_same_trace(fast, general);
                    if (std::string(unit) == "a") {
                        EXPECT_TRUE(general.context[1].is_zero());
                    }
                    if (HasFailure()) return;
                }
            }
        }
    }
}

// The bucket window's three outcomes after the first 64 present rows (the probe): rows whose
// scores stay within max(rows/4, 64) values (buckets throughout); a probe already wider than
// that (no buckets at all); and a narrow probe followed by rows that spread wider (buckets
// given up part way, every row then straight into the big sums). Expected: the general path.
TEST(FastPath, BucketWindowAfterTheProbe) {
    auto rng = exactattn::test::rng_for("FastPath.BucketWindowAfterTheProbe");
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const std::size_t n = 200;  // cap = max(200/4, 64) = 64 scores
    for (const int late_range : {3, 400}) {
        for (const int early_range : {3, 400}) {
            std::vector<std::int64_t> k(n * 2);
            std::vector<std::int64_t> v(n * 3);
            for (std::size_t j = 0; j < n; ++j) {
                const int range = j < 100 ? early_range : late_range;
                k[2 * j] = pick(-range, range);
                k[2 * j + 1] = pick(-1, 1);
                for (std::size_t i = 0; i < 3; ++i) v[3 * j + i] = pick(-9, 9);
            }
            const Memory keys = Memory::scaled_integers(n, 2, k, parse_value("a/2"));
            const Memory values = Memory::scaled_integers(n, 3, v, parse_value("a"));
            ReadRequest req;
            req.query = parse_vector("[1, 1]");
            req.marks.assign(n, Mark::Included);
            for (std::size_t j = 0; j < n; j += 7) req.marks[j] = Mark::Removed;
            req.marks[5] = Mark::Zeroed;
            SCOPED_TRACE(testing::Message() << "early range " << early_range << ", late range " << late_range);
            const ReadTrace fast = attend(keys, values, req);
            ASSERT_TRUE(fast.fast_path);
            expect_same_trace(fast, attend_general(keys, values, req));
        }
    }
}

// Columns of different kinds (k·a, constants k/2, k·2^(1/2)/2, k·a²/3): no unit for the whole
// memory, one a column. By hand, with q = [1, 0, 0, 0]: scores a, 0, −a, exponentials 2, 1, 1/2,
// denominator 7/2, weights 4/7, 2/7, 1/7; context 4a/7 − a/7 = 3a/7, (4/7)(1/2) + (2/7)(3/2)
// = 5/7, (4/7)(√2/2) + (1/7)√2 = 3√2/7, (4/7)(a²/3) + (2/7)a² = 10a²/21.
TEST(FastPath, CompactsEachColumnToAUnitOfItsOwn) {
    const Memory memory(Matrix{parse_vector("[a, 1/2, 2^(1/2)/2, a^2/3]"), parse_vector("[0, 3/2, 0, a^2]"),
                               parse_vector("[-a, 0, 2^(1/2), 0]")});
    const Memory compact = memory.compacted();
    EXPECT_FALSE(compact.is_compact());
    ASSERT_TRUE(compact.is_columnwise());
    EXPECT_EQ(compact.column_unit(0), parse_value("a"));
    EXPECT_EQ(compact.column_unit(1), parse_value("1/2"));
    EXPECT_EQ(compact.column_unit(2), parse_value("2^(1/2)/2"));
    EXPECT_EQ(compact.column_unit(3), parse_value("a^2/3"));
    EXPECT_EQ(compact.integers(), (std::vector<std::int64_t>{1, 1, 1, 1, 0, 3, 0, 3, -1, 0, 2, 0}));
    EXPECT_EQ(compact.matrix(), memory.matrix());
    EXPECT_EQ(compact, memory);
    EXPECT_EQ(compact.without_row(1).matrix(), memory.without_row(1).matrix());
    ReadRequest req;
    req.query = parse_vector("[1, 0, 0, 0]");
    req.readout = parse_vector("[1, 1, 0, 0]");
    const ReadTrace t = attend(memory, req);
    EXPECT_TRUE(t.fast_path);
    EXPECT_EQ(t.denominator, parse_value("7/2"));
    EXPECT_EQ(t.weights.at(0), parse_value("4/7"));
    EXPECT_EQ(t.weights.at(2), parse_value("1/7"));
    EXPECT_EQ(t.context, parse_vector("[3a/7, 5/7, 3*2^(1/2)/7, 10a^2/21]"));
    EXPECT_EQ(t.readout, parse_value("5/7 + 3a/7"));
    check_fast_equals_general(memory, req);
    check_fast_equals_general(compact, req);
    // A query entry on the constant column scores a + 1/2 at position 1, whose exponential is
    // refused: the fast path declines and the general path says why.
    req.query = parse_vector("[1, 1, 0, 0]");
    EXPECT_FALSE(detail::fast_attend(compact, compact, req, std::vector<Mark>(3, Mark::Included), Value(1)));
    EXPECT_ERROR_HAS(attend(compact, req), ErrorKind::Domain, "position 1");
    // A radical in the query cancels one in a column: (2^(1/2)/2)·2^(1/2)a = a. By hand: scores
    // a, 0; weights 2/3, 1/3; context (2/3)·2^(1/2)a = 2·2^(1/2)a/3 and 2/3 + 2/3 = 4/3.
    const Memory surds(Matrix{parse_vector("[2^(1/2)a, 1]"), parse_vector("[0, 2]")});
    ASSERT_TRUE(surds.compacted().is_columnwise());
    req = ReadRequest();
    req.query = parse_vector("[2^(1/2)/2, 0]");
    const ReadTrace s = attend(surds, req);
    EXPECT_TRUE(s.fast_path);
    EXPECT_EQ(s.context, parse_vector("[2*2^(1/2)a/3, 4/3]"));
    check_fast_equals_general(surds, req);
}

// Random memories compact per column (a kind a column: multiples of a, constants, radicals,
// a², a radical times a that a radical query entry cancels), with marks, readouts, scales and
// separate values; now and then a query entry on a column whose scores have no exponential:
// both paths then refuse alike, or the fast path declines and the general one reads.
TEST(FastPath, EqualsGeneralPathOnMemoriesWithAUnitAColumn) {
    auto rng = exactattn::test::rng_for("FastPath.EqualsGeneralPathOnMemoriesWithAUnitAColumn");
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    // Column unit and the query unit that makes their product a rational multiple of a ("":
    // none, the query is 0 there).
    const std::vector<std::pair<std::string, std::string>> kinds = {
        {"a", "1"},   {"a/2", "1"},      {"-3a/4", "1/3"}, {"2^(1/2)a", "2^(1/2)"},
        {"1/2", ""},  {"2^(1/2)/2", ""}, {"a^2/3", ""},    {"2^(1/3)", ""},
        {"1", "a/2"}, {"a/6", "6"}};
    int fast = 0;
    int cases = 0;
    for (int it = 0; it < iterations(300); ++it) {
        const std::size_t n = static_cast<std::size_t>(pick(1, 10));
        const std::size_t d = static_cast<std::size_t>(pick(1, 5));
        Matrix rows(n, Vector(d));
        ReadRequest req;
        bool refusable = false;
        for (std::size_t i = 0; i < d; ++i) {
            const auto& [unit, qunit] = kinds[static_cast<std::size_t>(pick(0, static_cast<int>(kinds.size()) - 1))];
            const Value u = parse_value(unit);
            for (std::size_t j = 0; j < n; ++j) {
                rows[j][i] = pick(0, 3) == 0 ? Value() : Value(static_cast<long>(pick(-20, 20))) * u;
            }
            if (!qunit.empty()) {
                req.query.push_back(Value(static_cast<long>(pick(-3, 3))) * parse_value(qunit));
            } else if (pick(0, 9) == 0) {
                req.query.push_back(Value(static_cast<long>(pick(1, 3))));
                refusable = true;
            } else {
                req.query.emplace_back();
            }
        }
        if (pick(0, 1) == 0) req.marks = random_marks(pick, n);
        if (pick(0, 2) == 0) req.readout = Vector(d, Value(mpq_class(pick(-3, 3), pick(1, 3))));
        if (pick(0, 3) == 0) {
            req.rule = ScoreRule::Scaled;
            req.scale = parse_value(pick(0, 1) == 0 ? "1/2" : "-3");
        }
        const Memory memory(rows);
        const bool separate = pick(0, 3) == 0;
        const Memory values = separate ? Memory(Matrix(n, parse_vector("[1/3, 2^(1/2)a, a^2]"))).compacted() : memory;
        const Memory& vals = separate ? values : memory;
        if (separate) req.readout.reset();
        std::string rows_text;
        for (const auto& row : rows) rows_text += to_string(row) + " ";
        SCOPED_TRACE(testing::Message() << "seed " << exactattn::test::seed() << " iteration " << it << ": memory "
                                        << rows_text << "query " << to_string(req.query)
                                        << (separate ? " separate values" : ""));
        ASSERT_TRUE(memory.compacted().is_columnwise() || memory.compacted().is_compact());
        std::string fast_error;
        std::string general_error;
        std::optional<ReadTrace> f;
        std::optional<ReadTrace> g;
        try {
            f = attend(memory, vals, req);
        } catch (const Error& e) {
            fast_error = e.what();
        }
        try {
            g = attend_general(memory, vals, req);
        } catch (const Error& e) {
            general_error = e.what();
        }
        ASSERT_EQ(fast_error, general_error);
        if (!f) continue;
        ++cases;
        if (!refusable) {
            ASSERT_TRUE(f->fast_path) << "the fast path declined";
        }
        if (f->fast_path) {
            expect_same_trace(*f, *g);
            ++fast;
        }
        if (HasFailure()) break;
    }
    EXPECT_GT(fast, iterations(300) / 2);
    EXPECT_GE(cases, fast);
}

// Random memories, compact and explicit, with fractional units, zero queries, removed and
// zeroed positions, negative and large exponents, and rational readouts.
TEST(FastPath, EqualsGeneralPathOnRandomMemories) {
    auto rng = exactattn::test::rng_for("FastPath.EqualsGeneralPathOnRandomMemories");
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    // Memory unit and query unit pairs whose scores are rational multiples of a.
    const std::vector<std::pair<std::string, std::string>> units = {
        {"a", "1"},     {"a/6", "1"},  {"a/4", "1"}, {"2a/3", "1"},  {"-a", "1"},    {"a", "1/2"},
        {"a/6", "1/3"}, {"3a/4", "2"}, {"1", "a"},   {"1/2", "a/3"}, {"5", "-a/10"}, {"0", "1"}};
    int fast = 0;
    for (int it = 0; it < iterations(400); ++it) {
        const std::size_t n = static_cast<std::size_t>(pick(1, 12));
        const std::size_t d = static_cast<std::size_t>(pick(1, 4));
        const auto& [mu, qu] = units[static_cast<std::size_t>(pick(0, static_cast<int>(units.size()) - 1))];
        const Value unit = parse_value(mu);
        const Value qunit = parse_value(qu);
        const int range = std::array<int, 4>{2, 8, 60, 600}[static_cast<std::size_t>(pick(0, 3))];
        std::vector<std::int64_t> k(n * d);
        for (auto& x : k) x = pick(0, 3) == 0 ? 0 : pick(-range, range);
        ReadRequest req;
        const bool zero_query = pick(0, 7) == 0;
        for (std::size_t i = 0; i < d; ++i) {
            req.query.push_back(zero_query ? Value() : Value(static_cast<long>(pick(-4, 4))) * qunit);
        }
        if (pick(0, 1) == 0) req.marks = random_marks(pick, n);
        if (pick(0, 2) == 0) {
            Vector readout;
            for (std::size_t i = 0; i < d; ++i) {
                readout.push_back(Value(mpq_class(pick(-3, 3), pick(1, 3))));
            }
            if (pick(0, 3) == 0) readout[0] = parse_value("2^(1/2)");  // not rational
            req.readout = readout;
        }
        const bool compact = pick(0, 1) == 0;
        const Memory memory = make_memory(n, d, k, unit, compact);
        SCOPED_TRACE(testing::Message() << "seed " << exactattn::test::seed() << " iteration " << it << ": "
                                        << describe(n, d, k, unit, compact, req));
        const ReadTrace f = attend(memory, req);
        ASSERT_TRUE(f.fast_path) << "the fast path declined";
        expect_same_trace(f, attend_general(memory, req));
        ++fast;
        if (HasFailure()) break;
    }
    EXPECT_EQ(fast, iterations(400));
}

// Wide rows and long memories: the unrolled widths (2, 4, 8, 16, 32) and others, and short
// memories whose scores spread wider than the bucket window (more than max(rows/4, 64) values),
// which go straight into the big sums. Every fifth iteration is a long memory of entries in
// [-1, 1] and a query in [1, 2]: |S_j| ≤ 2d, at most 4d + 1 ≤ 129 scores for 400 or more rows,
// so the rows go through the buckets (a layer's rows, with scores as spread as their count,
// take the big sums instead).
TEST(FastPath, EqualsGeneralPathOnWiderMemories) {
    auto rng = exactattn::test::rng_for("FastPath.EqualsGeneralPathOnWiderMemories");
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const std::vector<std::size_t> widths = {2, 3, 4, 8, 16, 17, 32};
    for (int it = 0; it < iterations(28); ++it) {
        const bool spread = it % 4 == 3;
        const bool bucketed = !spread && it % 5 == 4;
        const std::size_t d =
            spread ? static_cast<std::size_t>(pick(1, 3)) : widths[static_cast<std::size_t>(it) % widths.size()];
        const std::size_t n = static_cast<std::size_t>(spread ? pick(3, 8) : bucketed ? pick(520, 700) : pick(20, 150));
        const int range = spread ? 3000 : bucketed ? 1 : 6;
        const Value unit = parse_value(it % 4 == 1 ? "a/6" : it % 4 == 2 ? "a/4" : "a");
        std::vector<std::int64_t> k(n * d);
        for (auto& x : k) x = pick(-range, range);
        if (spread)
            std::copy(k.begin(), k.begin() + static_cast<std::ptrdiff_t>(d),
                      k.begin() + static_cast<std::ptrdiff_t>(d));  // a repeated row
        ReadRequest req;
        for (std::size_t i = 0; i < d; ++i) req.query.emplace_back(static_cast<long>(pick(1, bucketed ? 2 : 4)));
        req.readout = Vector(d, Value(1));
        const Memory memory = Memory::scaled_integers(n, d, k, unit);
        SCOPED_TRACE(testing::Message() << "seed " << exactattn::test::seed() << " iteration " << it << ": n=" << n
                                        << " d=" << d << " range=" << range << " unit=" << to_ascii(unit));
        check_fast_equals_general(memory, req);
        if (HasFailure()) break;
    }
}
