# SPDX-License-Identifier: GPL-2.0-only
"""The harness's statistics against values computed by hand."""
import math

import pytest

from fastpath_bench.stats import fmt, mean_ci, ratios, summarize


def test_mean_ci_uses_student_t():
    # mean 2, sample sd 1, n = 3: half-width t(2) * 1 / sqrt(3) = 4.303 / 1.732
    m, ci = mean_ci([1.0, 2.0, 3.0])
    assert m == pytest.approx(2.0)
    assert ci == pytest.approx(4.303 / math.sqrt(3), rel=1e-6)


def test_mean_ci_skips_nan_and_non_numbers_and_single_values_have_no_interval():
    assert mean_ci([5.0, float("nan"), "n/a"]) == (5.0, 0.0)
    m, ci = mean_ci([])
    assert math.isnan(m) and math.isnan(ci)


def test_mean_ci_beyond_the_table_uses_the_normal_quantile():
    v = [float(x) for x in range(12)]  # 11 degrees of freedom: not in T95
    m, ci = mean_ci(v)
    sd = math.sqrt(sum((x - m) ** 2 for x in v) / 11)
    assert ci == pytest.approx(1.96 * sd / math.sqrt(12))


def row(fw, offered, rx, loss, gen=None, payload=160, rep=0, **extra):
    r = {"forwarder": fw, "payload": payload, "offered_pps": offered, "rep": rep,
         "rx_pps": rx, "loss_pct": loss, "gen_pps": offered if gen is None else gen,
         "gen_limited": 0}
    r.update(extra)
    return r


def test_summarize_groups_by_point_and_takes_the_median_loss():
    rows = [row("kernel", 1000, 1000.0, 0.0, rep=0), row("kernel", 1000, 990.0, 1.0, rep=1),
            row("kernel", 1000, 1000.0, 0.2, rep=2), row("kernel", 2000, 1500.0, 25.0)]
    s = summarize(rows, ["forwarder", "payload", "offered_pps"], ["rx_pps", "loss_pct"])
    by = {r["offered_pps"]: r for r in s}
    assert by[1000]["reps"] == 3
    assert by[1000]["rx_pps"] == pytest.approx((1000 + 990 + 1000) / 3)
    assert by[1000]["loss_pct_median"] == pytest.approx(0.2)
    assert by[2000]["reps"] == 1 and by[2000]["rx_pps_ci"] == 0.0
    # An even number of repetitions: the median is the mean of the middle two.
    s2 = summarize(rows[:2], ["forwarder"], ["loss_pct"])
    assert s2[0]["loss_pct_median"] == pytest.approx(0.5)


def test_ratios_lossfree_needs_low_median_loss_and_a_really_offered_rate():
    summary = [
        dict(row("fastpathd", 1000, 1000.0, 0.0), loss_pct_median=0.0),
        dict(row("fastpathd", 2000, 1999.0, 0.1), loss_pct_median=0.1),
        # generator-limited: offered 4000, really sent 3000 -> not loss-free evidence
        dict(row("fastpathd", 4000, 3000.0, 0.0, gen=3000.0), loss_pct_median=0.0),
        dict(row("fastpathd", 8000, 5000.0, 40.0), loss_pct_median=40.0),
        dict(row("fastpathd", "flat-out", 6000.0, 50.0, gen=12000.0), loss_pct_median=50.0),
        dict(row("kernel", 1000, 1000.0, 0.0), loss_pct_median=0.0),
        dict(row("kernel", 2000, 1200.0, 40.0), loss_pct_median=40.0),
    ]
    r = ratios(summary)[160]
    assert r["fastpathd"]["lossfree_pps"] == 2000
    assert r["fastpathd"]["saturation_pps"] == 6000.0
    assert r["fastpathd"]["rx_at"] == {1000: 1000.0, 2000: 1999.0, 4000: 3000.0, 8000: 5000.0}
    assert r["kernel"]["lossfree_pps"] == 1000
    assert r["kernel"]["saturation_pps"] == 1200.0
    assert "xdp" not in r


def test_fmt():
    assert fmt(float("nan")) == "n/a"
    assert fmt(None) == "n/a"
    assert fmt(0.12345) == "0.123"
    assert fmt(123456.7) == "123,457"
    assert fmt(10.0, 0.5) == "10 ± 0.5"
