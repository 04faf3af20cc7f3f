#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""fp-xdpgen's frames arrive as fp-trafgen's do: in the harness's S - R topology
(namespaces fp-bench-<pid>-*), fp-sink's XDP program on R's ingress veth counts what
fp-xdpgen sends out of S's veth.
- paced, 2,000 frames in 4 flows at 20,000 pkt/s: all 2,000 counted, every flow's
  sequence without gap or reordering, the payload bytes and flows as asked, a one-way
  latency below 10 ms, spread over no less than the schedule's 100 ms;
- flat-out, 50,000 frames in 16 flows: what the generator reports as accepted plus
  refused is exactly 50,000, the sink counted exactly the accepted ones, in order;
- R's veth without an XDP program (and GRO off, so no NAPI to take XDP frames):
  fp-xdpgen fails with a message instead of reporting frames it never delivered;
- bad input (--ipv6, --flows 0, no rate) is refused with exit code 2.
Everything is removed at the end, also on failure. Exit 77 (skipped) when not root.

usage: xdpgen_test.py --build-dir BUILD"""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from fastpath_bench.meter import SinkProcess  # noqa: E402
from fastpath_bench.proc import log, sh  # noqa: E402
from fastpath_bench.settings import D_IP, GEN_CPU, S_IP, UDP_PORT  # noqa: E402
from fastpath_bench.topology import Topology  # noqa: E402
from privileged_test import run_privileged_test  # noqa: E402

PAYLOAD = 160


class SinkAtR(SinkProcess):
    """fp-sink on R's ingress veth (the generator's peer), driven over stdin."""

    def __init__(self, tools, topo):
        super().__init__(topo.clean, topo.r[0], [tools["sink"], "--ifname", topo.r_in(0),
                                                 "--port", str(UDP_PORT)],
                         "sink-r", "fp-sink did not attach on R's ingress veth")


def xdpgen(tools, topo, extra, timeout=20):
    """Runs fp-xdpgen in S; (exit code, its JSON line or None, stderr)."""
    argv = [tools["xdpgen"], "--ifname", "fbs0", "--src-ip", S_IP, "--dst-ip", D_IP,
            "--dst-mac", topo.mac[(topo.r[0], topo.r_in(0))], "--payload", str(PAYLOAD),
            "--cpu", str(GEN_CPU), "--dst-port", str(UDP_PORT)] + extra
    p = subprocess.run(["ip", "netns", "exec", topo.s] + argv, capture_output=True, text=True,
                       timeout=timeout)
    line = next((ln for ln in p.stdout.splitlines() if ln.startswith("{")), None)
    return p.returncode, (json.loads(line) if line else None), p.stderr.strip()


def check_run(failures, name, g, s, frames, flows, exact_sent):
    log(f"{name}: generator {g}, sink {s}")
    if g is None or s is None:
        failures.append(f"{name}: no result (generator {g}, sink {s})")
        return
    if g["sent"] + g["errors"] != frames:
        failures.append(f"{name}: sent {g['sent']} + refused {g['errors']} != {frames} asked for")
    if exact_sent and (g["sent"] != frames or g["errors"]):
        failures.append(f"{name}: sent {g['sent']} with {g['errors']} refused at a low rate, "
                        f"not {frames}")
    if s["packets"] != g["sent"]:
        failures.append(f"{name}: the sink counted {s['packets']}, the generator's device "
                        f"accepted {g['sent']}")
    if s["reordered"]:
        failures.append(f"{name}: {s['reordered']} frames out of order")
    if exact_sent and s["gap_loss"]:
        failures.append(f"{name}: {s['gap_loss']} sequence numbers missing")
    if s["flows_seen"] != flows:
        failures.append(f"{name}: {s['flows_seen']} flows seen, not {flows}")
    if s["bytes"] != s["packets"] * PAYLOAD:
        failures.append(f"{name}: {s['bytes']} payload bytes for {s['packets']} frames of "
                        f"{PAYLOAD}")
    if s["bad_flow"]:  # "other" frames are S's own (IPv6 neighbour discovery)
        failures.append(f"{name}: {s['bad_flow']} frames with a flow out of range")
    if not 0 < s["lat_p50_us"] < 10000:
        failures.append(f"{name}: one-way latency p50 {s['lat_p50_us']} us (send time not "
                        f"written?)")


def check(tools, clean, failures):
    topo = Topology("xg", 1, clean)
    topo.build()
    sink = SinkAtR(tools, topo)
    topo.steer()

    sink.cmd("reset")
    rc, g, err = xdpgen(tools, topo, ["--pps", "20000", "--count", "2000", "--flows", "4",
                                      "--duration", "5"])
    if rc != 0:
        failures.append(f"paced: exit {rc}: {err}")
    sh(["sleep", "0.2"])
    s = sink.cmd("read 4")
    check_run(failures, "paced", g, s, 2000, 4, exact_sent=True)
    # Paced per frame: 2,000 frames at 20,000/s span at least 99.95 ms at the sink (a
    # generator that lost its CPU only skips slots, it never sends early).
    span_ms = (s["last_ns"] - s["first_ns"]) / 1e6 if s else 0
    if span_ms < 0.95 * 1999 / 20000 * 1e3:
        failures.append(f"paced: 2,000 frames at 20,000/s arrived within {span_ms:.1f} ms")

    sink.cmd("reset")
    rc, g, err = xdpgen(tools, topo, ["--flat-out", "--count", "50000", "--flows", "16",
                                      "--duration", "5"])
    if rc != 0:
        failures.append(f"flat-out: exit {rc}: {err}")
    sh(["sleep", "0.2"])
    check_run(failures, "flat-out", g, sink.cmd("read 16"), 50000, 16, exact_sent=False)

    # Without an XDP program on R's veth (GRO off): no NAPI takes XDP frames.
    sink.close()
    rc, g, err = xdpgen(tools, topo, ["--pps", "20000", "--count", "200"])
    log(f"no XDP at the peer: exit {rc}, {g}, stderr: {err}")
    if rc == 0 or "accepted none" not in err:
        failures.append(f"no XDP program at the peer: exit {rc}, result {g}, stderr "
                        f"'{err}' (expected a failure naming it)")

    for bad in (["--ipv6", "--pps", "1000"], ["--flows", "0", "--pps", "1000"], []):
        rc, g, err = xdpgen(tools, topo, bad)
        if rc != 2 or not err.startswith("fp-xdpgen: "):
            failures.append(f"bad input {bad}: exit {rc}, stderr '{err}' (expected 2)")


def main():
    return run_privileged_test("xdpgen_test", __doc__, ("xdpgen", "sink"),
                               "namespaces, XDP, BPF test runs", check)


if __name__ == "__main__":
    sys.exit(main())
