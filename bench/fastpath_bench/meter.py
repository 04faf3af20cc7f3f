# SPDX-License-Identifier: GPL-2.0-only
"""What is measured around a point: the XDP sink at D, CPU time of the forwarder, per-stage
counters, ping."""

import json
import os
import re
import subprocess
import time

from .settings import FWD_CPU, GEN_CPU, UDP_PORT
from .proc import read_json_line, sh


def proc_cpu_ticks(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime + stime (all threads)
    except (OSError, IndexError, ValueError):
        return 0


def cpu_stat(cpu):
    """(busy, softirq, total, idle+iowait, tasks, steal) USER_HZ ticks of one CPU from
    /proc/stat. idle/iowait are exact on a tickless kernel (nanosecond idle accounting);
    the others are sampled by the tick, which does not run while the CPU is idle — so
    softirq work done on interrupt exit from idle (RPS, veth) is never sampled at all.
    tasks = user + nice + system (time of tasks, sampled while the tick runs)."""
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith(f"cpu{cpu} "):
                v = [int(x) for x in line.split()[1:]] + [0] * 10
                idle = v[3] + v[4]
                return sum(v[:10]) - idle, v[6], sum(v[:10]), idle, v[0] + v[1] + v[2], v[7]
    return 0, 0, 1, 0, 0, 0


class CpuMeter:
    """Forwarder CPU, in % of one core. Userspace forwarders (ns-3, raw socket, fastpathd):
    process CPU (all threads) + NAPI kthreads of the router veths. Kernel paths (Linux
    forwarding, XDP): softirq time of FWD_CPU (/proc/stat) + NAPI kthreads. Softirq is not
    added for userspace forwarders: with tick accounting (no IRQ_TIME_ACCOUNTING) softirq
    ticks inside the forwarder's context are already in its stime. cpu1_foreign_pct is
    what else ran on FWD_CPU (other builds on the machine): the noise indicator."""

    def __init__(self, fwd_pids, napi_pids, kind):
        self.fwd_pids, self.napi_pids, self.kind = fwd_pids, napi_pids, kind
        self.hz = os.sysconf("SC_CLK_TCK")

    def snap(self):
        return (time.time(), sum(proc_cpu_ticks(p) for p in self.fwd_pids),
                sum(proc_cpu_ticks(p) for p in self.napi_pids), cpu_stat(FWD_CPU))

    def delta(self, a, b):
        dt = b[0] - a[0]
        proc = (b[1] - a[1]) / self.hz / dt * 100
        napi = (b[2] - a[2]) / self.hz / dt * 100
        softirq = (b[3][1] - a[3][1]) / max(1, b[3][2] - a[3][2]) * 100
        # Busy = wall time minus exact idle minus steal; the tick-sampled fields are only
        # used for task time (the tick runs while a task runs).
        idle = (b[3][3] - a[3][3]) / self.hz / dt * 100
        tasks = (b[3][4] - a[3][4]) / self.hz / dt * 100
        steal = (b[3][5] - a[3][5]) / self.hz / dt * 100
        busy = min(100.0, max(0.0, 100.0 - idle - steal))
        if self.kind in ("kernel", "xdp"):
            # Kernel paths: everything on the CPU that is not a task (softirq and hard IRQ,
            # also the unsampled softirq on interrupt exit from idle), plus NAPI threads
            # (tasks, counted exactly from their runtime).
            # NAPI threads' runtime and /proc/stat's tick samples can count the same work
            # twice (busy NAPI threads at 100k+ packets/s): never more than CPU 1 was busy.
            fwd = min(busy, napi + max(0.0, busy - tasks))
        else:
            fwd = napi + proc
        return {"cpu_proc_pct": proc, "cpu_napi_pct": napi, "cpu_fwd_pct": fwd,
                "cpu1_busy_pct": busy, "cpu1_softirq_pct": softirq,
                "cpu1_foreign_pct": max(0.0, busy - fwd)}


# fastpathd's counters that are levels, not running totals: settings and states (a
# worker's RX budget, rx_budget_frames, is 2^32 - 1, "unlimited", until it has measured a
# drain rate, so its difference would be about -4e9), rates, depths, quantiles, maxima and
# the frame ledger's current split. A point reports their value at its end.
FP_LEVELS = frozenset({
    "rx_budget_frames", "rx_drain_rate_pps", "rt_priority", "rt_below", "cpu",
    "umem_frames", "frames_free", "frames_fill_ring", "frames_rx_ring", "frames_tx_ring",
    "frames_comp_ring", "frames_in_kernel", "frames_held", "frames_in_links",
    "frames_balanced", "link_up", "control_client_attached", "control_lead_ns", "punt_rate",
    "punt_burst", "xsk_zerocopy", "xsk_tx_budget", "emu_depth_packets", "emu_depth_bytes",
    "emu_in_flight"})
FP_LEVEL_SUFFIXES = ("_p50_ns", "_p99_ns", "_max_ns")
_FP_KEY = re.compile(r"fp\d+\.")


def is_level(key):
    """True for a StageCounters key (fp<i>.<scope>.<name>) of a fastpathd level."""
    if not _FP_KEY.match(key):
        return False
    name = key.rsplit(".", 1)[-1]
    return name in FP_LEVELS or name.endswith(FP_LEVEL_SUFFIXES)


class StageCounters:
    """Where frames are lost, per stage of S -> R -> D (single router): counters of every
    veth of the path (`ip -s link`, `ethtool -S`: veth's per-queue XDP counters and the
    drops of a full peer ptr_ring) and, for fastpathd, its own stats (`fpctl --json stats`:
    XDP_STATISTICS, worker drop reasons). Snapshotted around each measurement point; the
    differences go into the raw CSV as `st_*` columns and every counter that moved into
    stages.jsonl (fastpathd's levels, such as rx_budget_frames, with their value at the end
    of the point: see is_level)."""

    def __init__(self, tools, topo, fpctl_sockets=(), log=None):
        """log: the list that collects every point's counters (stages.jsonl)."""
        self.tools, self.topo = tools, topo
        self.sockets = list(fpctl_sockets)
        self.log = [] if log is None else log

    def _link(self, ns, ifn):
        out = {}
        txt = sh(["ip", "-n", ns, "-s", "-j", "link", "show", "dev", ifn], check=False,
                 capture=True)
        try:
            st = json.loads(txt)[0]["stats64"]
            for d in ("rx", "tx"):
                for k in ("packets", "dropped", "errors"):
                    out[f"{d}_{k}"] = int(st[d][k])
        except (ValueError, KeyError, IndexError, TypeError):
            pass
        txt = sh(["ip", "netns", "exec", ns, "ethtool", "-S", ifn], check=False, capture=True)
        for line in (txt or "").splitlines():
            k, _, v = line.strip().partition(":")
            v = v.strip()
            if v.lstrip("-").isdigit() and k != "peer_ifindex":
                out[k.strip()] = int(v)
        return out

    def _qdisc(self, ns, ifn):
        """The root qdisc's counters (tc -s): drops, requeues (frames the device refused
        and the qdisc kept), overlimits, packets."""
        txt = sh(["tc", "-n", ns, "-s", "-j", "qdisc", "show", "dev", ifn], check=False,
                 capture=True)
        try:
            q = next(q for q in json.loads(txt) if q.get("root"))
            return {f"qdisc_{k}": int(q[k]) for k in ("packets", "drops", "requeues",
                                                     "overlimits") if k in q}
        except (ValueError, StopIteration, TypeError, AttributeError):
            return {}

    def snap(self):
        c = {}
        if self.topo.n == 1:
            for ns, ifn in self.topo.interfaces():
                for k, v in self._link(ns, ifn).items():
                    c[f"{ifn}.{k}"] = v
            for k, v in self._qdisc(self.topo.s, "fbs0").items():
                c[f"fbs0.{k}"] = v
        fpctl = self.tools.get("fpctl")
        for i, sock in enumerate(self.sockets):
            if not fpctl:
                break
            txt = sh([fpctl, "-s", sock, "--json", "-t", "2000", "stats"], check=False,
                     capture=True)
            try:
                doc = json.loads(txt)
            except (ValueError, TypeError):
                continue
            for sc in doc:
                scope = sc.get("scope", "")
                if not (scope.startswith("port ") or scope.startswith("worker ")):
                    continue
                for k, v in (sc.get("counters") or {}).items():
                    if isinstance(v, (int, float)) and not isinstance(v, bool):
                        c[f"fp{i}.{scope.replace(' ', ':')}.{k}"] = v
        return c

    @staticmethod
    def delta(a, b):
        """What moved from snapshot a to b: a running total as its difference, a level
        (is_level) as its value in b."""
        return {k: (b[k] if is_level(k) else b[k] - a.get(k, 0)) for k in b
                if isinstance(b[k], (int, float)) and b[k] != a.get(k, 0)}

    def summary(self, d):
        """The st_* columns: drops per stage, in path order (single router only)."""
        t = self.topo
        if t.n != 1:
            return {}
        rin, rout = t.r_in(0), t.r_out(0)
        def g(k):
            return d.get(k, 0)
        def fp(suffix, port=None):
            return sum(v for k, v in d.items() if k.startswith("fp") and k.endswith("." + suffix)
                       and (port is None or f".port:{port}." in k))
        fp_drops = sum(v for k, v in d.items() if k.startswith("fp") and ".port:" in k and
                       ".drop_" in k)
        return {
            # S's qdisc (Topology.sender_qdisc): frames it dropped (its queue full: the
            # sending host's loss, not the forwarder's) and frames S's veth handed back to it
            # because R's ingress ptr_ring was full (they waited, were not lost).
            "st_s_qdisc_drops": g("fbs0.qdisc_drops"),
            "st_s_qdisc_requeues": g("fbs0.qdisc_requeues"),
            # S's veth dropped the frame: R's ingress ptr_ring (256) was full and S's veth
            # has no qdisc to hold it.
            "st_s_tx_dropped": g("fbs0.tx_dropped"),
            "st_r_in_rx": g(f"{rin}.rx_packets") or g(f"{rin}.rx_queue_0_xdp_packets"),
            "st_r_in_xdp_redirect": g(f"{rin}.rx_queue_0_xdp_redirect"),
            "st_r_in_xdp_drops": g(f"{rin}.rx_queue_0_xdp_drops"),
            "st_r_in_drops": g(f"{rin}.rx_queue_0_drops") + g(f"{rin}.rx_dropped"),
            "st_fp_rx": fp("rx_packets", rin),
            "st_fp_xsk_rx_dropped": fp("xsk_rx_dropped"),
            "st_fp_xsk_rx_ring_full": fp("xsk_rx_ring_full"),
            "st_fp_xsk_fill_empty": fp("xsk_fill_ring_empty"),
            "st_fp_drops": fp_drops,
            "st_fp_tx": fp("tx_packets", rout),
            "st_r_out_tx_dropped": g(f"{rout}.tx_dropped"),
            "st_d_rx": g("fbd0.rx_queue_0_xdp_packets") or g("fbd0.rx_packets"),
        }


class SinkProcess:
    """One sink reader (fp-sink, fp-stack-sink) started in a namespace and driven over
    stdin: a command a line, a JSON line back. `failure`: the error raised when it does not
    come up (prints no first line)."""

    def __init__(self, clean, ns, argv, name, failure, cpu=None):
        self.clean = clean
        self.p = clean.spawn(ns, argv, cpu=cpu, stdin=subprocess.PIPE, name=name)
        if read_json_line(self.p, 10) is None:
            raise RuntimeError(failure)

    def cmd(self, c):
        self.p.stdin.write(c + "\n")
        self.p.stdin.flush()
        return read_json_line(self.p, 5)

    def close(self):
        stop_sink(self.clean, self.p)


class Sink:
    def __init__(self, tools, topo):
        self.reader = SinkProcess(topo.clean, topo.d, [tools["sink"], "--ifname", "fbd0",
                                                       "--port", str(UDP_PORT)],
                                  "sink", "fp-sink did not attach on D's fbd0")
        # The S side gets an XDP_PASS program too: XDP redirects back into fbs0 (ping
        # replies through fp-xdpfwd) need one on the receiving veth.
        self.passer = SinkProcess(topo.clean, topo.s, [tools["sink"], "--ifname", "fbs0",
                                                       "--port", "1"],
                                  "sink-s",
                                  "fp-sink (pass program) did not attach on S's fbs0")
        topo.steer()

    def cmd(self, c):
        return self.reader.cmd(c)

    def close(self):
        for r in (self.reader, self.passer):
            r.close()


class StackSink(SinkProcess):
    """D as a kernel-stack host: fp-stack-sink's UDP socket (reader pinned to GEN_CPU), no
    XDP on fbd0, and no RPS on it: D's receive work runs on the CPU that transmitted into
    the veth, R's (FWD_CPU). Same commands and JSON as Sink."""

    def __init__(self, tools, topo):
        self.topo = topo
        super().__init__(topo.clean, topo.d, [tools["stack-sink"], "--port", str(UDP_PORT)],
                         "stack-sink", "fp-stack-sink did not start in D", cpu=GEN_CPU)
        sh(["ip", "netns", "exec", topo.d, "sh", "-c",
            "echo 0 > /sys/class/net/fbd0/queues/rx-0/rps_cpus"], check=False)

    def close(self):
        super().close()
        self.topo.steer()  # D's RPS back to GEN_CPU


def stop_sink(clean, p):
    """Asks an fp-sink reader to quit (it detaches its XDP program), then makes sure."""
    try:
        p.stdin.write("quit\n")
        p.stdin.flush()
        p.wait(timeout=3)
    except Exception:
        pass
    clean.stop(p)


def parse_ping(text):
    m = re.search(r"= ([\d.]+)/([\d.]+)/([\d.]+)/([\d.]+) ms", text)
    rx = re.search(r"(\d+) received", text)
    return (float(m.group(2)) if m else float("nan"), int(rx.group(1)) if rx else 0)
