#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Per environment, forwarder and paced rate below overload: the median loss and, summed over
the repetitions, frames lost (the sink's sequence gaps) / S's qdisc drops / S's qdisc requeues / S's veth tx drops,
from fwdrate_raw.csv (the directory given, default this one)."""
import csv
import os
import sys

d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
rows = list(csv.DictReader(open(os.path.join(d, "fwdrate_raw.csv"))))
print("| NAPI env | forwarder | offered (pkt/s) | S's qdisc | median loss | lost / S qdisc drops / "
      "S qdisc requeues / S veth tx drops |")
print("|---|---|---|---|---|---|")
groups = {}
for r in rows:
    if r["offered_pps"] == "flat-out" or r["role"] == "overload":
        continue
    groups.setdefault((r["napi_env"], r["forwarder"], int(r["offered_pps"])), []).append(r)
for (env, fw, off), rs in groups.items():
    loss = sorted(float(r["loss_pct"]) for r in rs)[len(rs) // 2]
    lost = sum(int(float(r["gap_loss"])) for r in rs)
    s = lambda k: sum(int(float(r[k] or 0)) for r in rs)
    print(f"| {env} | {fw} | {off:,} | {rs[0]['sender_qdisc']} | {loss:.4f} % | {lost} / "
          f"{s('st_s_qdisc_drops')} / {s('st_s_qdisc_requeues')} / {s('st_s_tx_dropped')} |")
