# SPDX-License-Identifier: GPL-2.0-only
"""results.md, the CSV files and the machine description."""

import csv
import math
import os
import re
import time

from .settings import ALL_FORWARDERS, LABELS, LINE_FORWARDERS, LINE_LABELS, OLSR_KINDS, THESIS_ROWS
from .stats import fmt


def write_csv(path, rows, digits=4):
    """rows as CSV; floats with `digits` significant digits."""
    if not rows:
        return
    keys = []
    for r in rows:
        for k in r:
            if k not in keys:
                keys.append(k)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.{digits}g}" if isinstance(v, float) else v)
                        for k, v in r.items()})


def line_ratio(line_res, num, den, key, n):
    """num / den of one line_summary column at N = n, or None."""
    a = [r for r in line_res if r["forwarder"] == num and r["routers"] == n]
    b = [r for r in line_res if r["forwarder"] == den and r["routers"] == n]
    if not a or not b:
        return None
    x, y = a[0][key], b[0][key]
    if not isinstance(x, (int, float)) or not isinstance(y, (int, float)) or math.isnan(x) \
            or math.isnan(y) or y <= 0:
        return None
    return x / y


def line_report(line_res, line_pps, line_cap):
    """The line's summary table (one row per forwarder and N) and the fastpathd-nodes /
    kernel ratios, as Markdown lines."""
    L = []
    if line_cap > 0:
        L.append(f"\n## Line of N routers: loss-free rate, CPU per packet, latency, TCP\n")
        L.append(f"Loss-free rate: the highest offered rate (160-byte UDP, searched from "
                 f"{line_pps:,} pkt/s doubling up to {line_cap:,}, then refined by 2^(1/3)) "
                 f"whose median repetition lost < 0.5 % and that the generator really "
                 f"offered; ≥ = no higher rate was found lossy, * = the next rate up failed "
                 f"only because the generator could not offer it; 0 = even the search's lowest "
                 f"rate lost. CPU per packet and p99 at that rate; p99 also at {line_pps:,} "
                 f"pkt/s.\n")
    else:
        L.append(f"\n## Line of N routers: UDP at {line_pps:,} pkt/s, CPU per packet, TCP\n")
    L.append("| forwarder | N | loss-free (pkt/s) | CPU ns/pkt there | p99 there (µs) | "
             f"p99 at {line_pps:,} pkt/s (µs) | loss at {line_pps:,} pkt/s (%) | "
             "TCP bulk (Mbit/s) | foreign CPU1 max (%) |")
    L.append("|---|---|---|---|---|---|---|---|---|")
    for r in line_res:
        lf = r["lossfree_pps"]
        mark = ("≥ " if r["lossfree_bound"] else "") + fmt(lf) + \
            (" *" if r["lossfree_gen_limited"] else "")
        L.append(f"| {LINE_LABELS.get(r['forwarder'], r['forwarder'])} | {r['routers']} | "
                 f"{mark} | {fmt(r['cpu_ns_per_pkt_lossfree'])} | "
                 f"{fmt(r['lat_p99_us_lossfree'])} | {fmt(r['lat_p99_us_base'])} | "
                 f"{fmt(r['loss_pct_base'])} | {fmt(r['tcp_mbps'], r['tcp_mbps_ci'])} | "
                 f"{fmt(r['cpu1_foreign_pct_max'])} |")
    ns = sorted({r["routers"] for r in line_res})
    rows = []
    for n in ns:
        rate = line_ratio(line_res, "fastpathd-nodes", "kernel", "lossfree_pps", n)
        tcp = line_ratio(line_res, "fastpathd-nodes", "kernel", "tcp_mbps", n)
        daemons = line_ratio(line_res, "fastpathd-nodes", "fastpathd", "lossfree_pps", n)
        if rate is not None or tcp is not None or daemons is not None:
            rows.append(f"| {n} | {'n/a' if rate is None else f'{rate:.2f}x'} | "
                        f"{'n/a' if tcp is None else f'{tcp:.2f}x'} | "
                        f"{'n/a' if daemons is None else f'{daemons:.2f}x'} |")
    if rows:
        L.append("\nRatios, fastpathd with N nodes in one daemon against the Linux kernel "
                 "across N namespaces and against N fastpathd daemons:\n")
        L.append("| N | loss-free rate / kernel | TCP bulk / kernel | loss-free rate / N "
                 "daemons |\n|---|---|---|---|")
        L += rows
    return L


def write_report(out_dir, args, machine, placement, ceilings, sweep_sum, line_sum, tcp_sum,
                 tcp_line_sum, skipped, plots, started, rat, sections=None, line_res=None,
                 line_cap=0):
    """sections: [(title, sweep rows, ratios)] per address family ("IPv4", "IPv6"); one
    untitled section (the whole run) without --family. line_sum: the line's points
    summarized per forwarder, N and offered rate; line_res: stats.line_summary's rows."""
    sections = sections or [("", sweep_sum, rat)]
    L = []
    L.append("# ns3-fastpath benchmark results\n")
    L.append(f"Run: {started} UTC, {time.time() - args.t0:.0f} s; command: "
             f"`{' '.join(args.argv)}`\n")
    L.append("## Machine\n")
    for k, v in machine.items():
        L.append(f"- {k}: {v}")
    L.append(f"- load average (1/5/15 min) at start: {args.load_start}")
    fl = [r.get("cpu1_foreign_pct") for r in sweep_sum + line_sum
          if isinstance(r.get("cpu1_foreign_pct"), float)]
    if fl:
        fl.sort()
        L.append(f"- other work on the forwarder's CPU during the points (cpu1_foreign_pct): "
                 f"median {fl[len(fl) // 2]:.0f} %, max {fl[-1]:.0f} % — this machine was "
                 f"shared with builds while measuring; see the 95 % CIs")
    L.append("\n## CPU placement\n")
    for p in placement:
        L.append(f"- {p}")
    L.append("\n## Generator ceiling (flat-out into an XDP sink at R's ingress, best of 3)\n")
    L.append("Flat-out rows of the sweeps also show what the generator offered (`gen_pps`), "
             "including frames R's full veth ring refused.\n")
    L.append("| payload (B) | sent (pkt/s) | received at R (pkt/s) |\n|---|---|---|")
    for c in ceilings:
        L.append(f"| {c['payload']} | {fmt(c['sent_pps'])} | {fmt(c['received_at_r_pps'])} |")
    if skipped:
        L.append("\n## Skipped\n")
        for s in skipped:
            L.append(f"- {s}")
    L.append("\n## Ratios within this run\n")
    L.append("Saturation = highest mean received rate at any offered rate (incl. flat-out); "
             "loss-free = highest offered rate the generator really offered whose median "
             "repetition lost < 0.5 %.\n")
    for title, _, sec_rat in sections:
        if title:
            L.append(f"\n### {title}\n")
        for payload, per in sec_rat.items():
            L.append(f"\n{payload}-byte payload{', ' + title if title else ''}:\n")
            # CPU per packet at the offered rates every forwarder of the table ran at (the
            # "no more CPU per packet than the kernel" question), and at saturation.
            # Columns: the highest offered rates both fastpathd and the kernel ran at (the
            # comparison that matters), else fastpathd's; "n/a" where a forwarder did not run.
            def rates_of(fw):
                v = per.get(fw, {}).get("cpu_ns_per_pkt_at", {})
                return {k for k, x in v.items()
                        if k != "flat-out" and isinstance(x, float) and not math.isnan(x)}
            common = rates_of("fastpathd") & rates_of("kernel") or rates_of("fastpathd") or \
                rates_of("kernel")
            cols = sorted(common)[-3:]
            L.append("| forwarder | saturation (pkt/s) | loss-free (pkt/s) | CPU ns/pkt at saturation"
                     + "".join(f" | CPU ns/pkt at {c // 1000}k" for c in cols) + " |\n|---|---|---|---"
                     + "|---" * len(cols) + "|")
            for fw, v in per.items():
                L.append(f"| {LABELS[fw]} | {fmt(v['saturation_pps'])} | {fmt(v['lossfree_pps'])} | "
                         f"{fmt(v['cpu_ns_per_pkt_saturation'])}"
                         + "".join(f" | {fmt(v['cpu_ns_per_pkt_at'].get(c))}" for c in cols) + " |")
            L.append("\nCPU ns/pkt: forwarder CPU (userspace: process + NAPI threads, exact runtime; "
                     "kernel/XDP: non-task time of the forwarder's CPU from exact idle time, plus "
                     "NAPI threads) per received packet.")
            fp = per.get("fastpathd")
            L.append("")
            for base in ("ns3", "kernel", "xdp"):
                b = per.get(base)
                if fp and b and b["saturation_pps"] > 0:
                    L.append(f"- fastpathd / {LABELS[base]}: saturation "
                             f"{fp['saturation_pps'] / b['saturation_pps']:.2f}x, loss-free "
                             + (f"{fp['lossfree_pps'] / b['lossfree_pps']:.2f}x"
                                if b["lossfree_pps"] else "n/a"))
                else:
                    L.append(f"- fastpathd / {LABELS[base]}: n/a (one of them was not measured)")
            for a, b in (("rawfwd", "ns3"), ("kernel", "ns3"), ("xdp", "ns3")):
                if a in per and b in per and per[b]["saturation_pps"] > 0:
                    L.append(f"- {LABELS[a]} / {LABELS[b]}: saturation "
                             f"{per[a]['saturation_pps'] / per[b]['saturation_pps']:.2f}x")
    L.append("\n## Beside the thesis (Appendix A, 160-byte UDP; ratios, since hardware differs)\n")
    L.append("Thesis: Intel Atom N270, 100 Mbit/s Ethernet, rates in Mbit/s of UDP payload. "
             "'max received' = highest mean received rate over the sweep.\n")
    per = rat.get(160, {})

    def ratio(a, b, key="saturation_pps"):
        if a in per and b in per and per[b][key]:
            return f"{per[a][key] / per[b][key]:.1f}x"
        return "n/a"

    def ratio_at(a, b):
        """At the highest paced rate both were measured at: how the thesis took its 4.9x
        and 19x (at 70.8 Mbit/s offered)."""
        if a not in per or b not in per:
            return "n/a"
        common = set(per[a]["rx_at"]) & set(per[b]["rx_at"])
        if not common:
            return "n/a"
        top = max(common)
        return f"{per[a]['rx_at'][top] / per[b]['rx_at'][top]:.1f}x at {top:,} pkt/s"
    L.append("\n| quantity | thesis | this run | this run, at the highest offered rate both "
             "were run at |\n|---|---|---|---|")
    for label, thesis, a, b, key in THESIS_ROWS:
        L.append(f"| {label} | {thesis} | {ratio(a, b, key)} | "
                 f"{ratio_at(a, b) if key == 'saturation_pps' else ''} |")
    if "ns3" in per:
        L.append(f"| ns-3 FdNetDevice loss-free rate | 8 Mbit/s = 6,250 pkt/s (A.4) | "
                 f"{per['ns3']['lossfree_pps']:,} pkt/s = "
                 f"{per['ns3']['lossfree_pps'] * 8 * 160 / 1e6:.1f} Mbit/s | |")
        L.append(f"| ns-3 FdNetDevice max received | 14.4 Mbit/s = 11,200 pkt/s (A.4) | "
                 f"{per['ns3']['saturation_pps']:,.0f} pkt/s = "
                 f"{per['ns3']['saturation_pps'] * 8 * 160 / 1e6:.1f} Mbit/s | |")
    L.append("\n## UDP sweeps (mean ± 95% CI over repetitions; * = generator-limited)\n")
    for (title, sec_rows, _), payload in [(sec, p) for sec in sections
                                          for p in sorted({r["payload"] for r in sec[1]})]:
        L.append(f"\n### {payload}-byte payload{', ' + title if title else ''}\n")
        L.append("| forwarder | offered (pkt/s) | offered (Mbit/s) | received (pkt/s) | "
                 "received (Mbit/s) | loss (%) | Jain | latency p50/p99 (µs) | RTT (ms) | "
                 "fwd CPU (%) | foreign load CPU1 (%) |")
        L.append("|---|---|---|---|---|---|---|---|---|---|---|")
        for fw in ALL_FORWARDERS + OLSR_KINDS:
            rs = [r for r in sec_rows if r["payload"] == payload and r["forwarder"] == fw]
            rs.sort(key=lambda r: float("inf") if r["offered_pps"] == "flat-out"
                    else r["offered_pps"])
            for r in rs:
                off = r["offered_pps"]
                L.append(
                    f"| {LABELS[fw]} | {off if off == 'flat-out' else fmt(off)}"
                    f"{' *' if r.get('gen_limited') else ''} | "
                    f"{fmt(off * 8 * payload / 1e6) if off != 'flat-out' else '-'} | "
                    f"{fmt(r['rx_pps'], r['rx_pps_ci'])} | {fmt(r['rx_mbps'], r['rx_mbps_ci'])} | "
                    f"{fmt(r['loss_pct'], r['loss_pct_ci'])} | {fmt(r['jain'])} | "
                    f"{fmt(r['lat_p50_us'])} / {fmt(r['lat_p99_us'])} | "
                    f"{fmt(r['rtt_ms'], r['rtt_ms_ci'])} | {fmt(r['cpu_fwd_pct'], r['cpu_fwd_pct_ci'])} | "
                    f"{fmt(r['cpu1_foreign_pct'])} |")
    if tcp_sum:
        L.append("\n## TCP bulk, S - R - D\n")
        L.append("| forwarder | throughput (Mbit/s) | RTT under load (ms) |\n|---|---|---|")
        for r in tcp_sum:
            L.append(f"| {LABELS[r['forwarder']]} | {fmt(r['tcp_mbps'], r['tcp_mbps_ci'])} | "
                     f"{fmt(r['rtt_ms'], r['rtt_ms_ci'])} |")
    if line_res:
        L += line_report(line_res, args.line_pps, line_cap)
    if line_sum:
        L.append("\n## Line of N routers, every offered rate (160-byte UDP)\n")
        L.append("ns-3: one process emulating N routers joined by 1 Gbit/s zero-delay "
                 "point-to-point links (thesis Section 5.3); fastpathd, N nodes in one daemon: "
                 "one fastpathd in one namespace, nodes n1..nN joined by internal links "
                 "(topology file); the others: N namespaces, a forwarder in each.\n")
        L.append("| forwarder | N | offered (pkt/s) | received (pkt/s) | loss (%) | latency "
                 "p50/p99 (µs) | RTT (ms) | fwd CPU (%) | CPU ns/pkt |")
        L.append("|---|---|---|---|---|---|---|---|---|")
        for r in sorted(line_sum, key=lambda r: (LINE_FORWARDERS.index(r["forwarder"]),
                                                 r["routers"], r["offered_pps"])):
            L.append(f"| {LINE_LABELS[r['forwarder']]} | {r['routers']} | "
                     f"{fmt(r['offered_pps'])}{' *' if r.get('gen_limited') else ''} | "
                     f"{fmt(r['rx_pps'], r['rx_pps_ci'])} | {fmt(r['loss_pct'], r['loss_pct_ci'])} | "
                     f"{fmt(r['lat_p50_us'])} / {fmt(r['lat_p99_us'])} | "
                     f"{fmt(r['rtt_ms'], r['rtt_ms_ci'])} | {fmt(r['cpu_fwd_pct'])} | "
                     f"{fmt(r['cpu_ns_per_pkt'])} |")
    if tcp_line_sum:
        L.append("\n## Line of N routers, TCP bulk\n")
        L.append("| forwarder | N | throughput (Mbit/s) | RTT (ms) |\n|---|---|---|---|")
        for r in sorted(tcp_line_sum, key=lambda r: (LINE_FORWARDERS.index(r["forwarder"]),
                                                     r["routers"])):
            L.append(f"| {LINE_LABELS[r['forwarder']]} | {r['routers']} | "
                     f"{fmt(r['tcp_mbps'], r['tcp_mbps_ci'])} | {fmt(r['rtt_ms'])} |")
    if plots:
        L.append("\n## Plots\n")
        for p in plots:
            L.append(f"![{p}]({p})")
    with open(os.path.join(out_dir, "results.md"), "w") as f:
        f.write("\n".join(L) + "\n")


def machine_info():
    info = {}
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"model name\s*:\s*(.*)", f.read())
            info["CPU"] = m.group(1) if m else "?"
    except OSError:
        pass
    info["cores"] = os.cpu_count()
    info["kernel"] = os.uname().release
    try:
        with open("/proc/loadavg") as f:
            info["load average (1/5/15 min) when the report was written"] = " ".join(
                f.read().split()[:3])
    except OSError:
        pass
    return info
