# SPDX-License-Identifier: GPL-2.0-only
"""Comparing a run against the spread of the simulated example over seeds.

Some examples draw random numbers that the emulation cannot share with ns-3's streams (RED's
drop draws and a CSMA device's backoff are taken by fastpathd from streams of its own). Their
reference is not one simulated run but k simulated runs (RngRun 1..k), and the compared run
(emulated, or simulated at RngRun k+1 in the self-check) must look like one more seed: every
compared value within the prediction interval of the seeds,

    mean ± t(0.995, k-1) · s · sqrt(1 + 1/k)  ±  the strict rule's tolerance of the mean,

so a value the seeds do not vary (s = 0) keeps the strict rule of compare.py (integers 2 %,
times 5 % + 0.5 ms, other numbers 5 % + 0.0005).

Printed output: lines grouped by template as in compare.py. The number of lines of a template
is one value. A template printed at most TRACE_LINES times per run is a summary: its i-th line
is compared number by number with the seeds' i-th lines. A template printed more often is a
trace (one line per packet): which packet gets which delay moves between seeds, so line i is
not compared with line i; each number column is compared by the distribution of its values
over the lines (mean, 10th, 50th and 90th percentile), each one a value as above.

FlowMonitor (and the tag-free count): per flow received packets, received bytes and mean
delay; a flow every seed has must be in the compared run, one no seed has must not. Where an
example's flows of one service are built alike (exchangeable, e.g. the ten leaves of a
dumbbell), which of them a random draw favours changes from seed to seed: those flows are
compared pooled, as their sum, the largest and the smallest of them."""
import math
import statistics

from compare import (COUNT_REL, DELAY_REL, FLOAT_ABS, FLOAT_REL, HALF_MS, _key_text, _numbers,
                     mean_delay_ns, normalise, template)

# Student's t, two-sided 99 % (the 0.995 quantile), by degrees of freedom 1..30.
T_995 = (63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355, 3.250, 3.169, 3.106, 3.055,
         3.012, 2.977, 2.947, 2.921, 2.898, 2.878, 2.861, 2.845, 2.831, 2.819, 2.807, 2.797,
         2.787, 2.779, 2.771, 2.763, 2.756, 2.750)
# A template printed more often than this per run is a per-packet trace.
TRACE_LINES = 20
TRACE_STATS = ("mean", "p10", "p50", "p90")


def t_995(df):
    if df < 1:
        raise ValueError("a prediction interval needs at least two seeds")
    return T_995[min(df, len(T_995)) - 1]


def tolerance(value, kind):
    """The strict rule's tolerance around value. kind: "count", "float", or a time unit."""
    if kind == "count":
        return COUNT_REL * abs(value)
    if kind in HALF_MS:
        return DELAY_REL * abs(value) + HALF_MS[kind]
    return FLOAT_REL * abs(value) + FLOAT_ABS


def prediction_interval(values, kind):
    """(low, high): where one more seed falls with 99 % probability, widened by tolerance."""
    k = len(values)
    mean = statistics.fmean(values)
    spread = t_995(k - 1) * statistics.stdev(values) * math.sqrt(1 + 1 / k)
    width = spread + tolerance(mean, kind)
    return mean - width, mean + width


def within(values, value, kind):
    lo, hi = prediction_interval(values, kind)
    return lo <= value <= hi


def _fmt(values, value, kind):
    lo, hi = prediction_interval(values, kind)
    return f"{value:g} outside {lo:g}..{hi:g} (seeds {min(values):g}..{max(values):g})"


def _kind(token, unit):
    if unit is not None:
        return unit
    return "count" if token.lstrip("+-").isdigit() else "float"


def _groups(lines):
    groups = {}
    for line in lines:
        if line.strip():
            groups.setdefault(template(line), []).append(normalise(line))
    return groups


def _percentile(sorted_values, q):
    """Linear interpolation between closest ranks (numpy's default)."""
    pos = q * (len(sorted_values) - 1)
    i = int(pos)
    j = min(i + 1, len(sorted_values) - 1)
    return sorted_values[i] + (sorted_values[j] - sorted_values[i]) * (pos - i)


def trace_stats(lines):
    """Per number column of a trace's lines: {column: (kind, {stat: value})}."""
    columns = {}
    for line in lines:
        for i, (token, unit) in enumerate(_numbers(line)):
            kind = _kind(token, unit)
            columns.setdefault(i, (kind, []))[1].append(float(token))
    out = {}
    for i, (kind, values) in columns.items():
        s = sorted(values)
        out[i] = (kind, {"mean": statistics.fmean(s), "p10": _percentile(s, 0.1),
                         "p50": _percentile(s, 0.5), "p90": _percentile(s, 0.9)})
    return out


def compare_output_seeds(seed_lines, lines_b, limit=10):
    """seed_lines: each seed's printed lines; returns {"ok", "mismatches", "mismatch_count"}."""
    seeds = [_groups(lines) for lines in seed_lines]
    b = _groups(lines_b)
    bad = []
    templates = []
    for g in seeds + [b]:
        templates += [t for t in g if t not in templates]
    for t in templates:
        counts = [len(g.get(t, [])) for g in seeds]
        lb = b.get(t, [])
        if not within(counts, len(lb), "count"):
            bad.append(f"{len(lb)} lines like: {t}: " + _fmt(counts, len(lb), "count"))
            continue
        if not lb or min(counts) == 0:
            continue
        if max(counts) > TRACE_LINES:
            stats = [trace_stats(g[t]) for g in seeds]
            for col, (kind, value) in trace_stats(lb).items():
                for stat in TRACE_STATS:
                    ref = [s[col][1][stat] for s in stats if col in s]
                    if len(ref) == len(seeds) and not within(ref, value[stat], kind):
                        bad.append(f"{stat} of number {col + 1} of the {len(lb)} lines like: "
                                   f"{t}: " + _fmt(ref, value[stat], kind))
            continue
        for i, line in enumerate(lb[:min(counts)]):
            for col, (token, unit) in enumerate(_numbers(line)):
                kind = _kind(token, unit)
                ref = [float(_numbers(g[t][i])[col][0]) for g in seeds]
                if not within(ref, float(token), kind):
                    bad.append(f"number {col + 1} of '{line}': " + _fmt(ref, float(token), kind))
    return {"ok": not bad, "mismatches": bad[:limit], "mismatch_count": len(bad)}


def service(key):
    """The service of a flow (protocol, server port, towards the server or back): the
    lower port is the server's."""
    proto, _, sport, _, dport = key
    return proto, min(sport, dport), dport <= sport


def pooled(flows):
    """Flows of one service as three: all of them summed, the one that received the most
    and the one that received the least. Where the flows are built alike, which one a
    random draw favours is the draw's, not the network's: the total and the extremes of
    the shares are the network's (the shares in between move together and are left out)."""
    groups = {}
    for k, r in flows.items():
        groups.setdefault(service(k), []).append(r)
    out = {}
    for (proto, port, to_server), rs in groups.items():
        total = {f: sum(r[f] for r in rs) for f in ("rx_packets", "rx_bytes", "delay_sum_ns")}
        by_rx = sorted(rs, key=lambda r: (r["rx_packets"], r["rx_bytes"]))
        kind = {6: "TCP", 17: "UDP"}.get(proto, str(proto))
        way = "to" if to_server else "from"
        for what, r in (("sum", total), ("largest", by_rx[-1]), ("smallest", by_rx[0])):
            out[f"{kind} flows {way} port {port} ({len(rs)}): {what}"] = r
    return out


def compare_flows_seeds(seed_flows, flows_b, exchangeable=False):
    """seed_flows: each seed's flows (compare.read_flowmonitor_xml); exchangeable: the flows
    of one service are compared pooled (pooled). Returns {"ok", "problems"}."""
    if flows_b is None or any(f is None for f in seed_flows):
        return {"ok": False, "problems": ["no flow output"]}
    if exchangeable:
        seed_flows, flows_b = [pooled(f) for f in seed_flows], pooled(flows_b)
    problems = []
    keys = set(flows_b).union(*seed_flows)
    for k in sorted(keys, key=str):
        name = k if isinstance(k, str) else _key_text(k)
        present = [f[k] for f in seed_flows if k in f]
        b = flows_b.get(k)
        if b is None:
            if len(present) == len(seed_flows):
                problems.append(f"{name}: in every seed, not in this run")
            continue
        if len(present) < len(seed_flows):
            if not present:
                problems.append(f"{name}: in this run, in no seed")
            continue  # a flow of some seeds only: no interval to compare with
        for check, kind, get in (("rx_packets", "count", lambda r: r["rx_packets"]),
                                 ("rx_bytes", "count", lambda r: r["rx_bytes"]),
                                 ("delay", "ms", lambda r: mean_delay_ns(r) / 1e6)):
            ref, value = [get(r) for r in present], get(b)
            if any(math.isnan(v) for v in ref + [value]):
                continue
            if not within(ref, value, kind):
                problems.append(f"{name}: {check} " + _fmt(ref, value, kind))
    return {"ok": not problems, "problems": problems}
