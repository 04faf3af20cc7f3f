# SPDX-License-Identifier: GPL-2.0-only
"""What the fidelity scripts (link_fidelity.py, diamond_fidelity.py) share: the log line and
the binomial interval that loss counts are checked against."""
import math
import time


def log(msg, fh=None):
    line = f"[{time.strftime('%H:%M:%S')}] {msg}"
    print(line, flush=True)
    if fh:
        fh.write(line + "\n")
        fh.flush()


def binom_interval(n, p, level=0.99):
    """Central interval [lo, hi] of Binomial(n, p) holding at least `level` (exact pmf):
    lo the smallest count with P(X <= lo) > (1-level)/2, hi the largest with
    P(X >= hi) > (1-level)/2. Only counts within 12 standard deviations of the mean are
    summed (the rest weighs nothing in a double)."""
    if p <= 0:
        return 0, 0
    if p >= 1:
        return n, n
    mu, sd = n * p, math.sqrt(n * p * (1 - p))
    k0, k1 = max(0, int(mu - 12 * sd) - 5), min(n, int(mu + 12 * sd) + 5)
    logp = lambda k: (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
                      + k * math.log(p) + (n - k) * math.log1p(-p))
    pmf = [(k, math.exp(logp(k))) for k in range(k0, k1 + 1)]
    tail = (1 - level) / 2
    acc, lo = 0.0, k0
    for k, v in pmf:
        if acc + v > tail:
            lo = k
            break
        acc += v
    acc, hi = 0.0, k1
    for k, v in reversed(pmf):
        if acc + v > tail:
            hi = k
            break
        acc += v
    return lo, hi
