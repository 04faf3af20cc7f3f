# SPDX-License-Identifier: GPL-2.0-only
"""The per-stage loss columns of a single-router point: S's qdisc (drops: the sending
host's loss; requeues: frames S's veth handed back while R's ring was full) apart from S's
veth drops (no qdisc to hold the frame)."""
from fastpath_bench.meter import StageCounters


class FakeTopo:
    n = 1

    def r_in(self, i):
        return "fb1a"

    def r_out(self, i):
        return "fb1b"


def test_qdisc_drops_and_requeues_are_their_own_stages():
    d = StageCounters.delta({"fbs0.qdisc_drops": 3, "fbs0.qdisc_requeues": 10,
                             "fbs0.tx_dropped": 7},
                            {"fbs0.qdisc_drops": 5, "fbs0.qdisc_requeues": 52,
                             "fbs0.tx_dropped": 7, "fb1a.rx_packets": 1000})
    s = StageCounters(None, FakeTopo()).summary(d)
    assert s["st_s_qdisc_drops"] == 2
    assert s["st_s_qdisc_requeues"] == 42
    assert s["st_s_tx_dropped"] == 0  # unchanged counters are no stage's loss
    assert s["st_r_in_rx"] == 1000


def test_no_qdisc_counters_on_a_veth_without_one():
    s = StageCounters(None, FakeTopo()).summary({"fbs0.tx_dropped": 9})
    assert s["st_s_qdisc_drops"] == 0 and s["st_s_qdisc_requeues"] == 0
    assert s["st_s_tx_dropped"] == 9


def test_fastpathd_levels_are_values_not_differences():
    # rx_budget_frames starts at 2^32 - 1 ("unlimited") and drops to a measured budget:
    # as a difference it would be about -4e9.
    a = {"fp0.worker:0.rx_budget_frames": 2**32 - 1, "fp0.worker:0.rx_wait_p99_ns": 9000,
         "fp0.worker:0.frames_free": 4000, "fp0.port:fb1a.rx_packets": 100,
         "fp0.port:fb1a.emu_depth_packets": 3}
    b = {"fp0.worker:0.rx_budget_frames": 96, "fp0.worker:0.rx_wait_p99_ns": 7000,
         "fp0.worker:0.frames_free": 4000, "fp0.port:fb1a.rx_packets": 1100,
         "fp0.port:fb1a.emu_depth_packets": 5}
    d = StageCounters.delta(a, b)
    assert d["fp0.worker:0.rx_budget_frames"] == 96
    assert d["fp0.worker:0.rx_wait_p99_ns"] == 7000
    assert d["fp0.port:fb1a.emu_depth_packets"] == 5
    assert d["fp0.port:fb1a.rx_packets"] == 1000  # a running total: its difference
    assert "fp0.worker:0.frames_free" not in d  # did not move


def test_only_fastpathd_keys_are_levels():
    # A veth's counters are running totals even where a name matches a level's.
    d = StageCounters.delta({"fb1a.cpu": 5, "fb1a.tx_max_ns": 10},
                            {"fb1a.cpu": 8, "fb1a.tx_max_ns": 30})
    assert d == {"fb1a.cpu": 3, "fb1a.tx_max_ns": 20}
