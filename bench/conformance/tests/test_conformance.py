# SPDX-License-Identifier: GPL-2.0-only
"""The conformance harness's switch, comparisons and corpus, without ns-3 runs."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import compare  # noqa: E402
import corpus  # noqa: E402
from switch import apply_switch, format_changes  # noqa: E402

SCRIPT = """#include "ns3/core-module.h"
#include "ns3/point-to-point-module.h"

int main() {
    PointToPointHelper p2p;
    PointToPointStarHelper star(4, p2p);
    CsmaHelper csma;
}
"""


def test_switch_adds_one_include_per_helper_and_renames_whole_words():
    text, rows = apply_switch(SCRIPT)
    assert '#include "ns3/fast-path-point-to-point-helper.h"' in text
    assert '#include "ns3/fast-path-csma-helper.h"' in text
    assert "FastPathPointToPointHelper p2p;" in text
    assert "PointToPointStarHelper star(4, p2p);" in text  # not a whole word: untouched
    assert "FastPathCsmaHelper csma;" in text
    # the includes follow the last include line
    lines = text.split("\n")
    assert lines[2].startswith('#include "ns3/fast-path-')
    changed = format_changes("x.cc", rows)
    assert "x.cc:5: - PointToPointHelper p2p;" in changed
    assert "x.cc:5: + FastPathPointToPointHelper p2p;" in changed
    assert "PointToPointStarHelper" not in changed


def test_switch_renames_wifi_helper_but_not_the_phy_or_mac_helpers():
    src = ('#include "ns3/wifi-module.h"\nint main() {\n    YansWifiPhyHelper phy;\n'
           '    WifiMacHelper mac;\n    WifiHelper wifi;\n}\n')
    text, rows = apply_switch(src)
    assert '#include "ns3/fast-path-wifi-helper.h"' in text
    assert "FastPathWifiHelper wifi;" in text
    assert "YansWifiPhyHelper phy;" in text and "WifiMacHelper mac;" in text
    assert "x.cc:5: + FastPathWifiHelper wifi;" in format_changes("x.cc", rows)


def test_switch_leaves_a_script_without_stock_helpers_alone():
    src = '#include "ns3/core-module.h"\nint main() {}\n'
    text, rows = apply_switch(src)
    assert text == src and rows == []


def test_output_times_within_tolerance_and_uids_ignored():
    a = ["At time +2.00369s server received 1024 bytes from 10.1.1.1 port 49153",
         "TraceDelay TX 1024 bytes Uid: 5"]
    b = ["At time +2.0041s server received 1024 bytes from 10.1.1.1 port 49153",
         "TraceDelay TX 1024 bytes Uid: 6"]
    assert compare.compare_output(a, b)["ok"]


def test_output_times_get_half_a_millisecond_in_their_unit():
    a = ["Delay: +3.712e+06ns", "rtt 3.712 ms"]
    assert compare.compare_output(a, ["Delay: +4.07309e+06ns", "rtt 4.073 ms"])["ok"]
    assert not compare.compare_output(a, ["Delay: +4.5e+06ns", "rtt 3.712 ms"])["ok"]
    assert not compare.compare_output(a, ["Delay: +3.712e+06ns", "rtt 4.5 ms"])["ok"]


def test_output_a_few_outliers_among_many_lines_pass():
    a = ["Delay: +3.712e+06ns"] * 100
    assert compare.compare_output(a, ["Delay: +5e+06ns"] * 2 + a[2:])["ok"]
    assert not compare.compare_output(a, ["Delay: +5e+06ns"] * 3 + a[3:])["ok"]
    assert not compare.compare_output(a[:10], ["Delay: +5e+06ns"] + a[1:10])["ok"]


def test_output_different_count_or_address_fails():
    a = ["received 1024 bytes from 10.1.1.1"] * 10
    assert not compare.compare_output(a, a[:8])["ok"]
    assert not compare.compare_output(a, ["received 1024 bytes from 10.1.2.1"] * 10)["ok"]
    assert not compare.compare_output(["Total Bytes Received: 1000"],
                                      ["Total Bytes Received: 970"])["ok"]


def _flow(tx, rx, delay_ms):
    return {"tx_packets": tx, "tx_bytes": tx * 100, "rx_packets": rx, "rx_bytes": rx * 100,
            "lost_packets": tx - rx, "delay_sum_ns": rx * delay_ms * 1e6}


K = (17, "10.1.1.1", 49153, "10.1.1.2", 9)


def test_flows_bounds():
    ok = compare.compare_flows({K: _flow(1000, 1000, 15.76)}, {K: _flow(1000, 985, 16.0)})
    assert ok["ok"], ok["problems"]
    few = compare.compare_flows({K: _flow(1000, 1000, 15.76)}, {K: _flow(1000, 970, 15.76)})
    assert not few["ok"] and "rx_packets" in few["problems"][0]
    slow = compare.compare_flows({K: _flow(1000, 1000, 15.76)}, {K: _flow(1000, 1000, 17.5)})
    assert not slow["ok"] and "delay" in slow["problems"][0]
    gone = compare.compare_flows({K: _flow(1000, 1000, 15.76)}, {})
    assert not gone["ok"] and "only in the first run" in gone["problems"][0]


def test_random_loss_uses_the_binomial_interval():
    # 1 % loss of 10,000: 100 against 120 lost is chance, 100 against 200 is not.
    assert compare.compare_flows({K: _flow(10000, 9900, 5)}, {K: _flow(10000, 9880, 5)},
                                 random_loss=True)["ok"]
    assert not compare.compare_flows({K: _flow(10000, 9900, 5)}, {K: _flow(10000, 9800, 5)},
                                     random_loss=True)["ok"]


def test_flowmonitor_xml(tmp_path):
    xml = tmp_path / "f.xml"
    xml.write_text("""<?xml version="1.0" ?>
<FlowMonitor>
  <FlowStats>
    <Flow flowId="1" delaySum="+3.6864e+06ns" txBytes="1052" rxBytes="1052" txPackets="1"
          rxPackets="1" lostPackets="0" timesForwarded="0"/>
  </FlowStats>
  <Ipv4FlowClassifier>
    <Flow flowId="1" sourceAddress="10.1.1.1" destinationAddress="10.1.1.2" protocol="17"
          sourcePort="49153" destinationPort="9"/>
  </Ipv4FlowClassifier>
</FlowMonitor>
""")
    flows = compare.read_flowmonitor_xml(str(xml))
    assert flows[K]["rx_packets"] == 1 and flows[K]["delay_sum_ns"] == 3686400.0
    assert compare.read_flowmonitor_xml(str(tmp_path / "missing.xml")) is None


def test_corpus_names_are_unique_and_exist_where_installed():
    names = [e.name for e in corpus.CORPUS]
    assert len(names) == len(set(names))
    assert any(e.subset for e in corpus.CORPUS)
    if os.path.isdir(corpus.EXAMPLES_DIR):
        for e in corpus.CORPUS:
            assert os.path.exists(os.path.join(corpus.EXAMPLES_DIR, e.path)), e.path
    assert [e.name for e in corpus.find(["first", "routing/simple-global-routing"])] == \
        ["tutorial/first", "routing/simple-global-routing"]


def test_check_accepts_a_known_failure_only_with_its_reason():
    import conformance
    ex = [corpus.Example("a.cc", known="its frames cross fastpathd"), corpus.Example("b.cc")]
    known = {"example": "a", "result": "fail", "reason": "x: its frames cross fastpathd, not"}
    other = {"example": "a", "result": "fail", "reason": "SIGSEGV"}
    plain = {"example": "b", "result": "fail", "reason": "delay mean"}
    assert conformance.unexpected_failures(ex, [known], "emulated") == []
    assert conformance.unexpected_failures(ex, [other], "emulated") == [other]
    assert conformance.unexpected_failures(ex, [plain], "emulated") == [plain]
    # the self-check accepts no failure at all
    assert conformance.unexpected_failures(ex, [known], "self") == [known]


def test_the_tag_free_count_is_compared_on_tcp_and_udp():
    import conformance
    flows = {K: 1, (1, "10.1.1.1", 0, "10.1.1.2", 0): 2, (6, "a", 1, "b", 2): 3}
    assert set(conformance.tcp_udp(flows)) == {K, (6, "a", 1, "b", 2)}
    assert conformance.tcp_udp(None) is None
