# SPDX-License-Identifier: GPL-2.0-only
"""Statistics of repeated points: mean and 95 % confidence interval, summaries per point,
the loss-free and saturation rates and their ratios."""

import math

from .settings import ALL_FORWARDERS, LINE_FORWARDERS, OLSR_KINDS


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


def is_lossfree(point):
    """A summarized paced point is loss-free: its median repetition lost < 0.5 % and the
    generator really offered the rate (>= 98 %). One repetition hit by a burst of other work
    on the shared machine does not decide it (means and CIs stay in the tables)."""
    return (point["offered_pps"] != "flat-out" and point["loss_pct_median"] < 0.5
            and point["gen_pps"] >= 0.98 * point["offered_pps"])


def line_summary(line_sum, tcp_line_sum, base_pps):
    """One row per (forwarder, routers) of the line scenario from its points (summarized
    per offered rate) and TCP runs: the loss-free rate (highest offered rate that was
    loss-free; 0 = none), CPU per packet and p99 one-way latency there, what happened at
    base_pps (--line-pps: received, loss, p99, RTT), TCP bulk. lossfree_bound = 1 when no
    higher rate was found lossy (the search's cap, or no search: a lower bound);
    lossfree_gen_limited = 1 when the next rate up failed only because the generator could
    not offer it."""
    out = []
    keys = sorted({(r["forwarder"], r["routers"]) for r in line_sum + tcp_line_sum},
                  key=lambda k: (LINE_FORWARDERS.index(k[0]) if k[0] in LINE_FORWARDERS
                                 else 99, k[1]))
    for fw, n in keys:
        pts = sorted([r for r in line_sum if r["forwarder"] == fw and r["routers"] == n],
                     key=lambda r: r["offered_pps"])
        row = {"forwarder": fw, "routers": n}
        good = [r for r in pts if is_lossfree(r)]
        best = good[-1] if good else None
        row["lossfree_pps"] = best["offered_pps"] if best else 0
        above = [r for r in pts if r["offered_pps"] > row["lossfree_pps"] and not is_lossfree(r)]
        row["lossfree_bound"] = int(bool(pts) and not above)
        row["lossfree_gen_limited"] = int(bool(above) and above[0]["loss_pct_median"] < 0.5)
        for m in ("cpu_ns_per_pkt", "lat_p99_us", "lat_p50_us", "rx_pps", "cpu_fwd_pct"):
            row[f"{m}_lossfree"] = best.get(m, float("nan")) if best else float("nan")
        row["cpu_ns_per_pkt_lossfree_ci"] = (best.get("cpu_ns_per_pkt_ci", float("nan"))
                                             if best else float("nan"))
        at = [r for r in pts if r["offered_pps"] == base_pps]
        for m in ("rx_pps", "loss_pct", "lat_p99_us", "rtt_ms", "cpu_ns_per_pkt"):
            row[f"{m}_base"] = at[0].get(m, float("nan")) if at else float("nan")
        row["rates_measured"] = " ".join(str(r["offered_pps"]) for r in pts)
        fl = [r["cpu1_foreign_pct"] for r in pts
              if isinstance(r.get("cpu1_foreign_pct"), float) and not math.isnan(r["cpu1_foreign_pct"])]
        row["cpu1_foreign_pct_max"] = max(fl) if fl else float("nan")
        tcp = [r for r in tcp_line_sum if r["forwarder"] == fw and r["routers"] == n]
        row["tcp_mbps"] = tcp[0]["tcp_mbps"] if tcp else float("nan")
        row["tcp_mbps_ci"] = tcp[0].get("tcp_mbps_ci", float("nan")) if tcp else float("nan")
        out.append(row)
    return out


def ratios(summary):
    """Per payload: saturation throughput (max mean rx_pps over all points incl. flat-out)
    and loss-free rate (highest offered rate that is_lossfree)."""
    res = {}
    for payload in sorted({r["payload"] for r in summary}):
        per = {}
        for fw in ALL_FORWARDERS + OLSR_KINDS:
            rs = [r for r in summary if r["payload"] == payload and r["forwarder"] == fw]
            if not rs:
                continue
            sat = max(r["rx_pps"] for r in rs)
            paced = [r for r in rs if is_lossfree(r)]
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
