# SPDX-License-Identifier: GPL-2.0-only
"""The harness's outputs: CSV files and results.md from fixed result records."""
import argparse
import csv
import os
import stat
import time

from fastpath_bench.report import write_csv, write_report
from fastpath_bench.stats import ratios, summarize
from fastpath_bench.tools import TOOL_PATHS, find_tools


def test_write_csv_unions_columns_in_first_seen_order_and_rounds_floats(tmp_path):
    p = tmp_path / "x.csv"
    write_csv(str(p), [{"a": 1, "b": 0.123456}, {"a": 2, "c": "z"}])
    with open(p) as f:
        rows = list(csv.reader(f))
    assert rows == [["a", "b", "c"], ["1", "0.1235", ""], ["2", "", "z"]]


def test_write_csv_writes_nothing_for_no_rows(tmp_path):
    write_csv(str(tmp_path / "none.csv"), [])
    assert not os.path.exists(tmp_path / "none.csv")


def sweep():
    rows = []
    for fw, rx in (("kernel", 900.0), ("fastpathd", 1000.0)):
        for offered, got in ((1000, min(1000.0, rx)), ("flat-out", rx)):
            rows.append({"forwarder": fw, "payload": 160, "offered_pps": offered, "rep": 0,
                         "gen_pps": 1000.0 if offered == 1000 else 2000.0, "rx_pps": got,
                         "rx_mbps": got * 160 * 8 / 1e6, "loss_pct": 0.0 if got >= 1000 else 10.0,
                         "jain": 1.0, "lat_p50_us": 20.0, "lat_p99_us": 40.0, "rtt_ms": 0.1,
                         "cpu_fwd_pct": 10.0, "cpu_proc_pct": 5.0, "cpu_napi_pct": 5.0,
                         "cpu1_foreign_pct": 1.0, "cpu_ns_per_pkt": 1000.0, "gen_limited": 0})
    return rows


def test_report_has_every_section_and_the_measured_ratio(tmp_path):
    from fastpath_bench.stats import METRICS
    summary = summarize(sweep(), ["forwarder", "payload", "offered_pps"], METRICS)
    rat = ratios(summary)
    args = argparse.Namespace(argv=["python3", "bench/fastpath_bench.py", "--smoke"],
                              t0=time.time(), load_start="0.1 0.2 0.3", line_pps=12500)
    ceilings = [{"payload": 160, "sent_pps": 2000.0, "received_at_r_pps": 1990.0}]
    write_report(str(tmp_path), args, {"kernel": "6.18"}, ["CPU 0: generator"], ceilings,
                 summary, [], [], [], ["ns-3 FdNetDevice: skipped, not built"], [],
                 "2026-01-01 00:00:00", rat)
    text = (tmp_path / "results.md").read_text()
    for heading in ("# ns3-fastpath benchmark results", "## Machine", "## CPU placement",
                    "## Generator ceiling", "## Skipped", "## Ratios within this run"):
        assert heading in text
    assert "- kernel: 6.18" in text
    assert "bench/fastpath_bench.py --smoke" in text
    assert "ns-3 FdNetDevice: skipped, not built" in text
    # fastpathd saturates at 1000 pkt/s, the kernel at 900: the ratio row says 1.11.
    assert rat[160]["fastpathd"]["saturation_pps"] == 1000.0
    assert rat[160]["kernel"]["saturation_pps"] == 900.0
    assert "fastpathd / Linux kernel: saturation 1.11x" in text


def test_find_tools_takes_executable_files_only(tmp_path):
    for tool in ("trafgen", "fastpathd"):
        p = tmp_path / TOOL_PATHS[tool]
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("#!/bin/sh\n")
        p.chmod(p.stat().st_mode | stat.S_IXUSR)
    (tmp_path / TOOL_PATHS["fpctl"]).mkdir(parents=True)  # a directory, not a program
    sink = tmp_path / TOOL_PATHS["sink"]
    sink.write_text("not executable")
    tools = find_tools(str(tmp_path))
    assert tools == {"trafgen": str(tmp_path / TOOL_PATHS["trafgen"]),
                     "fastpathd": str(tmp_path / TOOL_PATHS["fastpathd"])}
