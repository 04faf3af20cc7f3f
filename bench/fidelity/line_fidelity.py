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
model's goodput, UDP at 80 % of R for loss. fastpathd's figures are cumulative from the
line's start (rows in run order): the quantiles of a row include the rows before it.

Namespaces fp-line-<pid>-*; everything is removed at the end, on error and on Ctrl-C/SIGTERM.
Writes results.json, results.md, the topology files and fastpathd's logs into --out.

Usage: sudo bench/fidelity/line_fidelity.py --build-dir build --out /tmp/line \
           --nodes 2,8,16 --rate 100mbit --count 200 --interval 0.01 [--iperf-seconds 5]
           [--ping-seconds 10] [--reverse-tcp]
See bench/fidelity/README.md.
"""
import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from fastpath_bench.forwarders import Forwarder  # noqa: E402
from fastpath_bench.proc import Cleanup, log, run_cleaning_up, sh  # noqa: E402
from fastpath_bench.settings import D_IP, GEN_CPU, S_IP  # noqa: E402
from fastpath_bench.tools import find_tools  # noqa: E402
from fastpath_bench.topology import Topology  # noqa: E402

DELAY_MS = 1.0
LIMIT = 100
# ping's default payload (56 bytes) + ICMP 8 + IPv4 20 + Ethernet 14: the frame a link
# serializes (fastpathd's rate counts the frame, overhead 0; tbf counts the same bytes).
ICMP_FRAME = 98
MTU_FRAME = 1514
TCP_PAYLOAD = 1448  # MSS with timestamps: 1500 - 20 - 20 - 12
# Bounds: a run must stay short on a shared machine.
MAX_NODES = 64
MAX_PING_S = 120
MAX_IPERF_S = 30
# ping and iperf3 run where S's and D's receive work runs (the harness's placement). Left
# to the scheduler, an iperf3 short of CPU 0 migrates to the forwarding CPU, where the
# real-time worker and NAPI threads starve it: at 1 Gbit/s D's socket buffer overflowed.
ON_HOSTS_CPU = ["taskset", "-c", str(GEN_CPU)]
# S's access shaping during iperf3 (shape_access): tbf bucket and queue, in frames.
ACCESS_BURST_FRAMES = 32
ACCESS_LIMIT_FRAMES = 8192
# iperf3 -w for the UDP run (D's receive and S's send buffer), bytes: the kernel doubles it
# and caps it at net.core.rmem_max/wmem_max, which only the root namespace sets.
UDP_WINDOW = 4 << 20


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


class HostEnds:
    """What the iperf3 runs need of S and D (namespaces `s`, `d`, routers `r`): S's access
    shaping and the qdiscs' drops."""

    def shape_access(self, rate):
        """S's veth at the line's `rate` (tbf in S's namespace, deep enough that S's socket
        blocks before the qdisc drops): S sends as a host whose NIC runs at the link rate,
        not in bursts as fast as veth takes them. Undone by unshape_access()."""
        sh(["tc", "-n", self.s, "qdisc", "replace", "dev", "fbs0", "root", "tbf", "rate",
            f"{int(rate)}bit", "burst", str(ACCESS_BURST_FRAMES * MTU_FRAME), "limit",
            str(ACCESS_LIMIT_FRAMES * MTU_FRAME)])

    def unshape_access(self):
        sh(["tc", "-n", self.s, "qdisc", "del", "dev", "fbs0", "root"], check=False)

    def qdisc_drops(self):
        """Drops of every qdisc of the line's namespaces ({"<ns tag> <dev> <kind>": n}):
        the kernel line's tbf queues and S's access shaping."""
        out = {}
        for ns in [self.s] + self.r:
            r = subprocess.run(["tc", "-n", ns, "-s", "-j", "qdisc", "show"],
                               capture_output=True, text=True, timeout=10)
            out.update(qdisc_drop_counts(ns.rsplit("-", 1)[-1], r.stdout))
        return out


def qdisc_drop_counts(tag, tc_json):
    """`tc -s -j qdisc show` of one namespace: {"<tag> <dev> <kind> drops": n} for its
    queueing qdiscs (not the kernel's default noqueue)."""
    try:
        qs = json.loads(tc_json or "[]")
    except ValueError:
        return {}
    return {f"{tag} {q.get('dev')} {q['kind']} drops": q.get("drops", 0)
            for q in qs if q.get("kind") in ("tbf", "htb", "pfifo", "bfifo")}


class LineTopology(HostEnds, Topology):
    """The harness's S -- R1 .. Rn -- D in namespaces fp-line-<pid>-<tag>-*; its line of
    fastpathd nodes (node_line) carries the emulation `params` on every link."""

    def __init__(self, tag, routers, clean, params=None):
        super().__init__(tag, routers, clean, ttl=255)
        base = f"fp-line-{os.getpid()}-{tag}"
        self.s, self.d = f"{base}-s", f"{base}-d"
        self.r = [f"{base}-r{i}" for i in range(1, routers + 1)]
        self.params = params

    def node_line(self, nodes):
        doc = super().node_line(nodes)
        for link in doc.get("links", []):
            link["params"] = self.params
        return doc

    def shape_kernel_links(self, rate):
        """tbf at `rate` on both ends of every link between two routers (limit: LIMIT frames
        of MTU size), none on S's and D's veths: the same links as the emulated line."""
        for i in range(self.n - 1):
            for ns, ifn in ((self.r[i], self.r_out(i)), (self.r[i + 1], self.r_in(i + 1))):
                sh(["tc", "-n", ns, "qdisc", "replace", "dev", ifn, "root", "tbf", "rate",
                    f"{int(rate)}bit", "burst", str(MTU_FRAME + 100), "limit",
                    str(LIMIT * MTU_FRAME)])


class HostPair(HostEnds):
    """S and D on one veth pair, no router (namespaces fp-line-<pid>-p-{s,d}), placed as
    the line places them (their receive work on GEN_CPU): what the two hosts reach alone."""

    def __init__(self, clean):
        base = f"fp-line-{os.getpid()}-p"
        self.s, self.d, self.r, self.clean = f"{base}-s", f"{base}-d", [], clean

    def build(self):
        for ns in (self.s, self.d):
            self.clean.add_ns(ns)
        sh(["ip", "-n", self.s, "link", "add", "fbs0", "type", "veth", "peer", "name", "fbd0",
            "netns", self.d])
        for ns, ifn, me, peer in ((self.s, "fbs0", S_IP, D_IP), (self.d, "fbd0", D_IP, S_IP)):
            sh(["ip", "-n", ns, "addr", "add", f"{me}/32", "dev", ifn])
            sh(["ip", "netns", "exec", ns, "ethtool", "-K", ifn, "gro", "off", "tso", "off",
                "gso", "off", "tx", "off"], check=False)
            sh(["ip", "-n", ns, "link", "set", ifn, "up"])
            sh(["ip", "-n", ns, "route", "add", f"{peer}/32", "dev", ifn])
            sh(["ip", "netns", "exec", ns, "sh", "-c",
                f"echo {1 << GEN_CPU:x} > /sys/class/net/{ifn}/queues/rx-0/rps_cpus"])

    def destroy(self):
        for ns in (self.s, self.d):
            self.clean.del_ns(ns)


def measure_host_pair(rate, args, clean):
    """iperf3 S -> D over one veth pair at the line's offered load: a result row."""
    t = HostPair(clean)
    try:
        t.build()
        ip = run_iperf(t, args.iperf_seconds, rate, clean, None,
                       access=not args.no_access_shaping, window=args.udp_window)
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


def host_drops(t):
    """What the hosts' side dropped so far: UDP receive errors in D (/proc/net/snmp) and the
    drop counters of S's and D's interfaces ({name: count})."""
    out = {}
    r = subprocess.run(["ip", "netns", "exec", t.d, "cat", "/proc/net/snmp"],
                       capture_output=True, text=True, timeout=10)
    udp = [x.split()[1:] for x in r.stdout.splitlines() if x.startswith("Udp:")]
    if len(udp) == 2:
        vals = dict(zip(udp[0], udp[1]))
        for k in ("InErrors", "RcvbufErrors", "NoPorts"):
            out[f"D udp {k}"] = int(vals.get(k, 0))
    for tag, ns in (("S", t.s), ("D", t.d)):
        r = subprocess.run(["ip", "-n", ns, "-s", "-j", "link", "show"], capture_output=True,
                           text=True, timeout=10)
        try:
            for dev in json.loads(r.stdout):
                st = dev.get("stats64", {})
                for d in ("rx", "tx"):
                    out[f"{tag} {dev['ifname']} {d}_dropped"] = st.get(d, {}).get("dropped", 0)
        except ValueError:
            pass
    return out


def fastpathd_drops(counters):
    """Every drop counter of fastpathd's counters() ({where: count}): per node and scope the
    `drop_*` counters and the AF_XDP sockets' RX drops, per link direction its queue, loss,
    capacity and link-down drops."""
    out = {}
    for node, sets in counters.items():
        if node == "links" or not isinstance(sets, list):
            continue
        for cs in sets:
            for name, v in (cs.get("counters") or {}).items():
                if name.startswith("drop_") or name in ("xsk_rx_dropped", "xsk_rx_ring_full"):
                    out[f"{node} {cs.get('scope')} {name}"] = v
    links = counters.get("links") or []
    links = links.get("links", []) if isinstance(links, dict) else links
    for link in links:
        for d in ("a_to_b", "b_to_a"):
            m = link.get(d, {}).get("measured", {})
            for k in ("queue_drops", "loss_drops", "full_drops", "link_down_drops"):
                out[f"link {link['name']} {d} {k}"] = m.get(k, 0)
    return out


def drop_points(before, after):
    """The counters that grew between two snapshots: {where: frames dropped}."""
    return {k: v - before.get(k, 0) for k, v in after.items()
            if isinstance(v, (int, float)) and v - before.get(k, 0) > 0}


def split_drops(points):
    """Drop points ({counter: frames}) summed by who dropped: (line, hosts). The hosts: D's
    UDP receive errors (InErrors, which holds RcvbufErrors) and interface drops, S's receive
    drops and its own access shaper; everything else is the line: fastpathd's node and port
    counters (its per-link figures count the same frames again and are left out), the kernel
    routers' qdiscs, and S's veth refusing frames its router's receive ring had no room for."""
    line = hosts = 0
    for k, v in points.items():
        if k.startswith("link ") or k in ("D udp RcvbufErrors", "D udp NoPorts"):
            continue
        if k.startswith("D ") or k.startswith("s fbs0 ") or (k.startswith("S ") and "rx_" in k):
            hosts += v
        else:
            line += v
    return line, hosts


def run_iperf(t, seconds, rate, clean, fw=None, access=True, window=0):
    """TCP S -> D for `seconds`, then UDP at 80 % of the rate: goodput and loss, and where
    the UDP run's frames were dropped (every drop counter of fastpathd, of the qdiscs and
    of the hosts that grew during it). For the UDP run only: `access`, S's veth shaped at
    the rate (shape_access; TCP paces itself by its losses); `window`, iperf3 -w (its
    sockets' buffers)."""
    server = clean.spawn(t.d, ["iperf3", "-s"], cpu=GEN_CPU, name="iperf3-server")
    res = {"access_shaped": access, "udp_window": window}
    try:
        time.sleep(0.5)
        base = ["ip", "netns", "exec", t.s] + ON_HOSTS_CPU + [
            "iperf3", "-c", D_IP, "-t", str(seconds), "-J", "--connect-timeout", "3000"]
        r = subprocess.run(base + ["-O", "1"], capture_output=True, text=True,
                           timeout=seconds + 20)
        j = json.loads(r.stdout)
        res["tcp_mbps"] = round(j["end"]["sum_received"]["bits_per_second"] / 1e6, 2)
        res["tcp_retransmits"] = j["end"]["sum_sent"].get("retransmits")
        def drops():
            return {**(fastpathd_drops(fw.counters()) if fw else {}), **host_drops(t),
                    **t.qdisc_drops()}
        if access:
            t.shape_access(rate)
        before = drops()
        udp = base + ["-u", "-b", str(int(0.8 * rate)), "-l", "1400"]
        if window:
            udp += ["-w", str(window)]
        r = subprocess.run(udp, capture_output=True, text=True, timeout=seconds + 20)
        time.sleep(0.5)  # the frames still in the links' delay reach D
        res["udp_drop_points"] = drop_points(before, drops())
        res["udp_dropped_line"], res["udp_dropped_hosts"] = split_drops(res["udp_drop_points"])
        j = json.loads(r.stdout)
        s = j["end"]["sum"]
        res["udp_lost"] = s.get("lost_packets")
        res["udp_packets"] = s.get("packets")
        # What S sent (1,400-byte datagrams over the run): below 80 % when S could not.
        res["udp_sent_mbps"] = round(s.get("packets", 0) * 1400 * 8 / seconds / 1e6, 1)
        res["udp_lost_pct"] = round(s.get("lost_percent", float("nan")), 3)
    except (subprocess.TimeoutExpired, ValueError, KeyError) as e:
        res["error"] = str(e)[-300:]
    finally:
        clean.stop(server)
        if access:
            t.unshape_access()
    return res


def start_reverse_tcp(t, seconds, clean):
    """A TCP flow D -> S (iperf3 -R from S) for `seconds`, under way when this returns."""
    server = clean.spawn(t.d, ["iperf3", "-s", "-1"], cpu=GEN_CPU, name="iperf3-server-reverse")
    time.sleep(0.5)
    client = subprocess.Popen(["ip", "netns", "exec", t.s] + ON_HOSTS_CPU + [
                               "iperf3", "-c", D_IP, "-R", "-t", str(int(seconds + 0.999)),
                               "-J", "--connect-timeout", "3000"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    time.sleep(1.5)  # past slow start: the pings meet a flow at its window
    return server, client


def stop_reverse_tcp(flow, clean):
    """Waits for the reverse flow; its goodput (Mbit/s) or None."""
    server, client = flow
    try:
        out, _ = client.communicate(timeout=60)
        return round(json.loads(out)["end"]["sum_received"]["bits_per_second"] / 1e6, 2)
    except (subprocess.TimeoutExpired, ValueError, KeyError):
        client.kill()
        return None
    finally:
        clean.stop(server)


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


def measure_line(kind, n, rate, args, tools, clean, out):
    """One line (kind: fastpathd or kernel) at N nodes and one rate: every ping interval,
    then iperf3. Returns a list of result rows."""
    rtext = f"{int(rate)}bit"
    params = f"rate {rtext} delay {DELAY_MS:g}ms limit {LIMIT}"
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
            t.shape_kernel_links(rate)
            fw = Forwarder("kernel", tools, t)
        fw.start()
        model = model_rtt_ms(n, rate) if kind == "fastpathd" else 0.0
        plan = [(i, False) for i in args.interval]
        if args.reverse_tcp:
            plan += [(i, True) for i in args.interval]
        for interval, with_tcp in plan:
            count = ping_count(args, interval)
            tag = f"{kind}-N{n}-{rtext}-i{interval:g}" + ("-tcp" if with_tcp else "")
            flow = start_reverse_tcp(t, count * interval + 3, clean) if with_tcp else None
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
                with open(os.path.join(keep, f"links-i{interval:g}"
                                       f"{'-tcp' if with_tcp else ''}.json"), "w") as f:
                    json.dump(figs["raw_links"], f, indent=1)
            log(f"{kind} N={n} {rtext} ping -i {interval:g}{' with TCP D->S' if with_tcp else ''}: "
                + json.dumps({k: row.get(k) for k in ("model_ms", "replies", "min", "p50", "p90",
                                                      "p99", "max", "hop_late_p99_us",
                                                      "hop_late_max_us", "reverse_tcp_mbps")}))
            rows.append(row)
        if args.iperf_seconds > 0:
            ip = run_iperf(t, args.iperf_seconds, rate, clean,
                           fw if kind == "fastpathd" else None,
                           access=not args.no_access_shaping, window=args.udp_window)
            ip["model_tcp_mbps"] = round(model_goodput_mbps(rate), 2)
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
             "TCP (model) Mbit/s | UDP 80 % lost |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if not r["nodes"]:
            continue  # the host pair: iperf3 only (udp_drop_table)
        late = r.get("lateness") or []
        lt = ", ".join(f"{x['p50_ns'] / 1e3:.0f} / {x['p99_ns'] / 1e3:.0f} / "
                       f"{x['max_ns'] / 1e3:.0f}" for x in late) or "-"
        ip = r.get("iperf") or {}
        tcp = (f"{ip['tcp_mbps']} ({ip['model_tcp_mbps']})" if "tcp_mbps" in ip else "-")
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
    lines = ["| N | forwarder | rate | TCP (model) Mbit/s | UDP sent (Mbit/s) | lost (iperf3) | "
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
        tcp = f"{ip['tcp_mbps']} ({ip['model_tcp_mbps']})" if "tcp_mbps" in ip else "-"
        lines.append(f"| {r['nodes'] or '-'} | {r['forwarder']} | {r['rate_bps'] / 1e6:g} "
                     f"Mbit/s | {tcp} | {ip['udp_packets']} ({ip.get('udp_sent_mbps')}) | "
                     f"{ip.get('udp_lost')} ({ip.get('udp_lost_pct')} %) | "
                     f"{ip.get('udp_dropped_line', '-')} / {ip.get('udp_dropped_hosts', '-')} | "
                     f"{where or 'none'} |")
    return "\n".join(lines) + "\n" if len(lines) > 2 else ""


def socket_buffer_caps():
    """What caps iperf3 -w: the root namespace's net.core.rmem_max and wmem_max (read only)."""
    caps = {}
    for k in ("rmem_max", "wmem_max"):
        try:
            with open(f"/proc/sys/net/core/{k}") as f:
                caps[f"net.core.{k}"] = int(f.read())
        except (OSError, ValueError):
            pass
    return caps


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--out", required=True, help="output directory (created)")
    ap.add_argument("--nodes", default="2,8,16", help="comma-separated N (2..64)")
    ap.add_argument("--rate", default="100mbit", help="comma-separated link rates")
    ap.add_argument("--count", type=int, default=200, help="pings per interval")
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
    started = time.time()
    rc = run_cleaning_up(body, clean, failures)
    md = (f"`{' '.join(['bench/fidelity/line_fidelity.py'] + (sys.argv[1:] if argv is None else argv))}`"
          f" ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} CPUs, "
          f"load {os.getloadavg()[0]:.2f}, {time.time() - started:.0f} s)\n\n" + table(rows) +
          "\nfastpathd's own figures, summed over the path's links (both directions):\n\n" +
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
    with open(os.path.join(a.out, "results.md"), "w") as f:
        f.write(md)
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump({"argv": sys.argv, "rows": rows, "failures": failures, "checks": checks,
                   "machine": {"host": platform.node(), "kernel": platform.release(),
                               "cpus": os.cpu_count(), **socket_buffer_caps()}},
                  f, indent=1)
    print(md)
    for x in failures:
        print(f"FAILED: {x}", file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main())
