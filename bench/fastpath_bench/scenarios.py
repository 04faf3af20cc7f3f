# SPDX-License-Identifier: GPL-2.0-only
"""One measured point: a paced UDP run through R, a TCP bulk transfer, the generator's own
ceiling, a point of the line scenario."""

import os
import subprocess
import sys
import time

from .settings import DST_IP6, D_IP, GEN_CPU, GEN_RT_PRIO, S_IP, S_IP6, TCP_PORT, UDP_PORT
from .proc import log, read_json_line
from .meter import StageCounters, parse_ping, stop_sink

# The generators (--generator): the tool that sends each kind of traffic.
GENERATOR_TOOL = {"packet": "trafgen", "xdp-live": "xdpgen"}


def run_udp_point(tools, topo, sink, meter, rate_pps, payload, flows, duration, stages=None,
                  family=4, ttl=None, held=None, generator="packet"):
    """One measurement: paced (rate_pps) or flat-out (None) UDP plus ping under load.
    stages: a StageCounters snapshotted around the point (per-stage loss accounting).
    family 6: UDP/IPv6 from S to 2001:2:0:2::1 behind D (topology built with ipv6).
    ttl: the generated frames' TTL (fp-trafgen's default, 64, when None).
    held: S's qdisc holds the generator's bursts (Topology.sender_queue), the generator
    sending through it; False: S's veth without a qdisc, frames that find R's ring full are
    dropped at S. Default: held when paced, not at flat-out.
    generator: "packet" (fp-trafgen, a packet socket: the skb path a host's stack uses) or
    "xdp-live" (fp-xdpgen: XDP frames redirected out of S's veth, no skb, no qdisc; IPv4,
    never held)."""
    if held is None:
        held = rate_pps is not None
    if generator == "xdp-live" and (held or family != 4):
        raise ValueError("fp-xdpgen sends IPv4 past S's qdisc: not for a held or IPv6 point")
    src, dst = (topo.udp_src, topo.udp_dst) if family == 4 else (S_IP6, DST_IP6)
    # Before the counters' snapshot: a qdisc put back starts from zero.
    through_qdisc = topo.sender_queue(held)
    sink.cmd("reset")
    st_a = stages.snap() if stages else None
    count = max(2, int(duration / 0.2))
    ping = topo.clean.spawn(topo.s, ["ping", "-q", "-i", "0.2", "-c", str(count), "-w",
                                str(int(duration) + 2)] + topo.ping_from + [dst],
                       name="ping")
    argv = [tools[GENERATOR_TOOL[generator]], "--ifname", "fbs0", "--src-ip", src,
            "--dst-ip", dst, "--dst-mac", topo.mac[(topo.r[0], topo.r_in(0))],
            "--payload", str(payload), "--flows", str(flows), "--duration", str(duration),
            "--cpu", str(GEN_CPU), "--dst-port", str(UDP_PORT)] + (
                ["--ipv6"] if family == 6 else [])
    if ttl:
        argv += ["--ttl", str(ttl)]
    if through_qdisc:
        argv += ["--through-qdisc"]
    # Paced: SCHED_FIFO under the NAPI threads (fp-trafgen sleeps between 200 us chunks), so
    # other work on CPU 0 does not stall the schedule (stalls become skipped frames, see
    # fp-trafgen --max-lag-us). Flat-out stays at normal priority (it never sleeps).
    argv += (["--flat-out"] if rate_pps is None
             else ["--pps", str(rate_pps), "--rt-priority", str(GEN_RT_PRIO)])
    a = meter.snap()
    gen = topo.clean.spawn(topo.s, argv, name="trafgen")
    g = read_json_line(gen, duration + 10)
    b = meter.snap()
    topo.clean.stop(gen)
    if g is None:
        raise RuntimeError(f"{os.path.basename(argv[0])} printed no result")
    time.sleep(0.3)  # let queued frames drain to the sink
    s = sink.cmd(f"read {flows}")
    st_d = StageCounters.delta(st_a, stages.snap()) if stages else None
    try:
        out, _ = ping.communicate(timeout=duration + 5)
    except subprocess.TimeoutExpired:
        out = ""
    topo.clean.stop(ping)
    rtt, ping_rx = parse_ping(out or "")
    attempted = g["sent"] + g["errors"]
    el = g["elapsed_s"]
    row = {
        "offered_pps": rate_pps if rate_pps is not None else "flat-out",
        "offered_mbps": rate_pps * 8 * payload / 1e6 if rate_pps is not None else "",
        "generator": generator,
        "gen_pps": attempted / el,
        "gen_errors": g["errors"],
        # Paced: most frames the generator offered back to back (catch-up after it lost
        # its CPU) — bursts longer than the receiver's first ring are what overflow it.
        "gen_max_burst": g.get("max_burst", 0),
        # Frames the generator's schedule skipped because it had lost its CPU for more
        # than 1 ms (fp-trafgen --max-lag-us): never offered, so neither loss nor offered.
        "gen_skipped": g.get("skipped", 0),
        "rx_pps": s["packets"] / el,
        "rx_mbps": s["bytes"] * 8 / el / 1e6,
        "loss_pct": 100.0 * (attempted - s["packets"]) / attempted if attempted else float("nan"),
        "gap_loss": s["gap_loss"],
        "reordered": s["reordered"],
        "jain": s["jain"],
        "lat_p50_us": s["lat_p50_us"],
        "lat_p99_us": s["lat_p99_us"],
        # A kernel-stack sink splits the latency at the kernel's receive stamp: to D's
        # socket (the path and the forwarder) and D's socket queue to its reader.
        "lat_arrival_p50_us": s.get("lat_arrival_p50_us", float("nan")),
        "lat_arrival_p99_us": s.get("lat_arrival_p99_us", float("nan")),
        "lat_queue_p50_us": s.get("lat_queue_p50_us", float("nan")),
        "lat_queue_p99_us": s.get("lat_queue_p99_us", float("nan")),
        "rtt_ms": rtt,
        "ping_rx": ping_rx,
    }
    row.update(meter.delta(a, b))
    # Forwarder CPU per forwarded packet (ns): the "no more CPU per packet than the kernel"
    # comparison. Userspace: process + NAPI threads; kernel/XDP: softirq + NAPI threads.
    row["cpu_ns_per_pkt"] = (row["cpu_fwd_pct"] / 100.0 * 1e9 / row["rx_pps"]
                             if row["rx_pps"] > 0 else float("nan"))
    if st_d is not None:
        row.update(stages.summary(st_d))
        stages.log.append({"offered_pps": row["offered_pps"], "payload": payload,
                          "gen_sent": g["sent"], "gen_errors": g["errors"],
                          "sink_packets": s["packets"], "counters": st_d})
    # Generator-limited: it could not offer the requested rate, or (flat-out) the forwarder
    # kept up with everything the generator produced.
    if rate_pps is not None:
        row["gen_limited"] = int(attempted / el < 0.98 * rate_pps)
    else:
        row["gen_limited"] = int(row["loss_pct"] < 1.0)
    return row


def run_tcp(tools, topo, duration):
    """TCP bulk S -> D (fp_tcp_bulk.py), with ping under load."""
    # bench/fp_tcp_bulk.py, next to this package.
    helper = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "fp_tcp_bulk.py")
    srv = topo.clean.spawn(topo.d, [sys.executable, helper, "server", D_IP, str(TCP_PORT),
                               str(duration + 10)], cpu=GEN_CPU, name="tcp-server")
    if read_json_line(srv, 5) is None:
        raise RuntimeError("TCP receiver did not start")
    count = max(2, int(duration / 0.2))
    ping = topo.clean.spawn(topo.s, ["ping", "-q", "-i", "0.2", "-c", str(count), "-w",
                                str(int(duration) + 2), D_IP], name="ping")
    cli = topo.clean.spawn(topo.s, [sys.executable, helper, "client", D_IP, str(TCP_PORT),
                               str(duration)], cpu=GEN_CPU, name="tcp-client")
    c = read_json_line(cli, duration + 15)
    r = read_json_line(srv, 10)
    try:
        out, _ = ping.communicate(timeout=duration + 5)
    except subprocess.TimeoutExpired:
        out = ""
    for p in (cli, srv, ping):
        topo.clean.stop(p)
    rtt, _ = parse_ping(out or "")
    if r is None or c is None:
        return {"tcp_mbps": float("nan"), "rtt_ms": rtt, "tcp_error": (c or {}).get("error", "no result")}
    return {"tcp_mbps": r["bytes"] * 8 / r["elapsed_s"] / 1e6, "rtt_ms": rtt, "tcp_error": ""}


def generator_ceiling(tools, topo, payload, duration, generator="packet"):
    """Flat-out into an XDP sink on R's ingress (NAPI on FWD_CPU): what S can offer
    (S's veth without a qdisc, the generator bypassing the qdisc layer: its own maximum).
    generator: "packet" (fp-trafgen) or "xdp-live" (fp-xdpgen)."""
    p = topo.clean.spawn(topo.r[0], [tools["sink"], "--ifname", topo.r_in(0), "--port",
                                str(UDP_PORT)], stdin=subprocess.PIPE, name="sink-r")
    try:
        if read_json_line(p, 10) is None:
            raise RuntimeError("sink on R's ingress did not attach")
        topo.pin_napi()
        topo.sender_queue(False)
        argv = [tools[GENERATOR_TOOL[generator]], "--ifname", "fbs0", "--src-ip", S_IP,
                "--dst-ip", D_IP, "--dst-mac", topo.mac[(topo.r[0], topo.r_in(0))],
                "--payload", str(payload), "--flows", "16", "--duration", str(duration),
                "--cpu", str(GEN_CPU), "--flat-out"]
        p.stdin.write("reset\n")
        p.stdin.flush()
        read_json_line(p, 5)
        gen = topo.clean.spawn(topo.s, argv, name="trafgen")
        g = read_json_line(gen, duration + 10)
        topo.clean.stop(gen)
        time.sleep(0.2)
        p.stdin.write("read 16\n")
        p.stdin.flush()
        s = read_json_line(p, 5)
        return {"payload": payload, "generator": generator,
                "sent_pps": g["sent"] / g["elapsed_s"],
                "offered_pps": (g["sent"] + g["errors"]) / g["elapsed_s"],
                "received_at_r_pps": s["packets"] / g["elapsed_s"]}
    finally:
        stop_sink(topo.clean, p)


def nice_rate(x):
    """A rate rounded to two significant digits (15,749 -> 16,000)."""
    if x <= 0:
        return 0
    e = 10 ** max(0, len(str(int(x))) - 2)
    return int(round(x / e) * e)


def line_search(measure, base, cap, floor=1000):
    """The line's loss-free search. measure(rate) measures one offered rate and says whether
    it was loss-free. Doubling from `base` up to `cap` until two rates in a row were not
    loss-free (one unlucky rate on a shared machine does not end it); when nothing was
    loss-free, halving from base / 2 down to `floor` until a rate is; then, when the rate
    after the highest loss-free one failed, up to two rates in between (x 2^(1/3),
    x 2^(2/3); the first that fails ends it). cap 0: `base` only. Returns {rate: loss-free}
    in the order measured."""
    res = {}

    def m(rate):
        res[rate] = bool(measure(rate))
        return res[rate]

    def best():
        return max((r for r, ok in res.items() if ok), default=0)
    m(base)
    if cap <= 0:
        return res
    rate, fails = base, 0 if res[base] else 1
    while fails < 2 and rate * 2 <= cap:
        rate *= 2
        fails = 0 if m(rate) else fails + 1
    if not best():
        rate = base // 2
        while rate >= floor and not m(rate):
            rate //= 2
    b = best()
    above = [r for r, ok in res.items() if r > b and not ok]
    if b and above and min(above) < 2.01 * b:  # 2.01: halving rounds down (3125 / 1562)
        for k in (1, 2):
            r = nice_rate(b * 2 ** (k / 3))
            if b < r < min(above) and not m(r):
                break
    return res


def line_point_ok(rows, rate):
    """Loss-free at this offered rate: the median repetition lost < 0.5 % and the generator
    really offered the rate (>= 98 %), as in the S - R - D sweeps."""
    loss = sorted(r["loss_pct"] for r in rows)
    mid = len(loss) // 2
    med = loss[mid] if len(loss) % 2 else (loss[mid - 1] + loss[mid]) / 2
    gen = sum(r["gen_pps"] for r in rows) / len(rows)
    return med < 0.5 and gen >= 0.98 * rate


def run_line_point(tools, topo, sink, meter, fw, n, args, reps, duration, tcp_dur,
                   line_rows, tcp_line_rows, cap=0, ttl=None):
    """One forwarder at one N: UDP at --line-pps, and with cap > 0 the loss-free search
    (line_search) from there; then TCP bulk. Returns the loss-free rate found (0: none)."""
    last = {}

    def measure(rate):
        if last and not last["ok"] and rate < last["rate"]:
            # Coming down from an overload: let queues (ns-3's event backlog) drain first.
            time.sleep(1.0)
        rows = []
        for rep in range(reps):
            row = run_udp_point(tools, topo, sink, meter, rate, 160, args.flows, duration,
                                ttl=ttl)
            row.update({"forwarder": fw, "routers": n, "rep": rep})
            line_rows.append(row)
            rows.append(row)
            log(f"{fw:15s} line N={n:2d} offered {rate:>7,} rx {row['rx_pps']:>9,.0f} pkt/s "
                f"loss {row['loss_pct']:6.2f}% p99 {row['lat_p99_us']:8.0f} us "
                f"cpu {row['cpu_ns_per_pkt']:7.0f} ns/pkt rtt {row['rtt_ms']:.3f} ms"
                f"{' GEN-LIMITED' if row['gen_limited'] else ''}")
        last.update(rate=rate, ok=line_point_ok(rows, rate))
        return last["ok"]
    res = line_search(measure, args.line_pps, cap)
    best = max((r for r, ok in res.items() if ok), default=0)
    if cap > 0:
        log(f"{fw:15s} line N={n:2d} loss-free up to {best:,} pkt/s (offered "
            + ", ".join(f"{r:,}{'' if ok else ' lossy'}" for r, ok in res.items()) + ")")
    if not args.no_tcp:
        for rep in range(reps):
            t = run_tcp(tools, topo, tcp_dur)
            t.update({"forwarder": fw, "routers": n, "rep": rep})
            tcp_line_rows.append(t)
            log(f"{fw:15s} line N={n:2d} TCP {t['tcp_mbps']:.1f} Mbit/s")
    return best
