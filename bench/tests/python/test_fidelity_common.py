# SPDX-License-Identifier: GPL-2.0-only
# The binomial interval both fidelity scripts check loss counts against, against its
# definition summed over every count.
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "fidelity"))

from fidelity_common import binom_interval  # noqa: E402


def interval_by_definition(n, p, level):
    """lo: first k with P(X <= k) > tail; hi: first k with P(X > k) <= tail."""
    tail = (1 - level) / 2
    cdf, lo = 0.0, None
    for k in range(n + 1):
        pmf = math.comb(n, k) * p ** k * (1 - p) ** (n - k)
        if lo is None and cdf + pmf > tail:
            lo = k
        cdf += pmf
        if cdf >= 1 - tail:
            return lo, k
    return lo, n


def test_matches_the_definition():
    for n in (10, 100, 1000):
        for p in (0.001, 0.01, 0.1, 0.25, 0.5, 0.9):
            for level in (0.99, 0.999):
                assert binom_interval(n, p, level) == interval_by_definition(n, p, level), \
                    (n, p, level)


def test_certain_outcomes():
    assert binom_interval(500, 0.0) == (0, 0)
    assert binom_interval(500, 1.0) == (500, 500)


def test_wider_at_higher_confidence():
    lo99, hi99 = binom_interval(10000, 0.01, 0.99)
    lo999, hi999 = binom_interval(10000, 0.01, 0.999)
    assert lo999 <= lo99 < 100 < hi99 <= hi999
