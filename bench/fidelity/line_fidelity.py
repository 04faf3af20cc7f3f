#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Delay along a line of N nodes: S -- r1 .. rN -- D, the N routers as nodes of one fastpathd
(a generated topology file, fastpathd --topology), every link between two routers emulated
with `rate R delay 1ms limit 100`; S and D are namespaces joined to r1 and rN by veths, with
static neighbours. ping S -> D at each interval is measured against the model

  RTT = 2 (N-1) (delay + serialization of the ICMP frame at R)

and, in the same run, the kernel forwarding the same line (N router namespaces, ip_forward,
tbf at R on the links between routers, no delay) as the baseline for the spread. Beside the
external figures: fastpathd's own per-link sojourn and lateness (how long after its arrival time each
link direction's frames were handed on; fpctl link list --json) and its workers' lateness.
Optional: each ping interval again while a TCP flow runs D -> S (--reverse-tcp, iperf3 -R:
the pings share every link with the flow's data or ACKs); iperf3 TCP S -> D against the
model's goodput, UDP at 80 % of R for loss (S's veth shaped to R meanwhile, 4 MiB socket
buffers; the loss split into the line's drops and the hosts'), and the two hosts alone on
one veth pair as a baseline (--host-pair). fastpathd's histograms count from its start (or
`fpctl stats --reset`, which keeps the counters and what the workers have learnt; see
fresh_start), so each ping interval (and the iperf3 runs) gets a freshly started fastpathd
on the same namespaces: a row's lateness and sojourn are its own pings' (and the warm-up's
three).

Namespaces fp-line-<pid>-*; everything is removed at the end, on error and on Ctrl-C/SIGTERM.
Writes results.json, results.md, the topology files and fastpathd's logs into --out.

Usage: sudo bench/fidelity/line_fidelity.py --build-dir build --out /tmp/line \
           --nodes 2,8,16 --rate 100mbit --count 200 --interval 0.01 [--iperf-seconds 5]
           [--ping-seconds 10] [--reverse-tcp] [--host-pair] [--no-access-shaping]
           [--udp-window BYTES]
See bench/fidelity/README.md.
"""
import argparse
import json
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from fastpath_bench.forwarders import Forwarder  # noqa: E402
from fastpath_bench.proc import Cleanup, log, run_cleaning_up, sh  # noqa: E402
from fastpath_bench.run_record import RunRecord  # noqa: E402
from fastpath_bench.settings import D_IP  # noqa: E402
from fastpath_bench.tools import find_tools  # noqa: E402
from fastpath_bench.topology import Topology  # noqa: E402
from line_hosts import (MTU_FRAME, ON_HOSTS_CPU, UDP_WINDOW, HostEnds, HostPair,  # noqa: E402
                        run_iperf, socket_buffer_caps, start_reverse_tcp, stop_reverse_tcp)

DELAY_MS = 1.0
LIMIT = 100  # frames a link's queue holds (--limit)
# ping's default payload (56 bytes) + ICMP 8 + IPv4 20 + Ethernet 14: the frame a link
# serializes (fastpathd's rate counts the frame, overhead 0; tbf counts the same bytes).
ICMP_FRAME = 98
TCP_PAYLOAD = 1448  # MSS with timestamps: 1500 - 20 - 20 - 12
# Bounds: a run must stay short on a shared machine.
MAX_NODES = 64
MAX_PING_S = 120
MAX_IPERF_S = 30


def rate_bps(text):
    units = {"kbit": 1e3, "mbit": 1e6, "gbit": 1e9, "bit": 1}
    for u, f in units.items():
        if text.lower().endswith(u):
            return float(text[:-len(u)]) * f
    raise ValueError(f"rate {text!r}: use kbit, mbit or gbit (e.g. 100mbit)")


def model_rtt_ms(n, rate):
    """2 (N-1) hops of 1 ms plus the ICMP frame's serialization at `rate`, both ways."""
    return 2 * (n - 1) * (DELAY_MS + ICMP_FRAME * 8 / rate * 1e3)


def model_goodput_mbps(rate):
    return rate * TCP_PAYLOAD / MTU_FRAME / 1e6


def percentile(sorted_v, q):
    """Nearest rank."""
    if not sorted_v:
        return float("nan")
    return sorted_v[min(len(sorted_v) - 1, max(0, int(round(q * len(sorted_v) + 0.5)) - 1))]


class LineTopology(HostEnds, Topology):
    """The harness's S -- R1 .. Rn -- D in namespaces fp-line-<pid>-<tag>-*; its line of
    fastpathd nodes (node_line) carries the emulation `params` on every link."""

    def __init__(self, tag, routers, clean, params=None):
        super().__init__(tag, routers, clean, ttl=255)
        base = f"fp-line-{os.getpid()}-{tag}"
        self.s, self.d = f"{base}-s", f"{base}-d"
        self.r = [f"{base}-r{i}" for i in range(1, routers + 1)]
        self.params = params
        # S's qdiscs are set per measurement (line_hosts: tbf at the link rate, or none).
        self.sender_qdisc = "noqueue"

    def node_line(self, nodes):
        doc = super().node_line(nodes)
        for link in doc.get("links", []):
            link["params"] = self.params
        return doc

    def shape_kernel_links(self, rate, limit):
        """tbf at `rate` on both ends of every link between two routers (limit: `limit`
        frames of MTU size), none on S's and D's veths: the same links as the emulated line."""
        for i in range(self.n - 1):
            for ns, ifn in ((self.r[i], self.r_out(i)), (self.r[i + 1], self.r_in(i + 1))):
                sh(["tc", "-n", ns, "qdisc", "replace", "dev", ifn, "root", "tbf", "rate",
                    f"{int(rate)}bit", "burst", str(MTU_FRAME + 100), "limit",
                    str(limit * MTU_FRAME)])


def measure_host_pair(rate, args, clean):
    """iperf3 S -> D over one veth pair at the line's offered load: a result row."""
    t = HostPair(clean)
    try:
        t.build()
        ip = run_iperf(t, args.iperf_seconds, rate, clean, None,
                       access=not args.no_access_shaping, window=args.udp_window,
                       cc=args.tcp_cc)
    finally:
        t.destroy()
    ip["model_tcp_mbps"] = round(model_goodput_mbps(rate), 2)
    log(f"hosts {int(rate)}bit iperf3: {json.dumps(ip)}")
    return {"forwarder": "hosts (one veth)", "nodes": 0, "rate_bps": rate, "interval_s": 0,
            "model_ms": 0.0, "with_tcp": False, "sent": 0, "replies": 0, "iperf": ip}


def ping_count(args, interval):
    """--count pings, or fewer: as many as --ping-seconds holds at `interval` (at least 5)."""
    if not args.ping_seconds:
        return args.count
    return max(5, min(args.count, int(round(args.ping_seconds / interval))))


def run_ping(ns, count, interval):
    wait = count * interval + 15
    r = subprocess.run(["ip", "netns", "exec", ns] + ON_HOSTS_CPU + ["ping", "-n", "-c",
                        str(count), "-i", str(interval), "-W", "2", D_IP],
                       capture_output=True, text=True, timeout=wait)
    rtts = sorted(float(x.split("time=")[1].split()[0]) for x in r.stdout.splitlines()
                  if "time=" in x)
    res = {"sent": count, "replies": len(rtts), "rtts": rtts}
    if rtts:
        res.update({"min": rtts[0], "p50": percentile(rtts, 0.5), "p90": percentile(rtts, 0.9),
                    "p99": percentile(rtts, 0.99), "max": rtts[-1]})
    return res, r.stdout


def fastpathd_figures(fpctl, sock, n):
    """Per link direction: frames, sojourn p50/p99/max; the workers' lateness (the same for
    every link: `emulation_lateness` of `fpctl link show`)."""
    def q(*cmd):
        r = subprocess.run([fpctl, "-s", sock, "--json", "-t", "3000"] + list(cmd), capture_output=True,
                           text=True, timeout=10)
        return json.loads(r.stdout) if r.returncode == 0 else None
    links = q("link", "list") or []
    links = links.get("links", []) if isinstance(links, dict) else links
    rows = []
    for link in links:
        for d in ("a_to_b", "b_to_a"):
            m = link[d]["measured"]
            rows.append({"link": link["name"], "dir": d, "frames": m["tx_packets"],
                         "queue_drops": m["queue_drops"],
                         "lateness_p50_ns": m.get("lateness_p50_ns"),
                         "lateness_p99_ns": m.get("lateness_p99_ns"),
                         "lateness_max_ns": m.get("lateness_max_ns"),
                         "sojourn_p50_us": m["sojourn_p50_ns"] / 1e3,
                         "sojourn_p99_us": m["sojourn_p99_ns"] / 1e3,
                         "sojourn_max_us": m["sojourn_max_ns"] / 1e3})
    late = []
    if n > 1:
        show = q("link", "show", "l1") or {}
        late = show.get("emulation_lateness", [])
    return {"links": rows, "lateness": late, "raw_links": links}


WORKER_RT_KEYS = ("stall_rt_throttled", "stall_rt_throttled_ns", "stall_other", "stall_other_ns",
                  "stall_max_ns", "rt_guard_steps", "rt_guard_normal_ns", "rt_priority",
                  # the wait from the classifier's stamp to the worker's pass, and the
                  # timer wake-ups for arrivals: where a row's lateness comes from
                  "rx_wait_p50_ns", "rx_wait_p99_ns", "rx_wait_max_ns", "emu_wakeups",
                  "emu_wake_late_p50_ns", "emu_wake_late_p99_ns", "emu_wake_late_max_ns",
                  "emu_spin_ns", "emu_spin_over_budget")


def worker_rt_counters(fpctl, sock):
    """fastpathd's workers' stalls (the kernel's RT throttling and others) and its real-time
    budget guard (fpctl stats, cumulative since the line started), per worker."""
    r = subprocess.run([fpctl, "-s", sock, "--json", "-t", "3000", "stats"], capture_output=True,
                       text=True, timeout=10)
    if r.returncode != 0:
        return {}
    return {s["scope"]: {k: s["counters"].get(k) for k in WORKER_RT_KEYS}
            for s in json.loads(r.stdout) if s["scope"].startswith("worker")}


def link_lateness(links):
    """Per link direction's lateness (fpctl link list): the path's worst p50, p99 and max,
    and the sum of the p99s over the path (what one frame's round trip can collect)."""
    ls = [x for x in links if x.get("lateness_p99_ns") is not None]
    if not ls:
        return {}
    return {"hop_late_p50_us": max(x["lateness_p50_ns"] for x in ls) / 1e3,
            "hop_late_p99_us": max(x["lateness_p99_ns"] for x in ls) / 1e3,
            "hop_late_max_us": max(x["lateness_max_ns"] for x in ls) / 1e3,
            "path_late_p99_sum_ms": sum(x["lateness_p99_ns"] for x in ls) / 1e6}


def fresh_start(fw):
    """Stops fastpathd and starts it again on the same namespaces: its histograms (links'
    lateness and sojourn, the workers' lateness) then hold only what follows. Its log is
    kept beside the new one (fastpathd-nodes-N*.log is rewritten by each start).

    `fpctl stats --reset` zeroes the histograms and maxima without a restart, but not all
    a row reads: the counters stay cumulative (a link's frames and queue_drops, the workers'
    stalls, wake-ups and spin time in workers_rt), and what a worker has learnt from the
    rows before stays too (the wake margin from its recent wake-ups, the spin budget, the
    real-time guard's state, the links' loss-model and queue-discipline state). A restart
    keeps every row independent of the rows run before it, so it stays."""
    for i, logp in enumerate(fw.logs):
        if os.path.exists(logp):
            k = 1
            while os.path.exists(f"{logp}.{k}"):
                k += 1
            os.replace(logp, f"{logp}.{k}")
    fw.stop()
    fw.logs, fw.argv = [], []
    fw.start()


def tcp_cell(ip):
    """TCP goodput over the run / over its second half (model, congestion control)."""
    cc = f", {ip['tcp_cc']}" if ip.get("tcp_cc") else ""
    half = ip.get("tcp_mbps_second_half")
    whole = f"{ip['tcp_mbps']} / {half}" if half is not None else f"{ip['tcp_mbps']}"
    return f"{whole} ({ip['model_tcp_mbps']}{cc})"


def measure_line(kind, n, rate, args, tools, clean, out):
    """One line (kind: fastpathd or kernel) at N nodes and one rate: every ping interval,
    then iperf3. Returns a list of result rows."""
    rtext = f"{int(rate)}bit"
    params = f"rate {rtext} delay {DELAY_MS:g}ms limit {args.limit}"
    if kind == "fastpathd":
        t = LineTopology(f"f{n}", 1, clean, params)
    else:
        t = LineTopology(f"k{n}", n, clean)
    rows = []
    fw = None
    try:
        t.build()
        keep = os.path.join(out, f"fastpathd-N{n}-{rtext}")
        if kind == "fastpathd":
            os.makedirs(keep, exist_ok=True)
            fw = Forwarder("fastpathd-nodes", tools, t, nodes=n, keep_dir=keep,
                           fastpathd_args=args.fastpathd_args.split())
        else:
            t.shape_kernel_links(rate, args.limit)
            fw = Forwarder("kernel", tools, t)
        fw.start()
        model = model_rtt_ms(n, rate) if kind == "fastpathd" else 0.0
        plan = [(i, False) for i in args.interval]
        if args.reverse_tcp:
            plan += [(i, True) for i in args.interval]
        for k, (interval, with_tcp) in enumerate(plan):
            if kind == "fastpathd" and k:
                fresh_start(fw)
            count = ping_count(args, interval)
            tag = f"{kind}-N{n}-{rtext}-i{interval:g}" + ("-tcp" if with_tcp else "")
            flow = (start_reverse_tcp(t, count * interval + 3, clean, args.tcp_cc)
                    if with_tcp else None)
            try:
                res, text = run_ping(t.s, count, interval)
            finally:
                tcp = stop_reverse_tcp(flow, clean) if flow else None
            with open(os.path.join(out, f"ping-{tag}.txt"), "w") as f:
                f.write(text)
            row = {"forwarder": kind, "nodes": n, "rate_bps": rate, "interval_s": interval,
                   "model_ms": round(model, 4), "with_tcp": with_tcp, **res}
            if tcp is not None:
                row["reverse_tcp_mbps"] = tcp
            if kind == "fastpathd":
                figs = fastpathd_figures(tools["fpctl"], fw.socket(0), n)
                row["lateness"] = figs["lateness"]
                row["links"] = figs["links"]
                row.update(link_lateness(figs["links"]))
                row["workers_rt"] = worker_rt_counters(tools["fpctl"], fw.socket(0))
                with open(os.path.join(keep, f"links-i{interval:g}"
                                       f"{'-tcp' if with_tcp else ''}.json"), "w") as f:
                    json.dump(figs["raw_links"], f, indent=1)
            log(f"{kind} N={n} {rtext} ping -i {interval:g}{' with TCP D->S' if with_tcp else ''}: "
                + json.dumps({k: row.get(k) for k in ("model_ms", "replies", "min", "p50", "p90",
                                                      "p99", "max", "hop_late_p99_us",
                                                      "hop_late_max_us", "reverse_tcp_mbps")}))
            rows.append(row)
        if args.iperf_seconds > 0:
            if kind == "fastpathd" and plan:
                fresh_start(fw)
            ip = run_iperf(t, args.iperf_seconds, rate, clean,
                           fw if kind == "fastpathd" else None,
                           access=not args.no_access_shaping, window=args.udp_window,
                           cc=args.tcp_cc)
            ip["model_tcp_mbps"] = round(model_goodput_mbps(rate), 2)
            if kind == "fastpathd":
                ip["workers_rt"] = worker_rt_counters(tools["fpctl"], fw.socket(0))
            log(f"{kind} N={n} {rtext} iperf3: {json.dumps(ip)}")
            for row in rows:
                row["iperf"] = ip
        gone = fw.exited()
        if gone:
            raise RuntimeError(f"{kind} exited during the measurement: {gone}")
    finally:
        if fw:
            fw.stop()
        t.destroy()
    return rows


def check_rows(rows, allowance_ms, early_ms):
    """The delay along the line is the configured sum plus what fastpathd reports as late
    (the workers' lateness histogram, which only these pings filled):
    per fastpathd row, (name, value, bound, passed). Every ping's RTT lies between the model
    less early_ms (no hop shorter than its delay and serialization) and the model plus the
    reported lateness (2 (N-1) hops at the workers' largest lateness) plus allowance_ms (the
    four veth crossings and the hosts' stacks, which no link times)."""
    checks = []
    for r in rows:
        if r["forwarder"] != "fastpathd":
            continue
        tag = f"N={r['nodes']} ping -i {r['interval_s']:g}"
        hops = 2 * (r["nodes"] - 1)
        late_max = max((x["max_ns"] for x in r.get("lateness") or []), default=0) / 1e6
        rtts = r.get("rtts") or []
        checks.append((f"{tag}: replies", f"{r['replies']}/{r['sent']}", "all but 1 %",
                       r["replies"] >= 0.99 * r["sent"]))
        if not rtts:
            continue
        lo = r["model_ms"] - early_ms
        checks.append((f"{tag}: RTT min (ms)", rtts[0], f">= model - {early_ms:g} = {lo:.3f}",
                       rtts[0] >= lo))
        # At most 1 % of the hop-frames were later than the p99: at most hops % of the pings
        # had a hop that late, so with hops < 50 the median ping had none.
        late_p99 = max((x["p99_ns"] for x in r.get("lateness") or []), default=0) / 1e6
        if hops < 50:
            mid = r["model_ms"] + allowance_ms + hops * late_p99
            checks.append((f"{tag}: RTT p50 (ms)", r["p50"],
                           f"<= model + {allowance_ms:g} + {hops} x lateness p99 "
                           f"{late_p99:.3f} = {mid:.3f}", r["p50"] <= mid))
        hi = r["model_ms"] + allowance_ms + hops * late_max
        checks.append((f"{tag}: RTT max (ms)", rtts[-1],
                       f"<= model + {allowance_ms:g} + {hops} x lateness max {late_max:.3f} "
                       f"= {hi:.3f}", rtts[-1] <= hi))
    return checks


def fmt(v, digits=2):
    return "-" if v is None or v != v else f"{v:.{digits}f}"


def table(rows):
    lines = ["| N | forwarder | rate | ping -i (s) | TCP D→S (Mbit/s) | model (ms) | replies | "
             "min | p50 | p90 | p99 | max | p50 − model | p99 − model | per-hop lateness "
             "p50 / p99 / max (µs) | Σ hop p99 (ms) | worker lateness p50 / p99 / max (µs) | "
             "TCP: run / 2nd half (model) Mbit/s | UDP 80 % lost |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if not r["nodes"]:
            continue  # the host pair: iperf3 only (udp_drop_table)
        late = r.get("lateness") or []
        lt = ", ".join(f"{x['p50_ns'] / 1e3:.0f} / {x['p99_ns'] / 1e3:.0f} / "
                       f"{x['max_ns'] / 1e3:.0f}" for x in late) or "-"
        ip = r.get("iperf") or {}
        tcp = (tcp_cell(ip) if "tcp_mbps" in ip else "-")
        udp = (f"{ip['udp_lost_pct']} %" if "udp_lost_pct" in ip else "-")
        base = r["model_ms"]
        hop = ("-" if "hop_late_p99_us" not in r else
               f"{r['hop_late_p50_us']:.0f} / {r['hop_late_p99_us']:.0f} / "
               f"{r['hop_late_max_us']:.0f}")
        hop_sum = fmt(r.get("path_late_p99_sum_ms"), 3)
        rev = (fmt(r.get("reverse_tcp_mbps"), 1) if r.get("with_tcp") else "-")
        lines.append(
            f"| {r['nodes']} | {r['forwarder']} | {r['rate_bps'] / 1e6:g} Mbit/s | "
            f"{r['interval_s']:g} | {rev} | {base:.3f} | {r['replies']}/{r['sent']} | "
            f"{fmt(r.get('min'))} | {fmt(r.get('p50'))} | {fmt(r.get('p90'))} | "
            f"{fmt(r.get('p99'))} | {fmt(r.get('max'))} | "
            f"{fmt(r.get('p50', float('nan')) - base, 3)} | "
            f"{fmt(r.get('p99', float('nan')) - base, 3)} | {hop} | {hop_sum} | {lt} | {tcp} | "
            f"{udp} |")
    return "\n".join(lines) + "\n"


def sojourn_table(rows):
    """Per N: the sum over the path (every link, both directions) of fastpathd's sojourn
    p50 and p99 beside the model's delay + serialization of the same hops."""
    lines = ["| N | ping -i (s) | links × 2 | Σ sojourn p50 (ms) | Σ sojourn p99 (ms) | "
             "max sojourn (µs) | model (ms) |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["forwarder"] != "fastpathd" or not r.get("links"):
            continue
        ls = r["links"]
        lines.append(f"| {r['nodes']} | {r['interval_s']:g} | {len(ls)} | "
                     f"{sum(x['sojourn_p50_us'] for x in ls) / 1e3:.3f} | "
                     f"{sum(x['sojourn_p99_us'] for x in ls) / 1e3:.3f} | "
                     f"{max(x['sojourn_max_us'] for x in ls):.0f} | {r['model_ms']:.3f} |")
    return "\n".join(lines) + "\n"


def udp_drop_table(rows):
    """Per line that ran iperf3: the UDP run's loss and every counter that grew during it."""
    lines = ["| N | forwarder | rate | TCP: run / 2nd half (model) Mbit/s | UDP sent (Mbit/s) | lost (iperf3) | "
             "dropped by the line / by the hosts | drop points (counter: frames) |",
             "|---|---|---|---|---|---|---|---|"]
    seen = set()
    for r in rows:
        ip = r.get("iperf") or {}
        key = (r["nodes"], r["forwarder"], r["rate_bps"])
        if "udp_packets" not in ip or key in seen:
            continue
        seen.add(key)
        pts = ip.get("udp_drop_points") or {}
        where = "; ".join(f"{k}: {v}" for k, v in sorted(pts.items(), key=lambda x: -x[1]))
        tcp = tcp_cell(ip) if "tcp_mbps" in ip else "-"
        lines.append(f"| {r['nodes'] or '-'} | {r['forwarder']} | {r['rate_bps'] / 1e6:g} "
                     f"Mbit/s | {tcp} | {ip['udp_packets']} ({ip.get('udp_sent_mbps')}) | "
                     f"{ip.get('udp_lost')} ({ip.get('udp_lost_pct')} %) | "
                     f"{ip.get('udp_dropped_line', '-')} / {ip.get('udp_dropped_hosts', '-')} | "
                     f"{where or 'none'} |")
    return "\n".join(lines) + "\n" if len(lines) > 2 else ""


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--out", required=True, help="output directory (created)")
    ap.add_argument("--nodes", default="2,8,16", help="comma-separated N (2..64)")
    ap.add_argument("--rate", default="100mbit", help="comma-separated link rates")
    ap.add_argument("--count", type=int, default=200, help="pings per interval")
    ap.add_argument("--limit", type=int, default=LIMIT,
                    help="frames each link's queue holds (100); TCP fills a link only with a "
                         "queue near the path's bandwidth-delay product")
    ap.add_argument("--interval", default="0.01", help="comma-separated ping intervals (s)")
    ap.add_argument("--ping-seconds", type=float, default=0,
                    help="ping each interval for about this long: min(--count, S / interval), "
                    "at least 5 (0: --count pings)")
    ap.add_argument("--reverse-tcp", action="store_true",
                    help="each ping interval again while a TCP flow runs D -> S (iperf3 -R)")
    ap.add_argument("--iperf-seconds", type=int, default=0,
                    help="iperf3 TCP then UDP at 80 %% of the rate, each this long (0: none)")
    ap.add_argument("--no-kernel", action="store_true", help="no kernel baseline")
    ap.add_argument("--host-pair", action="store_true",
                    help="with --iperf-seconds: per rate, iperf3 between S and D on one veth "
                    "pair first (no router): what the hosts reach alone")
    ap.add_argument("--no-access-shaping", action="store_true",
                    help="iperf3 from S unshaped (veth takes S's bursts at once) instead of "
                    "S's veth at the link rate")
    ap.add_argument("--udp-window", type=int, default=UDP_WINDOW,
                    help="iperf3 -w of the UDP run in bytes (0: the kernel's default "
                    "buffers)")
    ap.add_argument("--fastpathd-args", default="", help="extra fastpathd flags")
    ap.add_argument("--tcp-cc", default=None,
                    help="the TCP flows' congestion control (iperf3 -C: cubic, bbr, reno); "
                         "default the hosts' (net.ipv4.tcp_congestion_control), recorded")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 unless every ping's RTT is the model within the lateness "
                    "fastpathd reports (check_rows; the ctest)")
    ap.add_argument("--allowance-ms", type=float, default=1.0,
                    help="--check: what the veths and hosts may add beyond the links (1 ms)")
    ap.add_argument("--early-ms", type=float, default=0.1,
                    help="--check: how much earlier than the model a reply may come (0.1: ping "
                    "prints RTTs of 10..100 ms truncated to 0.1 ms)")
    a = ap.parse_args(argv)
    a.nodes = [int(x) for x in a.nodes.split(",")]
    a.rates = [rate_bps(x) for x in a.rate.split(",")]
    a.interval = [float(x) for x in a.interval.split(",")]
    if any(not 2 <= n <= MAX_NODES for n in a.nodes):
        ap.error(f"--nodes: 2..{MAX_NODES}")
    if any(ping_count(a, i) * i > MAX_PING_S for i in a.interval) or a.count < 1:
        ap.error(f"--count × --interval must stay under {MAX_PING_S} s")
    if a.udp_window < 0:
        ap.error("--udp-window: bytes, 0 or more")
    if not 1 <= a.limit <= 100000:
        ap.error("--limit: 1..100000 frames")
    if not 0 <= a.iperf_seconds <= MAX_IPERF_S:
        ap.error(f"--iperf-seconds: 0..{MAX_IPERF_S}")
    return a


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    if os.geteuid() != 0:
        print("line_fidelity.py: needs root (namespaces, fastpathd)", file=sys.stderr)
        return 77
    tools = find_tools(os.path.abspath(a.build_dir))
    missing = [x for x in ("fastpathd", "fpctl") if x not in tools]
    if missing:
        print(f"line_fidelity.py: not built in {a.build_dir}: {missing}", file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    clean = Cleanup()
    rows, failures = [], []

    def on_signal(sig, _frame):
        raise KeyboardInterrupt(f"signal {sig}")
    signal.signal(signal.SIGTERM, on_signal)

    def body():
        for rate in a.rates:
            if a.iperf_seconds > 0 and a.host_pair:
                rows.append(measure_host_pair(rate, a, clean))
            for n in a.nodes:
                kinds = ["fastpathd"] + ([] if a.no_kernel else ["kernel"])
                for kind in kinds:
                    rows.extend(measure_line(kind, n, rate, a, tools, clean, a.out))
    run = RunRecord("bench/fidelity/line_fidelity.py", sys.argv[1:] if argv is None else argv)
    rc = run_cleaning_up(body, clean, failures)
    md = (table(rows) + "\nfastpathd's own figures, summed over the path's links (both directions):\n\n" +
          sojourn_table(rows))
    drops = udp_drop_table(rows)
    if drops:
        md += "\nUDP at 80 % of the rate: where frames were dropped during it:\n\n" + drops
    checks = check_rows(rows, a.allowance_ms, a.early_ms) if a.check else []
    if checks:
        md += "\n| check | measured | bound | |\n|---|---|---|---|\n" + "".join(
            f"| {c[0]} | {c[1]} | {c[2]} | {'ok' if c[3] else 'FAIL'} |\n" for c in checks)
    if a.check and (not checks or not all(c[3] for c in checks)):
        failures.append("a check failed" if checks else "nothing measured")
        rc = rc or 1
    run.write(a.out, {"rows": rows, "failures": failures, "checks": checks}, md,
              machine_extra=socket_buffer_caps())
    print(run.heading() + md)
    for x in failures:
        print(f"FAILED: {x}", file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main())
