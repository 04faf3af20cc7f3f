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


# Comparison with the spread of simulated seeds (seeds.py).
import seeds  # noqa: E402


def test_prediction_interval_is_the_strict_rule_when_the_seeds_agree():
    # Zero spread: exactly the deterministic tolerance (2 % of a count).
    assert seeds.prediction_interval([1000] * 5, "count") == (980.0, 1020.0)
    assert seeds.within([1000] * 5, 1019, "count")
    assert not seeds.within([1000] * 5, 1021, "count")
    # A time: 5 % + 0.5 ms around the mean.
    assert seeds.within([10.0] * 5, 11.0, "ms") and not seeds.within([10.0] * 5, 11.01, "ms")


def test_prediction_interval_widens_with_the_seeds_spread():
    ref = [442, 461, 397, 430, 415]  # a RED queue disc's drops over five seeds
    lo, hi = seeds.prediction_interval(ref, "count")
    # mean 429, s 24.57, t(0.995, 4) = 4.604, sqrt(1 + 1/5): 123.9 wide, plus 2 % of 429
    assert 296 < lo < 297 and 561 < hi < 562
    assert seeds.within(ref, 411, "count") and seeds.within(ref, 520, "count")
    assert not seeds.within(ref, 600, "count") and not seeds.within(ref, 250, "count")
    assert seeds.t_995(100) == seeds.T_995[-1]


SUMMARY = "Packets/Bytes dropped: {} / {}"


def _summary(drops, marked=0):
    return ["*** Stats ***", SUMMARY.format(drops, drops * 588),
            f"Packets/Bytes marked: {marked} / {marked * 588}"]


def test_summary_lines_pass_within_the_seeds_and_fail_outside():
    runs = [_summary(d) for d in (442, 461, 397, 430, 415)]
    assert seeds.compare_output_seeds(runs, _summary(411))["ok"]
    far = seeds.compare_output_seeds(runs, _summary(650))
    assert not far["ok"] and "Packets/Bytes dropped" in far["mismatches"][0]
    # a value the seeds do not vary keeps the strict rule: 0 marked in every seed
    marked = seeds.compare_output_seeds(runs, _summary(430, marked=3))
    assert not marked["ok"] and "marked" in marked["mismatches"][0]
    # a line no seed prints
    assert not seeds.compare_output_seeds(runs, _summary(430) + ["Aborted"])["ok"]


def _trace(delays_ms):
    return [f"TraceDelay: RX 390 bytes from 10.1.1.1 Sequence Number: {i} Uid: {i} "
            f"Delay: +{d * 1e6:g}ns" for i, d in enumerate(delays_ms)]


def test_trace_lines_are_compared_by_their_distribution_not_line_by_line():
    base = [1.0 + (i % 10) * 0.3 for i in range(100)]  # 1.0 .. 3.7 ms
    runs = [_trace(base[s:] + base[:s]) for s in range(5)]  # the same delays, re-ordered
    # Every line differs from its counterpart by up to 2.7 ms, the distribution is the same.
    shuffled = _trace(list(reversed(base)))
    assert seeds.compare_output_seeds(runs, shuffled)["ok"]
    # The same lines 1.5 ms later each: the distribution moved.
    late = seeds.compare_output_seeds(runs, _trace([d + 1.5 for d in base]))
    assert not late["ok"] and "of the 100 lines like: TraceDelay" in late["mismatches"][0]
    # A tail of slow packets: the 90th percentile moves, the median does not.
    tail = seeds.compare_output_seeds(runs, _trace(sorted(base)[:85] + [9.0] * 15))
    assert not tail["ok"] and tail["mismatches"][0].startswith(("mean", "p90"))
    # Lost lines count as lines: 90 against 100 in every seed.
    assert not seeds.compare_output_seeds(runs, _trace(base[:90]))["ok"]


def test_flows_against_the_seeds():
    ref = [{K: _flow(1000, rx, d)} for rx, d in ((456, 340), (424, 345), (470, 338),
                                                (440, 350), (430, 342))]
    assert seeds.compare_flows_seeds(ref, {K: _flow(1000, 450, 346)})["ok"]
    few = seeds.compare_flows_seeds(ref, {K: _flow(1000, 300, 346)})
    assert not few["ok"] and "rx_packets" in few["problems"][0]
    slow = seeds.compare_flows_seeds(ref, {K: _flow(1000, 450, 400)})
    assert not slow["ok"] and "delay" in slow["problems"][0]
    assert "in every seed" in seeds.compare_flows_seeds(ref, {})["problems"][0]
    other = (6, "10.1.9.1", 1, "10.1.1.2", 2)
    extra = seeds.compare_flows_seeds(ref, {K: _flow(1000, 450, 346), other: _flow(5, 5, 1)})
    assert not extra["ok"] and "in no seed" in extra["problems"][0]
    assert not seeds.compare_flows_seeds(ref + [None], {K: _flow(1000, 450, 346)})["ok"]


def test_only_examples_with_unshared_random_draws_use_the_seeds():
    with_seeds = {e.name for e in corpus.CORPUS if e.seeds}
    assert with_seeds == {"traffic-control/red-vs-fengadaptive", "traffic-control/red-vs-nlred",
                          "traffic-control/cobalt-vs-codel",
                          "udp-client-server/udp-trace-client-server"}
    assert all("draws" in e.seeds for e in corpus.CORPUS if e.seeds)


def test_exchangeable_flows_are_compared_pooled_not_by_name():
    def run(shares):
        return {(6, f"10.1.{i}.1", 5001, f"10.2.{i}.1", 49153): _flow(1000, rx, 300)
                for i, rx in enumerate(shares)}
    ref = [run([584, 456, 430, 369, 243]), run([247, 889, 356, 355, 226]),
           run([626, 201, 588, 512, 385]), run([275, 437, 732, 338, 332]),
           run([269, 469, 367, 723, 342])]
    # The favoured flow moves from seed to seed: by name, the same spread fails a flow.
    moved = run([280, 300, 350, 390, 850])
    assert not seeds.compare_flows_seeds(ref, moved)["ok"]
    assert seeds.compare_flows_seeds(ref, moved, exchangeable=True)["ok"], \
        seeds.compare_flows_seeds(ref, moved, exchangeable=True)["problems"]
    # Pooled, the sum and the extremes still count: one flow starved fails.
    starved = run([700, 500, 450, 400, 40])
    bad = seeds.compare_flows_seeds(ref, starved, exchangeable=True)
    assert not bad["ok"] and "smallest" in bad["problems"][0]
    assert seeds.service((6, "10.1.0.1", 5001, "10.2.0.1", 49153)) == (6, 5001, False)
