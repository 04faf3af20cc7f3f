# SPDX-License-Identifier: GPL-2.0-only
"""line_fidelity.py and line_hosts.py without privileges: where its UDP run's drops are read from (qdiscs,
counter deltas), its tables with the host-pair row, and its refusals."""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "fidelity"))
import line_fidelity as lf  # noqa: E402
import line_hosts as lh  # noqa: E402


def test_qdisc_drops_of_queueing_qdiscs_only():
    tc = json.dumps([{"kind": "noqueue", "dev": "lo", "drops": 0},
                     {"kind": "tbf", "dev": "fb1b", "drops": 23},
                     {"kind": "tbf", "dev": "fbs0", "drops": 0}])
    assert lh.qdisc_drop_counts("r1", tc) == {"r1 fb1b tbf drops": 23, "r1 fbs0 tbf drops": 0}
    assert lh.qdisc_drop_counts("s", "") == {}
    assert lh.qdisc_drop_counts("s", "not json") == {}


def test_drop_points_are_the_counters_that_grew():
    before = {"a": 5, "b": 1}
    after = {"a": 5, "b": 4, "c": 2}
    assert lh.drop_points(before, after) == {"b": 3, "c": 2}


def host_pair_row():
    return {"forwarder": "hosts (one veth)", "nodes": 0, "rate_bps": 1e9, "interval_s": 0,
            "model_ms": 0.0, "with_tcp": False, "sent": 0, "replies": 0,
            "iperf": {"tcp_mbps": 940.0, "model_tcp_mbps": 956.41, "udp_packets": 214000,
                      "udp_sent_mbps": 798.9, "udp_lost": 0, "udp_lost_pct": 0.0,
                      "udp_drop_points": {}}}


def test_host_pair_row_only_in_the_drop_table():
    row = host_pair_row()
    assert "hosts" not in lf.table([row])
    drops = lf.udp_drop_table([row])
    assert "| - | hosts (one veth) | 1000 Mbit/s | 940.0 (956.41) | 214000 (798.9) | 0 (0.0 %) " \
           "| - / - | none |" in drops


def test_drop_table_names_every_point_largest_first():
    row = host_pair_row()
    row.update(forwarder="fastpathd", nodes=8)
    row["iperf"]["udp_drop_points"] = {"D udp RcvbufErrors": 7, "link l1 a_to_b queue_drops": 70}
    line = lf.udp_drop_table([row]).splitlines()[-1]
    assert line.endswith("| link l1 a_to_b queue_drops: 70; D udp RcvbufErrors: 7 |")


def test_the_tcp_cell_names_the_congestion_control_when_known():
    row = host_pair_row()
    assert "| 940.0 (956.41) |" in lf.udp_drop_table([row])
    row["iperf"]["tcp_cc"] = "cubic"
    assert "| 940.0 (956.41, cubic) |" in lf.udp_drop_table([row])
    row["iperf"]["tcp_mbps_second_half"] = 955.2
    assert "| 940.0 / 955.2 (956.41, cubic) |" in lf.udp_drop_table([row])


def test_the_second_half_is_what_the_server_received_then():
    def iv(mbytes):
        return {"sum": {"bytes": mbytes * 1e6 / 8, "seconds": 1.0}}
    j = {"server_output_json": {"intervals": [iv(2), iv(4), iv(9), iv(10), iv(9)]}}
    assert lh.second_half_mbps(j) == round((9 + 10 + 9) / 3, 2)
    assert lh.second_half_mbps({}) is None
    assert lh.second_half_mbps({"server_output_json": {"intervals": []}}) is None


def test_limit_and_congestion_control_options():
    a = lf.parse_args(["--out", "/tmp/x"])
    assert a.limit == lf.LIMIT == 100 and a.tcp_cc is None
    a = lf.parse_args(["--out", "/tmp/x", "--limit", "1000", "--tcp-cc", "cubic"])
    assert a.limit == 1000 and a.tcp_cc == "cubic"
    for bad in ("0", "-5", "100001"):
        with pytest.raises(SystemExit):
            lf.parse_args(["--out", "/tmp/x", "--limit", bad])


def test_refuses_a_negative_udp_window():
    with pytest.raises(SystemExit):
        lf.parse_args(["--out", "/tmp/x", "--udp-window", "-1"])
    a = lf.parse_args(["--out", "/tmp/x"])
    assert a.udp_window == lf.UDP_WINDOW and not a.no_access_shaping and not a.host_pair


def test_split_drops_counts_each_frame_once_and_blames_who_dropped():
    points = {"n1 port l1 drop_link_queue_drop": 100, "link l1 a_to_b queue_drops": 100,
              "n1 port fb1a xsk_rx_dropped": 7, "D udp InErrors": 30, "D udp RcvbufErrors": 30,
              "D fbd0 rx_dropped": 2, "s fbs0 tbf drops": 1, "S fbs0 tx_dropped": 5,
              "r1 fb1b tbf drops": 11}
    assert lh.split_drops(points) == (100 + 7 + 5 + 11, 30 + 2 + 1)
    assert lh.split_drops({}) == (0, 0)
