# SPDX-License-Identifier: MIT
"""Values behave like exact numbers: laws against fractions.Fraction and SymPy."""

from __future__ import annotations

import math
import pickle
import random
from fractions import Fraction

import pytest
import sympy

import exactattn
from exactattn import Value, a


def random_fractions(n: int, seed: int = 14):
    rng = random.Random(seed)
    out = [Fraction(0), Fraction(1), Fraction(-1), Fraction(1, 2), Fraction(10**30 + 1, 3)]
    while len(out) < n:
        out.append(Fraction(rng.randint(-10**6, 10**6), rng.choice([1, 2, 3, 7, 1024, rng.randint(1, 10**9)])))
    return out


def test_parse_print_forms():
    v = Value("2a/3")
    assert str(v) == "2a/3"
    assert repr(v) == "Value('2a/3')"
    assert v._repr_latex_() == r"$\tfrac{2a}{3}$"
    assert v == a * 2 / 3 == Fraction(2, 3) * a
    # By hand: 2^(1/2)/(2 + 2^(1/2)) = 2^(1/2)(2 - 2^(1/2))/(4 - 2) = 2^(1/2) - 1.
    w = Value("2^(1/2)/(2+2^(1/2))")
    assert str(w) == "2^(1/2) - 1"
    assert w.unicode() == "√2 − 1"
    assert Value(str(w)) == w
    assert eval(repr(w), {"Value": Value}) == w
    assert pickle.loads(pickle.dumps(w)) == w


def test_arithmetic_matches_fraction():
    fs = random_fractions(40)
    for x in fs:
        for y in fs[:12]:
            vx, vy = Value(x), Value(y)
            assert vx + vy == x + y
            assert vx - y == x - y
            assert x * vy == x * y
            if y:
                assert vx / vy == x / y
                assert x / vy == x / y
            assert (vx < vy) == (x < y) and (vx <= y) == (x <= y) and (x > vy) == (x > y)
            assert (vx == vy) == (x == y)
        assert hash(Value(x)) == hash(x)
        assert Value(x).as_fraction() == x
        assert -Value(x) == -x and abs(Value(x)) == abs(x)
        assert float(Value(x)) == float(x)  # both correctly rounded
        assert Value(x) ** 3 == x**3


def test_hash_and_equality_consistent_with_fraction_and_int():
    assert hash(Value("1/2")) == hash(Fraction(1, 2)) == hash(0.5)
    assert Value("1/2") == 0.5 and Value(3) == 3 and hash(Value(3)) == hash(3)
    assert {Value("1/2"): "x"}[Fraction(1, 2)] == "x"
    assert Value("-1") == -1 and hash(Value(-1)) == hash(-1) == -2
    big = 2**200 + 1
    assert Value(big) == big and hash(Value(big)) == hash(big)
    assert len({a, Value("a"), Value("2a/2")}) == 1
    # By hand: ln 2 = 0.6931471805599453094…; the double 0.6931471805599453 is
    # 0.69314718055994528622… (below) and the next one up 0.69314718055994539724… (above).
    assert a != 0.6931471805599453 and 0.6931471805599453 < a < 0.6931471805599454


def test_comparisons_are_exact_where_doubles_tie():
    # By hand: 2^(1/2) - 1 - (1/(2^(1/2) + 1)) = 0 exactly; a - 0.6931471805599453 < 0 since
    # ln 2 = 0.693147180559945309417... and that double is 0.693147180559945286226...
    assert Value("2^(1/2) - 1") == 1 / (Value("2^(1/2)") + 1)
    assert a > Fraction(6931471805599453, 10**16)
    assert (a - Value("6931471805599453/10000000000000000")).sign() == 1


def test_float_is_correctly_rounded():
    # 1/3, 2/3 and 0.1 as Fraction: float(Fraction) is correctly rounded (int true division).
    for f in [Fraction(1, 3), Fraction(2, 3), Fraction(1, 10), Fraction(10**40 + 7, 3**50)]:
        assert float(Value(f)) == float(f)
    assert float(a) == float.fromhex("0x1.62e42fefa39efp-1")  # the double nearest ln 2 (see above)
    assert float(Value("2^(1/2)")) == math.sqrt(2)


def test_decimal_and_fixed():
    # By hand: 1/3 = 0.333…; 2/3 = 0.666… rounds up; ln 2 = 0.69314718055994530941723…
    assert Value("1/3").decimal(5) == "0.33333"
    assert Value("2/3").fixed(4) == "0.6667"
    assert a.decimal(20) == "0.69314718055994530942"


def test_exp_and_pow_follow_the_engine():
    assert exactattn.exp(a) == 2
    assert exactattn.exp(a / 2) == Value("2^(1/2)")
    assert exactattn.exp("-3a") == Fraction(1, 8)
    assert exactattn.ln(8) == 3 * a
    assert exactattn.pow(8, Fraction(1, 3)) == 2
    assert exactattn.pow(9, Fraction(1, 2)) == 3  # a rational root is exact, by hand √9 = 3
    assert Value(2) ** Fraction(1, 2) == Value("2^(1/2)")
    assert 2 ** Value("1/2") == Value("2^(1/2)")
    assert a**2 == Value("a^2")
    with pytest.raises(exactattn.DomainError, match="Gelfond"):
        exactattn.pow(2, Value("2^(1/2)"))
    with pytest.raises(exactattn.DomainError):
        exactattn.pow(3, Fraction(1, 2))


def test_floats_are_refused_in_arithmetic():
    with pytest.raises(TypeError):
        a + 0.5
    with pytest.raises(TypeError, match="not exact"):
        Value(0.5)


def test_sympy_round_trip_and_values():
    for text in ["2a/3", "2^(1/2) - 1", "a^2 - 3a/7 + 2^(2/3)", "0", "-5/4", "(2^(1/2) - 1)a"]:
        v = Value(text)
        s = v.to_sympy()
        assert Value.from_sympy(s) == v
        # SymPy's own numeric value agrees to 40 digits (evaluated by SymPy, not by exactattn).
        assert abs(sympy.N(s, 50) - sympy.Float(v.decimal(45), 50)) < sympy.Float("1e-40")
    x = sympy.Symbol("a")
    assert Value.from_sympy(2 * x / 3) == Value("2a/3")
    assert Value.from_sympy(sympy.log(2) / 4) == a / 4
    assert Value.from_sympy(sympy.exp(sympy.log(2) / 2)) == Value("2^(1/2)")
    assert Value.from_sympy(sympy.Rational(3, 4)) == Fraction(3, 4)


def test_sympy_outside_the_domain_is_refused_with_the_engines_reason():
    with pytest.raises(exactattn.DomainError) as e:
        Value.from_sympy(sympy.sqrt(3))
    assert "3 is not the square of a rational" in str(e.value)
    with pytest.raises(exactattn.DomainError, match="transcendental"):
        Value.from_sympy(sympy.E)
    with pytest.raises(exactattn.DomainError, match="transcendental"):
        Value.from_sympy(sympy.pi)
    with pytest.raises(exactattn.DomainError, match="not exact"):
        Value.from_sympy(sympy.Float(0.5))
