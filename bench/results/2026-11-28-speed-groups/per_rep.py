#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""fastpathd's flat-out repetitions side by side: its own counters per repetition (worker
passes, frames per pass and per TX kick) and the harness's CPU figures. Usage:
per_rep.py DIR (a fastpath_bench.py --napi-env output folder)."""
import csv
import json
import sys

d = sys.argv[1]
rows = {(r["forwarder"], r["rep"]): r for r in csv.DictReader(open(f"{d}/fwdrate_raw.csv"))
        if r["offered_pps"] == "flat-out"}
print("rep rx_pps gen_pps cpu_ns_per_pkt cpu_napi% cpu_fwd% passes frames/pass frames/kick "
      "rx_wait_p50_ns")
for line in open(f"{d}/stages.jsonl"):
    s = json.loads(line)
    if s["offered_pps"] != "flat-out" or s["forwarder"] != "fastpathd":
        continue
    c, r = s["counters"], rows[("fastpathd", str(s["rep"]))]
    tx = c.get("fp0.port:fb1b.tx_packets", 0)
    passes = c.get("fp0.worker:0.loops", 0)
    kicks = c.get("fp0.port:fb1b.tx_kicks", 0)
    print(s["rep"], round(float(r["rx_pps"])), r["gen_pps"], round(float(r["cpu_ns_per_pkt"])),
          round(float(r["cpu_napi_pct"]), 1), round(float(r["cpu_proc_pct"]), 1), passes,
          round(tx / max(passes, 1), 1), round(tx / max(kicks, 1), 1),
          c.get("fp0.worker:0.rx_wait_p50_ns", 0))
