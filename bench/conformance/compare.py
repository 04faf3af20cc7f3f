# SPDX-License-Identifier: GPL-2.0-only
"""Comparing two runs of one example: what it printed, and FlowMonitor's flows.

Printed output: every line is reduced to its template (numbers replaced by #); lines of one
template are paired in order. A template must occur as often in both runs (within 2 %), and
in all but 2 % of the pairs (rounded down: none of fewer than 50) each number must agree: integers within 2 %, other numbers within 5 % + 0.0005, a
number printed with a time unit (ns, us, ms, s) within 5 % + 0.5 ms.

Flows (matched by protocol, addresses and ports): received packets and bytes within 2 %, mean
delay within 5 % + 0.5 ms. Where the example has random loss the received counts follow the
losses: each run's lost packets must lie in the binomial 99 % interval of the two runs' pooled
loss rate, and the sent packets within 2 %."""
import json
import math
import os
import re
import sys
from xml.etree import ElementTree

# The binomial interval the fidelity benchmarks check loss against (one implementation).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fidelity"))
from fidelity_common import binom_interval  # noqa: E402

# Numbers that name an object rather than measure anything: ns-3's packet uids (the emulating
# helpers create packets of their own, so the example's packets get other uids).
# Pointers printed with %p or operator<< (a routing table's owner) differ between any two runs.
IDENTIFIERS = re.compile(r"\b(Uid:?\s*)\d+|\b()0x[0-9a-fA-F]{6,}")
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
COUNT_REL = 0.02
FLOAT_REL, FLOAT_ABS = 0.05, 0.0005
DELAY_REL, DELAY_ABS_NS = 0.05, 0.5e6
LOSS_LEVEL = 0.99


def normalise(line):
    return IDENTIFIERS.sub(r"\1uid", line.strip())


def template(line):
    return NUMBER.sub("#", normalise(line))


def _is_int(token):
    return re.fullmatch(r"[-+]?\d+", token) is not None


# A number printed with a time unit: its absolute tolerance is 0.5 ms in that unit.
TIME_UNIT = re.compile(r" ?(ns|us|ms|s)\b")
HALF_MS = {"ns": 0.5e6, "us": 500.0, "ms": 0.5, "s": 0.0005}


def numbers_agree(a, b, unit=None):
    """One printed number of run a against run b; unit: the time unit printed after it."""
    x, y = float(a), float(b)
    if unit is None and _is_int(a) and _is_int(b):
        return abs(x - y) <= COUNT_REL * max(abs(x), abs(y))
    return abs(x - y) <= FLOAT_REL * max(abs(x), abs(y)) + HALF_MS.get(unit, FLOAT_ABS)


def _numbers(line):
    """(number, time unit or None) of each number of a line."""
    out = []
    for m in NUMBER.finditer(line):
        u = TIME_UNIT.match(line, m.end())
        out.append((m.group(0), u.group(1) if u else None))
    return out


def _count_agrees(n, m):
    return abs(n - m) <= COUNT_REL * max(n, m)


def compare_output(lines_a, lines_b, limit=10):
    """Returns {"ok", "lines": (len a, len b), "mismatches": [text, ...] (at most limit)}."""
    groups_a, groups_b = {}, {}
    for lines, groups in ((lines_a, groups_a), (lines_b, groups_b)):
        for line in lines:
            if line.strip():
                groups.setdefault(template(line), []).append(normalise(line))
    bad = []
    for t in list(groups_a) + [t for t in groups_b if t not in groups_a]:
        la, lb = groups_a.get(t, []), groups_b.get(t, [])
        if not _count_agrees(len(la), len(lb)):
            bad.append(f"{len(la)} against {len(lb)} lines like: {t}")
            continue
        # Per line a number is one packet's: a real-time outlier may touch a few of many.
        differ = [(x, y) for x, y in zip(la, lb)
                  if not all(numbers_agree(p, q, u)
                             for (p, u), (q, _) in zip(_numbers(x), _numbers(y)))]
        if len(differ) > int(COUNT_REL * min(len(la), len(lb))):
            x, y = differ[0]
            bad.append(f"{len(differ)} of {min(len(la), len(lb))} lines differ, e.g. "
                       f"'{x}' against '{y}'")
    return {"ok": not bad, "lines": (len(lines_a), len(lines_b)), "mismatches": bad[:limit],
            "mismatch_count": len(bad)}


def _ns(text):
    return float(text.replace("ns", "").replace("+", ""))


def read_flowmonitor_xml(path):
    """FlowMonitor's XML (SerializeToXmlFile) as flows keyed by their five-tuple, both IP
    versions; None when the file is missing."""
    try:
        root = ElementTree.parse(path).getroot()
    except (FileNotFoundError, ElementTree.ParseError):
        return None
    tuples = {}
    for cls in ("Ipv4FlowClassifier", "Ipv6FlowClassifier"):
        for f in root.iter(cls):
            for fl in f.findall("Flow"):
                tuples[fl.get("flowId")] = (int(fl.get("protocol")), fl.get("sourceAddress"),
                                            int(fl.get("sourcePort")),
                                            fl.get("destinationAddress"),
                                            int(fl.get("destinationPort")))
    flows = {}
    for fl in root.find("FlowStats").findall("Flow"):
        key = tuples.get(fl.get("flowId"))
        if key is None:
            continue
        flows[key] = {"tx_packets": int(fl.get("txPackets")), "tx_bytes": int(fl.get("txBytes")),
                      "rx_packets": int(fl.get("rxPackets")), "rx_bytes": int(fl.get("rxBytes")),
                      "lost_packets": int(fl.get("lostPackets")),
                      "delay_sum_ns": _ns(fl.get("delaySum"))}
    return flows


def read_flows(path):
    """The packet count the injected unit writes (JSON lines), keyed by five-tuple."""
    flows = {}
    try:
        with open(path) as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    flows[(r["proto"], r["src"], r["sport"], r["dst"], r["dport"])] = r
    except FileNotFoundError:
        return None
    return flows


def _key_text(k):
    proto = {6: "TCP", 17: "UDP"}.get(k[0], str(k[0]))
    return f"{proto} {k[1]}:{k[2]} -> {k[3]}:{k[4]}"


def mean_delay_ns(r):
    return r["delay_sum_ns"] / r["rx_packets"] if r["rx_packets"] else math.nan


def compare_flows(flows_a, flows_b, random_loss=False, only=None):
    """Returns {"ok", "flows": [per-flow rows], "problems": [text]}; only: the flow keys to
    compare (default: every flow of either run)."""
    if flows_a is None or flows_b is None:
        return {"ok": False, "flows": [], "problems": ["no flow output"]}
    rows, problems = [], []
    keys = set(flows_a) | set(flows_b) if only is None else set(only)
    for k in sorted(keys, key=str):
        a, b = flows_a.get(k), flows_b.get(k)
        name = _key_text(k)
        if a is None or b is None:
            problems.append(f"{name}: only in the {'second' if a is None else 'first'} run")
            continue
        row = {"flow": name, "a": a, "b": b, "checks": {}}
        c = row["checks"]
        if random_loss:
            c["tx_packets"] = _count_agrees(a["tx_packets"], b["tx_packets"])
            la, lb = a["tx_packets"] - a["rx_packets"], b["tx_packets"] - b["rx_packets"]
            n = a["tx_packets"] + b["tx_packets"]
            p = (la + lb) / n if n else 0.0
            ia, ib = binom_interval(a["tx_packets"], p, LOSS_LEVEL), \
                binom_interval(b["tx_packets"], p, LOSS_LEVEL)
            c["loss"] = ia[0] <= la <= ia[1] and ib[0] <= lb <= ib[1]
            row["loss"] = {"a": la, "b": lb, "interval_a": ia, "interval_b": ib}
        else:
            c["rx_packets"] = _count_agrees(a["rx_packets"], b["rx_packets"])
            c["rx_bytes"] = _count_agrees(a["rx_bytes"], b["rx_bytes"])
        da, db = mean_delay_ns(a), mean_delay_ns(b)
        if not (math.isnan(da) or math.isnan(db)):
            c["delay"] = abs(da - db) <= DELAY_REL * da + DELAY_ABS_NS
        for check, ok in c.items():
            if not ok:
                problems.append(f"{name}: {check} " + _detail(check, a, b, row))
        rows.append(row)
    return {"ok": not problems, "flows": rows, "problems": problems}


def _detail(check, a, b, row):
    if check == "delay":
        return f"mean {mean_delay_ns(a) / 1e6:.3f} ms against {mean_delay_ns(b) / 1e6:.3f} ms"
    if check == "loss":
        l = row["loss"]
        return (f"lost {l['a']} (99 % {l['interval_a'][0]}..{l['interval_a'][1]}) against "
                f"{l['b']} ({l['interval_b'][0]}..{l['interval_b'][1]})")
    return f"{a[check]} against {b[check]}"
