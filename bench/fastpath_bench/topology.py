# SPDX-License-Identifier: GPL-2.0-only
"""S -- R1 .. RN -- D in network namespaces: veths, addresses, routes, neighbours, and the
steering (RPS, threaded NAPI, pinning) that puts each side's work on its CPU; the topology
file of a line of N fastpathd nodes inside one namespace R (node_line_topology)."""

import json
import os
import re

from .settings import SENDER_QDISC, BENCH_NICE, DST_IP6, D_IP, D_IP6, FWD_CPU, GEN_CPU, GEN_RT_PRIO, LINE_LINK_NET, NAPI_ENVS, NAPI_RT_PRIO, NET_D, NET_D6, NET_S, NET_S6, R_IN_IP, R_IN_IP6, R_OUT_IP, R_OUT_IP6, S_IP, S_IP6
from .proc import log, sh
from .napi import napi_thread_pids, napi_threads


def mac_of(ns, ifname):
    out = sh(["ip", "-n", ns, "-j", "link", "show", ifname], capture=True)
    return json.loads(out)[0]["address"]


def line_link_ip(k, end):
    """Address of end 1 (S side) or 2 (D side) of the line's link k (1-based)."""
    return LINE_LINK_NET.format(k - 1).replace(".0/24", f".{end}")


def line_link_mac(k, end):
    """MAC of end 1 (node n<k>) or 2 (node n<k+1>) of link l<k>: locally administered,
    unique in the daemon."""
    return f"02:66:70:{k >> 8:02x}:{k & 0xff:02x}:{end:02x}"


def node_line_topology(n, in_if, out_if, s_ip, s_mac, d_ip, d_mac, net_s=NET_S, net_d=NET_D):
    """fastpathd's topology (a dict in the file's schema, docs/reference/topology.md)
    of S -- n1 = n2 = ... = nN -- D in one daemon: n1 serves in_if (facing S), nN
    out_if (facing D; n = 1: the single node serves both), link l<k> joins n<k> and n<k+1>
    (its port is named l<k> in both nodes). Every node routes net_d towards D and net_s
    towards S, hop by hop, and holds the neighbour of each next hop: the MAC of the peer's
    link end, or S's / D's interface MAC on the interface ports."""
    if not 1 <= n <= 256:
        raise ValueError(f"a line of {n} nodes: the harness addresses 1..256 "
                         f"({LINE_LINK_NET.format('k')})")
    nodes, links = [], []
    for i in range(1, n + 1):
        ifs = ([in_if] if i == 1 else []) + ([out_if] if i == n else [])
        # (prefix, next hop, its MAC, port)
        towards_d = ((net_d, d_ip, d_mac, out_if) if i == n else
                     (net_d, line_link_ip(i, 2), line_link_mac(i, 2), f"l{i}"))
        towards_s = ((net_s, s_ip, s_mac, in_if) if i == 1 else
                     (net_s, line_link_ip(i - 1, 1), line_link_mac(i - 1, 1), f"l{i - 1}"))
        node = {"name": f"n{i}"}
        if ifs:
            node["interfaces"] = ifs
        node["routes"] = [{"prefix": p, "via": via, "dev": dev}
                          for p, via, _, dev in (towards_d, towards_s)]
        node["neighbours"] = [{"ip": via, "mac": mac, "dev": dev}
                              for _, via, mac, dev in (towards_d, towards_s)]
        nodes.append(node)
    for k in range(1, n):
        links.append({"name": f"l{k}", "a": {"node": f"n{k}", "mac": line_link_mac(k, 1)},
                      "b": {"node": f"n{k + 1}", "mac": line_link_mac(k, 2)}})
    doc = {"nodes": nodes}
    if links:
        doc["links"] = links
    return doc


def _yaml_scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    s = str(v)
    # Plain when no YAML reader can take it for anything but a string (names, addresses,
    # prefixes); MACs (colons), numbers and the like are quoted.
    if (re.fullmatch(r"[A-Za-z0-9_./-]+", s) and not re.fullmatch(r"[-+0-9.eE_]+", s)
            and s.lower() not in ("true", "false", "yes", "no", "on", "off", "null", "y",
                                  "n")) or re.fullmatch(r"\d+\.\d+\.\d+\.\d+(/\d+)?", s):
        return s
    return json.dumps(s)


def _yaml_flow(v):
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_yaml_flow(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_yaml_flow(x) for x in v) + "]"
    return _yaml_scalar(v)


def topology_yaml(doc, comment=""):
    """A topology dict as YAML text in the style of docs/reference/topology.md: a block list per
    top-level key, one block mapping per item whose lists of mappings are block lists of
    flow mappings."""
    out = [f"# {line}" for line in comment.splitlines()]
    for key, items in doc.items():
        out.append(f"{key}:")
        for item in items:
            first = True
            for k, v in item.items():
                lead = "  - " if first else "    "
                first = False
                if isinstance(v, list) and v and isinstance(v[0], dict):
                    out.append(f"{lead}{k}:")
                    out += [f"      - {_yaml_flow(x)}" for x in v]
                else:
                    out.append(f"{lead}{k}: {_yaml_flow(v)}")
    return "\n".join(out) + "\n"


class Topology:
    """S -- R1 -- ... -- RN -- D. Router i has ingress r<i>a and egress r<i>b."""

    def __init__(self, tag, routers, clean, ipv6=False, ttl=None):
        """clean: the run's Cleanup, which removes the namespaces and every process started
        in them. ttl: S's and D's default IPv4 TTL (TCP, ping; the line's 64+ routers)."""
        self.clean = clean
        self.n = routers
        self.ttl = ttl
        # IPv6 addresses, neighbours and routes next to the IPv4 ones (single router only).
        self.ipv6 = ipv6 and routers == 1
        base = f"fp-bench-{os.getpid()}-{tag}"
        self.s, self.d = f"{base}-s", f"{base}-d"
        self.r = [f"{base}-r{i}" for i in range(1, routers + 1)]
        self.napi = {}  # (ns, ifname) -> [pid, ...] (pinned NAPI kthreads)
        # Scheduling of R's NAPI kthreads (settings.NAPI_ENVS): "rt" SCHED_FIFO, "default"
        # the kernel's default; S's and D's stay SCHED_FIFO (the measuring side).
        self.napi_env = "rt"
        # S's qdisc on fbs0 (settings.SENDER_QDISC); "noqueue" leaves the veth as created.
        self.sender_qdisc = SENDER_QDISC
        self.placement = []
        # Endpoints of the measured traffic (the OLSR scenario uses hosts behind S and D).
        self.udp_src, self.udp_dst, self.ping_from = S_IP, D_IP, []

    def r_in(self, i):
        return f"fb{i + 1}a"

    def r_out(self, i):
        return f"fb{i + 1}b"

    def build(self):
        for ns in [self.s] + self.r + [self.d]:
            self.clean.add_ns(ns)
        # veth pairs created inside the namespaces, never in the root namespace.
        sh(["ip", "-n", self.s, "link", "add", "fbs0", "type", "veth", "peer", "name",
            self.r_in(0), "netns", self.r[0]])
        for i in range(self.n - 1):
            sh(["ip", "-n", self.r[i], "link", "add", self.r_out(i), "type", "veth", "peer",
                "name", self.r_in(i + 1), "netns", self.r[i + 1]])
        sh(["ip", "-n", self.r[-1], "link", "add", self.r_out(self.n - 1), "type", "veth",
            "peer", "name", "fbd0", "netns", self.d])
        self.addr = {}
        self.addr[(self.s, "fbs0")] = S_IP
        self.addr[(self.r[0], self.r_in(0))] = R_IN_IP
        for i in range(self.n - 1):
            self.addr[(self.r[i], self.r_out(i))] = f"198.19.{i}.1"
            self.addr[(self.r[i + 1], self.r_in(i + 1))] = f"198.19.{i}.2"
        self.addr[(self.r[-1], self.r_out(self.n - 1))] = R_OUT_IP
        self.addr[(self.d, "fbd0")] = D_IP
        self.addr6 = {}
        if self.ipv6:
            self.addr6 = {(self.s, "fbs0"): S_IP6, (self.r[0], self.r_in(0)): R_IN_IP6,
                          (self.r[0], self.r_out(0)): R_OUT_IP6, (self.d, "fbd0"): D_IP6}
        for (ns, ifn), ip in self.addr.items():
            sh(["ip", "-n", ns, "addr", "add", f"{ip}/24", "dev", ifn])
            if (ns, ifn) in self.addr6:
                sh(["ip", "-n", ns, "-6", "addr", "add", f"{self.addr6[(ns, ifn)]}/64", "dev",
                    ifn, "nodad"])
            # GRO off: aggregated TCP would exceed the MTU in packet-socket forwarders.
            # TX checksum offload off: veth would pass TCP with a partial checksum that only
            # the kernel's skb metadata completes; XDP and packet sockets see raw bytes
            # (a real NIC fills the checksum in before the wire).
            sh(["ip", "netns", "exec", ns, "ethtool", "-K", ifn, "gro", "off", "tso", "off",
                "gso", "off", "tx", "off"], check=False)
            sh(["ip", "-n", ns, "link", "set", ifn, "up"])
        self.mac = {k: mac_of(*k) for k in self.addr}
        self.sender_queue(True)
        # Static neighbours on S and D towards their gateways (no ARP in the measurement;
        # ns-3 answers ARP itself anyway, the rest need it only for these two entries).
        sh(["ip", "-n", self.s, "neigh", "replace", R_IN_IP, "lladdr",
            self.mac[(self.r[0], self.r_in(0))], "dev", "fbs0", "nud", "permanent"])
        sh(["ip", "-n", self.d, "neigh", "replace", R_OUT_IP, "lladdr",
            self.mac[(self.r[-1], self.r_out(self.n - 1))], "dev", "fbd0", "nud", "permanent"])
        sh(["ip", "-n", self.s, "route", "add", "default", "via", R_IN_IP])
        sh(["ip", "-n", self.d, "route", "add", "default", "via", R_OUT_IP])
        for ns in self.r:
            sh(["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv4.ip_forward=0"])
        if self.ttl:
            for ns in (self.s, self.d):
                sh(["ip", "netns", "exec", ns, "sysctl", "-qw",
                    f"net.ipv4.ip_default_ttl={self.ttl}"])
        if self.ipv6:
            # Same as IPv4: static neighbours of the gateways, routes towards them; the
            # destination address lives on D's loopback.
            r0 = self.r[0]
            sh(["ip", "-n", self.d, "-6", "addr", "add", f"{DST_IP6}/128", "dev", "lo"])
            sh(["ip", "-n", self.s, "-6", "neigh", "replace", R_IN_IP6, "lladdr",
                self.mac[(r0, self.r_in(0))], "dev", "fbs0", "nud", "permanent"])
            sh(["ip", "-n", self.d, "-6", "neigh", "replace", R_OUT_IP6, "lladdr",
                self.mac[(r0, self.r_out(0))], "dev", "fbd0", "nud", "permanent"])
            sh(["ip", "-n", self.s, "-6", "route", "add", NET_D6, "via", R_IN_IP6])
            sh(["ip", "-n", self.d, "-6", "route", "add", NET_S6, "via", R_OUT_IP6])
            sh(["ip", "netns", "exec", r0, "sysctl", "-qw", "net.ipv6.conf.all.forwarding=0"])
        self.steer()

    def sender_queue(self, on):
        """S's qdisc on fbs0 (sender_qdisc) on, or off: the veth as created (noqueue).
        Returns whether S now has a qdisc (the generator then sends through it)."""
        on = on and self.sender_qdisc != "noqueue"
        if on:
            sh(["tc", "-n", self.s, "qdisc", "replace", "dev", "fbs0", "root",
                self.sender_qdisc])
        else:
            sh(["tc", "-n", self.s, "qdisc", "del", "dev", "fbs0", "root"], check=False)
        return on

    def interfaces(self):
        return list(self.addr.keys())

    def steer(self):
        """RPS and threaded NAPI on every veth: router veths -> FWD_CPU, S/D -> GEN_CPU."""
        for ns, ifn in self.interfaces():
            cpu = GEN_CPU if ns in (self.s, self.d) else FWD_CPU
            sh(["ip", "netns", "exec", ns, "sh", "-c",
                f"echo {1 << cpu:x} > /sys/class/net/{ifn}/queues/rx-0/rps_cpus; "
                f"echo 1 > /sys/class/net/{ifn}/threaded"], check=False)
        self.pin_napi()
        self.placement = [
            f"CPU {GEN_CPU}: fp-trafgen (pinned), fp-sink reader, ping, TCP sender/receiver, "
            f"receive work of fbs0/fbd0 (S and D veths: RPS mask {1 << GEN_CPU:x}, threaded "
            f"NAPI kthreads pinned)",
            f"CPU {FWD_CPU}: the forwarder process(es) (taskset) and the receive work of every "
            f"router veth ({len(self.r) * 2} interfaces: RPS mask {1 << FWD_CPU:x}; threaded "
            f"NAPI kthreads, which exist when XDP is attached, pinned with taskset)",
            f"priority: benchmark processes at nice {BENCH_NICE}, their scheduler autogroup "
            f"too (other sessions' builds share the CPUs); threaded NAPI kthreads "
            f"SCHED_FIFO {NAPI_RT_PRIO} (the precedence softirq has without threading); the "
            f"paced fp-trafgen SCHED_FIFO {GEN_RT_PRIO} (it sleeps between 200 us chunks; "
            f"paced fp-xdpgen ignores the priority: it spins in the kernel until a frame "
            f"is due; "
            f"flat-out at normal priority)",
            (f"S's veth fbs0 with qdisc {self.sender_qdisc} (a NIC's default) at paced rates "
             f"below overload, the generator sending through it: a burst that finds R's veth "
             f"ring (256 frames) full waits in S's qdisc instead of being dropped. Flat-out "
             f"and the 2x-max overload point without it (noqueue, the generator bypassing "
             f"the qdisc layer): veth wakes S's queue from R's NAPI poll, so S's qdisc would "
             f"be drained on R's CPU" if self.sender_qdisc != "noqueue" else
             "S's veth fbs0 without a qdisc (noqueue, as veth is created), the generator "
             "bypassing the qdisc layer: a frame that finds R's veth ring (256 frames) full "
             "is dropped at S's transmit"),
            "veth steering: without it veth runs R's receive work on the sender's CPU; "
            "GRO/TSO/GSO and TX checksum offload off on all veths (MTU-sized frames with "
            "complete checksums, as on a wire)",
        ]

    def pin_napi(self, forwarder_started=False):
        """Pins every NAPI kthread of this topology's veths (they come and go with XDP).

        forwarder_started: a forwarder runs at R; in an environment that leaves R's NAPI
        threads to the kernel's default policy, one the forwarder made real-time (fastpathd's
        port tuning, --napi-priority) keeps it: that is what its user gets."""
        # threaded=1 only sticks while the veth has a NAPI (XDP attached): write it again.
        for ns, ifn in self.interfaces():
            sh(["ip", "netns", "exec", ns, "sh", "-c",
                f"echo 1 > /sys/class/net/{ifn}/threaded"], check=False)
        self.napi = {}
        by_name = None
        for ns, ifn in self.interfaces():
            cpu = GEN_CPU if ns in (self.s, self.d) else FWD_CPU
            # Exact over netlink: thread names ("napi/<ifname>-<id>") are global, and
            # another run's namespaces use the same interface names.
            pids = napi_thread_pids(ns, ifn)
            if pids is None:
                # Old kernel: by name, but only a name that matches one thread (these
                # veths have one queue); anything else may be another namespace's.
                by_name = napi_threads() if by_name is None else by_name
                pids = [p for p, c in by_name.items() if c.startswith(f"napi/{ifn}-"[:15])]
                if len(pids) > 1:
                    log(f"NAPI threads of {ifn}: {len(pids)} threads named napi/{ifn}-* "
                        f"(other namespaces'), kernel without netdev netlink NAPI_GET: "
                        f"not pinned")
                    pids = []
            self.napi[(ns, ifn)] = pids
            prio = NAPI_RT_PRIO if ns in (self.s, self.d) else NAPI_ENVS[self.napi_env]
            for pid in pids:
                sh(["taskset", "-pc", str(cpu), str(pid)], check=False)
                # SCHED_FIFO: a threaded NAPI gets the precedence softirq has without
                # threading; at nice 0 it waits behind other work and the sink, not the
                # forwarder, would become the limit. napi_env "default": R's as the kernel
                # creates them, SCHED_OTHER (also after an "rt" environment), at the nice of
                # the forwarder's autogroup (Cleanup.spawn as_user): the weight a user's NAPI
                # thread has against the forwarder (both nice 0), both raised against other
                # work on the machine.
                if prio is None and forwarder_started and ns in self.r and \
                        os.sched_getscheduler(pid) in (os.SCHED_FIFO, os.SCHED_RR):
                    log(f"NAPI thread {pid} of {ifn}: left at SCHED_FIFO/RR "
                        f"{os.sched_getparam(pid).sched_priority} (the forwarder's setting)")
                elif prio is None:
                    sh(["chrt", "-o", "-p", "0", str(pid)], check=False)
                    sh(["renice", "-n", str(BENCH_NICE), "-p", str(pid)], check=False)
                else:
                    sh(["chrt", "-f", "-p", str(prio), str(pid)], check=False)

    def router_napi_pids(self):
        return [pid for (ns, _), pids in self.napi.items() if ns in self.r for pid in pids]

    def set_kernel_ip(self, enabled):
        """ns-3 must be the only one answering on R's interfaces: remove kernel addresses."""
        for i, ns in enumerate(self.r):
            for ifn in (self.r_in(i), self.r_out(i)):
                if enabled:
                    sh(["ip", "-n", ns, "addr", "replace", f"{self.addr[(ns, ifn)]}/24",
                        "dev", ifn])
                elif self.ipv6:
                    # ns-3 forwards IPv4 only: its IPv4 addresses must not answer in the
                    # kernel; the IPv6 ones stay for the IPv6 runs of the other forwarders.
                    sh(["ip", "-n", ns, "-4", "addr", "flush", "dev", ifn])
                else:
                    sh(["ip", "-n", ns, "addr", "flush", "dev", ifn])

    def routes(self, i):
        """Static routes of router i: (prefix, out_if, next_hop_ip, next_hop_mac)."""
        fwd_ns = self.r[i + 1] if i + 1 < self.n else self.d
        fwd_if = self.r_in(i + 1) if i + 1 < self.n else "fbd0"
        back_ns = self.r[i - 1] if i > 0 else self.s
        back_if = self.r_out(i - 1) if i > 0 else "fbs0"
        return [
            (NET_D, self.r_out(i), self.addr[(fwd_ns, fwd_if)], self.mac[(fwd_ns, fwd_if)]),
            (NET_S, self.r_in(i), self.addr[(back_ns, back_if)], self.mac[(back_ns, back_if)]),
        ]

    def routes6(self):
        """IPv6 static routes of the single router, like routes(): (prefix, out_if,
        next_hop_ip, next_hop_mac). S's network is reached via S itself."""
        d, s = (self.d, "fbd0"), (self.s, "fbs0")
        return [(NET_D6, self.r_out(0), D_IP6, self.mac[d]),
                (NET_S6, self.r_in(0), S_IP6, self.mac[s])] if self.ipv6 else []

    def node_line(self, nodes):
        """The topology file (a dict) of a line of `nodes` fastpathd nodes in this
        topology's single router namespace, between S and D (node_line_topology)."""
        if self.n != 1:
            raise ValueError("a line of nodes in one daemon needs a single router namespace")
        return node_line_topology(nodes, self.r_in(0), self.r_out(0), S_IP,
                                  self.mac[(self.s, "fbs0")], D_IP, self.mac[(self.d, "fbd0")])

    def destroy(self):
        for ns in [self.s] + self.r + [self.d]:
            self.clean.del_ns(ns)
