# SPDX-License-Identifier: GPL-2.0-only
"""The command line: options, the run plan, the measurements in order, the outputs, and the
smoke check (every available forwarder produced numbers)."""

import argparse
import dataclasses
import json
import os
import re
import signal
import sys
import time

from .settings import BENCH_NICE, LABELS, LINE_FORWARDERS, LINE_ONLY, LINE_TTL, NAPI_ENVS, ONE_PROCESS_LINE, SENDER_QDISC, SENDER_QDISCS, V6_SKIP
from .proc import Cleanup, failure_recorded, log, run_cleaning_up
from .topology import Topology
from .forwarders import Forwarder, OlsrScenario
from .meter import CpuMeter, Sink, StageCounters
from .scenarios import generator_ceiling, run_line_point, run_tcp, run_udp_point
from .stats import METRICS, line_summary, ratios, summarize
from .plots import plot_all
from .report import machine_info, write_csv, write_report
from .tools import find_tools
from .fwdrate import FWDRATE_FORWARDERS, fwdrate_main

# The source tree: bench/fastpath_bench/cli.py -> the top.
_TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read_autogroup_nice():
    """The nice of this session's autogroup ("/autogroup-19 nice 0"), or None."""
    try:
        with open("/proc/self/autogroup") as f:
            m = re.search(r"nice\s+(-?\d+)", f.read())
    except OSError:
        return None
    return int(m.group(1)) if m else None


def parse_args(argv):
    ap = argparse.ArgumentParser(description="ns3-fastpath benchmark harness.")
    ap.add_argument("--build-dir", default=os.path.join(_TOP, "build"),
                    help="CMake build directory holding bench/fp-* and bin/fastpathd")
    ap.add_argument("--fastpathd-build", default=None,
                    help="take fastpathd and fpctl from this CMake build directory instead "
                    "of --build-dir (e.g. a build of another revision)")
    ap.add_argument("--out", default="bench-results", help="output directory")
    ap.add_argument("--quick", action="store_true", help="every forwarder, few points, < 3 min")
    ap.add_argument("--smoke", action="store_true", help="smallest run (ctest)")
    ap.add_argument("--forwarders", default=None,
                    help="comma list of " + ", ".join(LINE_FORWARDERS) + " (default: all; "
                    "with --napi-env " + ",".join(FWDRATE_FORWARDERS) + "); "
                    + ", ".join(LINE_ONLY) + " runs in the line scenario only")
    ap.add_argument("--napi-env", default=None,
                    help="comma list of " + ", ".join(NAPI_ENVS) + ": the forwarding-rate "
                    "comparison instead of the full run - S-R-D, 160-byte UDP, every "
                    "forwarder started as a user starts it, in each NAPI environment of R "
                    "(default: R's NAPI threads at the kernel's default priority; rt: at "
                    "SCHED_FIFO 50); loss at 50k-200k pkt/s, max received, flooded, "
                    "latency under overload, CPU at 20k pkt/s, fastpathd's ratios and targets")
    ap.add_argument("--payloads", default=None, help="comma list, default 160,1470")
    ap.add_argument("--rates", default=None, help="comma list of offered packets/s")
    ap.add_argument("--reps", type=int, default=None)
    ap.add_argument("--duration", type=float, default=None, help="seconds per point")
    ap.add_argument("--flows", type=int, default=16)
    ap.add_argument("--line", default=None, help="router counts of the line scenario, "
                    "default 1,2,4,8,16,32; 'none' to skip")
    ap.add_argument("--line-pps", type=int, default=12500,
                    help="UDP rate of the line scenario (default 12500 = 16 Mbit/s at 160 B, "
                    "the thesis's rate); its loss-free search starts there")
    ap.add_argument("--line-max-pps", type=int, default=None,
                    help="highest rate of the line's loss-free search (doubling from "
                    "--line-pps, then refined; default 800000, --quick 50000, --smoke "
                    "25000); 0 = measure at --line-pps only")
    ap.add_argument("--sweep", action=argparse.BooleanOptionalAction, default=True,
                    help="the S-R-D UDP sweeps and TCP runs; --no-sweep runs only the "
                    "generator ceiling, the line and the OLSR scenario (default on)")
    ap.add_argument("--no-tcp", action="store_true")
    ap.add_argument("--fastpathd-args", default="",
                    help="extra flags for fastpathd, e.g. '--idle-poll-us 0' (printed in the report)")
    ap.add_argument("--stages", action=argparse.BooleanOptionalAction, default=True,
                    help="per-stage loss accounting around every S-R-D point (veth, XDP and "
                    "fastpathd counters; st_* columns, stages.jsonl); default on")
    ap.add_argument("--sender-qdisc", default=SENDER_QDISC, choices=SENDER_QDISCS,
                    help="qdisc on S's veth, the generator sending through it (default "
                    f"{SENDER_QDISC}, a NIC's default); 'noqueue': the veth as created, the "
                    "generator bypassing the qdisc layer, so bursts that find R's veth ring "
                    "full are dropped at S")
    ap.add_argument("--generator", default="packet", choices=["packet", "xdp-live"],
                    help="--napi-env: what sends flat-out and the 2x-max overload point, the "
                    "points without S's qdisc: 'packet' (fp-trafgen, a packet socket, the "
                    "skb path of a host's stack; default) or 'xdp-live' (fp-xdpgen, XDP live "
                    "frames redirected into R's veth, a higher ceiling). The paced points "
                    "below overload, held by S's qdisc, always use fp-trafgen")
    ap.add_argument("--interleave", action="store_true",
                    help="--napi-env: the forwarders' repetitions in turn (A B A B ...), each "
                    "forwarder started for each of its repetitions, so that fastpathd's "
                    "ratios are also taken pair by pair (repetition k of each forwarder "
                    "side by side); default: every repetition of one forwarder, then the "
                    "next's")
    ap.add_argument("--olsr", default="ns3-olsr,fastpathd-olsr",
                    help="routing scenario variants (ns3-olsr, fastpathd-olsr) or 'none'")
    ap.add_argument("--family", default=None, choices=["4", "6", "4,6", "6,4"],
                    help="IP version(s) of the S-R-D UDP sweeps: 4 (default), 6 or 4,6. With "
                    "this option results carry a 'family' column and per-family sections; "
                    "forwarders without IPv6 (ns-3, raw socket) are skipped for 6; the "
                    "line, TCP and OLSR scenarios stay IPv4 (run only when 4 is included)")
    args = ap.parse_args(argv)
    if args.napi_env is not None:
        bad = [e for e in args.napi_env.split(",") if e not in NAPI_ENVS]
        if bad or not args.napi_env:
            ap.error(f"--napi-env takes a comma list of {', '.join(NAPI_ENVS)}, not "
                     f"'{args.napi_env}'")
        if args.sender_qdisc == "noqueue" and args.generator == "xdp-live":
            ap.error("--generator xdp-live takes the points without S's qdisc; with "
                     "--sender-qdisc noqueue every point is one: use --generator packet")
        if args.family or args.line or args.payloads:
            ap.error("--napi-env runs the IPv4 160-byte S-R-D comparison only: no --family, "
                     "--line or --payloads with it")
    elif args.generator != "packet" or args.interleave:
        ap.error("--generator and --interleave are options of --napi-env")
    if args.forwarders is None:
        args.forwarders = ",".join(FWDRATE_FORWARDERS if args.napi_env else LINE_FORWARDERS)
    args.argv = ["python3", "bench/fastpath_bench.py"] + list(argv)
    args.t0 = time.time()
    with open("/proc/loadavg") as f:
        args.load_start = " ".join(f.read().split()[:3])
    return args


@dataclasses.dataclass
class Plan:
    """What a run measures: its points, repetitions and scenarios."""
    payloads: list
    rates: list          # offered packets/s, None = flat out
    reps: int
    duration: float      # seconds per point
    line_ns: list        # router counts of the line scenario
    line_cap: int        # highest rate of the line's loss-free search (0: --line-pps only)
    tcp_dur: float
    olsr_rates: list
    families: list       # IP versions of the S-R-D sweeps
    with_family: bool    # --family given: results carry a family column

    @staticmethod
    def of(args):
        if args.smoke:
            payloads, rates, reps, duration = [160], [10000, None], 1, 0.5
            line_ns, line_cap, tcp_dur, olsr_rates = [2], 25000, 1.0, [10000]
        elif args.quick:
            payloads, rates, reps, duration = [160], [10000, 160000, 320000, None], 1, 1.0
            line_ns, line_cap, tcp_dur, olsr_rates = [4], 50000, 1.0, [10000, None]
        else:
            payloads = [160, 1470]
            # Finer near the knees (fastpathd, kernel: 160k-640k) so the loss-free rate is not
            # quantized at a factor of two.
            rates = [5000, 10000, 20000, 40000, 80000, 160000, 240000, 320000, 400000, 480000,
                     640000, 1000000, None]
            reps, duration = 3, 1.5
            line_ns, line_cap, tcp_dur = [1, 2, 4, 8, 16, 32], 800000, 2.0
            olsr_rates = [5000, 20000, 40000, 80000, 160000, 240000, 320000, 400000, None]
        if args.payloads:
            payloads = [int(x) for x in args.payloads.split(",")]
        if args.rates:
            rates = [None if x == "flat" else int(x) for x in args.rates.split(",")]
        if args.reps:
            reps = args.reps
        if args.duration:
            duration = args.duration
        if args.line:
            line_ns = [] if args.line == "none" else [int(x) for x in args.line.split(",")]
        if args.line_max_pps is not None:
            line_cap = args.line_max_pps
        # --family: None keeps the IPv4-only run and its output exactly as before.
        with_family = args.family is not None
        families = sorted(int(x) for x in args.family.split(",")) if with_family else [4]
        if 4 not in families:
            if line_ns:
                log("line scenario skipped: IPv4 only (--family 6)")
            line_ns = []
            args.no_tcp = True
            log("TCP bulk skipped: IPv4 only (--family 6)")
        return Plan(payloads, rates, reps, duration, line_ns, line_cap, tcp_dur, olsr_rates,
                    families, with_family)


def available_forwarders(args, tools, skipped):
    """The forwarders asked for whose programs exist; the others are added to `skipped`."""
    forwarders = []
    for f in [f for f in args.forwarders.split(",") if f]:
        if f not in LINE_FORWARDERS:
            raise SystemExit(f"fastpath_bench: unknown forwarder '{f}' (--forwarders takes "
                             f"{', '.join(LINE_FORWARDERS)})")
        tool = "fastpathd" if f == "fastpathd-nodes" else f
        if f == "kernel" or tool in tools:
            forwarders.append(f)
        else:
            msg = {"ns3": "fp-ns3-fdfwd not built (ns-3 not found by pkg-config?)",
                   "fastpathd": f"fastpathd binary not found under {args.build_dir}/bin",
                   }.get(tool, f"binary for {f} not found")
            skipped.append(f"{LABELS.get(f, f)}: skipped, {msg}")
            log(f"SKIP {f}: {msg}")
    return forwarders


def olsr_variants(args, tools, plan, skipped):
    """The routing scenario variants to run (their programs exist, IPv4 is in the run)."""
    kinds = []
    if args.olsr != "none" and 4 not in plan.families:
        log("routing scenario (OLSR) skipped: IPv4 only (--family 6)")
    elif args.olsr != "none":
        for k in args.olsr.split(","):
            need = ["olsr"] + (["fastpathd"] if k == "fastpathd-olsr" else [])
            missing = [n for n in need if n not in tools]
            if missing:
                msg = f"{k}: skipped, missing " + ", ".join(
                    {"olsr": "ns3-module/examples/olsr-router",
                     "fastpathd": "bin/fastpathd"}[n] for n in missing)
                skipped.append(msg)
                log("SKIP " + msg)
            else:
                kinds.append(k)
    return kinds


def raise_autogroup_priority():
    """With sched_autogroup (on here), nice only counts within a session's group: other
    sessions' builds each get a full group share whatever our processes' nice. Raises this
    session's group weight for the run; children inherit the group. Returns the old nice to
    restore, or None (kernels without autogroup, or containers: left alone)."""
    old = read_autogroup_nice()
    if old is None:
        log("scheduler autogroup not available here; left as is")
        return None
    try:
        with open("/proc/self/autogroup", "w") as f:
            f.write(str(BENCH_NICE))
        log(f"scheduler autogroup of this session set to nice {BENCH_NICE} for the run")
        return old
    except OSError as e:
        log(f"scheduler autogroup left as is ({e.strerror})")
        return None


def restore_autogroup_priority(old):
    if old is None:
        return
    try:
        with open("/proc/self/autogroup", "w") as f:
            f.write(str(old))
    except OSError:
        pass


class Run:
    """One benchmark run: the measurements in order, and the rows they produce."""

    def __init__(self, args, plan, tools, forwarders, olsr_kinds, skipped):
        self.args, self.plan, self.tools = args, plan, tools
        self.forwarders, self.olsr_kinds, self.skipped = forwarders, olsr_kinds, skipped
        self.clean = Cleanup()
        self.fastpathd_args = args.fastpathd_args.split()
        self.sweep_rows, self.tcp_rows, self.line_rows, self.tcp_line_rows = [], [], [], []
        self.line_counters = []  # fastpathd-nodes' counters after each N (line_counters.jsonl)
        self.ceilings, self.olsr_rows = [], []
        self.stage_log = []  # counters of every UDP point with stage accounting
        self.failures = []
        self.placement = []

    def measure(self):
        """Every scenario; returns the exit code (0, 1 on error, 130 when interrupted).
        Whatever was started is removed at the end, whatever happened."""
        return run_cleaning_up(self._measure, self.clean, self.failures)

    def _measure(self):
        topo = Topology("m", 1, self.clean, ipv6=6 in self.plan.families)
        topo.sender_qdisc = self.args.sender_qdisc
        topo.build()
        self.placement = topo.placement
        for p in self.placement:
            log("placement: " + p)
        ceiling_pps = self.generator_ceilings(topo)
        sink = Sink(self.tools, topo)
        for fw in self.forwarders if self.args.sweep else []:
            if fw not in LINE_ONLY:
                self.sweep(topo, sink, fw, ceiling_pps)
        if self.olsr_kinds:
            self.routing_scenario(topo, sink)
        sink.close()
        topo.destroy()
        for n in self.plan.line_ns:
            self.line(n)

    def generator_ceilings(self, topo):
        ceiling_pps = {}
        for payload in self.plan.payloads:
            # Best of three short flat-out runs: the machine is shared, one run can be unlucky.
            c = max((generator_ceiling(self.tools, topo, payload, min(self.plan.duration, 1.0))
                     for _ in range(1 if self.args.smoke else 3)), key=lambda c: c["sent_pps"])
            self.ceilings.append(c)
            ceiling_pps[payload] = c["sent_pps"]
            log(f"generator ceiling, {payload} B: sent {c['sent_pps']:,.0f} pkt/s, "
                f"received at R {c['received_at_r_pps']:,.0f} pkt/s")
        return ceiling_pps

    def sweep(self, topo, sink, fw, ceiling_pps):
        """The S-R-D UDP sweeps of one forwarder (each family it forwards) and its TCP bulk
        runs."""
        args, plan = self.args, self.plan
        fams = [fam for fam in plan.families if fam == 4 or fw not in V6_SKIP]
        for fam in plan.families:
            if fam not in fams:
                msg = f"{LABELS[fw]}, IPv6: skipped, {V6_SKIP[fw]}"
                self.skipped.append(msg)
                log("SKIP " + msg)
        if not fams:
            return
        f = Forwarder(fw, self.tools, topo, fastpathd_args=self.fastpathd_args)
        try:
            with failure_recorded(self.failures, fw):
                f.start()
                meter = CpuMeter(f.pids(), topo.router_napi_pids(), fw)
                stages = (StageCounters(self.tools, topo, f.fpctl_sockets(), log=self.stage_log)
                          if args.stages else None)
                for fam, payload in [(fam, p) for fam in fams for p in plan.payloads]:
                    self.sweep_points(topo, sink, meter, stages, fw, fam, payload, ceiling_pps)
                if not args.no_tcp:
                    for rep in range(plan.reps):
                        t = run_tcp(self.tools, topo, plan.tcp_dur)
                        t.update({"forwarder": fw, "rep": rep, "routers": 1})
                        self.tcp_rows.append(t)
                        log(f"{fw:9s} TCP {t['tcp_mbps']:.1f} Mbit/s rtt {t['rtt_ms']:.3f} ms")
        finally:
            f.stop()

    def sweep_points(self, topo, sink, meter, stages, fw, fam, payload, ceiling_pps):
        plan = self.plan
        bad = 0
        fam_tag = f" IPv{fam}" if plan.with_family else ""
        for rate in plan.rates:
            if rate is not None and bad >= 2:
                continue  # saturated twice: only the flat-out point is left
            if rate is not None and rate > 3 * ceiling_pps.get(payload, 1e12):
                continue  # far above anything the generator offered here
            for rep in range(plan.reps):
                logged = len(self.stage_log)
                row = run_udp_point(self.tools, topo, sink, meter, rate, payload,
                                    self.args.flows, plan.duration, stages, family=fam)
                row.update({"forwarder": fw, "payload": payload, "rep": rep})
                if plan.with_family:
                    row["family"] = fam
                if len(self.stage_log) > logged:
                    self.stage_log[-1].update({"forwarder": fw, "rep": rep})
                    if plan.with_family:
                        self.stage_log[-1]["family"] = fam
                self.sweep_rows.append(row)
                log(f"{fw:9s}{fam_tag} {payload:4d}B offered "
                    f"{row['offered_pps']!s:>8} "
                    f"rx {row['rx_pps']:>11,.0f} pkt/s loss {row['loss_pct']:6.2f}% "
                    f"rtt {row['rtt_ms']:.3f} ms cpu {row['cpu_fwd_pct']:5.1f}%"
                    f"{' GEN-LIMITED' if row['gen_limited'] else ''}")
            if rate is not None and row["loss_pct"] > 50:
                bad += 1

    def routing_scenario(self, topo, sink):
        """ns-3 OLSR at R, as plain FdNetDevice emulation and as fastpathd's control plane."""
        plan = self.plan
        sc = OlsrScenario(self.tools, topo, fastpathd_args=self.fastpathd_args)
        try:
            sc.setup()
            for kind in self.olsr_kinds:
                with failure_recorded(self.failures, kind):
                    procs = sc.start(kind)
                    try:
                        meter = CpuMeter([p.pid for p in procs], topo.router_napi_pids(), kind)
                        for rate in plan.olsr_rates:
                            for rep in range(plan.reps):
                                row = run_udp_point(self.tools, topo, sink, meter, rate, 160,
                                                    self.args.flows, plan.duration)
                                row.update({"forwarder": kind, "payload": 160, "rep": rep})
                                if plan.with_family:
                                    row["family"] = 4
                                self.olsr_rows.append(row)
                                log(f"{kind:14s} offered {row['offered_pps']!s:>8} rx "
                                    f"{row['rx_pps']:>11,.0f} pkt/s loss "
                                    f"{row['loss_pct']:6.2f}% rtt {row['rtt_ms']:.3f} ms "
                                    f"cpu {row['cpu_fwd_pct']:5.1f}%")
                    finally:
                        sc.stop(procs)
        finally:
            sc.teardown()

    def line(self, n):
        """The line of n routers: S - R1 .. Rn - D as n router namespaces with a forwarder
        each (Linux, XDP, raw socket, n fastpathd daemons), then S - R - D with the n routers
        inside one process in R (ns-3 --routers n; fastpathd-nodes: one fastpathd, n nodes)."""
        per_ns = [fw for fw in LINE_FORWARDERS
                  if fw in self.forwarders and fw not in ONE_PROCESS_LINE]
        one = [fw for fw in LINE_FORWARDERS if fw in self.forwarders and fw in ONE_PROCESS_LINE]
        for fws, routers, tag in ((per_ns, n, f"l{n}"), (one, 1, f"l{n}p")):
            if not fws:
                continue
            lt = Topology(tag, routers, self.clean, ttl=LINE_TTL)
            lt.sender_qdisc = self.args.sender_qdisc
            lt.build()
            ls = Sink(self.tools, lt)
            for fw in fws:
                self.line_forwarder(lt, ls, fw, n)
            ls.close()
            lt.destroy()

    def line_forwarder(self, lt, ls, fw, n):
        """One forwarder at one N of the line; fastpathd-nodes' counters (every node, every
        link) are kept afterwards."""
        plan = self.plan
        keep = None
        if fw == "fastpathd-nodes":
            keep = os.path.join(self.args.out, "fastpathd-nodes")
            os.makedirs(keep, exist_ok=True)
        f = Forwarder(fw, self.tools, lt, nodes=n, fastpathd_args=self.fastpathd_args,
                      keep_dir=keep)
        try:
            with failure_recorded(self.failures, f"{fw} line N={n}"):
                f.start()
                meter = CpuMeter(f.pids(), lt.router_napi_pids(), fw)
                run_line_point(self.tools, lt, ls, meter, fw, n, self.args, plan.reps,
                               plan.duration, plan.tcp_dur, self.line_rows, self.tcp_line_rows,
                               cap=plan.line_cap, ttl=LINE_TTL)
                gone = f.exited()
                if gone:
                    raise RuntimeError("exited during the measurement: " + "; ".join(
                        f"{name} (exit {rc}, log {logp})" for name, rc, logp in gone))
        finally:
            if f.procs and fw == "fastpathd-nodes":
                self.line_counters.append({"forwarder": fw, "routers": n,
                                           "argv": f.argv[0] if f.argv else [],
                                           "counters": f.counters()})
            f.stop()

    def write_outputs(self, started):
        """CSV, stages.jsonl, plots, results.md and ratios.json in --out."""
        args, plan = self.args, self.plan
        point_keys = (["forwarder", "payload", "offered_pps"]
                      + (["family"] if plan.with_family else []))
        sweep_sum = summarize(self.sweep_rows, point_keys, METRICS)
        olsr_sum = summarize(self.olsr_rows, point_keys, METRICS)
        tcp_sum = summarize(self.tcp_rows, ["forwarder"], ["tcp_mbps", "rtt_ms"])
        line_sum = summarize(self.line_rows, ["forwarder", "routers", "offered_pps"], METRICS)
        tcp_line_sum = summarize(self.tcp_line_rows, ["forwarder", "routers"],
                                 ["tcp_mbps", "rtt_ms"])
        line_res = line_summary(line_sum, tcp_line_sum, args.line_pps)
        for name, rows in [("udp_sweep_raw.csv", self.sweep_rows), ("udp_sweep.csv", sweep_sum),
                           ("tcp.csv", tcp_sum), ("line_udp.csv", line_sum),
                           ("line_udp_raw.csv", self.line_rows),
                           ("line_tcp.csv", tcp_line_sum), ("line_summary.csv", line_res),
                           ("generator_ceiling.csv", self.ceilings), ("olsr.csv", olsr_sum),
                           ("olsr_raw.csv", self.olsr_rows)]:
            write_csv(os.path.join(args.out, name), rows)
        for name, entries in (("stages.jsonl", self.stage_log),
                              ("line_counters.jsonl", self.line_counters)):
            if entries:
                with open(os.path.join(args.out, name), "w") as f:
                    for e in entries:
                        f.write(json.dumps(e, sort_keys=True) + "\n")

        def of_family(rows, fam):
            return [r for r in rows if r.get("family", 4) == fam]
        if plan.with_family:
            # One plot, ratio table and sweep section per family; IPv4's keep their names.
            plots = []
            for fam in plan.families:
                plots += plot_all(args.out, of_family(sweep_sum, fam),
                                  line_res if fam == 4 else [], of_family(olsr_sum, fam),
                                  suffix="" if fam == 4 else "_ipv6",
                                  line_searched=plan.line_cap > 0)
            rat_fam = {fam: ratios(of_family(sweep_sum + olsr_sum, fam)) for fam in plan.families}
            rat = rat_fam.get(4, {})
            sections = [(f"IPv{fam}", of_family(sweep_sum + olsr_sum, fam), rat_fam[fam])
                        for fam in plan.families]
        else:
            plots = plot_all(args.out, sweep_sum, line_res, olsr_sum,
                             line_searched=plan.line_cap > 0)
            rat = ratios(sweep_sum + olsr_sum)
            rat_fam = {4: rat}
            sections = [("", sweep_sum + olsr_sum, rat)]
        skipped = self.skipped + [f"FAILED {f}" for f in self.failures]
        write_report(args.out, args, machine_info(), self.placement, self.ceilings,
                     sweep_sum + olsr_sum, line_sum, tcp_sum, tcp_line_sum, skipped, plots,
                     started, rat, sections, line_res=line_res, line_cap=plan.line_cap)
        with open(os.path.join(args.out, "ratios.json"), "w") as f:
            json.dump({f"ipv{k}": v for k, v in rat_fam.items()} if plan.with_family else rat, f,
                      indent=1)
        log(f"results in {os.path.abspath(args.out)} (results.md, *.csv, *.png)")
        for fam, fam_rat in rat_fam.items():
            for payload, per in fam_rat.items():
                for fw, v in per.items():
                    log(f"summary{f' IPv{fam}' if plan.with_family else ''} {payload}B {fw:9s} "
                        f"saturation {v['saturation_pps']:,.0f} pkt/s, "
                        f"loss-free {v['lossfree_pps']:,} pkt/s")

    def smoke_failures(self):
        """What a smoke run lacks: every available forwarder must have produced numbers in
        every scenario it takes part in (no speed is asserted)."""
        plan, missing = self.plan, []
        for fw, fam in [(fw, fam) for fw in self.forwarders for fam in plan.families]:
            if fam == 6 and fw in V6_SKIP:
                continue
            name = f"{fw} IPv{fam}" if plan.with_family else fw
            got = [r for r in self.sweep_rows
                   if r["forwarder"] == fw and r.get("family", 4) == fam]
            if fw in LINE_ONLY or not self.args.sweep:
                pass
            elif not got or not all(isinstance(r["rx_pps"], float) for r in got):
                missing.append(f"{name}: no UDP numbers")
            elif sum(r["rx_pps"] for r in got) <= 0:
                missing.append(f"{name}: forwarded nothing at all")
            line = [r for r in self.line_rows if r["forwarder"] == fw]
            if fam == 4 and plan.line_ns and not line:
                missing.append(f"{fw}: no line-scenario numbers")
            elif fam == 4 and plan.line_ns and sum(r["rx_pps"] for r in line) <= 0:
                missing.append(f"{fw}: forwarded nothing through the line")
        for kind in self.olsr_kinds:
            got = [r for r in self.olsr_rows if r["forwarder"] == kind]
            if not got or sum(r["rx_pps"] for r in got) <= 0:
                missing.append(f"{kind}: no routing-scenario numbers")
        return missing


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if os.geteuid() != 0:
        print("fastpath_bench: must run as root (namespaces, XDP, AF_PACKET)", file=sys.stderr)
        return 77 if args.smoke else 2
    plan = Plan.of(args)
    tools = find_tools(args.build_dir)
    if args.fastpathd_build:
        other = find_tools(args.fastpathd_build)
        for k in ("fastpathd", "fpctl"):
            tools.pop(k, None)
            if k in other:
                tools[k] = other[k]
        if "fastpathd" not in tools:
            print(f"fastpath_bench: no bin/fastpathd in --fastpathd-build "
                  f"{args.fastpathd_build}", file=sys.stderr)
            return 2
    for need in ("trafgen", "sink") + (("xdpgen",) if args.generator == "xdp-live" else ()):
        if need not in tools:
            print(f"fastpath_bench: {need} not built in {args.build_dir}/bench "
                  f"(cmake --build {args.build_dir} --target fp-bench-tools)", file=sys.stderr)
            return 1
    skipped = []
    forwarders = available_forwarders(args, tools, skipped)
    os.makedirs(args.out, exist_ok=True)
    if args.napi_env:
        forwarders = [f for f in forwarders if f not in LINE_ONLY]
        autogroup_old = raise_autogroup_priority()

        def on_term(sig, _frame):
            raise KeyboardInterrupt(f"signal {sig}")
        signal.signal(signal.SIGTERM, on_term)
        signal.signal(signal.SIGINT, on_term)
        try:
            return fwdrate_main(args, tools, forwarders, skipped)
        finally:
            restore_autogroup_priority(autogroup_old)
    started = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
    autogroup_old = raise_autogroup_priority()

    def on_signal(sig, _frame):
        raise KeyboardInterrupt(f"signal {sig}")
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    run = Run(args, plan, tools, forwarders, olsr_variants(args, tools, plan, skipped), skipped)
    try:
        rc = run.measure()
    finally:
        restore_autogroup_priority(autogroup_old)
    run.write_outputs(started)
    if args.smoke and rc == 0:
        run.failures += run.smoke_failures()
        if run.failures:
            for f in run.failures:
                print(f"SMOKE FAILURE: {f}", file=sys.stderr)
            rc = 1
    elif run.failures and rc == 0:
        rc = 1
    return rc
