# SPDX-License-Identifier: GPL-2.0-only
"""Starting and stopping each forwarder at R (ns-3 FdNetDevice, raw socket, Linux, XDP,
fastpathd, fastpathd with the line's N nodes in one daemon) and the OLSR routing
scenario."""

import json
import os
import time

from .settings import DST_IP6, D_IP, D_IP6, FWD_CPU, GEN_CPU, NET_D, NET_D6, NET_S, R_IN_IP, R_OUT_IP, S_IP, V6_SKIP
from .proc import log, read_json_line, sh
from .topology import topology_yaml


def wait_fastpathd_ready(p, logp, what, timeout):
    """Waits until a fastpathd logged "forwarding" (its stderr goes to logp)."""
    end = time.time() + timeout
    while time.time() < end and p.poll() is None:
        with open(logp) as f:
            if "forwarding" in f.read():
                return
        time.sleep(0.1)
    with open(logp) as f:
        tail = f.read().strip().splitlines()[-5:]
    raise RuntimeError(f"{what} not ready after {timeout:.0f} s (exit {p.poll()}): "
                       f"{' | '.join(tail)} (log: {logp})")


_FPCTL_NODES = {}


def fpctl_has_nodes(fpctl):
    """Whether this fpctl takes --node (per-node requests) and `link list`."""
    if fpctl not in _FPCTL_NODES:
        txt = sh([fpctl, "--help"], check=False, capture=True, timeout=10) or ""
        _FPCTL_NODES[fpctl] = "--node" in txt
    return _FPCTL_NODES[fpctl]


class Forwarder:
    def __init__(self, kind, tools, topo, nodes=1, fastpathd_args=(), keep_dir=None,
                 as_user=False):
        """nodes: the routers that ns-3 (fp-ns3-fdfwd --routers) or fastpathd-nodes (nodes
        of one daemon) emulate inside the topology's single router namespace.
        fastpathd_args: extra flags for every fastpathd (--fastpathd-args). keep_dir: where
        fastpathd-nodes leaves a copy of its topology file and its log. as_user: started
        as a user starts it (--napi-env): pinned to FWD_CPU with taskset, nice 0 in a
        session of its own, default options (fastpathd: its ports, routes, neighbours and
        control socket only, no --cores; --fastpathd-args only when given, to compare
        a non-default setting in the same environment)."""
        self.kind, self.tools, self.topo = kind, tools, topo
        self.as_user = as_user
        self.fastpathd_args = list(fastpathd_args)
        self.procs = []
        self.nodes = nodes
        self.keep_dir = keep_dir
        self.logs = []  # fastpathd log files, one per process
        self.argv = []  # the command lines started, for the report

    def start(self):
        t = self.topo
        if self.kind == "kernel":
            for i, ns in enumerate(t.r):
                sh(["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv4.ip_forward=1"])
                if self.as_user:
                    # veth's default, which the harness turns off for its TCP and packet-
                    # socket forwarders: with GRO on, R's veths have a NAPI instance, so R's
                    # receive work runs in their (threaded, pinned) NAPI threads as on a
                    # user's machine, not as softirq after RPS.
                    for ifn in (t.r_in(i), t.r_out(i)):
                        sh(["ip", "netns", "exec", ns, "ethtool", "-K", ifn, "gro", "on"],
                           check=False)
                for prefix, out_if, nh_ip, _ in t.routes(i):
                    if not (prefix == NET_D and i == t.n - 1) and not (prefix == NET_S and i == 0):
                        sh(["ip", "-n", ns, "route", "replace", prefix, "via", nh_ip,
                            "dev", out_if])
            if t.ipv6:
                sh(["ip", "netns", "exec", t.r[0], "sysctl", "-qw",
                    "net.ipv6.conf.all.forwarding=1"])
                # S's network is connected; D's destinations are behind D.
                sh(["ip", "-n", t.r[0], "-6", "route", "replace", NET_D6, "via", D_IP6, "dev",
                    t.r_out(0)])
        elif self.kind in ("xdp", "rawfwd", "afxdp-min"):
            for i, ns in enumerate(t.r):
                argv = [self.tools[self.kind], "--ifname", t.r_in(i), "--ifname", t.r_out(i)]
                for prefix, out_if, _, mac in t.routes(i) + (t.routes6() if self.kind == "xdp"
                                                             else []):
                    argv += ["--route", f"{prefix},{out_if},{mac}"]
                if self.kind == "rawfwd":
                    argv += ["--cpu", str(FWD_CPU)]
                self.procs.append(self.topo.clean.spawn(ns, argv, cpu=FWD_CPU, name=self.kind,
                                                        as_user=self.as_user))
        elif self.kind == "ns3":
            t.set_kernel_ip(False)
            argv = [self.tools["ns3"], f"--if0={t.r_in(0)}", f"--if1={t.r_out(0)}",
                    f"--addr0={R_IN_IP}", f"--addr1={R_OUT_IP}",
                    f"--routers={self.nodes}"]
            self.procs.append(self.topo.clean.spawn(t.r[0], argv, cpu=FWD_CPU, name="ns3"))
        elif self.kind == "fastpathd":
            for i, ns in enumerate(t.r):
                argv = [self.tools["fastpathd"], "--port", t.r_in(i), "--port", t.r_out(i)]
                if not self.as_user:
                    argv += ["--cores", str(FWD_CPU)]
                argv += ["--socket", f"/run/fp-bench-{os.getpid()}-r{i}.sock"]
                for prefix, out_if, nh_ip, mac in t.routes(i) + t.routes6():
                    argv += ["--route", f"{prefix},via={nh_ip},dev={out_if}",
                             "--neigh", f"{nh_ip},mac={mac},dev={out_if}"]
                if t.n > 1:
                    # N daemons share FWD_CPU: SCHED_FIFO workers of equal priority would
                    # starve each other (no time slicing), so plain scheduling in the line.
                    argv += ["--rt-priority", "0"]
                argv += self.fastpathd_args  # none unless --fastpathd-args gave some
                logp = f"/tmp/fp-bench-{os.getpid()}-fastpathd-r{i}.log"
                self.logs.append(logp)
                self.argv.append(argv)
                self.procs.append(self.topo.clean.spawn(ns, argv, cpu=FWD_CPU, name="fastpathd",
                                                        log_path=logp, as_user=self.as_user))
        elif self.kind == "fastpathd-nodes":
            # One daemon in R's namespace, the N routers as its nodes n1..nN (topology file).
            stem = (f"fastpathd-nodes-N{self.nodes}" if self.keep_dir
                    else f"fp-bench-{os.getpid()}-nodes{self.nodes}")
            path = os.path.join(self.keep_dir or "/tmp", stem + ".yaml")
            logp = os.path.join(self.keep_dir or "/tmp", stem + ".log")
            with open(path, "w") as f:
                f.write(topology_yaml(t.node_line(self.nodes),
                                      f"fastpathd-nodes: S - n1 .. n{self.nodes} - D in one "
                                      f"fastpathd (bench/fastpath_bench, node_line_topology)"))
            argv = [self.tools["fastpathd"], "--topology", path, "--cores", str(FWD_CPU),
                    "--socket", self.socket(0)] + self.fastpathd_args
            self.logs.append(logp)
            self.argv.append(argv)
            self.procs.append(self.topo.clean.spawn(t.r[0], argv, cpu=FWD_CPU,
                                                    name="fastpathd-nodes", log_path=logp))
        for p in self.procs:
            if self.kind in ("xdp", "rawfwd", "afxdp-min", "ns3"):
                if read_json_line(p, 15) is None:
                    raise RuntimeError(f"{self.kind} (pid {p.pid}) did not become ready")
        if self.kind == "fastpathd":
            # Ready when each daemon logged "forwarding" (its stderr goes to a log file).
            for i, p in enumerate(self.procs):
                wait_fastpathd_ready(p, self.logs[i], f"fastpathd r{i}", 20)
        elif self.kind == "fastpathd-nodes":
            wait_fastpathd_ready(self.procs[0], self.logs[0],
                                 f"fastpathd with {self.nodes} nodes", 20 + self.nodes / 2)
        t.pin_napi(forwarder_started=True)
        # Warm-up: resolves every neighbour on the path (ns-3 ARPs for D itself) so the
        # first measured frames do not wait in an ARP queue.
        sh(["ip", "netns", "exec", t.s, "ping", "-q", "-c", "3", "-i", "0.2", "-W", "2", D_IP],
           check=False)
        if t.ipv6 and self.kind not in V6_SKIP:
            sh(["ip", "netns", "exec", t.s, "ping", "-q", "-c", "3", "-i", "0.2", "-W", "2",
                DST_IP6], check=False)

    def stop(self):
        t = self.topo
        for p in self.procs:
            self.topo.clean.stop(p)
        self.procs = []
        if self.kind == "kernel":
            for i, ns in enumerate(t.r):
                sh(["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv4.ip_forward=0"])
                if self.as_user:
                    for ifn in (t.r_in(i), t.r_out(i)):
                        sh(["ip", "netns", "exec", ns, "ethtool", "-K", ifn, "gro", "off"],
                           check=False)
            if t.ipv6:
                sh(["ip", "netns", "exec", t.r[0], "sysctl", "-qw",
                    "net.ipv6.conf.all.forwarding=0"])
        if self.kind == "ns3":
            t.set_kernel_ip(True)

    def pids(self):
        return [p.pid for p in self.procs]

    def exited(self):
        """Forwarder processes that are no longer running: [(name, exit code, log)]."""
        return [(getattr(p, "fp_name", self.kind), p.poll(),
                 self.logs[i] if i < len(self.logs) else None)
                for i, p in enumerate(self.procs) if p.poll() is not None]

    def socket(self, i):
        if self.kind == "fastpathd-nodes":
            return f"/run/fp-bench-{os.getpid()}-nodes.sock"
        return f"/run/fp-bench-{os.getpid()}-r{i}.sock"

    def fpctl_sockets(self):
        if self.kind not in ("fastpathd", "fastpathd-nodes"):
            return []
        return [self.socket(i) for i in range(len(self.procs))]

    def counters(self):
        """fastpathd's counters now, for the record: `fpctl --json stats` of every daemon;
        for fastpathd-nodes every node's (`fpctl --node NAME`, when this fpctl has it) and
        the links (`fpctl link list`). {} for the other forwarders."""
        fpctl = self.tools.get("fpctl")
        if not fpctl or self.kind not in ("fastpathd", "fastpathd-nodes"):
            return {}

        def query(sock, *cmd):
            txt = sh([fpctl, "-s", sock, "--json", "-t", "3000"] + list(cmd), check=False,
                     capture=True, timeout=10)
            try:
                return json.loads(txt)
            except (ValueError, TypeError):
                return None
        out = {}
        for i, sock in enumerate(self.fpctl_sockets()):
            out[f"daemon{i}"] = query(sock, "stats")
        if self.kind == "fastpathd-nodes" and fpctl_has_nodes(fpctl):
            sock = self.socket(0)
            for k in range(1, self.nodes + 1):
                out[f"n{k}"] = query(sock, "--node", f"n{k}", "stats")
            out["links"] = query(sock, "link", "list")
        return out


class OlsrScenario:
    """Routing scenario (thesis Section 5.2): R runs ns-3 OLSR, S and D run ns-3 OLSR peers
    (ns3-module's olsr-router example) announcing hosts behind them (HNA 198.18.10.0/24,
    198.18.20.0/24). 'ns3-olsr': R forwards in the simulator (FdNetDevice); 'fastpathd-olsr':
    fastpathd forwards, ns-3 OLSR fills its table over the control socket."""
    S_HOST, D_HOST = "198.18.10.1", "198.18.20.1"

    def __init__(self, tools, topo, fastpathd_args=()):
        self.tools, self.topo = tools, topo
        self.fastpathd_args = list(fastpathd_args)
        self.peers = []

    def setup(self):
        t = self.topo
        sh(["ip", "-n", t.s, "addr", "add", f"{self.S_HOST}/32", "dev", "lo"])
        sh(["ip", "-n", t.s, "route", "add", "198.18.20.0/24", "via", R_IN_IP, "src",
            self.S_HOST])
        sh(["ip", "-n", t.d, "addr", "add", f"{self.D_HOST}/32", "dev", "lo"])
        sh(["ip", "-n", t.d, "route", "add", "198.18.10.0/24", "via", R_OUT_IP, "src",
            self.D_HOST])
        olsr = self.tools["olsr"]
        for ns, ifn, addr, hna, name in ((t.s, "fbs0", "198.18.0.3/24", "198.18.10.0/24", "S"),
                                         (t.d, "fbd0", "198.18.1.3/24", "198.18.20.0/24", "D")):
            self.peers.append(self.topo.clean.spawn(ns, [olsr, "--role=peer", f"--interfaces={ifn}",
                                               f"--addresses={addr}", f"--hna={hna}",
                                               f"--name={name}", "--duration=0", "--hello=0.5",
                                               "--tc=1"], cpu=GEN_CPU, name=f"olsr-peer-{name}"))
        t.udp_src, t.udp_dst, t.ping_from = self.S_HOST, self.D_HOST, ["-I", self.S_HOST]

    def start(self, kind):
        t = self.topo
        t.set_kernel_ip(False)
        addrs = f"--addresses={R_IN_IP}/24,{R_OUT_IP}/24"
        common = ["--name=R", "--duration=0", "--hello=0.5", "--tc=1"]
        procs = []
        if kind == "ns3-olsr":
            procs.append(self.topo.clean.spawn(t.r[0], [self.tools["olsr"], "--role=plain",
                                              f"--interfaces={t.r_in(0)},{t.r_out(0)}", addrs]
                                     + common, cpu=FWD_CPU, name="olsr-plain"))
        else:
            sock = f"/run/fp-bench-{os.getpid()}-olsr.sock"
            logp = f"/tmp/fp-bench-{os.getpid()}-fastpathd-olsr.log"
            procs.append(self.topo.clean.spawn(t.r[0], [self.tools["fastpathd"], "--port", t.r_in(0),
                                              "--port", t.r_out(0), "--cores", str(FWD_CPU),
                                              "--socket", sock, "--log-level", "warn"]
                                     + self.fastpathd_args,
                                     cpu=FWD_CPU, name="fastpathd", log_path=logp))
            for _ in range(100):
                if os.path.exists(sock) or procs[0].poll() is not None:
                    break
                time.sleep(0.1)
            if not os.path.exists(sock):
                raise RuntimeError(f"fastpathd did not create its socket; see {logp}")
            procs.append(self.topo.clean.spawn(t.r[0], [self.tools["olsr"], "--role=router",
                                              f"--socket={sock}",
                                              f"--ports={t.r_in(0)},{t.r_out(0)}", addrs]
                                     + common, cpu=FWD_CPU, name="olsr-router"))
        t.pin_napi(forwarder_started=True)
        t0 = time.time()
        while time.time() - t0 < 40:
            if sh(["ip", "netns", "exec", t.s, "ping", "-c1", "-W1", "-I", self.S_HOST,
                   self.D_HOST], check=False) == 0:
                log(f"{kind}: OLSR converged after {time.time() - t0:.1f} s")
                return procs
            if any(p.poll() is not None for p in procs):
                break
            time.sleep(0.5)
        for p in procs:
            self.topo.clean.stop(p)
        raise RuntimeError(f"{kind}: no route through R after 40 s (OLSR did not converge)")

    def stop(self, procs):
        for p in procs:
            self.topo.clean.stop(p)
        self.topo.set_kernel_ip(True)

    def teardown(self):
        for p in self.peers:
            self.topo.clean.stop(p)
        t = self.topo
        t.udp_src, t.udp_dst, t.ping_from = S_IP, D_IP, []
