#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Link emulation fidelity: runs fp-link-fidelity (S -- [n1 =l1= n2] -- D, one fastpathd
in-process) and sets what the link was configured to do beside what the frames that crossed
it measured: delay error against the unemulated baseline, delivered rate, loss against its
binomial interval, Gilbert-Elliott burst lengths, 16 flows at 90 % of the rate. Writes
results.md (the table), results.json, link_fidelity.png and log.txt into --out.

Usage: sudo bench/fidelity/link_fidelity.py --build-dir build-fid --out /tmp/fidelity
Measuring is here; reading the frames and the tables are in link_fidelity_report.py.
See bench/fidelity/README.md.
"""
import argparse
import datetime
import glob
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import threading
import time

from fidelity_common import log
from link_fidelity_report import analyze, plot, table, variant_table

HARD_LIMIT_S = 15 * 60  # the whole measured run, fp-link-fidelity included


def compilers():
    r = subprocess.run(["pgrep", "-c", "cc1plus|ninja"], capture_output=True, text=True)
    try:
        return int(r.stdout.strip() or 0)
    except ValueError:
        return 0


def wait_for_quiet(max_wait_s, fh):
    """Waits until no compiler runs (checked every 30 s, at most max_wait_s)."""
    start = time.time()
    while True:
        n = compilers()
        if n == 0:
            log(f"no compiler running (waited {time.time() - start:.0f} s)", fh)
            return {"waited_s": round(time.time() - start), "compilers_at_start": 0, "ran_anyway": False}
        if time.time() - start >= max_wait_s:
            log(f"{n} compiler processes still running after {max_wait_s / 60:.0f} min: running anyway", fh)
            return {"waited_s": round(time.time() - start), "compilers_at_start": n, "ran_anyway": True}
        log(f"{n} compiler processes (cc1plus|ninja) running; checking again in 30 s", fh)
        time.sleep(30)


def source():
    """The commit the program was built from (git, or a COMMIT file of an exported tree) and
    whether the data plane's sources differed from it."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    r = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True)
    if r.returncode == 0:
        dirty = subprocess.run(["git", "-C", root, "status", "--short", "--", "common", "fastpath",
                                "testing", "classifier"], capture_output=True, text=True).stdout
        return {"tree": root, "commit": r.stdout.strip(), "uncommitted": dirty.splitlines()}
    try:
        with open(os.path.join(root, "COMMIT")) as f:
            return {"tree": root, "commit": f.read().strip(), "uncommitted": [],
                    "note": "exported with git archive, bench/fidelity and bench/CMakeLists.txt added"}
    except OSError:
        return {"tree": root, "commit": "unknown"}


def machine():
    def read(path):
        try:
            with open(path) as f:
                return f.read()
        except OSError:
            return ""
    model = ""
    for line in read("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    mem_kb = 0
    for line in read("/proc/meminfo").splitlines():
        if line.startswith("MemTotal"):
            mem_kb = int(line.split()[1])
    virt = subprocess.run(["systemd-detect-virt"], capture_output=True, text=True).stdout.strip() \
        if shutil.which("systemd-detect-virt") else ""
    osr = ""
    for line in read("/etc/os-release").splitlines():
        if line.startswith("PRETTY_NAME="):
            osr = line.split("=", 1)[1].strip('"')
    return {"cpu": model, "cpus": os.cpu_count(), "mem_gb": round(mem_kb / 1048576, 1),
            "kernel": platform.release(), "os": osr, "virt": virt or "none"}


class Sampler(threading.Thread):
    """Samples the compiler count and the load average every 5 s during the run."""

    def __init__(self):
        super().__init__(daemon=True)
        self.samples = []
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            self.samples.append({"t": round(time.time()), "compilers": compilers(),
                                 "load1": os.getloadavg()[0]})
            self.stop.wait(5)


# Second passes over the delay scenarios (and their baselines, and the flows) that take one
# cause of error away each: the worker above other work (SCHED_FIFO), or never asleep.
VARIANTS = {
    "rt": {"args": ["--rt-priority", "51"], "only": "baseline,delay,flows,timer",
           "what": "worker SCHED_FIFO 51, one above R's NAPI threads (as --rt-priority auto "
                   "--rt-mode above would put it): other work cannot preempt it; it still sleeps"},
    "spin": {"args": ["--rt-priority", "0", "--idle-poll-us", "0"], "only": "baseline,delay,flows",
             "what": "worker never sleeps (--idle-poll-us 0, normal scheduling): no wake-up latency"},
}


def run_program(args, out, fh, extra, only, deadline):
    binary = os.path.join(args.build_dir, "bench", "fp-link-fidelity")
    if not os.access(binary, os.X_OK):
        sys.exit(f"link_fidelity.py: {binary} not found: build it first "
                 f"(cmake --build {args.build_dir} --target fp-link-fidelity)")
    cmd = [binary, "--out", out, "--scale", str(args.scale), "--rt-priority", args.rt_priority,
           "--worker-cpu", str(args.worker_cpu), "--traffic-cpu", str(args.traffic_cpu)] + extra
    if only:
        cmd += ["--only", only]
    log("command: " + " ".join(cmd), fh)

    def child_setup():
        os.nice(-10)  # as fastpath_bench.py: benchmark processes at nice -10

    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True, preexec_fn=child_setup)
    # Its own session is its own scheduler autogroup: nice -10 for it too (gone with it).
    try:
        with open(f"/proc/{proc.pid}/autogroup", "w") as f:
            f.write("-10")
    except OSError:
        pass

    def stop_child(sig):
        try:
            os.killpg(proc.pid, sig)  # the group we started: fp-link-fidelity and its ip/sh
        except ProcessLookupError:
            pass

    def on_time_limit():
        log(f"time limit reached: stopping fp-link-fidelity (pid {proc.pid})", fh)
        stop_child(signal.SIGTERM)

    timer = threading.Timer(max(1.0, deadline - time.time()), on_time_limit)
    timer.start()
    interrupted = False
    try:
        for line in proc.stdout:
            if "libbpf: elf: skipping" in line or "libxdp: Falling back" in line:
                continue
            sys.stdout.write(line)
            fh.write(line)
        proc.wait()
    except KeyboardInterrupt:
        interrupted = True
        stop_child(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            stop_child(signal.SIGKILL)
            proc.wait()
    finally:
        timer.cancel()
        # Namespaces of a child that died without its destructors (crash, SIGKILL).
        for ns in glob.glob(f"/var/run/netns/fp-fid-{proc.pid}-*"):
            subprocess.run(["ip", "netns", "del", os.path.basename(ns)], check=False)
            log(f"removed leftover namespace {os.path.basename(ns)}", fh)
    if interrupted:
        sys.exit(130)
    return proc.returncode




def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default="build-fid")
    ap.add_argument("--out", required=True)
    ap.add_argument("--scale", type=float, default=1.0, help="frames per scenario times X (smoke: 0.05)")
    ap.add_argument("--only", default="", help="scenarios by kind or name (see fp-link-fidelity --list)")
    ap.add_argument("--rt-priority", default="auto", help="the worker's SCHED_FIFO priority (auto, as fastpathd)")
    ap.add_argument("--worker-cpu", type=int, default=1)
    ap.add_argument("--traffic-cpu", type=int, default=0)
    ap.add_argument("--no-wait", action="store_true", help="do not wait for compilers to finish")
    ap.add_argument("--max-wait", type=float, default=20, help="minutes to wait for compilers (20)")
    ap.add_argument("--time-limit", type=int, default=HARD_LIMIT_S, help="seconds, the whole run (900)")
    ap.add_argument("--analyze-only", action="store_true", help="analyse --out again, run nothing")
    ap.add_argument("--smoke", action="store_true", help="--scale 0.05 --no-wait, checks every scenario has numbers")
    ap.add_argument("--variants", default="rt,spin",
                    help="second passes over baseline, delay and flows: " + ", ".join(
                        f"{k}: {v['what']}" for k, v in VARIANTS.items()) + "; 'none' for none")
    args = ap.parse_args()
    if args.smoke:
        args.scale, args.no_wait = 0.05, True
    variants = [] if args.variants in ("", "none") else args.variants.split(",")
    for v in variants:
        if v not in VARIANTS:
            sys.exit(f"link_fidelity.py: unknown variant {v} (known: {', '.join(VARIANTS)})")
    os.makedirs(args.out, exist_ok=True)
    meta_path = os.path.join(args.out, "run.json")
    if not args.analyze_only:
        if os.geteuid() != 0:
            print("link_fidelity.py: needs root (namespaces, XDP); skipped")
            sys.exit(77)
        with open(os.path.join(args.out, "log.txt"), "w") as fh:
            meta = {"machine": machine(), "started": datetime.datetime.now().isoformat(timespec="seconds"),
                    "argv": sys.argv, "source": source()}
            meta["wait"] = {"skipped": True} if args.no_wait else wait_for_quiet(args.max_wait * 60, fh)
            meta["load_before"] = os.getloadavg()
            log(f"machine: {meta['machine']}", fh)
            sampler = Sampler()
            sampler.start()
            t0 = time.time()
            deadline = t0 + args.time_limit
            rc = run_program(args, args.out, fh, [], args.only, deadline)
            meta["variants"] = {}
            for v in variants:
                if time.time() > deadline - 30:
                    log(f"no time left for variant {v}", fh)
                    break
                sub = os.path.join(args.out, v)
                os.makedirs(sub, exist_ok=True)
                log(f"variant {v}: {VARIANTS[v]['what']}", fh)
                vrc = run_program(args, sub, fh, VARIANTS[v]["args"], VARIANTS[v]["only"], deadline)
                meta["variants"][v] = {"what": VARIANTS[v]["what"], "exit_code": vrc}
                rc = rc or vrc
            sampler.stop.set()
            meta["duration_s"] = round(time.time() - t0, 1)
            meta["exit_code"] = rc
            meta["load_after"] = os.getloadavg()
            meta["during"] = {"max_compilers": max((s["compilers"] for s in sampler.samples), default=0),
                              "samples_with_compilers": sum(1 for s in sampler.samples if s["compilers"]),
                              "samples": len(sampler.samples),
                              "max_load1": max((s["load1"] for s in sampler.samples), default=0),
                              "series": sampler.samples}
            log(f"runs finished after {meta['duration_s']} s (exit {rc}); compilers during the run: "
                f"max {meta['during']['max_compilers']} ({meta['during']['samples_with_compilers']} of "
                f"{meta['during']['samples']} samples, every 5 s), load1 max {meta['during']['max_load1']:.1f}", fh)
        with open(meta_path, "w") as f:
            json.dump(meta, f, indent=1)
        if rc != 0:
            print(f"link_fidelity.py: fp-link-fidelity failed (exit {rc}); see {args.out}/log.txt")
    res = analyze(args.out)
    res["variants"] = {}
    for v in VARIANTS:
        if os.path.exists(os.path.join(args.out, v, "scenarios.jsonl")):
            res["variants"][v] = analyze(os.path.join(args.out, v))["scenarios"]
            res["variants"][v]["what"] = VARIANTS[v]["what"]
    if os.path.exists(meta_path):
        with open(meta_path) as f:
            res["run"] = json.load(f)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    md = table(res) + "\n\n" + variant_table(res)
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write(md + "\n")
    plot(res, os.path.join(args.out, "link_fidelity.png"))
    print(md)
    missing = [n for n, s in res["scenarios"].items() if "error" in s]
    if missing:
        print("scenarios without numbers: " + ", ".join(missing))
        sys.exit(1)
    if not args.analyze_only and rc != 0:
        sys.exit(1)


if __name__ == "__main__":
    main()
