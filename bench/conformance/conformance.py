#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""ns-3's own examples, simulated and emulated: the conformance suite.

For each example of the corpus (corpus.py: ns-3 3.37's examples from Debian's ns3-doc whose
channels are point-to-point or CSMA only), applies the documented switch into a build
directory and prints the lines it changed, builds it against the fastpath module through
pkg-config with a FlowMonitor injected (flowmon-inject.cc), runs it simulated, then either
simulated again (--mode self: the harness's self-check, must pass) or emulated by fastpathd
(--mode emulated, root), and compares what it printed and FlowMonitor's flows (compare.py).

Writes into --out: one folder per example (switched source, changes.txt, build.log, each run's
stdout, stderr, command and flows), results.json and results.md (the table). Exit status with
--check: 0 when every run example passed, 1 otherwise; 77 when --mode emulated is not root.

Usage:
  bench/conformance/conformance.py --build-dir build --out /tmp/conf --mode self --subset
  sudo bench/conformance/conformance.py --build-dir build --out /tmp/conf --subset --check
  sudo bench/conformance/conformance.py --build-dir build --out bench/results/DATE-conformance
See bench/conformance/README.md.
"""
import argparse
import json
import os
import platform
import signal
import sys
import time

from build import build_example, pkg_config_path
from compare import (compare_flows, compare_output, mean_delay_ns, read_flowmonitor_xml,
                     read_flows)
from corpus import CORPUS, EXAMPLES_DIR, find
from report import write_report
from run import SLACK_S, Fastpathd, make_writable, run_example
from seeds import compare_flows_seeds, compare_output_seeds

# Lines the emulating helpers print themselves (not the example's output).
MODULE_LINE_MARKERS = ("FastPath", "fastpathd")
# The measured runs stop this long after the simulated run's natural end.
END_MARGIN_NS = 1_000_000_000
# Simulated seeds (RngRun 1..SEED_RUNS) of an example compared with the seeds' spread; the
# compared run is RngRun SEED_RUNS + 1. t(0.995, 7) = 3.5: the interval is +-3.7 standard
# deviations of the seeds.
SEED_RUNS = 8


def log(msg, fh):
    line = f"[{time.strftime('%H:%M:%S')}] {msg}"
    print(line, flush=True)
    fh.write(line + "\n")
    fh.flush()


def example_lines(lines):
    return [l for l in lines if not any(m in l for m in MODULE_LINE_MARKERS)]


def _why(stderr):
    """The line that says why a run stopped: ns-3's abort or assert message, else the last."""
    for line in reversed(stderr):
        if "msg=" in line or "assert failed" in line or "NS_FATAL" in line:
            return line.strip()
    return next((l.strip() for l in reversed(stderr) if l.strip()), "")


def _failure(name, run):
    if run["timeout"]:
        return f"{name} run did not end within its bound"
    signal = {-6: " (SIGABRT)", -11: " (SIGSEGV)", -9: " (SIGKILL)"}.get(run["rc"], "")
    return f"{name} run exits {run['rc']}{signal}: {_why(run['stderr'])[:300]}"


def _flow_totals(flows):
    if not flows:
        return None
    rx = sum(f["rx_packets"] for f in flows.values())
    delay = sum(f["delay_sum_ns"] for f in flows.values())
    return {"flows": len(flows), "tx_packets": sum(f["tx_packets"] for f in flows.values()),
            "rx_packets": rx, "rx_bytes": sum(f["rx_bytes"] for f in flows.values()),
            "mean_delay_ms": round(delay / rx / 1e6, 3) if rx else None}


def tcp_udp(flows):
    """The flows FlowMonitor classifies (TCP and UDP): the packet count also sees ICMP."""
    return None if flows is None else {k: v for k, v in flows.items() if k[0] in (6, 17)}


def _stop(signum, frame):
    # SystemExit unwinds through the runs' cleanup (process groups, fastpathd, namespace).
    sys.exit(128 + signum)


def _flow_row(r):
    return {"flow": r["flow"], "checks": r["checks"],
            "rx_packets": (r["a"]["rx_packets"], r["b"]["rx_packets"]),
            "rx_bytes": (r["a"]["rx_bytes"], r["b"]["rx_bytes"]),
            "mean_delay_ms": (round(mean_delay_ns(r["a"]) / 1e6, 3),
                              round(mean_delay_ns(r["b"]) / 1e6, 3))}


def check_example(example, opts, pc_path, fh):
    """One example, built and run twice; returns its result row."""
    res = {"example": example.name, "args": list(example.args)}
    if example.emulate:
        res.update(result="not emulatable", reason=example.emulate)
        return res
    wd = os.path.join(opts.out, example.name.replace("/", "-"))
    try:
        exe = build_example(example, wd, pc_path, lambda m: log(m, fh))
    except RuntimeError as e:
        res.update(result="fail", reason=str(e))
        return res
    res["changes"] = open(os.path.join(wd, "changes.txt")).read().splitlines()
    # The simulated run without a monitor: where the example ends by itself.
    probe_dir = os.path.join(wd, "probe")
    end_file = os.path.join(probe_dir, "end_ns")
    probe = run_example(exe, example.args, probe_dir,
                        dict(opts.extra_env, FP_CONFORMANCE_END=end_file),
                        example.cap_s * 4 + SLACK_S)
    if probe["rc"] != 0 or not os.path.exists(end_file):
        res.update(result="fail", reason="does not run simulated: " + _failure("simulated", probe))
        return res
    end_ns = int(open(end_file).read())
    stop_ns = min(end_ns + END_MARGIN_NS, int(example.cap_s * 1e9))
    res["stop_s"] = stop_ns / 1e9
    timeout = stop_ns / 1e9 + SLACK_S
    runs = {}
    # An example with random draws the emulation cannot share is compared with the spread of
    # SEED_RUNS simulated seeds, and the compared run is one more seed (seeds.py).
    if example.seeds:
        labels = [(f"simulated-rng{r}", r) for r in range(1, SEED_RUNS + 1)] + \
            [(opts.mode, SEED_RUNS + 1)]
    else:
        labels = [("simulated", None), (opts.mode, None)]
    for label, rng_run in labels:
        rundir = os.path.join(wd, label if label != "self" else "simulated-again")
        make_writable(rundir)
        env = dict(opts.extra_env, FP_CONFORMANCE_FLOWS=os.path.join(rundir, "flowmonitor.xml"),
                   FP_CONFORMANCE_STOP_NS=str(stop_ns))
        if rng_run is not None:
            env["NS_GLOBAL_VALUE"] = f"RngRun={rng_run}"
        log(f"{example.name}: {label} run" + (f" (RngRun {rng_run})" if rng_run else "") +
            f", stopped at {stop_ns / 1e9:g} s", fh)
        if label == "emulated":
            try:
                with Fastpathd(opts.fastpathd, rundir) as fpd:
                    runs[label] = run_example(exe, example.args, rundir, env, timeout, fpd)
                    runs[label]["emulated"] = fpd.created_nodes()
            except RuntimeError as e:
                res.update(result="fail", reason=str(e))
                return res
        else:
            runs[label] = run_example(exe, example.args, rundir, env, timeout)
        runs[label]["flows"] = read_flowmonitor_xml(env["FP_CONFORMANCE_FLOWS"])
        runs[label]["packets"] = tcp_udp(read_flows(env["FP_CONFORMANCE_FLOWS"] + ".ipid"))
        res[label] = {"rc": runs[label]["rc"], "wall_s": runs[label]["wall_s"],
                      "totals": _flow_totals(runs[label]["flows"]),
                      "packet_totals": _flow_totals(runs[label]["packets"])}
    seed_runs = [runs[label] for label, _ in labels[:-1]] if example.seeds else []
    if example.seeds:
        # The table's simulated column: the seeds' range; the first seed stands for them.
        res["seeds"] = [res.pop(label) for label, _ in labels[:-1]]
        res["simulated"] = res["seeds"][0]
        runs["simulated"] = seed_runs[0]
    a, b = runs["simulated"], runs[opts.mode]
    problems = []
    named = [(f"simulated (RngRun {i + 1})", r) for i, r in enumerate(seed_runs)] or \
        [("simulated", a)]
    for name, run in named + [(opts.mode, b)]:
        if run["rc"] != 0:
            problems.append(_failure(name, run))
    if b.get("emulated") is False and not problems:
        problems.append("the emulated run created no fastpathd node: it ran simulated")
    if not problems:
        for stream in ("stdout", "stderr"):
            if example.seeds:
                c = compare_output_seeds([example_lines(r[stream]) for r in seed_runs],
                                         example_lines(b[stream]))
            else:
                c = compare_output(example_lines(a[stream]), example_lines(b[stream]))
            res[f"{stream}_compare"] = c
            problems += [f"{stream}: {m}" for m in c["mismatches"][:3]]
        # The identification count must be FlowMonitor's, simulated: else the harness is wrong.
        same = compare_flows(a["flows"], a["packets"],
                             only=[k for k in a["flows"] or () if ":" not in k[1]])
        if not same["ok"]:
            # FlowMonitor gives up on a packet after MaxPerHopDelay (10 s) and ignores it
            # when it arrives later: so long queues make them differ. Reported, not a failure.
            res["note"] = "the packet count differs from FlowMonitor simulated: " + \
                "; ".join(same["problems"][:2])
        for key, what in (("flows", "FlowMonitor"), ("packets", "packets")):
            if example.seeds:
                f = compare_flows_seeds([r[key] for r in seed_runs], b[key],
                                        example.exchangeable)
            else:
                f = compare_flows(a[key], b[key], example.random_loss)
                res[key] = [_flow_row(r) for r in f["flows"]]
            problems += [f"{what}: " + p for p in f["problems"][:3]]
        if not a["flows"]:
            res["note"] = "the example sends no TCP or UDP packet (no flow)"
    res.update(result="pass" if not problems else "fail", reason="; ".join(problems))
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--build-dir", help="a build tree with fp_ns3 (and fastpathd) built")
    where.add_argument("--prefix", help="where the module is installed (lib*/pkgconfig)")
    ap.add_argument("--fastpathd", help="fastpathd (default: BUILD/bin/fastpathd, or PATH)")
    ap.add_argument("--out", required=True, help="folder for the builds, runs and the report")
    ap.add_argument("--mode", choices=("self", "emulated"), default="emulated",
                    help="compare the simulated run with a second simulated one (self-check) "
                         "or with the emulated one (default)")
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--subset", action="store_true", help="the ctest subset only")
    which.add_argument("--examples", help="comma-separated names, e.g. tutorial/first,udp-echo")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 when an example fails (other than its known failure)")
    ap.add_argument("--no-tracing", action="store_true",
                    help="diagnosis: every run skips the example's EnablePcap*/EnableAscii* "
                         "calls (what the example does beyond its tracing)")
    opts = ap.parse_args()
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)  # also when started in the background (ignored there)
    if opts.mode == "emulated" and os.geteuid() != 0:
        print("conformance: the emulated runs need root (fastpathd, namespaces); "
              "--mode self runs unprivileged", file=sys.stderr)
        return 77
    if not os.path.isdir(EXAMPLES_DIR):
        print(f"conformance: {EXAMPLES_DIR} is missing: install Debian's ns3-doc "
              "(scripts/install-deps.sh)", file=sys.stderr)
        return 77
    opts.out = os.path.abspath(opts.out)
    opts.extra_env = {"FP_CONFORMANCE_NO_TRACING": "1"} if opts.no_tracing else {}
    os.makedirs(opts.out, exist_ok=True)
    if opts.mode == "emulated":
        make_writable(opts.out)
    if opts.fastpathd is None:
        opts.fastpathd = os.path.join(os.path.abspath(opts.build_dir), "bin", "fastpathd") \
            if opts.build_dir else "fastpathd"
    examples = find(opts.examples.split(",")) if opts.examples else \
        [e for e in CORPUS if e.subset or not opts.subset]
    pc_path = pkg_config_path(opts.build_dir, opts.prefix, opts.out)
    rows = []
    with open(os.path.join(opts.out, "log.txt"), "a") as fh:
        log(f"conformance: {len(examples)} examples, mode {opts.mode}, out {opts.out}", fh)
        for ex in examples:
            t0 = time.monotonic()
            row = check_example(ex, opts, pc_path, fh)
            row["seconds"] = round(time.monotonic() - t0, 1)
            log(f"{ex.name}: {row['result']}" + (f" ({row['reason']})" if row.get("reason")
                                                  else ""), fh)
            rows.append(row)
            with open(os.path.join(opts.out, "results.json"), "w") as f:
                json.dump({"mode": opts.mode, "machine": platform.node(), "rows": rows}, f,
                          indent=1)
    cmd = "bench/conformance/conformance.py " + " ".join(sys.argv[1:])
    write_report(rows, opts.mode + (", tracing calls skipped" if opts.no_tracing else ""), cmd,
                 os.path.join(opts.out, "results.md"))
    counts = {k: sum(r["result"] == k for r in rows) for k in ("pass", "fail", "not emulatable")}
    print(f"conformance ({opts.mode}): {counts['pass']} pass, {counts['fail']} fail, "
          f"{counts['not emulatable']} not emulatable; table: {opts.out}/results.md")
    unexpected = unexpected_failures(examples, rows, opts.mode)
    for r in unexpected:
        print(f"conformance: FAIL {r['example']}: {r['reason']}")
    return 1 if opts.check and unexpected else 0


def unexpected_failures(examples, rows, mode):
    """The failures --check does not accept: every one of the self-check, and emulated those
    of examples without a known failure or whose reason does not contain it."""
    known = {e.name: e.known for e in examples}
    bad = []
    for r in rows:
        k = known.get(r["example"]) if mode == "emulated" else None
        if r["result"] == "pass" and k:
            print(f"conformance: {r['example']} passes: remove its known failure from corpus.py")
        if r["result"] == "fail" and not (k and k in r["reason"]):
            bad.append(r)
    return bad


if __name__ == "__main__":
    sys.exit(main())
