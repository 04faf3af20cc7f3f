#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""ns-3's own Wi-Fi examples, simulated and emulated, compared.

The examples are Debian's (ns3-doc, /usr/share/doc/ns3/examples), built by bench/wifi/ with
the switch applied (FastPathWifiHelper for WifiHelper): fp-wifi-manet-routing-compare (50
mobile nodes, 802.11b, 10 CBR flows, AODV / OLSR / DSDV) and fp-wifi-hidden-terminal (3
nodes, the middle one hearing both others, with and without RTS/CTS). Each runs with
--FastPathEmulation=0 (ns-3 simulates the Wi-Fi) and, with --emulated, =1 against a
fastpathd that has radio media (protocol 1.6; started by the caller, its socket given with
--socket). One JSON object per scenario on stdout, a table on stderr.

What is compared: manet-routing-compare's received packets per second (its CSV, mean over
the run from 101 s, per protocol; the target: within 10 %), averaged over the RngRuns both
sides ran (--first-run, default 1; --sim-runs, default 10; --emu-runs, default 1): one run
of 50 random-waypoint nodes is one draw, and simulated runs alone differ by up to +-25 %.
Per run the table shows both figures and the mean of the differences with its standard
error (a bias stands several standard errors off 0, noise does not); each emulated run
keeps the medium's counters at its end (frames sent and received, retries, frames given
up, collisions, mean busy share). wifi-hidden-terminal's goodput per flow
and in total without and with RTS/CTS (the same ordering, within 15 %). Emulated, the
example's FlowMonitor cannot see packets arrive (its byte tags do not cross fastpathd): the
goodput is then taken from the medium's counters (fpctl medium show --json, polled every
0.3 s: the frames n1 received from n0 and from n2, as the example's 1428-byte packets over
its 9 s), slightly low by what arrived after the last poll.

  bench/wifi/wifi_conformance.py --build-dir build                  # simulated only
  sudo bench/wifi/wifi_conformance.py --build-dir build --emulated  # both, as compared
  # the emulated runs on a quiet machine, the simulated ones (CPU-bound) apart, compared:
  sudo bench/wifi/wifi_conformance.py --build-dir build --emulated --skip-simulated > emu.json
  bench/wifi/wifi_conformance.py --build-dir build --emulated-from emu.json > sim.json
  # several emulated batches (e.g. RngRun 1..3 and 4..6) compared together, a run folder:
  bench/wifi/wifi_conformance.py --simulated-from sim.json --emulated-from a.json,b.json \
      --protocols 2 --skip-hidden --out bench/results/DATE-TOPIC
"""
import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from fastpath_bench.run_record import RunRecord  # noqa: E402

PROTOCOLS = {1: "OLSR", 2: "AODV", 3: "DSDV"}


def run(cmd, cwd, timeout):
    t0 = time.monotonic()
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d\n%s" % (" ".join(cmd), p.returncode, p.stderr[-2000:]))
    return p.stdout, time.monotonic() - t0


def switch_args(emulated, socket, tag):
    if not emulated:
        return ["--FastPathEmulation=0"]
    return ["--FastPathEmulation=1", "--FastPathSocket=" + socket, "--FastPathTag=" + tag]


def medium_totals(snap):
    """A medium's counters summed over its members (fpctl medium show --json)."""
    keys = ("tx_packets", "rx_packets", "retries", "retry_drops", "collisions", "late_frames",
            "expired_drops", "acks_lost", "duplicates")
    t = {k: sum(p.get(k, 0) for p in snap["ports"]) for k in keys}
    t["busy_share_mean"] = round(statistics.fmean(p["busy_share"] for p in snap["ports"]), 4)
    t["pairs"] = len(snap["pairs"])
    t["updates"] = snap["updates"]
    return t


def manet(binary, protocol, emulated, socket, workdir, rng_run=1, fpctl=None, extra=()):
    out = os.path.join(workdir, "manet-%d-%s-%d.csv" % (protocol, "emu" if emulated else "sim",
                                                        rng_run))
    cmd = [binary, "--protocol=%d" % protocol, "--CSVfileName=" + out, "--RngRun=%d" % rng_run]
    cmd += switch_args(emulated, socket, "manet%d" % protocol) + list(extra)
    medium = None
    if emulated and fpctl:
        # The medium's own counters at the end of the run (its last poll).
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=workdir, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        snaps = medium_snapshots(proc, fpctl, socket, "manet%d-wifi0" % protocol)
        _, err = proc.communicate(timeout=900)
        if proc.returncode != 0:
            raise RuntimeError("%s: exit %d\n%s" % (" ".join(cmd), proc.returncode, err[-2000:]))
        seconds = time.monotonic() - t0
        medium = medium_totals(snaps[-1]) if snaps else None
    else:
        _, seconds = run(cmd, workdir, timeout=900)
    with open(out) as f:
        rows = list(csv.DictReader(f))
    received = [int(r["PacketsReceived"]) for r in rows]
    # The flows start at 100-101 s: the mean over the seconds with traffic.
    active = [n for r, n in zip(rows, received) if float(r["SimulationSecond"]) >= 101]
    return {
        "scenario": "manet-routing-compare",
        "protocol": PROTOCOLS[protocol],
        "mode": "emulated" if emulated else "simulated",
        "seconds": len(rows),
        "received_total": sum(received),
        "received_per_s_mean": sum(active) / len(active) if active else 0.0,
        "rng_run": rng_run,
        "wall_s": round(seconds, 1),
        **({"medium": medium} if medium else {}),
        **({"args": list(extra)} if extra else {}),
    }


def manet_runs(binary, protocol, emulated, socket, workdir, runs, first=1, fpctl=None,
               extra=()):
    """The scenario over RngRun first..first+runs-1: each run is one draw of the mobility,
    the traffic start times and the channel's randomness; one run alone is not the
    scenario's figure (its mobility decides most of the figure: simulated, OLSR's received
    packets/s spread from 6.5 to 16.8 over RngRun 1..10); compare the same runs on both
    sides."""
    each = [manet(binary, protocol, emulated, socket, workdir, k, fpctl, extra)
            for k in range(first, first + runs)]
    return manet_summary(protocol, emulated, each)


def manet_summary(protocol, emulated, each):
    """One protocol's runs (one mode) and their mean, spread and range."""
    rates = [r["received_per_s_mean"] for r in each]
    mean = statistics.fmean(rates)
    return {
        "scenario": "manet-routing-compare",
        "protocol": PROTOCOLS[protocol],
        "mode": "emulated" if emulated else "simulated",
        "runs": each,
        "received_per_s_mean": mean,
        "received_per_s_sd": statistics.stdev(rates) if len(rates) > 1 else 0.0,
        "received_per_s_min": min(rates),
        "received_per_s_max": max(rates),
    }


FLOW = re.compile(r"Flow (\d+) .*?\n.*?Rx Packets: (\d+)\n.*?Throughput: ([0-9.e+-]+) Mbps",
                  re.S)


def medium_snapshots(proc, fpctl, socket, name):
    """While `proc` runs: the last `fpctl medium show NAME --json` of each medium of that
    name (a script that runs two experiments creates it twice), every 0.3 s."""
    snaps = []
    last_elapsed = None
    while proc.poll() is None:
        q = subprocess.run([fpctl, "--socket", socket, "medium", "show", name, "--json"],
                           capture_output=True, text=True)
        if q.returncode == 0 and q.stdout.strip():
            m = json.loads(q.stdout)
            if last_elapsed is None or m["elapsed_ns"] < last_elapsed:
                snaps.append(m)
            else:
                snaps[-1] = m
            last_elapsed = m["elapsed_ns"]
        time.sleep(0.3)
    return snaps


def hidden(binary, emulated, socket, workdir, fpctl, extra):
    cmd = [binary] + extra + switch_args(emulated, socket, "hidden")
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    snaps = medium_snapshots(proc, fpctl, socket, "hidden-wifi0") if emulated else []
    text, err = proc.communicate(timeout=300)
    if proc.returncode != 0:
        raise RuntimeError("%s: exit %d\n%s" % (" ".join(cmd), proc.returncode, err[-2000:]))
    seconds = time.monotonic() - t0
    without, _, with_ = text.partition("RTS/CTS enabled")
    result = {"scenario": "wifi-hidden-terminal",
              "mode": "emulated" if emulated else "simulated", "wall_s": round(seconds, 1)}
    for i, (name, part) in enumerate((("rts_off", without), ("rts_on", with_))):
        flows = [(int(a), int(b), float(c)) for a, b, c in FLOW.findall(part)]
        result[name] = {"flows_mbps": [f[2] for f in flows],
                        "total_mbps": round(sum(f[2] for f in flows), 4)}
        if emulated and i < len(snaps):
            # FlowMonitor's receiving probe needs a byte tag that does not cross fastpathd:
            # the goodput is the medium's frames delivered to n1 from n0 and n2, as IP
            # packets of 1428 bytes over the example's 9 s (FlowMonitor's own arithmetic).
            pairs = {(q["from"], q["to"]): q for q in snaps[i]["pairs"]}
            mbps = [pairs.get(("hidden-n%d" % s, "hidden-n1"), {}).get("delivered", 0) *
                    1428 * 8 / 9.0 / 1e6 for s in (0, 2)]
            result[name] = {"flows_mbps": [round(x, 4) for x in mbps],
                            "total_mbps": round(sum(mbps), 4),
                            "flowmonitor_mbps": result[name]["total_mbps"],
                            "source": "fastpathd medium counters"}
    return result


class Fastpathd:
    """fastpathd from an empty topology in a scratch namespace (root), stopped on exit."""

    def __init__(self, build_dir, work):
        self.ns = "fp-wifibench-%d" % os.getpid()
        self.sock = os.path.join(work, "fastpathd.sock")
        self.log = os.path.join(work, "fastpathd.log")
        self.proc = None
        binary = os.path.join(build_dir, "bin", "fastpathd")
        topo = os.path.join(work, "empty.yaml")
        with open(topo, "w") as f:
            f.write("nodes: []\n")
        subprocess.run(["ip", "netns", "add", self.ns], check=True)
        subprocess.run(["ip", "-n", self.ns, "link", "set", "lo", "up"], check=True)
        self.proc = subprocess.Popen(
            ["ip", "netns", "exec", self.ns, binary, "--topology", topo, "--socket", self.sock,
             "--socket-uid", str(os.getuid())],
            stdout=open(self.log, "w"), stderr=subprocess.STDOUT)
        for _ in range(100):
            if os.path.exists(self.sock):
                return
            time.sleep(0.1)
        self.stop()
        raise RuntimeError("fastpathd did not start:\n" + open(self.log).read())

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        subprocess.run(["ip", "netns", "del", self.ns], stderr=subprocess.DEVNULL)


def rel(a, b):
    return abs(a - b) / b if b else float("inf")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--emulated", action="store_true",
                    help="also run emulated (needs a fastpathd with radio media)")
    ap.add_argument("--socket", default="",
                    help="a running fastpathd's socket (default: start one, as root)")
    ap.add_argument("--protocols", default="1,2,3", help="of 1=OLSR 2=AODV 3=DSDV")
    ap.add_argument("--skip-manet", action="store_true")
    ap.add_argument("--hidden-args", default="",
                    help="more arguments of wifi-hidden-terminal, e.g. a constant rate: "
                         "'--wifiManager=ConstantRate "
                         "--ns3::ConstantRateWifiManager::DataMode=DsssRate11Mbps "
                         "--ns3::ConstantRateWifiManager::ControlMode=DsssRate1Mbps'")
    ap.add_argument("--sim-runs", type=int, default=10,
                    help="simulated manet-routing-compare runs per protocol (RngRun 1..N; "
                         "about 5-15 s each)")
    ap.add_argument("--emu-runs", type=int, default=1,
                    help="emulated manet-routing-compare runs per protocol (RngRun 1..N; "
                         "200 s each, real time)")
    ap.add_argument("--skip-simulated", action="store_true",
                    help="with --emulated: the emulated runs only (compare later with "
                         "--emulated-from)")
    ap.add_argument("--simulated-from", default="",
                    help="take the simulated results from this earlier output (its JSON "
                         "lines) instead of running them again")
    ap.add_argument("--emulated-from", default="",
                    help="take the emulated results from this earlier output (e.g. of a run "
                         "with --emulated --skip-simulated on a quiet machine) and compare")
    ap.add_argument("--skip-hidden", action="store_true")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 unless the emulated figures are within the targets")
    ap.add_argument("--manet-args", default="",
                    help="more arguments of manet-routing-compare (both sides), e.g. "
                         "'--ns3::FastPathRouteMirror::ResolveOnMiss=0'")
    ap.add_argument("--first-run", type=int, default=1,
                    help="the manet runs' first RngRun (both sides; default 1)")
    ap.add_argument("--out", default="",
                    help="also write a run folder: results.md (the command, date, load, the "
                         "table) and results.json (the same and every result)")
    args = ap.parse_args()
    if args.first_run < 1 or args.sim_runs < 1 or args.emu_runs < 1:
        ap.error("--first-run, --sim-runs, --emu-runs: 1 or more")
    run = RunRecord("bench/wifi/wifi_conformance.py")
    bdir = os.path.join(args.build_dir, "bench", "wifi")
    manet_bin = os.path.abspath(os.path.join(bdir, "fp-wifi-manet-routing-compare"))
    hidden_bin = os.path.abspath(os.path.join(bdir, "fp-wifi-hidden-terminal"))
    modes = [False, True] if args.emulated else [False]
    results = []
    fpd = None
    with tempfile.TemporaryDirectory(prefix="fp-wifi-") as work:
        os.chmod(work, 0o777)  # the examples write their CSV and .mob files here
        if args.emulated and not args.socket and not args.emulated_from:
            fpd = Fastpathd(args.build_dir, work)
            args.socket = fpd.sock
        try:
            by = run_all(args, modes, hidden_bin, manet_bin, work, results)
        finally:
            if fpd:
                fpd.stop()
    ok, text = report(args, by)
    sys.stderr.write(text)
    if args.out:
        run.write(args.out, {"results": results, "compared": list(by.values()), "earlier": {
                      "simulated_from": args.simulated_from, "emulated_from": args.emulated_from},
                             "targets_met": ok},
                  "```\n" + text + "```\n")
    if args.check and (args.emulated or args.emulated_from) and not ok:
        return 1
    return 0


def earlier(paths, mode):
    """The results of one mode from earlier runs' JSON lines (comma-separated files: the
    manet runs of all of them together, a later file's run replacing an earlier one with
    the same RngRun), keyed as run_all keys them."""
    by, runs = {}, {}
    emulated = mode == "emulated"
    for path in paths.split(","):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line.startswith("{"):
                    continue
                r = json.loads(line)
                if r.get("mode") != mode:
                    continue
                if r["scenario"] == "wifi-hidden-terminal":
                    by[("hidden", emulated)] = r
                    continue
                p = {v: k for k, v in PROTOCOLS.items()}[r["protocol"]]
                for x in r["runs"]:
                    runs.setdefault(p, {})[x["rng_run"]] = x
    for p, each in runs.items():
        by[(p, emulated)] = manet_summary(p, emulated, [each[k] for k in sorted(each)])
    return by


def run_all(args, modes, hidden_bin, manet_bin, work, results):
    by = {}
    if args.simulated_from:
        by.update(earlier(args.simulated_from, "simulated"))
    if args.emulated_from:
        by.update(earlier(args.emulated_from, "emulated"))
    modes = [m for m in modes
             if not (m and args.emulated_from) and
             not (not m and (args.simulated_from or args.skip_simulated))]
    fpctl = os.path.abspath(os.path.join(args.build_dir, "bin", "fpctl"))
    for emulated in modes if not args.skip_hidden else []:
        r = hidden(hidden_bin, emulated, args.socket, work, fpctl, args.hidden_args.split())
        by[("hidden", emulated)] = r
        results.append(r)
        print(json.dumps(r), flush=True)
    if not args.skip_manet:
        for p in [int(x) for x in args.protocols.split(",")]:
            for emulated in modes:
                r = manet_runs(manet_bin, p, emulated, args.socket, work,
                               args.emu_runs if emulated else args.sim_runs, args.first_run,
                               fpctl, args.manet_args.split())
                by[(p, emulated)] = r
                results.append(r)
                print(json.dumps(r), flush=True)
    return by


def paired(sim, emu):
    """The runs both sides have (the same RngRun: the same mobility and traffic): per run
    emulated / simulated, and the mean of the differences with its standard error (a bias
    shows as a mean difference several standard errors away from 0; noise does not)."""
    s = {r["rng_run"]: r["received_per_s_mean"] for r in sim["runs"]}
    e = {r["rng_run"]: r["received_per_s_mean"] for r in emu["runs"]}
    both = sorted(set(s) & set(e))
    diffs = [e[k] - s[k] for k in both]
    se = statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else float("nan")
    return {"rng_runs": both, "simulated": [s[k] for k in both], "emulated": [e[k] for k in both],
            "simulated_mean": statistics.fmean(s[k] for k in both) if both else float("nan"),
            "emulated_mean": statistics.fmean(e[k] for k in both) if both else float("nan"),
            "diff_mean": statistics.fmean(diffs) if diffs else float("nan"), "diff_se": se}


def report(args, by):
    """The comparison table (text) and whether every target is met."""
    ok = True
    lines = ["%-24s %-6s %12s %12s %8s" % ("scenario", "", "simulated", "emulated", "diff")]
    sim, emu = by.get(("hidden", False)), by.get(("hidden", True))
    for k in ("rts_off", "rts_on") if sim else ():
        s = sim[k]["total_mbps"]
        e = emu[k]["total_mbps"] if emu else None
        d = rel(e, s) if emu else None
        ok = ok and (d is None or d <= 0.15)
        lines.append("%-24s %-6s %12.3f %12s %8s" % ("hidden-terminal Mbit/s", k, s,
                     "%.3f" % e if emu else "-", "%.1f%%" % (100 * d) if emu else "-"))
    if sim and emu:
        same_order = ((sim["rts_on"]["total_mbps"] > sim["rts_off"]["total_mbps"]) ==
                      (emu["rts_on"]["total_mbps"] > emu["rts_off"]["total_mbps"]))
        ok = ok and same_order
        lines.append("hidden-terminal: RTS/CTS ordering %s" %
                     ("the same" if same_order else "DIFFERS"))
    for p in [int(x) for x in args.protocols.split(",")] if not args.skip_manet else []:
        sim = by.get((p, False))
        if not sim:
            continue
        emu = by.get((p, True))
        if emu:
            # The same RngRuns on both sides: a run's mobility decides most of its figure.
            pr = paired(sim, emu)
            if not pr["rng_runs"]:
                lines.append("manet %s: no RngRun on both sides" % PROTOCOLS[p])
                ok = False
                continue
            s, e = pr["simulated_mean"], pr["emulated_mean"]
            d = rel(e, s)
            ok = ok and d <= 0.10
            lines.append("%-24s %-6s %12.2f %12.2f %8s   RngRun %s" % (
                "manet rx packets/s", PROTOCOLS[p], s, e, "%.1f%%" % (100 * d),
                ",".join(str(k) for k in pr["rng_runs"])))
            lines.append("%-31s %s   emulated - simulated: mean %+.2f, s.e. %.2f" % (
                "  per run (simulated/emulated)", " ".join("%.2f/%.2f" % (a, b) for a, b in
                                          zip(pr["simulated"], pr["emulated"])),
                pr["diff_mean"], pr["diff_se"]))
        else:
            lines.append("%-24s %-6s %12.2f %12s %8s   simulated over %d runs: sd %.2f, "
                         "%.2f .. %.2f" % ("manet rx packets/s", PROTOCOLS[p],
                                          sim["received_per_s_mean"], "-", "-", len(sim["runs"]),
                                          sim["received_per_s_sd"], sim["received_per_s_min"],
                                          sim["received_per_s_max"]))
    return ok, "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
