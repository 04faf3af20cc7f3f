# SPDX-License-Identifier: GPL-2.0-only
"""PNG plots of the sweeps, the line scenario and the routing scenario (matplotlib)."""

import math
import os

from .settings import ALL_FORWARDERS, LABELS, OLSR_KINDS
from .proc import log


def _num(v):
    return 0.0 if v is None or (isinstance(v, float) and math.isnan(v)) else v


def plot_all(out_dir, sweep, line, tcp_line, olsr, suffix=""):
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
    if line or tcp_line:
        fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
        for fw in ALL_FORWARDERS:
            rs = sorted([r for r in line if r["forwarder"] == fw], key=lambda r: r["routers"])
            if rs:
                axes[0].errorbar([r["routers"] for r in rs], [r["rx_pps"] for r in rs],
                                 yerr=[_num(r.get("rx_pps_ci", 0)) for r in rs], marker="o",
                                 label=LABELS[fw])
                axes[1].plot([r["routers"] for r in rs], [r["rtt_ms"] for r in rs], marker="o",
                             label=LABELS[fw])
            ts = sorted([r for r in tcp_line if r["forwarder"] == fw], key=lambda r: r["routers"])
            if ts:
                axes[2].errorbar([r["routers"] for r in ts], [r["tcp_mbps"] for r in ts],
                                 yerr=[_num(r.get("tcp_mbps_ci", 0)) for r in ts], marker="o",
                                 label=LABELS[fw])
        for ax, yl in zip(axes, ["UDP received (packets/s)", "ping RTT under UDP load (ms)",
                                 "TCP bulk throughput (Mbit/s)"]):
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("routers in the line")
            ax.set_ylabel(yl)
            ax.grid(True, which="both", alpha=0.3)
        axes[0].legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, "line.png"), dpi=90)
        plt.close(fig)
        files.append("line.png")
    return files
