#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""fp-afxdp-min forwards: S - R - D (the harness's topology, namespaces fp-bench-<pid>-*),
fp-afxdp-min at R, 400 UDP frames from S at 2,000 pkt/s counted by fp-sink's XDP program
at D. Passes when D received at least 98 % of them and fp-afxdp-min's own counters agree
(it received and transmitted at least as many as D counted, no frame without a route);
after it stopped, no XDP program is left on R's veths. Everything is removed at the end,
also on failure. Exit 77 (skipped) when not root.

usage: afxdp_min_forward_test.py --build-dir BUILD"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from fastpath_bench.forwarders import Forwarder  # noqa: E402
from fastpath_bench.meter import Sink  # noqa: E402
from fastpath_bench.proc import log, read_json_line, sh  # noqa: E402
from fastpath_bench.settings import D_IP, GEN_CPU, S_IP, UDP_PORT  # noqa: E402
from fastpath_bench.topology import Topology  # noqa: E402
from privileged_test import run_privileged_test  # noqa: E402

FRAMES = 400


def check(tools, clean, failures):
    topo = Topology("am", 1, clean)
    topo.build()
    sink = Sink(tools, topo)
    fwd = Forwarder("afxdp-min", tools, topo)
    fwd.start()
    proc = fwd.procs[0]
    sink.cmd("reset")
    gen = clean.spawn(topo.s, [tools["trafgen"], "--ifname", "fbs0", "--src-ip", S_IP,
                               "--dst-ip", D_IP, "--dst-mac",
                               topo.mac[(topo.r[0], topo.r_in(0))], "--payload", "160",
                               "--flows", "4", "--pps", "2000", "--count", str(FRAMES),
                               "--duration", "5", "--cpu", str(GEN_CPU),
                               "--dst-port", str(UDP_PORT)], name="trafgen")
    g = read_json_line(gen, 15)
    clean.stop(gen)
    if g is None:
        raise RuntimeError("fp-trafgen printed no result")
    sh(["sleep", "0.3"])
    s = sink.cmd("read 4")
    fwd.stop()  # SIGTERM: fp-afxdp-min prints its counters and detaches
    counters = read_json_line(proc, 5) or {}
    sink.close()
    log(f"sent {g['sent']} (errors {g['errors']}), counted at D {s['packets']}, "
        f"fp-afxdp-min {json.dumps(counters, sort_keys=True)}")
    if g["sent"] != FRAMES:
        failures.append(f"fp-trafgen sent {g['sent']} frames, not {FRAMES}")
    if s["packets"] < 0.98 * FRAMES:
        failures.append(f"D counted {s['packets']} of {FRAMES} frames")
    if s["packets"] > g["sent"]:
        failures.append(f"D counted {s['packets']} frames, more than the {g['sent']} sent")
    if not counters:
        failures.append("fp-afxdp-min printed no counters at exit")
    else:
        if counters["rx"] < s["packets"] or counters["tx"] < s["packets"]:
            failures.append(f"fp-afxdp-min rx {counters['rx']} / tx {counters['tx']} below "
                            f"the {s['packets']} frames D counted")
        if counters["no_route"] or counters["not_forwardable"]:
            failures.append(f"fp-afxdp-min dropped frames of the test: {counters}")
    for ifn in (topo.r_in(0), topo.r_out(0)):
        link = json.loads(sh(["ip", "-n", topo.r[0], "-j", "link", "show", ifn],
                             capture=True))[0]
        if "xdp" in link:
            failures.append(f"XDP program left on {ifn} after fp-afxdp-min stopped")


def main():
    return run_privileged_test("afxdp_min_forward_test", __doc__,
                               ("trafgen", "sink", "afxdp-min"),
                               "namespaces, XDP, AF_XDP", check)


if __name__ == "__main__":
    sys.exit(main())
