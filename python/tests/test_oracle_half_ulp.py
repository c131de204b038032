# SPDX-License-Identifier: MIT
"""The half-ulp bound (docs/oracle.md, "The half-ulp bound", bound="probabilistic-ulp") against an
independent mpmath evaluation of its first-order sum of squares, and errors planted by that."""

import math

import mpmath
import numpy as np
import pytest

from exactattn import oracle

UNIT = {"float32": 2.0 ** -24, "float64": 2.0 ** -53}  # unit roundoffs
LAMBDA = math.sqrt(2 * math.log(2.0 ** 41))  # Hoeffding, failure 2^-40 per entry (two-sided)


def pow2_floor(x):
    """2^floor(log2 x) for x > 0, 0 for 0: half an ulp of x is u times it."""
    if x == 0:
        return mpmath.mpf(0)
    _, e = mpmath.frexp(x)
    return mpmath.ldexp(1, int(e) - 1)


def first_order_sums(q, k, v):
    """Per entry (i, c), from exact values at 50 digits, the safe kernel's first-order sum of
    squares in the declared order (each dot product from x = 0 up, then the scale's product; the
    sums in key order): with half-ulp magnitudes (pow2_floor) and with the magnitudes themselves
    (probabilistic-ordered's), the exact outputs beside them."""
    mpmath.mp.dps = 50
    n, d = k.shape
    c = mpmath.mpf(1) / mpmath.sqrt(d)
    nq, dv = q.shape[0], v.shape[1]
    half, plain, exact = np.zeros((nq, dv)), np.zeros((nq, dv)), np.zeros((nq, dv))
    for i in range(nq):
        dots, dh, dp = [], [], []
        for j in range(n):
            prods = [mpmath.mpf(float(q[i, x])) * mpmath.mpf(float(k[j, x])) for x in range(d)]
            parts = [mpmath.fsum(prods[:t + 1]) for t in range(d)]
            dots.append(parts[-1])
            # the products, the partial sums after the first, the scale's product
            dh.append(c * c * (sum(pow2_floor(abs(p)) ** 2 for p in prods) +
                               sum(pow2_floor(abs(p)) ** 2 for p in parts[1:])) + pow2_floor(abs(c * parts[-1])) ** 2)
            dp.append(c * c * (sum(p * p for p in prods) + sum(p * p for p in parts[1:])) + (c * parts[-1]) ** 2)
        s = [c * x for x in dots]
        m = max(s)
        e = [mpmath.exp(x - m) for x in s]
        den = mpmath.fsum(e)
        w = [x / den for x in e]
        dpart = [mpmath.fsum(e[:t + 1]) for t in range(n)]
        for col in range(dv):
            vv = [mpmath.mpf(float(v[j, col])) for j in range(n)]
            o = mpmath.fsum(w[j] * vv[j] for j in range(n))
            exact[i, col] = float(o)
            npart = [mpmath.fsum(w[j] * vv[j] for j in range(t + 1)) for t in range(n)]
            hq = pq = mpmath.mpf(0)
            for j in range(n):
                wd2 = (w[j] * abs(vv[j] - o)) ** 2
                hq += wd2 * (dh[j] + pow2_floor(m - s[j]) ** 2 + 4 * (pow2_floor(e[j]) / e[j]) ** 2)
                pq += wd2 * (dp[j] + (m - s[j]) ** 2 + 4)
                hq += (pow2_floor(w[j]) * vv[j]) ** 2 + pow2_floor(abs(w[j] * vv[j])) ** 2  # division, product
                pq += 2 * (w[j] * vv[j]) ** 2
                hq += (o * pow2_floor(dpart[j]) / den) ** 2 + pow2_floor(abs(npart[j])) ** 2  # the two sums
                pq += (o * dpart[j] / den) ** 2 + npart[j] ** 2
            half[i, col], plain[i, col] = float(hq), float(pq)
    return half, plain, exact


@pytest.fixture(scope="module", params=["float32", "float64"])
def case(request):
    """The declared order's emulation (every operation rounded to nearest) in the format."""
    work = np.dtype(request.param).type
    rng = np.random.default_rng(1935)
    q, k, v = (rng.standard_normal(shape).astype(work) for shape in ((2, 16), (48, 16), (48, 3)))
    out = np.asarray(oracle.emulate(q, k, v, fmt=request.param)["out"], dtype=work)
    return q, k, v, out, UNIT[request.param], first_order_sums(q, k, v)


def test_the_half_ulp_bound_is_its_first_order_sum_within_its_higher_order_terms(case):
    q, k, v, out, u, (half, plain, _) = case
    j = oracle.judge(out, q, k, v, bound="probabilistic-ulp")
    jo = oracle.judge(out, q, k, v, bound="probabilistic-ordered")
    assert j["passed"] and j["bound_name"] == "probabilistic-ulp" and j["failure_probability"] == 2.0 ** -40
    b, bo = np.asarray(j["bound"]), np.asarray(jo["bound"])
    expected = LAMBDA * u * np.sqrt(half)
    # Below: every sum the reference forms is an upper bound of these. Above: the second-order
    # term 2A_c ρ², the factor κ/((1 − r)(1 − Φ)), and a result's largest magnitude past a
    # power of two (the allowance) take at most a few percent here.
    assert np.all(b >= expected * (1 - 1e-9))
    assert np.all(b <= expected * 1.06)
    # The ordered bound is the same sum with |x| for 2^floor(log2 |x|): their ratio.
    assert np.all(bo >= LAMBDA * u * np.sqrt(plain) * (1 - 1e-9))
    assert np.all(b / bo <= np.sqrt(half / plain) * 1.06)


def test_an_error_past_the_half_ulp_bound_is_caught_and_one_within_it_is_not(case):
    q, k, v, out, u, (half, _, exact) = case
    expected = LAMBDA * u * np.sqrt(half)
    for i, c in ((0, 0), (1, 2)):
        step = float(np.spacing(abs(out[i, c])))
        err = abs(float(out[i, c]) - exact[i, c])
        toward = 1.0 if out[i, c] >= exact[i, c] else -1.0  # in the direction of the entry's own error
        over = math.ceil((expected[i, c] * 1.06 + err) / step) + 1
        under = math.floor((expected[i, c] - err) / step) - 1
        assert under >= 1
        for ulps, caught in ((over, True), (under, False)):
            bad = out.copy()
            bad[i, c] = float(out[i, c]) + toward * ulps * step
            assert (not oracle.judge(bad, q, k, v, bound="probabilistic-ulp")["passed"]) == caught, (i, c, ulps)
