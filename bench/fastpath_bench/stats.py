# SPDX-License-Identifier: GPL-2.0-only
"""Statistics of repeated points: mean and 95 % confidence interval, summaries per point,
the loss-free and saturation rates and their ratios."""

import math

from .settings import ALL_FORWARDERS, OLSR_KINDS


# Student t, two-sided 95%, by degrees of freedom.
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
       9: 2.262, 10: 2.228}


def mean_ci(values):
    v = [x for x in values if isinstance(x, (int, float)) and not math.isnan(x)]
    if not v:
        return float("nan"), float("nan")
    m = sum(v) / len(v)
    if len(v) < 2:
        return m, 0.0
    sd = math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1))
    return m, T95.get(len(v) - 1, 1.96) * sd / math.sqrt(len(v))


METRICS = ["gen_pps", "rx_pps", "rx_mbps", "loss_pct", "jain", "lat_p50_us", "lat_p99_us",
           "rtt_ms", "cpu_fwd_pct", "cpu_proc_pct", "cpu_napi_pct", "cpu1_foreign_pct",
           "cpu_ns_per_pkt"]


def summarize(rows, keys, metrics):
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in keys), []).append(r)
    out = []
    for k, rs in groups.items():
        s = dict(zip(keys, k))
        s["reps"] = len(rs)
        for m in metrics:
            if m in rs[0]:
                s[m], s[m + "_ci"] = mean_ci([r[m] for r in rs])
        if "gen_limited" in rs[0]:
            s["gen_limited"] = int(any(r["gen_limited"] for r in rs))
        if "loss_pct" in rs[0]:
            v = sorted(r["loss_pct"] for r in rs)
            s["loss_pct_median"] = v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] +
                                                                     v[len(v) // 2]) / 2
        out.append(s)
    return out


def fmt(v, ci=None, digits=3):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    s = f"{v:.{digits}g}" if abs(v) < 1e3 else f"{v:,.0f}"
    if ci:
        s += f" ± {ci:.2g}" if abs(ci) < 100 else f" ± {ci:,.0f}"
    return s


def ratios(summary):
    """Per payload: saturation throughput (max mean rx_pps over all points incl. flat-out)
    and loss-free rate (highest offered rate with mean loss < 0.5%)."""
    res = {}
    for payload in sorted({r["payload"] for r in summary}):
        per = {}
        for fw in ALL_FORWARDERS + OLSR_KINDS:
            rs = [r for r in summary if r["payload"] == payload and r["forwarder"] == fw]
            if not rs:
                continue
            sat = max(r["rx_pps"] for r in rs)
            # Median over repetitions: one repetition hit by a burst of other work on the
            # shared machine should not decide the loss-free rate (means and CIs stay in
            # the tables).
            # Only points the generator really offered count (not generator-limited).
            paced = [r for r in rs if r["offered_pps"] != "flat-out"
                     and r["loss_pct_median"] < 0.5 and r["gen_pps"] >= 0.98 * r["offered_pps"]]
            lossfree = max([r["offered_pps"] for r in paced], default=0)
            rx_at = {r["offered_pps"]: r["rx_pps"] for r in rs if r["offered_pps"] != "flat-out"}
            # Forwarder CPU per forwarded packet (ns): at every offered rate and at the
            # saturation point.
            cpu_at = {r["offered_pps"]: r.get("cpu_ns_per_pkt") for r in rs}
            top = max(rs, key=lambda r: r["rx_pps"])
            per[fw] = {"saturation_pps": sat, "lossfree_pps": lossfree, "rx_at": rx_at,
                       "cpu_ns_per_pkt_at": cpu_at,
                       "cpu_ns_per_pkt_saturation": top.get("cpu_ns_per_pkt")}
        res[payload] = per
    return res
