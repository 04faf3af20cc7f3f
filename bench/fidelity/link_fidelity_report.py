#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The analysis half of link_fidelity.py: reads what fp-link-fidelity wrote into a run's
folder (scenarios.jsonl and the per-frame CSV files), sets every scenario's measured numbers
beside its configuration and targets, and renders them as the results.md tables and
link_fidelity.png. Runs nothing; link_fidelity.py --analyze-only calls it on an old run.
"""
import json
import math
import os

from fidelity_common import binom_interval

# Targets (bench/fidelity/README.md)
DELAY_P50_US = 5.0
DELAY_P99_US = 20.0
RATE_DEV = 0.005
GE_BURST_DEV = 0.05



def load_frames(path):
    import numpy as np
    if not os.path.exists(path) or os.path.getsize(path) < 40:
        return np.zeros((0, 5), dtype=np.int64)
    a = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.int64, ndmin=2)
    return a


def pct(x, q):
    import numpy as np
    return float(np.percentile(x, q)) if len(x) else float("nan")


def dist(x_ns):
    """Percentiles of a distribution in microseconds."""
    import numpy as np
    x = np.asarray(x_ns, dtype=np.float64) / 1e3
    if not len(x):
        return {}
    return {"n": int(len(x)), "min": float(x.min()), "p1": pct(x, 1), "p10": pct(x, 10),
            "p50": pct(x, 50), "p90": pct(x, 90), "p99": pct(x, 99), "p99.9": pct(x, 99.9),
            "max": float(x.max()), "mean": float(x.mean()), "std": float(x.std())}


def lateness(sc):
    w = sc.get("worker", {}).get("worker 0", {})
    return {"late_frames": w.get("emu_late_frames", 0),
            "p50_us": w.get("emu_lateness_p50_ns", 0) / 1e3,
            "p99_us": w.get("emu_lateness_p99_ns", 0) / 1e3,
            "max_us": w.get("emu_lateness_max_ns", 0) / 1e3,
            "rt_priority": w.get("rt_priority", 0)}


def analyze(out):
    import numpy as np
    scenarios = []
    with open(os.path.join(out, "scenarios.jsonl")) as f:
        for line in f:
            if line.strip():
                scenarios.append(json.loads(line))
    res = {"scenarios": {}}
    base_med = {}
    for sc in scenarios:
        if sc["kind"] == "timer":
            x = np.loadtxt(os.path.join(out, sc["timer_file"]), skiprows=1, dtype=np.int64, ndmin=1)
            res["scenarios"][sc["name"]] = {"name": sc["name"], "kind": "timer", "rt_priority": sc["rt_priority"],
                                            "cpu": sc["cpu"], "wakeup_late_us": dist(x),
                                            "over_25us": float((x > 25000).mean()) if len(x) else None}
            continue
        a = load_frames(os.path.join(out, sc["frames_file"]))
        r = {"name": sc["name"], "kind": sc["kind"], "configured": sc["configured"],
             "sent": sc["sent"], "received": int(len(a)), "send_refused": sc["send_refused"],
             "link": sc["link"], "lateness": lateness(sc),
             "daemon_start_s": sc["daemon_start_seconds"], "interrupted": sc["interrupted"]}
        res["scenarios"][sc["name"]] = r
        if not len(a):
            r["error"] = "no frames received"
            continue
        seq, flow, length, send, recv = (a[:, i] for i in range(5))
        owd = recv - send
        r["owd_us"] = dist(owd)
        kind = sc["kind"]
        if kind == "baseline":
            base_med[sc["frame_len"]] = float(np.median(owd))
        elif kind == "delay":
            b = base_med.get(sc["frame_len"])
            if b is None:
                r["error"] = "no baseline for this frame size"
                continue
            err = owd - b - sc["delay_ns"]
            r["error_us"] = dist(err)
            # The emulation's own share: the delayed distribution against the baseline's,
            # percentile by percentile (what a frame's wake-up costs is in both).
            bs = res["scenarios"][f"baseline-{sc['frame_len']}"]["owd_us"]
            r["excess_over_baseline_us"] = {
                q: (pct((owd - sc["delay_ns"]) / 1e3, float(q[1:])) - bs[q])
                for q in ("p50", "p99")}
            r["measured_delay_us"] = (float(np.median(owd)) - b) / 1e3
            r["delay_ms"] = sc["delay_ns"] / 1e6
            r["met"] = bool(abs(r["error_us"]["p50"]) <= DELAY_P50_US
                            and r["error_us"]["p99"] <= DELAY_P99_US)
        elif kind in ("rate", "flows"):
            order = np.argsort(recv, kind="stable")
            t = recv[order]
            bits = (length[order] + sc["overhead_bytes"]) * 8
            n = len(t)
            k0 = max(1, int(0.05 * n)) if n >= 40 else 0
            # Frames k0+1 .. n-1 were put on the link between the arrivals of frame k0 and of
            # the last one (the link never idles while its queue holds frames).
            interval = float(t[-1] - t[k0])
            meas = float(bits[k0 + 1:].sum()) * 1e9 / interval if interval > 0 else float("nan")
            whole = float(bits[1:].sum()) * 1e9 / float(t[-1] - t[0]) if n > 1 else float("nan")
            r["delivered_bps"] = meas
            r["rate_bps"] = sc["rate_bps"]
            r["delivered_bps_whole_interval"] = whole
            r["receive_interval_s"] = interval / 1e9
            r["deviation"] = meas / sc["rate_bps"] - 1
            offered_bits = sc["sent"] * (sc["frame_len"] + sc["overhead_bytes"]) * 8
            r["offered_bps"] = offered_bits / sc["send_seconds"] if sc["send_seconds"] else 0
            r["queue_drops"] = sc["link"]["queue_drops"]
            r["full_drops"] = sc["link"]["full_drops"]
            r["drop_fraction"] = sc["link"]["queue_drops"] / max(1, sc["link"]["tx_packets"])
            if kind == "rate":
                r["met"] = bool(abs(r["deviation"]) <= RATE_DEV)
            else:
                flows = int(sc["flows"])
                t_all = float(t[-1] - t[0])
                per = []
                for fl in range(flows):
                    m = flow == fl
                    per.append(float(((length[m] + sc["overhead_bytes"]) * 8).sum()) * 1e9 / t_all)
                per = np.array(per)
                r["per_flow_bps"] = per.tolist()
                r["per_flow_received"] = [int((flow == fl).sum()) for fl in range(flows)]
                r["jain"] = float(per.sum() ** 2 / (flows * (per ** 2).sum()))
                # Delay error against the link model replayed on the send times (FIFO, the
                # link busy until the previous frame's end): error = measured one-way delay
                # - baseline median - (queueing + serialization + configured delay).
                b = base_med.get(sc["frame_len"])
                if b is not None:
                    so = np.argsort(seq, kind="stable")
                    s_send = send[so].astype(np.float64)
                    s_owd = owd[so].astype(np.float64)
                    ser = (length[so] + sc["overhead_bytes"]) * 8 * 1e9 / sc["rate_bps"]
                    busy = -1e30
                    model = np.empty(len(so))
                    for i in range(len(so)):
                        start = max(s_send[i], busy)
                        busy = start + ser[i]
                        model[i] = busy - s_send[i] + sc["delay_ns"]
                    err = s_owd - b - model
                    r["error_us"] = dist(err)
                    r["model_queueing_us"] = dist(model - sc["delay_ns"] - ser)
                    r["met_delay"] = bool(abs(r["error_us"]["p50"]) <= DELAY_P50_US
                                          and r["error_us"]["p99"] <= DELAY_P99_US)
                r["met"] = bool(r["jain"] >= 0.99 and sc["link"]["queue_drops"] == 0)
        elif kind in ("loss", "gemodel"):
            n = int(sc["link"]["tx_packets"])
            lost = n - int(len(a))
            r["frames_into_link"] = n
            r["lost"] = lost
            r["loss_counter"] = sc["link"]["loss_drops"]
            r["measured_loss"] = lost / n if n else float("nan")
            r["lost_before_link"] = int(sc["sent"]) - n
            r["loss_conf"] = sc["loss"]
            if kind == "loss":
                lo, hi = binom_interval(n, sc["loss"])
                r["interval99"] = [lo, hi]
                r["interval99_frac"] = [lo / n, hi / n]
                r["met"] = bool(lo <= lost <= hi)
            else:
                p, rr = sc["ge_p"], sc["ge_r"]
                s = np.sort(seq)
                first, last = 1, int(sc["sent"])
                gaps = np.diff(np.concatenate(([first - 1], s, [last + 1]))) - 1
                bursts = gaps[gaps > 0]
                mean = float(bursts.mean()) if len(bursts) else float("nan")
                expect = 1.0 / rr
                sd = math.sqrt(1 - rr) / rr
                half = 2.576 * sd / math.sqrt(len(bursts)) if len(bursts) else float("nan")
                r["bursts"] = int(len(bursts))
                r["mean_burst"] = mean
                r["mean_burst_ci99"] = [mean - half, mean + half]
                r["expected_burst"] = expect
                r["burst_deviation"] = mean / expect - 1
                r["expected_loss"] = p / (p + rr) if sc["ge_loss_bad"] == 1 and sc["ge_loss_good"] == 0 else None
                r["burst_hist"] = {int(k): int(v) for k, v in zip(*np.unique(bursts, return_counts=True))}
                r["met"] = bool(abs(r["burst_deviation"]) <= GE_BURST_DEV)
    return res


def fmt_us(x):
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:,.1f}"


def table(res):
    S = res["scenarios"]
    rows = []
    yes = lambda b: "yes" if b else "**no**"
    for name in ("baseline-160", "baseline-1470"):
        if name in S and "owd_us" in S[name]:
            d = S[name]["owd_us"]
            rows.append([f"baseline one-way delay, {name.split('-')[1]} B, no emulation", "–",
                         f"p50 {fmt_us(d['p50'])} µs", f"p1 {fmt_us(d['p1'])} / p99 {fmt_us(d['p99'])} / "
                         f"p99.9 {fmt_us(d['p99.9'])} / max {fmt_us(d['max'])} µs", "–", "–", "–"])
    for name, sc in S.items():
        if sc["kind"] != "delay" or "error_us" not in sc:
            continue
        e, l = sc["error_us"], sc["lateness"]
        rows.append([f"delay ({sc['owd_us']['n']:,} frames)", sc["configured"].split("delay ")[1].split()[0],
                     f"{sc['measured_delay_us']:,.1f} µs",
                     f"{fmt_us(e['p50'])} / {fmt_us(e['p99'])} µs",
                     f"≤ {DELAY_P50_US:g} / ≤ {DELAY_P99_US:g} µs", yes(sc["met"]),
                     f"lateness {fmt_us(l['p50_us'])} / {fmt_us(l['p99_us'])} / {fmt_us(l['max_us'])} µs"])
    t = S.get("timer-wakeup", {}).get("wakeup_late_us")
    if t:
        rows.append(["ppoll() wake-up, no traffic (worker's CPU and scheduling)", "sleeps of 0.1 – 2 ms",
                     f"late p50 {fmt_us(t['p50'])} µs", f"p99 {fmt_us(t['p99'])} / max {fmt_us(t['max'])} µs",
                     "– (the worker wakes 25 µs early)", "–",
                     f"{S['timer-wakeup']['over_25us'] * 100:.1f} % of wake-ups over 25 µs late"])
    for name, sc in S.items():
        if sc["kind"] != "rate" or "delivered_bps" not in sc:
            continue
        conf = sc["configured"].split("rate ")[1].split()[0]
        rows.append([f"rate (1,470 B + 24, offered {sc['offered_bps'] / 1e6:,.2f} Mbit/s)", conf,
                     f"{sc['delivered_bps'] / 1e6:,.4g} Mbit/s", f"{sc['deviation'] * 100:+.3f} %",
                     "± 0.5 %", yes(sc["met"]),
                     f"queue drops {sc['queue_drops']:,} ({sc['drop_fraction'] * 100:.1f} %); "
                     f"lateness p99 {fmt_us(sc['lateness']['p99_us'])} µs"])
    for name, sc in S.items():
        if sc["kind"] != "loss" or "measured_loss" not in sc:
            continue
        lo, hi = sc["interval99_frac"]
        rows.append([f"Bernoulli loss ({sc['frames_into_link']:,} frames)", sc["configured"].split("loss ")[1].split()[0],
                     f"{sc['measured_loss'] * 100:.3f} % ({sc['lost']:,})",
                     f"99 % interval {lo * 100:.3f} – {hi * 100:.3f} %", "inside", yes(sc["met"]),
                     f"counter loss_drops {sc['loss_counter']:,}"])
    for name, sc in S.items():
        if sc["kind"] != "gemodel" or "mean_burst" not in sc:
            continue
        ci = sc["mean_burst_ci99"]
        rows.append([f"Gilbert-Elliott p 1 %, r 25 % ({sc['frames_into_link']:,} frames, {sc['bursts']:,} bursts): mean burst",
                     f"1/r = {sc['expected_burst']:.2f}", f"{sc['mean_burst']:.3f} (99 % CI {ci[0]:.2f} – {ci[1]:.2f})",
                     f"{sc['burst_deviation'] * 100:+.2f} %", "± 5 %", yes(sc["met"]),
                     f"loss {sc['measured_loss'] * 100:.2f} % (model p/(p+r) {sc['expected_loss'] * 100:.2f} %)"])
    for name, sc in S.items():
        if sc["kind"] != "flows" or "jain" not in sc:
            continue
        per = [x / 1e6 for x in sc["per_flow_bps"]]
        rows.append([f"16 flows at 90 %: delivered (sum)", sc["configured"].split("rate ")[1].split()[0] + " × 0.9",
                     f"{sum(per):,.3f} Mbit/s", f"{(sum(per) / 90.0 - 1) * 100:+.2f} % of 90 Mbit/s", "–", "–",
                     f"queue drops {sc['queue_drops']:,}"])
        rows.append(["16 flows: per flow, Jain's index", "5.625 Mbit/s each",
                     f"{min(per):.3f} – {max(per):.3f} Mbit/s", f"Jain {sc['jain']:.5f}", "≥ 0.99, no drop",
                     yes(sc["met"]), ""])
        if "error_us" in sc:
            e, l = sc["error_us"], sc["lateness"]
            q = sc["model_queueing_us"]
            rows.append(["16 flows: delay error (vs model replay)", "10 ms + queue + serialization",
                         f"model queueing p50 {fmt_us(q['p50'])} / p99 {fmt_us(q['p99'])} µs",
                         f"{fmt_us(e['p50'])} / {fmt_us(e['p99'])} µs",
                         f"≤ {DELAY_P50_US:g} / ≤ {DELAY_P99_US:g} µs", yes(sc["met_delay"]),
                         f"lateness {fmt_us(l['p50_us'])} / {fmt_us(l['p99_us'])} / {fmt_us(l['max_us'])} µs"])
    head = ["parameter", "configured", "measured", "error p50 / p99 or deviation", "target", "met?",
            "notes (worker lateness p50 / p99 / max)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def variant_table(res):
    """Delay errors with the worker as fastpathd runs it by default and in each variant."""
    runs = [("default (as fastpathd: auto priority, sleeps when idle)", res["scenarios"])]
    runs += [(f"{k}: {v['what']}", v) for k, v in res.get("variants", {}).items()]
    head = ["worker", "baseline 160 B p50 / p99 / p99.9", "delay 0.1 ms", "1 ms", "10 ms", "100 ms",
            "16 flows", "lateness p99 / max, worst scenario", "ppoll wake-up late p50 / p99 / max (no traffic)"]
    lines = ["Delay error p50 / p99 (µs) by how the worker runs:", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for label, S in runs:
        b = S.get("baseline-160", {}).get("owd_us")
        row = [label, f"{fmt_us(b['p50'])} / {fmt_us(b['p99'])} / {fmt_us(b['p99.9'])}" if b else "–"]
        late = []
        for n in ("delay-100us", "delay-1ms", "delay-10ms", "delay-100ms", "flows16-100mbit"):
            e = S.get(n, {}).get("error_us")
            row.append(f"{fmt_us(e['p50'])} / {fmt_us(e['p99'])}" if e else "–")
            if n in S and isinstance(S[n], dict) and "lateness" in S[n]:
                late.append((S[n]["lateness"]["p99_us"], S[n]["lateness"]["max_us"]))
        row.append(f"{fmt_us(max(l[0] for l in late))} / {fmt_us(max(l[1] for l in late))}" if late else "–")
        t = S.get("timer-wakeup", {}).get("wakeup_late_us")
        row.append(f"{fmt_us(t['p50'])} / {fmt_us(t['p99'])} / {fmt_us(t['max'])}" if t else "–")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def plot(res, path):
    """Top row: configured against measured (log-log); bottom row: the deviation and its target."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    S = res["scenarios"]
    fig, ax = plt.subplots(2, 3, figsize=(15, 8.5))
    # Delay
    d = [s for s in S.values() if s["kind"] == "delay" and "error_us" in s]
    if d:
        conf = [s["delay_ms"] for s in d]
        meas = [s["measured_delay_us"] / 1e3 for s in d]
        ax[0][0].loglog(conf, conf, "k--", lw=0.8, label="configured")
        ax[0][0].loglog(conf, meas, "o", label="measured: median one-way delay − baseline median")
        ax[0][0].set_xlabel("configured delay (ms)")
        ax[0][0].set_ylabel("measured delay (ms)")
        ax[0][0].set_title("Delay (Poisson 1,000 frames/s, 160 B)")
        ax[0][0].legend(fontsize=8)
        for q, m in (("p50", "o-"), ("p99", "s-")):
            ax[1][0].semilogx(conf, [s["error_us"][q] for s in d], m, label=f"error {q}")
        ax[1][0].semilogx(conf, [s["lateness"]["p99_us"] for s in d], "x:", label="worker lateness p99 (counter)")
        ax[1][0].axhline(DELAY_P50_US, color="C0", ls="--", lw=0.8, label=f"target p50 {DELAY_P50_US:g} µs")
        ax[1][0].axhline(DELAY_P99_US, color="C1", ls="--", lw=0.8, label=f"target p99 {DELAY_P99_US:g} µs")
        ax[1][0].set_yscale("symlog", linthresh=10)
        ax[1][0].set_xlabel("configured delay (ms)")
        ax[1][0].set_ylabel("error (µs): one-way − baseline median − configured")
        ax[1][0].legend(fontsize=7)
    # Rate
    r = [s for s in S.values() if s["kind"] == "rate" and "delivered_bps" in s]
    if r:
        conf = [s["rate_bps"] / 1e6 for s in r]
        meas = [s["delivered_bps"] / 1e6 for s in r]
        ax[0][1].loglog(conf, conf, "k--", lw=0.8, label="configured")
        ax[0][1].loglog(conf, meas, "o", label="delivered at D (frame + 24 B overhead)")
        ax[0][1].set_xlabel("configured rate (Mbit/s)")
        ax[0][1].set_ylabel("delivered rate (Mbit/s)")
        ax[0][1].set_title("Rate (offered 1.2x, 1,470-byte frames, delay 1 ms)")
        ax[0][1].legend(fontsize=8)
        ax[1][1].semilogx(conf, [s["deviation"] * 100 for s in r], "o-", label="delivered / configured − 1")
        ax[1][1].axhspan(-RATE_DEV * 100, RATE_DEV * 100, color="C2", alpha=0.15, label="target ± 0.5 %")
        ax[1][1].set_xlabel("configured rate (Mbit/s)")
        ax[1][1].set_ylabel("deviation (%)")
        lim = max(1.0, max(abs(s["deviation"]) * 100 for s in r) * 1.2)
        ax[1][1].set_ylim(-lim, lim)
        ax[1][1].legend(fontsize=8)
    # Loss
    l = [s for s in S.values() if s["kind"] == "loss" and "measured_loss" in s]
    g = [s for s in S.values() if s["kind"] == "gemodel" and "measured_loss" in s]
    if l:
        conf = [s["loss_conf"] * 100 for s in l]
        meas = [s["measured_loss"] * 100 for s in l]
        ax[0][2].loglog(conf, conf, "k--", lw=0.8, label="configured")
        ax[0][2].loglog(conf, meas, "o", label="measured, Bernoulli")
        for s in g:
            if s.get("expected_loss"):
                ax[0][2].loglog([s["expected_loss"] * 100], [s["measured_loss"] * 100], "s",
                                label="Gilbert-Elliott p 1 %, r 25 % (x: p/(p+r))")
        ax[0][2].set_xlabel("configured loss (%)")
        ax[0][2].set_ylabel("measured loss (%)")
        ax[0][2].set_title("Loss (50,000 frames/s, seed 1)")
        ax[0][2].legend(fontsize=8)
        x = range(len(l))
        ratio = [m / c for m, c in zip(meas, conf)]
        lo = [r_ - s["interval99_frac"][0] * 100 / c for r_, s, c in zip(ratio, l, conf)]
        hi = [s["interval99_frac"][1] * 100 / c - r_ for r_, s, c in zip(ratio, l, conf)]
        ax[1][2].errorbar(list(x), [1.0] * len(l), yerr=[[1 - s["interval99_frac"][0] * 100 / c for s, c in zip(l, conf)],
                                                        [s["interval99_frac"][1] * 100 / c - 1 for s, c in zip(l, conf)]],
                          fmt="none", ecolor="gray", capsize=6, label="binomial 99 % interval")
        ax[1][2].plot(list(x), ratio, "o", label="measured / configured")
        labels = [f"{c:g} %" for c in conf]
        for s in g:
            ratio_g = s["mean_burst"] / s["expected_burst"]
            ax[1][2].errorbar([len(labels)], [ratio_g], fmt="s", color="C1", capsize=6,
                              yerr=[[ratio_g - s["mean_burst_ci99"][0] / s["expected_burst"]],
                                    [s["mean_burst_ci99"][1] / s["expected_burst"] - ratio_g]],
                              label="GE mean burst / (1/r), its 99 % CI")
            labels.append("GE burst")
        ax[1][2].set_xticks(range(len(labels)))
        ax[1][2].set_xticklabels(labels)
        ax[1][2].set_ylabel("measured / configured")
        ax[1][2].legend(fontsize=8)
    for row in ax:
        for a in row:
            a.grid(True, which="both", alpha=0.3)
    fig.suptitle("fastpathd link emulation: configured against measured (S — [n1 =l1= n2] — D on veth)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
