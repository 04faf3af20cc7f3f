# SPDX-License-Identifier: GPL-2.0-only
"""The forwarding-rate comparison (--napi-env): S - R - D, 160-byte UDP, each forwarder at
R started as a user starts it, in each NAPI environment of R (settings.NAPI_ENVS). Per
forwarder and environment: loss at 50k-200k packets/s, the maximum received rate, the
flooded rate (flat-out), one-way latency under overload, CPU at 20k packets/s; the ratios
fastpathd / minimal AF_XDP and fastpathd / XDP redirect, and fastpathd's targets as
pass/fail. Every number is the median of the repetitions of its point."""

import json
import math
import os
import time

from .settings import BENCH_NICE, FWD_CPU, GEN_CPU, LABELS, NAPI_ENVS, NAPI_RT_PRIO, STACK_ENVS
from .proc import Cleanup, failure_recorded, log, run_cleaning_up
from .topology import Topology
from .forwarders import Forwarder
from .meter import CpuMeter, Sink, StackSink, StageCounters
from .scenarios import generator_ceiling, nice_rate, run_udp_point
from .report import machine_info, write_csv
from .stats import fmt

FWDRATE_FORWARDERS = ["kernel", "xdp", "afxdp-min", "fastpathd"]
GENERATOR_NAMES = {"packet": "fp-trafgen (packet socket, skb path)",
                   "xdp-live": "fp-xdpgen (XDP live frames, XDP redirect)"}
PAYLOAD = 160
LOSS_RATES = [50000, 100000, 150000, 200000]
CPU_RATE = 20000
FIXED_RATE = 500000  # latency and RTT are also given at this offered rate
# Offered rates of the sweep (None = flat-out, the flooded rate). Above two rates in a row
# with > 50 % loss only flat-out is left. Then per forwarder: 80 % of its maximum and 2x
# its maximum (when the generator can offer that).
RATES = [CPU_RATE] + LOSS_RATES + [300000, 400000, FIXED_RATE, 600000, None]

# fastpathd's targets: (key, description).
TARGETS = [
    ("max_vs_min", "max received ≥ 1.1x minimal AF_XDP"),
    ("flooded_vs_min", "flooded ≥ 1.1x minimal AF_XDP"),
    ("max_vs_xdp", "max received ≥ 0.75x XDP redirect"),
    ("flooded_vs_xdp", "flooded ≥ 0.75x XDP redirect"),
    ("loss_upto80", "loss < 0.01 % at every rate ≤ 80 % of its max"),
    ("flooded_vs_max", "flooded ≥ 95 % of its max"),
    ("p99_overload", "one-way p99 under overload ≤ 1 ms"),
    ("cpu_vs_kernel", "CPU at 20k pkt/s ≤ 1.5x Linux kernel's"),
]


def median(values):
    v = sorted(x for x in values if isinstance(x, (int, float)) and not math.isnan(x))
    if not v:
        return float("nan")
    m = len(v) // 2
    return v[m] if len(v) % 2 else (v[m - 1] + v[m]) / 2


def nan(x):
    return x is None or (isinstance(x, float) and math.isnan(x))


class Plan:
    def __init__(self, args):
        if args.smoke:
            self.rates, self.reps, self.duration = [CPU_RATE, 100000, None], 1, 0.5
        elif args.quick:
            self.rates, self.reps, self.duration = [CPU_RATE] + LOSS_RATES + [400000, None], 1, 1.0
        else:
            self.rates, self.reps, self.duration = list(RATES), 3, 3.0
        if args.rates:
            self.rates = [None if x == "flat" else int(x) for x in args.rates.split(",")]
        if args.reps:
            self.reps = args.reps
        if args.duration:
            self.duration = args.duration
        self.extra = not args.smoke  # the 80 % and 2x points


def point_medians(rows):
    """One row per (environment, forwarder, offered rate): medians of the repetitions."""
    groups = {}
    for r in rows:
        groups.setdefault((r["napi_env"], r["forwarder"], r["offered_pps"]), []).append(r)
    out = []
    for (env, fw, off), rs in groups.items():
        p = {"napi_env": env, "forwarder": fw, "offered_pps": off, "reps": len(rs),
             "role": rs[0]["role"]}
        for k in ("gen_pps", "rx_pps", "loss_pct", "lat_p50_us", "lat_p99_us", "rtt_ms",
                  "lat_arrival_p50_us", "lat_arrival_p99_us", "lat_queue_p50_us",
                  "lat_queue_p99_us",
                  "cpu_fwd_pct", "cpu_proc_pct", "cpu_napi_pct", "cpu1_busy_pct",
                  "cpu1_foreign_pct", "cpu_ns_per_pkt"):
            p[k] = median([r.get(k) for r in rs])
        p["gen_limited"] = int(any(r.get("gen_limited") for r in rs))
        p["generator"] = "/".join(sorted({r.get("generator", "packet") for r in rs}))
        out.append(p)
    return out


def summary_of(points, env, fw):
    """The comparison's numbers of one forwarder in one environment from its points."""
    pts = [p for p in points if p["napi_env"] == env and p["forwarder"] == fw]
    if not pts:
        return None
    paced = sorted([p for p in pts if p["offered_pps"] != "flat-out"],
                   key=lambda p: p["offered_pps"])
    flat = [p for p in pts if p["offered_pps"] == "flat-out"]

    def at(rate):
        return next((p for p in paced if p["offered_pps"] == rate), None)
    s = {"napi_env": env, "forwarder": fw}
    for rate in LOSS_RATES:
        p = at(rate)
        s[f"loss_{rate // 1000}k_pct"] = p["loss_pct"] if p else float("nan")
    best = max(pts, key=lambda p: p["rx_pps"] if not nan(p["rx_pps"]) else -1)
    s["max_rx_pps"] = best["rx_pps"]
    s["max_at"] = best["offered_pps"]
    # Generator-limited: the generator did not offer the rate, or at flat-out the forwarder
    # lost < 1 % (it kept up with everything offered): the forwarder's max is higher.
    s["max_gen_limited"] = int(bool(best["gen_limited"]) or (
        best["offered_pps"] == "flat-out" and best["loss_pct"] < 1.0))
    s["flooded_pps"] = flat[0]["rx_pps"] if flat else float("nan")
    s["flooded_offered_pps"] = flat[0]["gen_pps"] if flat else float("nan")
    # Overload: the 2x point when measured, else flat-out (the most the generator offers).
    over = [p for p in paced if p["role"] == "overload"] or flat
    if over:
        o = over[0]
        s["overload_offered_pps"] = o["gen_pps"]
        s["overload_factor"] = o["gen_pps"] / s["max_rx_pps"] if s["max_rx_pps"] else float("nan")
        s["overload_point"] = "2x max" if o["role"] == "overload" else "flat-out"
        for k in ("lat_p50_us", "lat_p99_us", "rtt_ms", "lat_arrival_p50_us",
                  "lat_arrival_p99_us", "lat_queue_p50_us", "lat_queue_p99_us"):
            s[f"overload_{k}"] = o.get(k, float("nan"))
    fixed = at(FIXED_RATE)
    for k in ("lat_p50_us", "lat_p99_us", "rtt_ms", "rx_pps"):
        s[f"at500k_{k}"] = fixed[k] if fixed else float("nan")
    cpu = at(CPU_RATE)
    for k in ("cpu_fwd_pct", "cpu1_busy_pct", "cpu_ns_per_pkt"):
        s[f"at20k_{k}"] = cpu[k] if cpu else float("nan")
    below = [p for p in paced if p["offered_pps"] <= 0.8 * s["max_rx_pps"]
             and not p["gen_limited"]]
    s["loss_upto80_max_pct"] = max((p["loss_pct"] for p in below), default=float("nan"))
    s["loss_upto80_rates"] = " ".join(str(p["offered_pps"]) for p in below)
    s["cpu1_foreign_max_pct"] = max((p["cpu1_foreign_pct"] for p in pts
                                     if not nan(p["cpu1_foreign_pct"])), default=float("nan"))
    s["cpu1_foreign_median_pct"] = median([p["cpu1_foreign_pct"] for p in pts])
    return s


def ratio(a, b):
    if nan(a) or nan(b) or not b:
        return float("nan")
    return a / b


def pair_ratios(rows, env, num="fastpathd", den="afxdp-min"):
    """num / den per repetition, taken side by side (--interleave: repetition k of both ran
    one after the other): {"max": [...], "flooded": [...]}, in repetition order. A
    repetition's max is the highest rate it received at any point; its flooded rate the
    flat-out point's. Repetitions missing on either side are left out."""
    def by_rep(fw):
        reps = {}
        for r in rows:
            if r["napi_env"] == env and r["forwarder"] == fw and not nan(r["rx_pps"]):
                reps.setdefault(r["rep"], []).append(r)
        return reps
    a, b = by_rep(num), by_rep(den)
    out = {"max": [], "flooded": []}
    for rep in sorted(set(a) & set(b)):
        out["max"].append(ratio(max(r["rx_pps"] for r in a[rep]),
                                max(r["rx_pps"] for r in b[rep])))
        fa = [r["rx_pps"] for r in a[rep] if r["offered_pps"] == "flat-out"]
        fb = [r["rx_pps"] for r in b[rep] if r["offered_pps"] == "flat-out"]
        if fa and fb:
            out["flooded"].append(ratio(fa[0], fb[0]))
    return out


def pair_lines(rows, envs):
    """The report's pair-by-pair ratios (an interleaved run)."""
    L = ["\n## fastpathd / minimal AF_XDP, pair by pair\n",
         "Repetition k of each forwarder ran one after the other (`--interleave`): each "
         "ratio is taken side by side; median and range over the pairs.\n",
         "| environment | max received: per pair | median (range) | flooded: per pair | "
         "median (range) |", "|---|---|---|---|---|"]
    for env in envs:
        p = pair_ratios(rows, env)
        if not p["max"]:
            continue
        cells = []
        for key in ("max", "flooded"):
            v = [x for x in p[key] if not nan(x)]
            cells.append(", ".join(f"{x:.2f}" for x in v) or "n/a")
            cells.append(f"{median(v):.2f}x ({min(v):.2f}–{max(v):.2f})" if v else "n/a")
        L.append(f"| `{env}` | " + " | ".join(cells) + " |")
    return L


def targets_of(summaries, env):
    """fastpathd's ratios and targets in one environment: {key: (value, text, pass)}, pass
    None when a number is missing."""
    by = {s["forwarder"]: s for s in summaries if s["napi_env"] == env}
    fp = by.get("fastpathd")
    if not fp:
        return {}
    mn, xdp, kern = by.get("afxdp-min", {}), by.get("xdp", {}), by.get("kernel", {})

    def check(v, ok):
        return None if nan(v) else bool(ok(v))
    res = {}
    for key, num, den, floor in (("max_vs_min", "max_rx_pps", mn, 1.1),
                                 ("flooded_vs_min", "flooded_pps", mn, 1.1),
                                 ("max_vs_xdp", "max_rx_pps", xdp, 0.75),
                                 ("flooded_vs_xdp", "flooded_pps", xdp, 0.75)):
        v = ratio(fp[num], den.get(num, float("nan")))
        res[key] = (v, "n/a" if nan(v) else f"{v:.2f}x", check(v, lambda x, f=floor: x >= f))
    v = fp["loss_upto80_max_pct"]
    res["loss_upto80"] = (v, "n/a" if nan(v) else f"{v:.3f} % (max over "
                          f"{len(fp['loss_upto80_rates'].split())} rates)",
                          check(v, lambda x: x < 0.01))
    v = ratio(fp["flooded_pps"], fp["max_rx_pps"])
    res["flooded_vs_max"] = (v, "n/a" if nan(v) else f"{100 * v:.0f} %", check(v, lambda x: x >= 0.95))
    # With a kernel-stack D the forwarder's figure ends at D's stack (the kernel's receive
    # stamp): D's socket queue to its reader, which shares its CPU with the generator, is
    # D's, not the path's.
    v, where = fp.get("overload_lat_arrival_p99_us", float("nan")), ", to D's stack"
    if nan(v):
        v, where = fp.get("overload_lat_p99_us", float("nan")), ""
    res["p99_overload"] = (v, "n/a" if nan(v) else
                           f"{v / 1000:.2f} ms at {fp['overload_factor']:.1f}x "
                           f"({fp['overload_point']}{where})", check(v, lambda x: x <= 1000))
    v = ratio(fp["at20k_cpu_fwd_pct"], kern.get("at20k_cpu_fwd_pct", float("nan")))
    res["cpu_vs_kernel"] = (v, "n/a" if nan(v) else f"{v:.2f}x", check(v, lambda x: x <= 1.5))
    return res


def env_description(env):
    prio = NAPI_ENVS[env]
    napi = ("the kernel's default policy, SCHED_OTHER, at the weight of the forwarder's "
            f"scheduler autogroup (nice {BENCH_NICE} both: against each other as a user's "
            "nice 0, both raised against the machine's other work)" if prio is None
            else f"SCHED_FIFO {prio}")
    d = (f"; D a kernel-stack host: no XDP on its veth, a UDP socket read by fp-stack-sink "
         f"(recvmmsg, on CPU {GEN_CPU}), D's receive work on CPU {FWD_CPU} where R transmits "
         f"(no RPS); latency to the reader" if env in STACK_ENVS else "")
    if prio is None:
        napi += (" unless the forwarder changes it (fastpathd's port tuning: SCHED_FIFO 2 with "
                 "--napi-priority auto; its default, keep, leaves it)")
    return (f"`{env}`: R's veths with threaded NAPI, their NAPI threads pinned to CPU {FWD_CPU} "
            f"at {napi}; the forwarder pinned to CPU {FWD_CPU} (taskset) with its default "
            f"options, in a session and autogroup of its own (autogroup nice {BENCH_NICE}){d}")


def report_lines(summaries, envs, argv_by, plan):
    L = ["\n## Forwarding rate in NAPI environments (160-byte UDP, S - R - D)\n"]
    for env in envs:
        L.append(f"- {env_description(env)}")
    L.append(f"\nMedians of {plan.reps} repetitions of {plan.duration:g} s per point. Max "
             f"received: the highest median received rate at any offered rate, flat-out "
             f"included. Flooded: received at flat-out (offered the generator's maximum). "
             f"Overload: at 2x the forwarder's max when the generator can offer that, else "
             f"flat-out (x = offered / max). Latency: one-way, S's send time in the payload to "
             f"D's XDP sink (includes S's and D's veth hops). CPU: the forwarder's process and "
             f"R's NAPI threads (kernel and XDP: CPU {FWD_CPU}'s non-task time + NAPI threads), "
             f"% of one core; CPU 1 busy includes other work on the machine, shown in the last column "
             f"(CPU 1's busy time that was neither the forwarder nor R's NAPI threads). * = "
             f"generator-limited: the forwarder's max is higher.\n")
    for env in envs:
        rows = [s for s in summaries if s["napi_env"] == env]
        if not rows:
            continue
        L.append(f"\n### NAPI environment `{env}`\n")
        L.append("| forwarder | loss 50k / 100k / 150k / 200k (%) | max received (pkt/s) | "
                 "flooded (pkt/s) | overload: offered (x max) | one-way p50 / p99 there (µs) | "
                 "RTT there (ms) | at 500k: p99 (µs) / RTT (ms) | CPU at 20k: forwarder / "
                 "CPU 1 busy (%) | other work on CPU 1, median / max (%) |")
        L.append("|---|---|---|---|---|---|---|---|---|---|")
        for s in rows:
            loss = " / ".join("n/a" if nan(s[f"loss_{r // 1000}k_pct"])
                              else f"{s[f'loss_{r // 1000}k_pct']:.3f}" for r in LOSS_RATES)
            over = ("n/a" if nan(s.get("overload_offered_pps", float("nan"))) else
                    f"{fmt(s['overload_offered_pps'])} ({s['overload_factor']:.1f}x)")
            L.append(f"| {LABELS[s['forwarder']]} | {loss} | {fmt(s['max_rx_pps'])}"
                     f"{' *' if s['max_gen_limited'] else ''} | "
                     f"{fmt(s['flooded_pps'])} | {over} | "
                     f"{fmt(s.get('overload_lat_p50_us'))} / {fmt(s.get('overload_lat_p99_us'))} | "
                     f"{fmt(s.get('overload_rtt_ms'))} | {fmt(s['at500k_lat_p99_us'])} / "
                     f"{fmt(s['at500k_rtt_ms'])} | {fmt(s['at20k_cpu_fwd_pct'])} / "
                     f"{fmt(s['at20k_cpu1_busy_pct'])} | {fmt(s['cpu1_foreign_median_pct'])} / "
                     f"{fmt(s['cpu1_foreign_max_pct'])} |")
        if env in STACK_ENVS:
            L.append(f"\nWhere the one-way latency at overload goes, `{env}` (the kernel's "
                     f"receive stamp of each datagram at D, SO_TIMESTAMPNS, splits it: the "
                     f"send time to the datagram's arrival at D's stack, what the path and "
                     f"the forwarder add, and that arrival to D's reader, D's socket queue; "
                     f"the target on the p99 under overload takes the arrival, D's reader "
                     f"shares its CPU with the generator):\n")
            L.append("| forwarder | to D's reader p50 / p99 (µs) | to D's stack (arrival) "
                     "p50 / p99 (µs) | D's socket queue p50 / p99 (µs) |")
            L.append("|---|---|---|---|")
            for s in rows:
                L.append(f"| {LABELS[s['forwarder']]} | "
                         f"{fmt(s.get('overload_lat_p50_us'))} / "
                         f"{fmt(s.get('overload_lat_p99_us'))} | "
                         f"{fmt(s.get('overload_lat_arrival_p50_us'))} / "
                         f"{fmt(s.get('overload_lat_arrival_p99_us'))} | "
                         f"{fmt(s.get('overload_lat_queue_p50_us'))} / "
                         f"{fmt(s.get('overload_lat_queue_p99_us'))} |")
        t = targets_of(summaries, env)
        if t:
            L.append(f"\nfastpathd's targets, `{env}`:\n")
            L.append("| target | this run | met |\n|---|---|---|")
            for key, text in TARGETS:
                _, shown, ok = t[key]
                L.append(f"| {text} | {shown} | "
                         f"{'n/a' if ok is None else ('yes' if ok else 'NO')} |")
    if argv_by:
        L.append("\nCommands at R (first environment):\n")
        for fw, argv in argv_by.items():
            L.append(f"- {LABELS[fw]}: " + ("`sysctl -w net.ipv4.ip_forward=1` and static routes"
                                            if fw == "kernel" else
                                            f"`taskset -c {FWD_CPU} {' '.join(argv)}`"))
    return L


class FwdRateRun:
    """The comparison: the topology, the generator's ceiling, then per environment every
    forwarder's points."""

    def __init__(self, args, tools, forwarders, envs, skipped):
        self.args, self.tools, self.forwarders, self.envs = args, tools, forwarders, envs
        self.skipped = skipped
        self.plan = Plan(args)
        self.clean = Cleanup()
        self.rows, self.stage_log, self.failures = [], [], []
        self.ceiling = {}   # of the generator that sends the unheld points
        self.ceilings = {}  # per generator, measured side by side
        self.placement = []
        self.argv_by = {}
        self.extra_rates = {}  # (env, forwarder): its 80 % and 2x-max rates

    def measure(self):
        return run_cleaning_up(self._measure, self.clean, self.failures)

    def _measure(self):
        topo = Topology("m", 1, self.clean)
        topo.sender_qdisc = self.args.sender_qdisc
        topo.build()
        self.placement = topo.placement
        # Both generators' ceilings alternate (packet, xdp-live, packet, ...): side by side.
        gens = ["packet"] + (["xdp-live"] if self.args.generator == "xdp-live" else [])
        tries = {g: [] for g in gens}
        for _ in range(1 if self.args.smoke else 3):
            for g in gens:
                tries[g].append(generator_ceiling(self.tools, topo, PAYLOAD,
                                                  min(self.plan.duration, 1.0), generator=g))
        for g in gens:
            c = max(tries[g], key=lambda c: c["sent_pps"])
            c["tries_sent_pps"] = [round(t["sent_pps"]) for t in tries[g]]
            self.ceilings[g] = c
            log(f"generator ceiling ({g}), {PAYLOAD} B: sent {c['sent_pps']:,.0f} pkt/s "
                f"(tries {c['tries_sent_pps']})")
        self.ceiling = self.ceilings[gens[-1]]
        sink = None
        for env in self.envs:
            # The XDP sink, or in a kernel-stack environment the socket sink.
            want = StackSink if env in STACK_ENVS else Sink
            if not isinstance(sink, want):
                if sink:
                    sink.close()
                sink = want(self.tools, topo)
            topo.napi_env = env
            topo.pin_napi()
            log(f"NAPI environment {env}: {env_description(env)}")
            if self.args.interleave:
                for rep in range(self.plan.reps):
                    for fw in self.forwarders:
                        self.forwarder(topo, sink, env, fw, [rep])
            else:
                for fw in self.forwarders:
                    self.forwarder(topo, sink, env, fw, range(self.plan.reps))
        if sink:
            sink.close()
        topo.destroy()

    def forwarder(self, topo, sink, env, fw, reps):
        """Forwarder `fw` started, its points measured for repetitions `reps`, stopped."""
        plan, args = self.plan, self.args
        f = Forwarder(fw, self.tools, topo, as_user=True,
                      fastpathd_args=args.fastpathd_args.split())
        measured = {}

        def point(rate, role):
            rs = []
            for rep in reps:
                logged = len(self.stage_log)
                # Below saturation S's qdisc holds the generator's bursts while R's ring is
                # full (what a sending host's NIC queue does). Overload (flat-out, 2x max)
                # without it: veth wakes S's queue from R's NAPI poll, so S's qdisc would be
                # drained on R's CPU, and its queue would add S's waiting to the latency.
                held = rate is not None and role != "overload"
                # --generator xdp-live: the unheld points (no qdisc at S to hold a burst)
                # come from fp-xdpgen, whose ceiling is higher; held ones from fp-trafgen.
                gen = "packet" if held else args.generator
                row = run_udp_point(self.tools, topo, sink, meter, rate, PAYLOAD, args.flows,
                                    plan.duration, stages, held=held, generator=gen)
                row["sender_qdisc"] = topo.sender_qdisc if held else "noqueue"
                row.update({"napi_env": env, "forwarder": fw, "role": role, "rep": rep,
                            "payload": PAYLOAD})
                if len(self.stage_log) > logged:
                    self.stage_log[-1].update({"napi_env": env, "forwarder": fw, "rep": rep})
                self.rows.append(row)
                rs.append(row)
                log(f"{env:7s} {fw:9s} offered {row['offered_pps']!s:>8} rx "
                    f"{row['rx_pps']:>9,.0f} pkt/s loss {row['loss_pct']:7.3f}% p99 "
                    f"{row['lat_p99_us']:8.0f} us rtt {row['rtt_ms']:.3f} ms cpu "
                    f"{row['cpu_fwd_pct']:5.1f}%{' GEN-LIMITED' if row['gen_limited'] else ''}")
            gone = f.exited()
            if gone:
                raise RuntimeError("exited during the measurement: " + "; ".join(
                    f"{name} (exit {code}, log {logp})" for name, code, logp in gone))
            measured[rate] = rs
            return rs
        try:
            with failure_recorded(self.failures, f"{fw} ({env})"):
                f.start()
                if f.argv and fw not in self.argv_by:
                    self.argv_by[fw] = f.argv[0]
                elif fw not in self.argv_by:
                    self.argv_by[fw] = self.forwarder_argv(f, topo)
                meter = CpuMeter(f.pids(), topo.router_napi_pids(), fw)
                stages = (StageCounters(self.tools, topo, f.fpctl_sockets(), log=self.stage_log)
                          if args.stages else None)
                bad = 0
                for rate in plan.rates:
                    if rate is not None and bad >= 2:
                        continue
                    rs = point(rate, "sweep")
                    if rate is not None and median([r["loss_pct"] for r in rs]) > 50:
                        bad += 1
                if plan.extra:
                    # Interleaved, every repetition measures the 80 % and 2x points of the
                    # forwarder's first: one rate per point, whatever the later maxima.
                    if (env, fw) not in self.extra_rates:
                        mx = max(median([r["rx_pps"] for r in rs]) for rs in measured.values())
                        self.extra_rates[(env, fw)] = (nice_rate(0.8 * mx), nice_rate(2 * mx))
                    r80, r2 = self.extra_rates[(env, fw)]
                    if r80 >= 1000 and r80 not in measured:
                        point(r80, "80% of max")
                    if r2 <= 0.9 * self.ceiling.get("sent_pps", 0) and r2 not in measured:
                        point(r2, "overload")
        finally:
            f.stop()

    @staticmethod
    def forwarder_argv(f, topo):
        if f.kind == "kernel":
            return []
        return [os.path.basename(f.tools[f.kind]), "--ifname", topo.r_in(0), "--ifname",
                topo.r_out(0), "--route", "..."]

    def write_outputs(self, started):
        out = self.args.out
        points = point_medians(self.rows)
        summaries = [s for env in self.envs for fw in self.forwarders
                     for s in [summary_of(points, env, fw)] if s]
        targets = {env: {k: {"value": v, "shown": shown, "met": ok}
                         for k, (v, shown, ok) in targets_of(summaries, env).items()}
                   for env in self.envs}
        write_csv(os.path.join(out, "fwdrate_raw.csv"), self.rows, digits=7)
        write_csv(os.path.join(out, "fwdrate_points.csv"), points, digits=7)
        write_csv(os.path.join(out, "fwdrate_summary.csv"), summaries, digits=7)
        with open(os.path.join(out, "fwdrate.json"), "w") as f:
            json.dump({"summary": summaries, "targets": targets,
                       "pair_ratios": ({env: pair_ratios(self.rows, env) for env in self.envs}
                                       if self.args.interleave else None),
                       "generator_ceiling": self.ceiling, "generator_ceilings": self.ceilings,
                       "generator": self.args.generator}, f, indent=1, default=str)
        if self.stage_log:
            with open(os.path.join(out, "stages.jsonl"), "w") as f:
                for e in self.stage_log:
                    f.write(json.dumps(e, sort_keys=True) + "\n")
        L = ["# ns3-fastpath benchmark results: forwarding rate\n",
             f"Run: {started} UTC, {time.time() - self.args.t0:.0f} s; command: "
             f"`{' '.join(self.args.argv)}`\n", "## Machine\n"]
        for k, v in machine_info().items():
            L.append(f"- {k}: {v}")
        L.append(f"- load average (1/5/15 min) at start: {self.args.load_start}")
        if "fastpathd" in self.tools:
            L.append(f"- fastpathd: `{self.tools['fastpathd']}`")
        for g, c in self.ceilings.items():
            L.append(f"- generator ceiling, {GENERATOR_NAMES[g]} ({PAYLOAD} B, flat-out into "
                     f"an XDP sink at R, best of {len(c['tries_sent_pps'])}): "
                     f"{c['sent_pps']:,.0f} pkt/s (tries: "
                     f"{', '.join(f'{t:,}' for t in c['tries_sent_pps'])})")
        L.append(f"- generator of the points with S's qdisc held (paced below overload): "
                 f"{GENERATOR_NAMES['packet']}; of flat-out and the 2x-max overload point: "
                 f"{GENERATOR_NAMES[self.args.generator]}")
        fl = [s["cpu1_foreign_max_pct"] for s in summaries if not nan(s["cpu1_foreign_max_pct"])]
        if fl:
            L.append(f"- other work on CPU {FWD_CPU} during the points (cpu1_foreign_pct, "
                     f"median per point): at most {max(fl):.0f} %")
        L.append("\n## CPU placement\n")
        for p in self.placement:
            L.append(f"- {p}")
        L += report_lines(summaries, self.envs, self.argv_by, self.plan)
        if self.args.interleave:
            L += pair_lines(self.rows, self.envs)
        skipped = self.skipped + [f"FAILED {f}" for f in self.failures]
        if skipped:
            L.append("\n## Skipped\n")
            L += [f"- {s}" for s in skipped]
        with open(os.path.join(out, "results.md"), "w") as f:
            f.write("\n".join(L) + "\n")
        log(f"results in {os.path.abspath(out)} (results.md, fwdrate_*.csv, fwdrate.json)")
        for s in summaries:
            log(f"summary {s['napi_env']:7s} {s['forwarder']:9s} max {s['max_rx_pps']:,.0f} "
                f"flooded {s['flooded_pps']:,.0f} pkt/s, p99 under overload "
                f"{s.get('overload_lat_p99_us', float('nan')):,.0f} us, CPU at 20k "
                f"{s['at20k_cpu_fwd_pct']:.1f} %")
        if self.args.interleave:
            for env in self.envs:
                p = pair_ratios(self.rows, env)
                for key in ("max", "flooded"):
                    v = [x for x in p[key] if not nan(x)]
                    if v:
                        log(f"pairs {env:7s} fastpathd / minimal AF_XDP {key}: median "
                            f"{median(v):.2f}x over {len(v)} pairs ({min(v):.2f}-{max(v):.2f})")
        for env, t in targets.items():
            for key, text in TARGETS:
                if key in t:
                    met = t[key]["met"]
                    log(f"target {env:7s} {text}: {t[key]['shown']} -> "
                        f"{'n/a' if met is None else ('met' if met else 'NOT met')}")

    def smoke_failures(self):
        """Every forwarder produced numbers in every environment and forwarded something."""
        missing = []
        for env in self.envs:
            for fw in self.forwarders:
                got = [r for r in self.rows if r["napi_env"] == env and r["forwarder"] == fw]
                if not got:
                    missing.append(f"{fw} ({env}): no numbers")
                elif sum(r["rx_pps"] for r in got) <= 0:
                    missing.append(f"{fw} ({env}): forwarded nothing")
        return missing


def fwdrate_main(args, tools, forwarders, skipped):
    envs = [e for e in args.napi_env.split(",") if e]
    run = FwdRateRun(args, tools, forwarders, envs, skipped)
    started = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
    rc = run.measure()
    run.write_outputs(started)
    if args.smoke and rc == 0:
        run.failures += run.smoke_failures()
        for f in run.failures:
            print(f"SMOKE FAILURE: {f}")
        rc = 1 if run.failures else 0
    elif run.failures and rc == 0:
        rc = 1
    return rc
