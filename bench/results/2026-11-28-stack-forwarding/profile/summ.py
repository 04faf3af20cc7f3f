#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# usage: summ.py DIR LABEL [pps]
import sys, glob, json
d, label = sys.argv[1], sys.argv[2]
pps = float(sys.argv[3]) if len(sys.argv) > 3 else None
t0 = float(open(f"{d}/{label}.t0").read()); t1 = float(open(f"{d}/{label}.t1").read())
wall = t1 - t0
def rd(f):
    out = {}
    for line in open(f):
        p = line.split()
        if len(p) < 6: continue
        out[p[0]] = (p[1], int(p[2]), int(p[3]), int(p[4]), int(p[5]), int(p[6]))
    return out
a, b = rd(f"{d}/{label}.s0"), rd(f"{d}/{label}.s1")
print(f"{label}: wall {wall:.2f}s")
tot = 0
for k in b:
    if k not in a: continue
    c, run1, wait1, sl1, v1, n1 = b[k]; _, run0, wait0, sl0, v0, n0 = a[k]
    run = (run1 - run0) / 1e9 / wall * 100
    if run < 0.5 and (sl1 - sl0) < 100: continue
    tot += run
    print(f"  {c:18s} cpu {run:5.1f}%  wait {(wait1-wait0)/1e9/wall*100:5.1f}%  slices/s {(sl1-sl0)/wall:9.0f}  vol/s {(v1-v0)/wall:8.0f} invol/s {(n1-n0)/wall:8.0f}")
print(f"  total listed {tot:.1f}%")
try:
    for line in open(f"{d}/{label}.perfstat"):
        if line.startswith("#") or not line.strip(): continue
        p = line.strip().split(",")
        if len(p) > 3 and p[1] not in ("0", "<not counted>"):
            v = float(p[1]); s = f"{p[0]:22s} {p[3]:32s} {v/wall:10.0f}/s"
            if pps: s += f"  {v/wall/pps:.3f}/pkt"
            print("  " + s)
except FileNotFoundError: pass
