#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""fp-xdpgen paced into fp-sink's XDP program on R's ingress veth (the harness's S - R
namespaces): one-way latency at the sink per paced rate, with the default --batch 64
against --batch 4, alternating, so what the batch flush adds to a frame's send stamp
shows as the difference. usage: measure.py --build-dir BUILD [--reps 3]"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.environ.get("FP_REPO", os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "bench"))
sys.path.insert(0, os.path.join(REPO, "bench", "tests"))

from fastpath_bench.proc import Cleanup, sh  # noqa: E402
from fastpath_bench.tools import find_tools  # noqa: E402
from fastpath_bench.topology import Topology  # noqa: E402
from xdpgen_test import SinkAtR, xdpgen  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--rates", default="100000,400000,800000")
    args = ap.parse_args()
    tools = find_tools(args.build_dir)
    clean = Cleanup()
    rows = []
    try:
        topo = Topology("xb", 1, clean)
        topo.build()
        sink = SinkAtR(tools, topo)
        topo.steer()
        for rep in range(args.reps):
            for rate in [int(r) for r in args.rates.split(",")]:
                for batch in (64, 4):
                    sink.cmd("reset")
                    rc, g, err = xdpgen(tools, topo, ["--pps", str(rate), "--duration", "1",
                                                      "--batch", str(batch)])
                    sh(["sleep", "0.2"])
                    s = sink.cmd("read 1")
                    row = {"rep": rep, "rate": rate, "batch": batch, "rc": rc,
                           "gen": g, "sink": s}
                    rows.append(row)
                    print(json.dumps({"rep": rep, "rate": rate, "batch": batch,
                                      "offered": g and round(g["pps"]),
                                      "received": s and s["packets"],
                                      "lat_p50_us": s and s.get("lat_p50_us"),
                                      "lat_p99_us": s and s.get("lat_p99_us"),
                                      "lat_mean_us": s and s.get("lat_mean_us")}), flush=True)
        sink.close()
    finally:
        clean.all()
    with open(os.path.join(os.getcwd(), "rows.json"), "w") as f:
        json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
