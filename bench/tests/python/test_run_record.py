# SPDX-License-Identifier: GPL-2.0-only
"""The shared run folder (fastpath_bench/run_record.py) and the Wi-Fi conformance
comparison built on it: what results.md and results.json hold, refused inputs, and the
same-RngRun pairing of simulated and emulated runs."""
import json
import os
import sys

import pytest

from fastpath_bench.run_record import RunRecord, source

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "wifi"))
import wifi_conformance as wc  # noqa: E402


def test_run_folder_says_what_ran_and_keeps_the_data(tmp_path):
    run = RunRecord("bench/x/y.py", ["--a", "1"])
    rec = run.write(str(tmp_path / "out"), {"rows": [1, 2]}, "| t |\n", machine_extra={"k": 3})
    md = (tmp_path / "out" / "results.md").read_text()
    assert md.startswith("`bench/x/y.py --a 1` (")
    assert f"{os.cpu_count()} CPUs" in md
    assert md.endswith("\n\n| t |\n")
    js = json.loads((tmp_path / "out" / "results.json").read_text())
    assert js == json.loads(json.dumps(rec))
    assert js["argv"] == ["bench/x/y.py", "--a", "1"]
    assert js["rows"] == [1, 2]
    assert js["machine"]["k"] == 3 and js["machine"]["cpus"] == os.cpu_count()
    assert set(js["load_average"]) == {"start", "end"}
    assert len(js["source"]["commit"]) == 40  # this tree is a git checkout


def test_record_keys_and_paths_outside_the_tree_are_refused(tmp_path):
    with pytest.raises(ValueError, match="belong to the run record"):
        RunRecord("bench/x.py", []).write(str(tmp_path), {"machine": 1}, "")
    with pytest.raises(ValueError, match="inside the repository"):
        RunRecord("/tmp/x.py", [])


def test_source_outside_git_is_unknown(tmp_path):
    assert source(str(tmp_path))["commit"] == "unknown"


def manet_line(mode, protocol, rates):
    runs = [{"rng_run": k, "received_per_s_mean": v} for k, v in rates.items()]
    return json.dumps({"scenario": "manet-routing-compare", "protocol": protocol, "mode": mode,
                       "runs": runs})


def test_earlier_files_merge_runs_and_pairing_uses_common_runs(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(manet_line("emulated", "AODV", {1: 18.0, 2: 20.0}) + "\n")
    b.write_text("not json\n" + manet_line("emulated", "AODV", {2: 22.0, 3: 10.0}) + "\n")
    emu = wc.earlier(f"{a},{b}", "emulated")[(2, True)]
    assert [r["rng_run"] for r in emu["runs"]] == [1, 2, 3]
    assert emu["runs"][1]["received_per_s_mean"] == 22.0  # the later file's run 2
    sim = wc.manet_summary(2, False, [{"rng_run": k, "received_per_s_mean": v}
                                      for k, v in {1: 16.0, 2: 20.0, 4: 30.0}.items()])
    pr = wc.paired(sim, emu)
    assert pr["rng_runs"] == [1, 2]
    assert pr["simulated_mean"] == 18.0 and pr["emulated_mean"] == 20.0
    assert pr["diff_mean"] == 2.0 and pr["diff_se"] == 0.0
