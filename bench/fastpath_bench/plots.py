# SPDX-License-Identifier: GPL-2.0-only
"""PNG plots of the sweeps, the line scenario and the routing scenario (matplotlib)."""

import math
import os

from .settings import ALL_FORWARDERS, LABELS, LINE_FORWARDERS, LINE_LABELS, OLSR_KINDS
from .proc import log


def _num(v):
    return 0.0 if v is None or (isinstance(v, float) and math.isnan(v)) else v


def plot_all(out_dir, sweep, line, olsr, suffix="", line_searched=True):
    """sweep, olsr: summarized points; line: stats.line_summary's rows (per forwarder and
    N); line_searched: the line has loss-free rates (else its first panel shows the rate
    received at --line-pps)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("matplotlib missing (apt-get install python3-matplotlib): no PNG plots")
        return []
    files = []
    fam = " (IPv6)" if suffix == "_ipv6" else ""
    sets = [(f"udp_sweep_{p}{suffix}.png", f"UDP{fam}, {p}-byte payload, S - R - D", ALL_FORWARDERS,
             [r for r in sweep if r["payload"] == p]) for p in sorted({r["payload"] for r in sweep})]
    if olsr:
        sets.append(("olsr.png", "Routing scenario: ns-3 OLSR at R, UDP 160 B", OLSR_KINDS,
                     olsr))
    for fn, title, kinds, allrows in sets:
        rows = [r for r in allrows if r["offered_pps"] != "flat-out"]
        flat = [r for r in allrows if r["offered_pps"] == "flat-out"]
        if not rows:
            continue
        fig, axes = plt.subplots(2, 2, figsize=(12, 9))
        for (ax, m, ylabel, logy) in [
                (axes[0][0], "rx_pps", "received rate (packets/s)", True),
                (axes[0][1], "loss_pct", "loss (%)", False),
                (axes[1][0], "rtt_ms", "ping RTT under load (ms)", True),
                (axes[1][1], "cpu_fwd_pct", "forwarder CPU (% of one core)", False)]:
            for fw in kinds:
                rs = sorted([r for r in rows if r["forwarder"] == fw],
                            key=lambda r: r["offered_pps"])
                if not rs:
                    continue
                x = [r["offered_pps"] for r in rs]
                y = [r[m] for r in rs]
                e = [_num(r.get(m + "_ci", 0)) for r in rs]
                eb = ax.errorbar(x, y, yerr=e, marker="o", ms=4, capsize=2, label=LABELS[fw])
                # Flat-out: a star at the rate the generator actually offered.
                fo = [r for r in flat if r["forwarder"] == fw]
                if fo:
                    ax.scatter([r["gen_pps"] for r in fo], [r[m] for r in fo], marker="*",
                               s=90, color=eb[0].get_color(), zorder=4)
                gl = [r for r in rs if r.get("gen_limited")]
                if gl:
                    ax.scatter([r["offered_pps"] for r in gl], [r[m] for r in gl], marker="x",
                               s=60, color="k", zorder=5)
            ax.set_xscale("log")
            if logy:
                ax.set_yscale("log")
            if m == "rx_pps":
                lim = [min(r["offered_pps"] for r in rows), max(r["offered_pps"] for r in rows)]
                ax.plot(lim, lim, ls=":", color="grey", label="received = offered")
            ax.set_xlabel("offered rate (packets/s)")
            ax.set_ylabel(ylabel)
            ax.grid(True, which="both", alpha=0.3)
        axes[0][0].legend(fontsize=8)
        fig.suptitle(f"{title} (x: generator-limited point, *: flat-out)")
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, fn), dpi=90)
        plt.close(fig)
        files.append(fn)
    if line:
        fig, axes = plt.subplots(2, 2, figsize=(13, 9))
        panels = [(axes[0][0], "lossfree_pps" if line_searched else "rx_pps_base",
                   "max loss-free rate (packets/s, 160 B)" if line_searched
                   else "UDP received at --line-pps (packets/s)", None),
                  (axes[0][1], "cpu_ns_per_pkt_lossfree" if line_searched
                   else "cpu_ns_per_pkt_base", "forwarder CPU per packet (ns)"
                   + (" at the loss-free rate" if line_searched else ""),
                   "cpu_ns_per_pkt_lossfree_ci" if line_searched else None),
                  (axes[1][0], "lat_p99_us_base", "p99 one-way latency at --line-pps (µs)",
                   None),
                  (axes[1][1], "tcp_mbps", "TCP bulk throughput (Mbit/s)", "tcp_mbps_ci")]
        for fw in LINE_FORWARDERS:
            rs = sorted([r for r in line if r["forwarder"] == fw], key=lambda r: r["routers"])
            if not rs:
                continue
            for ax, m, _, ci in panels:
                pts = [r for r in rs if isinstance(r.get(m), (int, float))
                       and not math.isnan(r[m]) and r[m] > 0]
                if pts:
                    eb = ax.errorbar([r["routers"] for r in pts], [r[m] for r in pts],
                                     yerr=[_num(r.get(ci, 0)) for r in pts] if ci else None,
                                     marker="o", ms=4, capsize=2, label=LINE_LABELS[fw])
                    if m == "lossfree_pps":
                        # A triangle: no higher rate was found lossy (the search's cap).
                        up = [r for r in pts if r.get("lossfree_bound")]
                        ax.scatter([r["routers"] for r in up], [r[m] for r in up], marker="^",
                                   s=70, color=eb[0].get_color(), zorder=4)
        ns = sorted({r["routers"] for r in line})
        for ax, _, yl, _ in panels:
            ax.set_xscale("log", base=2)
            ax.set_xticks(ns)
            ax.set_xticklabels([str(n) for n in ns])
            ax.set_yscale("log")
            ax.set_xlabel("routers in the line (N)")
            ax.set_ylabel(yl)
            ax.grid(True, which="both", alpha=0.3)
        axes[0][0].legend(fontsize=8)
        fig.suptitle("Line S - R1 .. RN - D (160-byte UDP, TCP bulk; ^: loss-free up to the "
                     "search's highest rate)" if line_searched else
                     "Line S - R1 .. RN - D (160-byte UDP, TCP bulk)")
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, "line.png"), dpi=90)
        plt.close(fig)
        files.append("line.png")
    return files
