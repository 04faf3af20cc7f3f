#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# summarize.py runs.log...: per log and side, the first packet's excess over the simulated
# 7.3728 ms (median, max, runs over the 2 ms budget), the simulator's lag when n0 sent it
# and fastpathd's frames late on arrival (summed over blocks, worst lateness).
import re, statistics, sys

SIMULATED = 7.3728
for path in sys.argv[1:]:
    sides = {}
    for line in open(path):
        side = line.split()[0]
        s = sides.setdefault(side, {"excess": [], "lag": [], "late": 0, "worst": 0})
        d = re.search(r"first_delay_ms=([-\d.]+)", line)
        if d:
            s["excess"].append(float(d.group(1)) - SIMULATED)
        g = re.search(r"sent_lag_ms=([-\d.]+)", line)
        if g:
            s["lag"].append(float(g.group(1)))
        a = re.search(r"emu_late_on_arrival=(\d+)", line)
        if a:
            s["late"] += int(a.group(1))
            s["worst"] = max(s["worst"], int(re.search(r"emu_lateness_max_ns=(\d+)", line).group(1)))
    for side, s in sides.items():
        ex = s["excess"]
        lag = f"{statistics.median(s['lag']):.2f} / {max(s['lag']):.2f}" if s["lag"] else "-"
        print(f"| {path} | {side} | {len(ex)} | +{statistics.median(ex):.2f} | +{max(ex):.2f} | "
              f"{sum(1 for e in ex if e > 2)} | {lag} | {s['late']} | {s['worst'] / 1e6:.1f} |")
