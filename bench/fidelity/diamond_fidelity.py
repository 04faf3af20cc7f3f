#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The diamond, simulated and emulated: runs ns3-module/examples/diamond (four OLSR routers
a, b, c, d in a diamond of 10 Mbit/s, 5 ms links, FastPathPointToPointHelper; ping, TCP
bulk transfer a -> d, UDP probe over the 1 % lossy direction d -> c; ns-3's applications
in both runs) with --FastPathEmulation=0 and =1 and compares them:

  TCP goodput   emulated within 5 % of simulated
  RTT p50, min  within 5 % + 0.2 ms
  loss          each run's lost probes within the binomial 99 % interval of the configured rate
  convergence   reported for both (must be before the traffic starts)

Emulated, fastpathd runs in a scratch namespace fp-dia-<pid>, started from an empty
topology file (no node, no port), the script as nobody (fastpathd --socket-uid). Writes results.json,
results.md and log.txt into --out; exits 1 when a check fails and --check is given.

Usage: sudo bench/fidelity/diamond_fidelity.py --build-dir build --out /tmp/diamond
       sudo bench/fidelity/diamond_fidelity.py --build-dir build --out /tmp/d --small --check
See bench/fidelity/README.md.
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from fidelity_common import binom_interval, log

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from fastpathd_process import Fastpathd  # noqa: E402
from fastpath_bench.run_record import RunRecord  # noqa: E402

# Full scale (the bench) and small scale (ctest): script arguments and tolerances.
SCALES = {
    "full": {
        "args": ["--traffic-start=8", "--pings=100", "--tcp-seconds=30", "--probes=20000",
                 "--probe-rate=400"],
        # The third run, real hosts at the ends: as many pings, as long a TCP transfer.
        "hosts": {"seconds": 90, "reach_timeout_s": 30, "pings": 100, "tcp_seconds": 30},
        "goodput_rel": 0.05, "rtt_rel": 0.05, "rtt_abs_ms": 0.2, "loss_conf": 0.99,
        "timeout_s": 240,
    },
    # The demo (demo/diamond.sh): the small run's script, real hosts, the bench's bounds.
    "demo": {
        "args": ["--traffic-start=7", "--pings=15", "--tcp-seconds=5", "--probes=3000",
                 "--probe-rate=500"],
        "hosts": {"seconds": 45, "reach_timeout_s": 25, "pings": 20, "tcp_seconds": 5},
        "goodput_rel": 0.05, "rtt_rel": 0.05, "rtt_abs_ms": 0.2, "loss_conf": 0.99,
        "timeout_s": 90,
    },
    # A short run on a loaded 2-core machine: wider, but a wrong rate, delay or loss fails.
    "small": {
        "args": ["--traffic-start=7", "--pings=15", "--tcp-seconds=5", "--probes=3000",
                 "--probe-rate=500"],
        "goodput_rel": 0.15, "rtt_rel": 0.10, "rtt_abs_ms": 1.5, "loss_conf": 0.999,
        "timeout_s": 90,
    },
}


def proc_cpu_s(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return float("nan")


def arg_value(args, name, default):
    for x in args:
        if x.startswith(f"--{name}="):
            return float(x.split("=", 1)[1])
    return default


def sample_links(build, sock, offsets, t0, out):
    """fpctl link list --json at the given seconds after t0 (wall clock): out[i] = (time,
    links). The emulated script runs in real time, so these are its TCP phase's bounds."""
    fpctl = os.path.join(build, "bin", "fpctl")
    for off in offsets:
        delay = t0 + off - time.time()
        if delay > 0:
            time.sleep(delay)
        r = subprocess.run([fpctl, "--socket", sock, "link", "list", "--json"],
                           capture_output=True, text=True, timeout=10)
        if r.returncode == 0:
            links = json.loads(r.stdout)
            out.append((time.time(), links.get("links", []) if isinstance(links, dict) else links))


def link_fidelity(samples):
    """Per link direction that carried frames between the two samples: configured against
    measured (rate of the busiest directions, loss where frames were lost)."""
    if len(samples) < 2:
        return []
    (t1, l1), (t2, l2) = samples[0], samples[-1]
    before = {(l["name"], d): l[d] for l in l1 for d in ("a_to_b", "b_to_a")}
    rows = []
    for link in l2:
        for d in ("a_to_b", "b_to_a"):
            if (link["name"], d) not in before:
                continue
            m0, m1 = before[(link["name"], d)]["measured"], link[d]["measured"]
            conf = link[d]["configured"]
            pk = m1["tx_packets"] - m0["tx_packets"]
            if pk <= 0:
                continue
            wire = (m1["tx_bytes"] - m0["tx_bytes"]) + pk * conf.get("overhead_bytes", 0)
            ends = (link["a"]["node"], link["b"]["node"]) if d == "a_to_b" else \
                (link["b"]["node"], link["a"]["node"])
            rows.append({"link": link["name"], "direction": f"{ends[0]} -> {ends[1]}",
                         "configured": conf.get("text", ""),
                         "rate_mbps": round(8 * wire / (t2 - t1) / 1e6, 3),
                         "configured_rate_mbps": conf.get("rate_bps", 0) / 1e6,
                         "frames": pk, "loss": (m1["loss_drops"] - m0["loss_drops"]) / pk,
                         "configured_loss": conf.get("loss", 0),
                         "queue_drops": m1["queue_drops"] - m0["queue_drops"],
                         "sojourn_p50_ms": m1.get("sojourn_p50_ns", 0) / 1e6,
                         "sojourn_p99_ms": m1.get("sojourn_p99_ns", 0) / 1e6})
    return rows


def run_diamond(build, args, emulated, fpd, workdir, timeout_s, fh):
    """Runs the script once; returns its JSON result plus wall and CPU figures."""
    exe = os.path.join(build, "ns3-module", "examples", "diamond")
    report = os.path.join(workdir, f"diamond-{emulated}.json")
    argv = [exe, f"--report={report}", f"--FastPathEmulation={emulated}"] + args
    if emulated:
        plan = os.path.join(workdir, "plan.yaml")
        argv += [f"--FastPathSocket={fpd.sock}", "--FastPathTag=dia",
                 f"--FastPathPlan={plan}"]
        open(plan, "w").close()
        shutil.chown(plan, "nobody")
        argv = ["ip", "netns", "exec", fpd.ns, "setpriv", "--reuid=nobody", "--regid=nogroup",
                "--clear-groups"] + argv
        open(report, "w").close()
        shutil.chown(report, "nobody")
    log("run: " + " ".join(argv), fh)
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    fpd_cpu0 = proc_cpu_s(fpd.proc.pid) if emulated else 0
    t0 = time.time()
    samples = []
    sampler = None
    if emulated:
        # The TCP phase (a -> d at the link rate) in wall-clock time, a second inside it.
        ts = arg_value(args, "traffic-start", 8) + 0.2 * arg_value(args, "pings", 100) + 0.5
        sampler = threading.Thread(target=sample_links, args=(
            build, fpd.sock, [ts + 1.5, ts + arg_value(args, "tcp-seconds", 30) - 0.5], t0,
            samples), daemon=True)
        sampler.start()
    with open(os.path.join(workdir, f"diamond-{emulated}.log"), "w") as out:
        r = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT, timeout=timeout_s)
    if sampler:
        sampler.join(15)
    wall = time.time() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise RuntimeError(f"diamond (emulated={emulated}) exited {r.returncode}: " +
                           open(os.path.join(workdir, f"diamond-{emulated}.log")).read()[-3000:])
    with open(report) as f:
        res = json.loads(f.readline())
    res["wall_s"] = round(wall, 2)
    res["ns3_cpu_s"] = round(ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime, 2)
    if emulated:
        res["fastpathd_cpu_s"] = round(proc_cpu_s(fpd.proc.pid) - fpd_cpu0, 2)
        res["link_fidelity"] = link_fidelity(samples)
    log("result: " + json.dumps(res), fh)
    return res


def check_plan(build, fpd, workdir, fh):
    """The plan the emulated run wrote (--FastPathPlan), read by a second fastpathd
    (--topology alone, its own socket): the script's nodes with their host and its
    links with their emulation, the lossy direction included. Returns (ok, what)."""
    plan = os.path.join(workdir, "plan.yaml")
    if not os.path.getsize(plan):
        return False, "no plan written"
    sock = os.path.join(workdir, "plan.sock")
    proc = subprocess.Popen(
        ["ip", "netns", "exec", fpd.ns, os.path.join(build, "bin", "fastpathd"),
         "--socket", sock, "--topology", plan],
        stdout=open(os.path.join(workdir, "plan-fastpathd.log"), "w"), stderr=subprocess.STDOUT)
    try:
        for _ in range(100):
            if os.path.exists(sock) or proc.poll() is not None:
                break
            time.sleep(0.1)
        if not os.path.exists(sock):
            return False, "fastpathd --topology refused the plan: " + \
                open(os.path.join(workdir, "plan-fastpathd.log")).read()[-1500:]
        fpctl = os.path.join(build, "bin", "fpctl")
        nodes = json.loads(subprocess.run([fpctl, "--socket", sock, "node", "list", "--json"],
                                          capture_output=True, text=True, timeout=10).stdout)
        links = json.loads(subprocess.run([fpctl, "--socket", sock, "link", "list", "--json"],
                                          capture_output=True, text=True, timeout=10).stdout)
        nodes = nodes.get("nodes", []) if isinstance(nodes, dict) else nodes
        links = links.get("links", []) if isinstance(links, dict) else links
        names = sorted(n["name"] for n in nodes if n["name"] != "default")
        hosts = {n.get("host", "local") for n in nodes}
        text = json.dumps(links)
        what = f"{len(names)} nodes ({', '.join(names)}), {len(links)} links"
        log(f"plan read back by fastpathd --topology: {what}", fh)
        ok = (names == [f"dia-{x}" for x in "abcd"] and len(links) == 4 and
              hosts == {"local"} and "10mbit" in text and "1%" in text)
        return ok, what
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run_hosts(build, fpd, workdir, scale, fh):
    """The third run: the diamond emulated with real hosts h1 at a and h2 at d
    (--hosts=1: namespaces made by fastpathd); ping h1 -> h2 (one every 0.2 s) then iperf3
    TCP h1 -> h2, as the ns-3 applications of the other runs. Returns the results."""
    h = scale["hosts"]
    exe = os.path.join(build, "ns3-module", "examples", "diamond")
    report = os.path.join(workdir, "diamond-hosts.json")
    open(report, "w").close()
    shutil.chown(report, "nobody")
    argv = ["ip", "netns", "exec", fpd.ns, "setpriv", "--reuid=nobody", "--regid=nogroup",
            "--clear-groups", exe, f"--report={report}", "--FastPathEmulation=1",
            f"--FastPathSocket={fpd.sock}", "--FastPathTag=dia", "--hosts=1",
            f"--host-seconds={h['seconds']}"]
    ns1, ns2, dst = "fp-dia-h1", "fp-dia-h2", "198.18.20.2"
    # fastpathd runs under `ip netns exec` (a mount namespace of its own): the names it
    # gives its hosts' namespaces (/run/netns) are seen from its mount namespace only.
    enter = ["nsenter", f"--mount=/proc/{fpd.proc.pid}/ns/mnt", "ip", "netns", "exec"]
    log("run: " + " ".join(argv), fh)
    out = open(os.path.join(workdir, "diamond-hosts.log"), "w")
    proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
    res = {"hosts": 1}
    server = None
    try:
        t0 = time.time()
        # Until h1 reaches h2 through the emulated routers (OLSR converged, HNA learnt).
        reached = False
        while time.time() - t0 < h["reach_timeout_s"] and proc.poll() is None:
            r = subprocess.run(enter + [ns1, "ping", "-c", "1", "-W", "1", dst],
                               capture_output=True, text=True)
            if r.returncode == 0:
                reached = True
                break
            time.sleep(0.5)
        res["reached_after_s"] = round(time.time() - t0, 2) if reached else -1
        if not reached:
            raise RuntimeError("h1 never reached h2: " +
                               open(os.path.join(workdir, "diamond-hosts.log")).read()[-2000:])
        log(f"h1 reaches h2 {res['reached_after_s']} s after the start", fh)
        r = subprocess.run(enter + [ns1, "ping", "-c", str(h["pings"]), "-i",
                            "0.2", "-W", "2", dst], capture_output=True, text=True,
                           timeout=h["pings"] * 0.2 + 10)
        rtts = sorted(float(x.split("time=")[1].split()[0]) for x in r.stdout.splitlines()
                      if "time=" in x)
        log(f"ping h1 -> h2: {len(rtts)}/{h['pings']} replies", fh)
        res.update({"pings": h["pings"], "ping_replies": len(rtts),
                    "rtt_p50_ms": rtts[min(len(rtts) - 1, int(0.5 * (len(rtts) - 1) + 0.5))]
                    if rtts else -1, "rtt_min_ms": rtts[0] if rtts else -1})
        server = subprocess.Popen(enter + [ns2, "iperf3", "-s", "-1"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        r = subprocess.run(enter + [ns1, "iperf3", "-c", dst, "-t",
                            str(h["tcp_seconds"]), "-O", "1", "-J", "--connect-timeout", "3000"], capture_output=True,
                           text=True, timeout=h["tcp_seconds"] + 20)
        j = json.loads(r.stdout)
        res["tcp_goodput_mbps"] = round(j["end"]["sum_received"]["bits_per_second"] / 1e6, 3)
        res["tcp_retransmits"] = j["end"]["sum_sent"].get("retransmits")
        with open(os.path.join(workdir, "iperf3.json"), "w") as f:
            f.write(r.stdout)
        log("hosts: " + json.dumps(res), fh)
    except (RuntimeError, subprocess.TimeoutExpired, ValueError, KeyError) as e:
        res["error"] = str(e)[-1500:]
        log(f"run with real hosts failed: {res['error']}", fh)
    finally:
        if server and server.poll() is None:
            server.terminate()
            server.wait()
        try:
            proc.wait(h["seconds"] + 60)
        except subprocess.TimeoutExpired:
            proc.terminate()
            proc.wait(20)
        out.close()
    try:
        with open(report) as f:
            res.update({k: v for k, v in json.loads(f.readline()).items()
                        if k in ("converged_s", "hosts")})
    except (OSError, ValueError):
        pass
    return res


def compare(sim, emu, scale):
    """The checks: list of (name, simulated, emulated, bound, passed)."""
    checks = []
    g_s, g_e = sim["tcp_goodput_mbps"], emu["tcp_goodput_mbps"]
    checks.append(("TCP goodput (Mbit/s)", g_s, g_e,
                   f"within {scale['goodput_rel'] * 100:g} %",
                   g_s > 0 and abs(g_e - g_s) <= scale["goodput_rel"] * g_s))
    for key, name in (("rtt_p50_ms", "RTT p50 (ms)"), ("rtt_min_ms", "RTT min (ms)")):
        s, e = sim[key], emu[key]
        bound = scale["rtt_rel"] * s + scale["rtt_abs_ms"]
        checks.append((name, s, e, f"within {scale['rtt_rel'] * 100:g} % + "
                       f"{scale['rtt_abs_ms']:g} ms (±{bound:.2f})",
                       s > 0 and e > 0 and abs(e - s) <= bound))
    for res, label in ((sim, "simulated"), (emu, "emulated")):
        n = res["probes_sent"]
        lost = n - res["probes_received"]
        lo, hi = binom_interval(n, res["loss_configured"], scale["loss_conf"])
        res["loss_accept_counts"] = [lo, hi]
    lo_s, hi_s = sim["loss_accept_counts"]
    lo_e, hi_e = emu["loss_accept_counts"]
    lost_s = sim["probes_sent"] - sim["probes_received"]
    lost_e = emu["probes_sent"] - emu["probes_received"]
    conf = f"{scale['loss_conf'] * 100:g} %"
    checks.append((f"loss (lost / sent), binomial {conf} of "
                   f"{sim['loss_configured'] * 100:g} %",
                   f"{lost_s}/{sim['probes_sent']}", f"{lost_e}/{emu['probes_sent']}",
                   f"{lo_e}..{hi_e} lost", lo_s <= lost_s <= hi_s and lo_e <= lost_e <= hi_e))
    for res in (sim, emu):
        res["converged_ok"] = 0 < res["converged_s"] < res["traffic_start_s"]
    checks.append(("OLSR convergence (s)", sim["converged_s"], emu["converged_s"],
                   "before the traffic", sim["converged_ok"] and emu["converged_ok"]))
    checks.append(("ping replies", f"{sim['ping_replies']}/{sim['pings']}",
                   f"{emu['ping_replies']}/{emu['pings']}", "all but the first",
                   sim["ping_replies"] >= sim["pings"] - 1 and
                   emu["ping_replies"] >= emu["pings"] - 1))
    return checks


def table(sim, emu, checks):
    lines = ["| | simulated | emulated | bound | |", "|---|---|---|---|---|"]
    fmt = lambda v: f"{v:.3f}" if isinstance(v, float) else str(v)
    for name, s, e, bound, ok in checks:
        lines.append(f"| {name} | {fmt(s)} | {fmt(e)} | {bound} | {'ok' if ok else 'FAIL'} |")
    lines.append(f"| loss, Wilson 99 % interval | {sim['loss'] * 100:.2f} % "
                 f"({sim['loss_ci99'][0] * 100:.2f}-{sim['loss_ci99'][1] * 100:.2f}) | "
                 f"{emu['loss'] * 100:.2f} % ({emu['loss_ci99'][0] * 100:.2f}-"
                 f"{emu['loss_ci99'][1] * 100:.2f}) | | |")
    lines.append(f"| wall time, ns-3 CPU (s) | {sim['wall_s']}, {sim['ns3_cpu_s']} | "
                 f"{emu['wall_s']}, {emu['ns3_cpu_s']} (fastpathd {emu['fastpathd_cpu_s']}) | | |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default="build", help="where diamond and fastpathd were built")
    ap.add_argument("--out", required=True, help="output directory (created)")
    ap.add_argument("--small", action="store_true",
                    help="short run, wider tolerances (the ctest)")
    ap.add_argument("--check", action="store_true", help="exit 1 when a check fails")
    ap.add_argument("--demo", action="store_true",
                    help="the small run with real hosts and the bench's bounds (demo/diamond.sh)")
    ap.add_argument("--run", type=int, default=1, help="ns-3 RngRun of both runs")
    ap.add_argument("--no-hosts", action="store_true",
                    help="no third run with real hosts (ping, iperf3) at the ends")
    a = ap.parse_args()
    run = RunRecord("bench/fidelity/diamond_fidelity.py")
    if os.geteuid() != 0:
        print("diamond_fidelity.py: needs root (fastpathd, a namespace)", file=sys.stderr)
        return 2
    build = os.path.abspath(a.build_dir)
    for exe in ("ns3-module/examples/diamond", "bin/fastpathd"):
        if not os.access(os.path.join(build, exe), os.X_OK):
            print(f"diamond_fidelity.py: {build}/{exe} not built (cmake --build {a.build_dir} "
                  "--target fp_ns3_diamond fastpathd)", file=sys.stderr)
            return 2
    scale = SCALES["demo" if a.demo else "small" if a.small else "full"]
    os.makedirs(a.out, exist_ok=True)
    fh = open(os.path.join(a.out, "log.txt"), "w")
    workdir = tempfile.mkdtemp(prefix="fp-dia-")
    os.chmod(workdir, 0o755)
    args = scale["args"] + [f"--run={a.run}"]
    fpd = None
    try:
        sim = run_diamond(build, args, 0, None, workdir, scale["timeout_s"], fh)
        fpd = Fastpathd(os.path.join(build, "bin", "fastpathd"), workdir, "fp-dia")
        emu = run_diamond(build, args, 1, fpd, workdir, scale["timeout_s"], fh)
        hosts = None
        if "hosts" in scale and not a.no_hosts:
            if shutil.which("iperf3"):
                hosts = run_hosts(build, fpd, workdir, scale, fh)
            else:
                log("no iperf3 (apt-get install iperf3): no run with real hosts", fh)
        plan_ok, plan_what = check_plan(build, fpd, workdir, fh)
        if os.path.exists(os.path.join(workdir, "plan.yaml")):
            shutil.copy(os.path.join(workdir, "plan.yaml"), a.out)
        # Nothing of the script may remain in fastpathd.
        fpctl = os.path.join(build, "bin", "fpctl")
        leftovers = None
        if os.access(fpctl, os.X_OK):
            r = subprocess.run([fpctl, "--socket", fpd.sock, "node", "list", "--json"],
                               capture_output=True, text=True, timeout=10)
            if r.returncode == 0:
                nodes = json.loads(r.stdout)
                nodes = nodes.get("nodes", []) if isinstance(nodes, dict) else nodes
                leftovers = [n for n in nodes if str(n.get("name", "")).startswith("dia-")]
        for f in ("fastpathd.log", "diamond-0.log", "diamond-1.log", "diamond-hosts.log",
                  "iperf3.json"):
            if os.path.exists(os.path.join(workdir, f)):
                shutil.copy(os.path.join(workdir, f), a.out)
    finally:
        if fpd:
            fpd.close()
        shutil.rmtree(workdir, ignore_errors=True)
    checks = compare(sim, emu, scale)
    checks.append(("generated plan (--FastPathPlan) read by fastpathd --topology", "",
                   plan_what, "4 nodes (host local), 4 links, 10mbit, 1%", plan_ok))
    if leftovers:
        checks.append(("script's nodes left in fastpathd", "", len(leftovers), "none", False))
    ok = all(c[4] for c in checks)
    md = table(sim, emu, checks)
    if emu.get("link_fidelity"):
        md += ("\nLinks during the TCP transfer (fpctl link list --json, configured against "
               "measured):\n\n| link direction | configured | rate (Mbit/s, with overhead) | "
               "frames | lost | queue drops | sojourn p50 / p99 (ms) |\n|---|---|---|---|---|---|---|\n")
        for row in emu["link_fidelity"]:
            md += (f"| {row['link']} {row['direction']} | {row['configured']} | "
                   f"{row['rate_mbps']} | {row['frames']} | {row['loss'] * 100:.2f} % | "
                   f"{row['queue_drops']} | {row['sojourn_p50_ms']:.2f} / "
                   f"{row['sojourn_p99_ms']:.2f} |\n")
    if hosts:
        md += (f"\nReal hosts (h1 at a, h2 at d; ping and iperf3 in their namespaces): "
               f"TCP goodput {hosts.get('tcp_goodput_mbps')} Mbit/s "
               f"({hosts.get('tcp_retransmits')} retransmissions), RTT p50 "
               f"{hosts.get('rtt_p50_ms')} ms, min {hosts.get('rtt_min_ms')} ms "
               f"({hosts.get('ping_replies')}/{hosts.get('pings')} replies), OLSR converged "
               f"at {hosts.get('converged_s')} s, h1 reached h2 {hosts.get('reached_after_s')} s "
               f"after the start.\n")
    result = {"scale": "demo" if a.demo else "small" if a.small else "full", "args": args, "simulated": sim,
              "emulated": emu, "hosts": hosts, "checks": [list(c) for c in checks], "passed": ok}
    run.write(a.out, result, md)
    print(run.heading() + md)
    log("all checks passed" if ok else "a check FAILED", fh)
    return 0 if ok or not a.check else 1


if __name__ == "__main__":
    sys.exit(main())
