"""Closed forms of m flows hashed independently and uniformly into n ECMP members: the reference the simulator
is checked against (tests/validators/test_collective_ladder.py, rung (i); bench/collective_bench.py --ladder).
Exact rational arithmetic; tests check both against exhaustive enumeration.
"""

from __future__ import annotations

import math
from fractions import Fraction


def collision_probability(flows: int, members: int) -> Fraction:
    """P(at least two of ``flows`` share a member) = 1 - n! / ((n - m)! n^m) (the birthday problem)."""
    free = Fraction(1)
    for taken in range(flows):
        free *= Fraction(members - taken, members)
    return 1 - free


def expected_max_load(flows: int, members: int) -> Fraction:
    """E[max flows on one member] = sum_k P(max > k), with P(max <= k) = m!/n^m [x^m] (sum_{j<=k} x^j/j!)^n."""
    expected = Fraction(0)
    for k in range(flows):
        base = [Fraction(1, math.factorial(j)) for j in range(k + 1)]
        power = [Fraction(1)]
        for _ in range(members):
            product = [Fraction(0)] * min(len(power) + k, flows + 1)
            for i, a in enumerate(power):
                for j, b in enumerate(base):
                    if i + j <= flows:
                        product[i + j] += a * b
            power = product
        at_most_k = power[flows] * math.factorial(flows) / Fraction(members) ** flows if len(power) > flows else 0
        expected += 1 - at_most_k
    return expected
