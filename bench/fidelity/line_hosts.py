# SPDX-License-Identifier: GPL-2.0-only
"""The hosts' side of line_fidelity.py: S and D (the line's ends, or one veth pair alone), the
iperf3 runs between them with S sending at the link rate, and every drop counter of the hosts,
the kernel routers' qdiscs and fastpathd, summed by who dropped."""
import json
import os
import subprocess
import time

from fastpath_bench.proc import sh
from fastpath_bench.settings import D_IP, GEN_CPU, S_IP

MTU_FRAME = 1514
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


def tcp_congestion_control(ns):
    """The congestion control a TCP socket in namespace `ns` gets unless told: a new
    namespace inherits the root namespace's (on some machines bbr, which paces at 99 % of
    the bandwidth it measured and drains its queue every 10 s: a few percent under a
    link's rate by design)."""
    r = subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-n",
                        "net.ipv4.tcp_congestion_control"], capture_output=True, text=True)
    return r.stdout.strip() or None


def second_half_mbps(j):
    """What D received over the second half of an iperf3 run (its server's intervals,
    --get-server-output), Mbit/s: the flow's rate once its window has grown. A flow over a
    long round trip takes seconds to open its window (cubic leaves slow start early at a
    bottleneck's first queueing, then grows by about a frame a round trip), so the whole
    run's average counts the ramp as well as the path. None without the server's figures."""
    try:
        iv = [i["sum"] for i in j["server_output_json"]["intervals"]]
    except (KeyError, TypeError):
        return None
    iv = iv[len(iv) // 2:]
    secs = sum(x["seconds"] for x in iv)
    return round(sum(x["bytes"] for x in iv) * 8 / secs / 1e6, 2) if secs > 0 else None


def run_iperf(t, seconds, rate, clean, fw=None, access=True, window=0, cc=None):
    """TCP S -> D for `seconds`, then UDP at 80 % of the rate: goodput and loss, and where
    the UDP run's frames were dropped (every drop counter of fastpathd, of the qdiscs and
    of the hosts that grew during it). For the UDP run only: `access`, S's veth shaped at
    the rate (shape_access; TCP paces itself by its losses); `window`, iperf3 -w (its
    sockets' buffers). `cc`: the TCP flow's congestion control (iperf3 -C; None: the
    hosts' default, recorded as `tcp_cc`)."""
    # -J: the server hands its own intervals (what D received) to the client (--get-server-output).
    server = clean.spawn(t.d, ["iperf3", "-s", "-J"], cpu=GEN_CPU, name="iperf3-server")
    res = {"access_shaped": access, "udp_window": window,
           "tcp_cc": cc or tcp_congestion_control(t.s)}
    try:
        time.sleep(0.5)
        base = ["ip", "netns", "exec", t.s] + ON_HOSTS_CPU + [
            "iperf3", "-c", D_IP, "-t", str(seconds), "-J", "--connect-timeout", "3000"]
        r = subprocess.run(base + ["-O", "1", "--get-server-output"] +
                           (["-C", cc] if cc else []),
                           capture_output=True, text=True, timeout=seconds + 20)
        j = json.loads(r.stdout)
        res["tcp_mbps"] = round(j["end"]["sum_received"]["bits_per_second"] / 1e6, 2)
        res["tcp_mbps_second_half"] = second_half_mbps(j)
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


def start_reverse_tcp(t, seconds, clean, cc=None):
    """A TCP flow D -> S (iperf3 -R from S) for `seconds`, under way when this returns;
    `cc` as for run_iperf."""
    server = clean.spawn(t.d, ["iperf3", "-s", "-1"], cpu=GEN_CPU, name="iperf3-server-reverse")
    time.sleep(0.5)
    client = subprocess.Popen(["ip", "netns", "exec", t.s] + ON_HOSTS_CPU + [
                               "iperf3", "-c", D_IP, "-R", "-t", str(int(seconds + 0.999)),
                               "-J", "--connect-timeout", "3000"] + (["-C", cc] if cc else []),
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
