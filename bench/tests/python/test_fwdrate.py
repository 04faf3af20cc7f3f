# SPDX-License-Identifier: GPL-2.0-only
"""The forwarding-rate comparison's arithmetic without privileges: medians per point, the
per-forwarder summary (loss at the fixed rates, max, flooded, overload, CPU at 20k) and
fastpathd's ratios and targets."""
import math

from fastpath_bench.fwdrate import (median, pair_ratios, point_medians, summary_of,
                                    targets_of)


def rows(env, fw, points):
    """points: {offered: [(rx_pps, loss_pct, p99_us, gen_pps, cpu), ...]} -> raw rows."""
    out = []
    for off, reps in points.items():
        for rep, (rx, loss, p99, gen, cpu) in enumerate(reps):
            out.append({"napi_env": env, "forwarder": fw, "offered_pps": off, "rep": rep,
                        "role": "overload" if off == 800000 else "sweep", "rx_pps": rx,
                        "loss_pct": loss, "lat_p50_us": p99 / 2, "lat_p99_us": p99,
                        "rtt_ms": 0.1, "gen_pps": gen, "cpu_fwd_pct": cpu,
                        "cpu1_busy_pct": cpu, "cpu1_foreign_pct": 1.0, "cpu_ns_per_pkt": 1.0,
                        "gen_limited": 0})
    return out


def test_median():
    assert median([3, 1, 2]) == 2
    assert median([4, 1, 2, 3]) == 2.5
    assert math.isnan(median([]))
    assert median([float("nan"), 5]) == 5


def test_summary_and_targets():
    r = []
    r += rows("rt", "kernel", {20000: [(20000, 0, 50, 20000, 10)] * 3,
                               "flat-out": [(600000, 5, 300, 650000, 90)] * 3})
    r += rows("rt", "xdp", {20000: [(20000, 0, 50, 20000, 12)] * 3,
                            "flat-out": [(640000, 1, 300, 650000, 90)] * 3})
    r += rows("rt", "afxdp-min", {20000: [(20000, 0, 60, 20000, 14)] * 3,
                                  "flat-out": [(380000, 40, 2000, 650000, 99)] * 3})
    # fastpathd: one lossy repetition at 100k does not decide the median; max at 400k,
    # flooded 390k; the 2x point is the overload.
    r += rows("rt", "fastpathd", {
        20000: [(20000, 0, 60, 20000, 14)] * 3,
        100000: [(100000, 0.0, 70, 100000, 20), (99000, 1.0, 70, 100000, 20),
                 (100000, 0.005, 70, 100000, 20)],
        400000: [(400000, 0.0, 90, 400000, 80)] * 3,
        "flat-out": [(390000, 40, 900, 650000, 99)] * 3,
        800000: [(395000, 50, 1200, 640000, 99)] * 3})
    pts = point_medians(r)
    fp = summary_of(pts, "rt", "fastpathd")
    assert fp["loss_100k_pct"] == 0.005
    assert math.isnan(fp["loss_50k_pct"])
    assert fp["max_rx_pps"] == 400000 and fp["max_at"] == 400000
    assert fp["flooded_pps"] == 390000
    assert fp["overload_point"] == "2x max" and fp["overload_lat_p99_us"] == 1200
    assert abs(fp["overload_factor"] - 1.6) < 1e-9
    assert fp["at20k_cpu_fwd_pct"] == 14
    assert fp["loss_upto80_max_pct"] == 0.005  # 20k and 100k are <= 320k
    mn = summary_of(pts, "rt", "afxdp-min")
    assert mn["overload_point"] == "flat-out" and mn["overload_lat_p99_us"] == 2000
    t = targets_of([summary_of(pts, "rt", fw) for fw in ("kernel", "xdp", "afxdp-min",
                                                          "fastpathd")], "rt")
    assert t["max_vs_min"][2] is False  # 400k / 380k = 1.05 < 1.1
    assert abs(t["max_vs_min"][0] - 400000 / 380000) < 1e-9
    assert t["max_vs_xdp"][2] is False  # 400k / 640k = 0.625 < 0.75
    assert t["loss_upto80"][2] is True
    assert t["flooded_vs_max"][2] is True  # 97.5 %
    assert t["p99_overload"][2] is False  # 1.2 ms
    assert t["cpu_vs_kernel"][2] is True  # 14 / 10 = 1.4


def test_targets_without_baselines():
    r = rows("default", "fastpathd", {20000: [(20000, 0, 60, 20000, 14)]})
    t = targets_of([summary_of(point_medians(r), "default", "fastpathd")], "default")
    assert t["max_vs_min"][2] is None and t["cpu_vs_kernel"][2] is None
    assert t["loss_upto80"][2] is None  # 20k is above 80 % of a 20k max: nothing below


def test_p99_overload_with_a_stack_sink_ends_at_d_stack():
    """A kernel-stack D: the target takes the arrival at D's stack, not D's reader (which
    shares its CPU with the generator)."""
    r = rows("stack", "fastpathd", {20000: [(20000, 0, 60, 20000, 14)] * 3,
                                    "flat-out": [(390000, 40, 5000, 650000, 99)] * 3})
    for row in r:
        row["lat_arrival_p99_us"] = 800 if row["offered_pps"] == "flat-out" else 50
        row["lat_queue_p99_us"] = 4200 if row["offered_pps"] == "flat-out" else 10
    fp = summary_of(point_medians(r), "stack", "fastpathd")
    assert fp["overload_lat_p99_us"] == 5000 and fp["overload_lat_arrival_p99_us"] == 800
    t = targets_of([fp], "stack")
    assert t["p99_overload"][0] == 800 and t["p99_overload"][2] is True
    assert "to D's stack" in t["p99_overload"][1]
    # Without the split (an XDP sink at D) the reader's figure is the target's.
    r = rows("rt", "fastpathd", {"flat-out": [(390000, 40, 5000, 650000, 99)] * 3})
    t = targets_of([summary_of(point_medians(r), "rt", "fastpathd")], "rt")
    assert t["p99_overload"][0] == 5000 and t["p99_overload"][2] is False


def test_pair_ratios_pair_repetition_k_of_each_forwarder():
    # fastpathd fast in repetitions 0 and 2, slow in 1; the minimal forwarder slow in 1 too:
    # pair by pair the ratio stays 1.2, where medians of blocks would mix the phases.
    r = rows("default", "afxdp-min", {400000: [(400000, 0, 50, 400000, 50),
                                               (300000, 25, 50, 400000, 50),
                                               (400000, 0, 50, 400000, 50)],
                                      "flat-out": [(800000, 50, 300, 1600000, 99),
                                                   (500000, 60, 300, 1200000, 99),
                                                   (800000, 50, 300, 1600000, 99)]})
    r += rows("default", "fastpathd", {400000: [(400000, 0, 50, 400000, 50)] * 3,
                                       "flat-out": [(960000, 40, 300, 1600000, 99),
                                                    (600000, 50, 300, 1200000, 99),
                                                    (960000, 40, 300, 1600000, 99)]})
    p = pair_ratios(r, "default")
    assert [round(x, 3) for x in p["flooded"]] == [1.2, 1.2, 1.2]
    assert [round(x, 3) for x in p["max"]] == [1.2, 1.2, 1.2]
    # A repetition one side lacks is left out, not paired with another.
    r2 = [x for x in r if not (x["forwarder"] == "fastpathd" and x["rep"] == 1)]
    assert len(pair_ratios(r2, "default")["flooded"]) == 2
    assert pair_ratios(r, "rt") == {"max": [], "flooded": []}
