// SPDX-License-Identifier: GPL-2.0-only
// fpctl against a server with nodes: links, their emulation parameters and queue
// disciplines, segments, bridges; what list and show print, to the byte.
#include <gtest/gtest.h>

#include "fpctl_runner.h"

namespace fastpath::ctrl {
namespace {

using testing::FpctlNodes;
using testing::FpctlSegments;

// A backend whose bridges are what a test sets (fastpathd's come from its workers' tables).
class BridgesBackend : public testing::HostsBackend {
 public:
  std::vector<BridgeInfo> bridges() const override { return list; }
  std::vector<BridgeInfo> list;
};
using FpctlBridges = testing::FpctlOn<BridgesBackend>;

MacAddress macOf(const std::string& text) { return MacAddress::parse(text).value(); }

TEST_F(FpctlNodes, LinkAddListShowSetDel) {
  auto add = run({"link", "add", "r1-r2", "r1:to-r2", "r2", "--mtu", "9000"});
  ASSERT_EQ(add.exit_code, 0) << add.err;
  auto list = run({"link", "list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("r1-r2            up    r1:to-r2 (port 1000)"), std::string::npos)
      << list.out;
  EXPECT_NE(list.out.find("r2:r1-r2 (port 1001)"), std::string::npos) << list.out;
  auto json = run({"--json", "link", "show", "r1-r2"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(
      json.out.find(R"({"name":"r1-r2","up":true,"a":{"node":"r1","port":"to-r2","id":1000,)"),
      std::string::npos)
      << json.out;
  EXPECT_NE(json.out.find(R"("mtu":9000,"down":false})"), std::string::npos) << json.out;
  // The link port is a port of its node, usable for routes.
  auto ports = run({"--node", "r1", "ports"});
  EXPECT_NE(ports.out.find("LINK"), std::string::npos) << ports.out;
  EXPECT_NE(ports.out.find("to-r2"), std::string::npos) << ports.out;
  ASSERT_EQ(run({"--node", "r1", "route", "add", "198.18.2.0/24", "dev", "to-r2"}).exit_code, 0);

  ASSERT_EQ(run({"link", "set", "r1-r2", "down"}).exit_code, 0);
  auto show = run({"link", "show", "r1-r2"});
  EXPECT_EQ(show.out.rfind("link r1-r2 down\n", 0), 0u) << show.out;
  EXPECT_NE(show.out.find("  a: node r1 port to-r2 id 1000 "), std::string::npos) << show.out;
  ASSERT_EQ(run({"link", "set", "r1-r2", "up"}).exit_code, 0);

  EXPECT_EQ(run({"link", "add", "r1-r9", "r1", "r9"}).exit_code, 1);      // no node r9
  EXPECT_EQ(run({"link", "add", "r1-r2", "r1:x", "r2:y"}).exit_code, 1);  // exists
  EXPECT_EQ(run({"link", "add", "loop", "r1", "r1:other"}).exit_code, 2);
  EXPECT_EQ(run({"link", "add", "l", "r1", "r2", "--mtu", "20"}).exit_code, 2);
  EXPECT_EQ(run({"link", "add", "l", "r1:eth 0", "r2"}).exit_code, 2);
  EXPECT_EQ(run({"link", "add", "l", "r1"}).exit_code, 2);
  EXPECT_EQ(run({"link", "set", "r1-r2", "sideways"}).exit_code, 2);
  EXPECT_EQ(run({"link", "set", "nope", "down"}).exit_code, 1);
  EXPECT_EQ(run({"link", "show", "nope"}).exit_code, 1);

  ASSERT_EQ(run({"link", "del", "r1-r2"}).exit_code, 0);
  EXPECT_EQ(run({"link", "list", "--json"}).out, "[]\n");
  EXPECT_EQ(routesIn("r1"), 0u);  // the route through the link port went with it
  EXPECT_EQ(run({"link", "del", "r1-r2"}).exit_code, 1);
}

TEST_F(FpctlNodes, LinkEmulationAddSetShowList) {
  auto links = [&] { return h_->onServer([&] { return multi_->links(); }); };
  auto add = run({"link", "add", "r1-r2", "r1:to-r2", "r2", "rate", "10mbit", "delay", "5ms"});
  ASSERT_EQ(add.exit_code, 0) << add.err;
  ASSERT_EQ(links().size(), 1u);
  EXPECT_EQ(formatLinkParams(links()[0].a_to_b), "rate 10mbit delay 5ms limit 100");
  EXPECT_TRUE(links()[0].b_to_a == links()[0].a_to_b);

  // One direction; only the words given change.
  auto ab = run({"link", "set", "r1-r2", "a-to-b", "loss", "1%", "jitter", "1ms"});
  ASSERT_EQ(ab.exit_code, 0) << ab.err;
  EXPECT_EQ(formatLinkParams(links()[0].a_to_b),
            "rate 10mbit delay 5ms jitter 1ms limit 100 loss 1%");
  EXPECT_EQ(formatLinkParams(links()[0].b_to_a), "rate 10mbit delay 5ms limit 100");
  // Both, from what each has: a-to-b keeps its loss.
  auto both = run({"--json", "link", "set", "r1-r2", "delay", "20ms"});
  ASSERT_EQ(both.exit_code, 0) << both.err;
  EXPECT_EQ(
      both.out,
      "{\"ok\":true,\"result\":\"link r1-r2 a-to-b rate 10mbit delay 20ms jitter 1ms limit 100 "
      "loss 1% b-to-a rate 10mbit delay 20ms limit 100\"}\n");
  EXPECT_EQ(formatLinkParams(links()[0].a_to_b),
            "rate 10mbit delay 20ms jitter 1ms limit 100 loss 1%");
  EXPECT_EQ(formatLinkParams(links()[0].b_to_a), "rate 10mbit delay 20ms limit 100");
  // Parameters and state together.
  auto ba = run({"link", "set", "r1-r2", "b-to-a", "limit", "500", "down"});
  ASSERT_EQ(ba.exit_code, 0) << ba.err;
  EXPECT_EQ(links()[0].b_to_a.limit_packets, 500u);
  EXPECT_FALSE(links()[0].up);
  ASSERT_EQ(run({"link", "set", "r1-r2", "up"}).exit_code, 0);

  // Bad words: exit 2, nothing sent.
  const auto before = links()[0];
  auto loss = run({"link", "set", "r1-r2", "loss", "150%"});
  EXPECT_EQ(loss.exit_code, 2);
  EXPECT_EQ(loss.err,
            "fpctl: link set: probability \"150%\" is outside 0% .. 100% (parameters: `fpctl "
            "link --help`)\n");
  auto typo = run({"link", "set", "r1-r2", "a-to-b", "rat", "10mbit"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("unknown link parameter \"rat\""), std::string::npos) << typo.err;
  EXPECT_EQ(run({"link", "set", "r1-r2", "delay"}).exit_code, 2);
  EXPECT_EQ(run({"link", "set", "r1-r2", "up", "down"}).exit_code, 2);
  EXPECT_EQ(run({"link", "set", "r1-r2"}).exit_code, 2);
  EXPECT_EQ(run({"link", "set", "r1-r2", "a-to-b"}).exit_code, 2);
  EXPECT_EQ(run({"link", "add", "l2", "r1:x", "r2:x", "loss", "2"}).exit_code, 2);
  EXPECT_TRUE(links()[0].a_to_b == before.a_to_b);
  EXPECT_TRUE(links()[0].b_to_a == before.b_to_a);
  EXPECT_EQ(links().size(), 1u);
  auto nope = run({"link", "set", "nope", "rate", "1mbit"});
  EXPECT_EQ(nope.exit_code, 1);
  EXPECT_NE(nope.err.find("no link 'nope'"), std::string::npos) << nope.err;

  // What the workers measured, and their lateness.
  h_->onServer([&] {
    LinkDirectionStats s;
    s.tx_packets = 10000;
    s.tx_bytes = 15000000;
    s.enqueued = 9900;
    s.delivered = 9750;
    s.queue_drops = 50;
    s.loss_drops = 100;
    s.depth_packets = 3;
    s.depth_bytes = 4500;
    s.in_flight = 14;
    s.sojourn_p50_ns = 5200000;
    s.sojourn_p99_ns = 9800000;
    s.sojourn_max_ns = 12000000;
    s.lateness_p50_ns = 2100;
    s.lateness_p99_ns = 35000;
    s.lateness_max_ns = 250000;
    multi_->setLinkStats("r1-r2", s, LinkDirectionStats{});
    // The histograms count since a reset (2026-11-28 21:06:40.123 UTC, the second).
    multi_->setStatsEpoch(StatsEpoch{1795900000123000000ull, 2, 0});
    multi_->setExtraStats({CounterSet{"worker 0",
                                      {{"loops", 1},
                                       {"emu_late_frames", 2},
                                       {"emu_lateness_p50_ns", 3071},
                                       {"emu_lateness_p99_ns", 21000},
                                       {"emu_lateness_max_ns", 999600}}}});
    return 0;
  });
  auto show = run({"link", "show", "r1-r2"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  for (const char* line : {"link r1-r2 up\n",
                           "  a: node r1 port to-r2 id 1000 ",
                           "                    a-to-b (r1 -> r2)        b-to-a (r2 -> r1)\n",
                           "  configured\n",
                           "    rate            10mbit                   10mbit\n",
                           "    delay           20ms                     20ms\n",
                           "    jitter          1ms                      -\n",
                           "    loss            1%                       -\n",
                           "    limit           100 packets              500 packets\n",
                           "  measured\n",
                           "    sent            10000                    0\n",
                           "    delivered       9750                     0\n",
                           "    queue drops     50                       0\n",
                           "    loss drops      100                      0\n",
                           "    drop ratio      1.50%                    -\n",
                           "    depth           3 packets, 4500 B        0 packets, 0 B\n",
                           "    sojourn p50     5.2ms                    -\n",
                           "    sojourn p99     9.8ms                    -\n",
                           "    lateness p50    2.1us                    -\n",
                           "    lateness p99    35us                     -\n",
                           "    lateness max    250us                    -\n",
                           "  emulation lateness\n",
                           "    worker 0        p50 3.07us  p99 21us  max 1ms  late frames 2\n",
                           "  histograms and maxima since 2026-11-28 21:06:40.123 UTC (reset 2 "
                           "time(s)); counters since fastpathd started\n"})
    EXPECT_NE(show.out.find(line), std::string::npos) << line << "\n" << show.out;
  auto json = run({"--json", "link", "show", "r1-r2"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  for (const char* part :
       {R"("a_to_b":{"configured":{"rate_bps":10000000,"overhead_bytes":0,"mpu_bytes":0,)"
        R"("delay_ns":20000000,)"
        R"("jitter_ns":1000000,"distribution":"uniform","reorder":false,"limit_packets":100,)"
        R"("limit_bytes":0,"loss":0.01,"gemodel":null,"duplicate":0,"corrupt":0,"seed":0,)"
        R"("text":"rate 10mbit delay 20ms jitter 1ms limit 100 loss 1%","aqm":"none"},)"
        R"("measured":{"tx_packets":10000,"tx_bytes":15000000,"enqueued":9900,"delivered":9750,)"
        R"("queue_drops":50,"loss_drops":100,)",
        R"("sojourn_p99_ns":9800000,"sojourn_max_ns":12000000,"lateness_p50_ns":2100,)"
        R"("lateness_p99_ns":35000,"lateness_max_ns":250000,"drop_ratio":0.015})",
        R"("b_to_a":{"configured":{"rate_bps":10000000,)", R"("drop_ratio":null})",
        R"("emulation_lateness":[{"worker":0,"p50_ns":3071,"p99_ns":21000,"max_ns":999600,)"
        R"("late_frames":2}],"histograms":{"since_unix_ns":1795900000123000000,"resets":2}})"})
    EXPECT_NE(json.out.find(part), std::string::npos) << part << "\n" << json.out;

  auto list = run({"link", "list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find(" EMULATION\n"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("a-to-b rate 10mbit delay 20ms jitter 1ms loss 1%; b-to-a rate 10mbit "
                          "delay 20ms limit 500\n"),
            std::string::npos)
      << list.out;
  ASSERT_EQ(run({"link", "set", "r1-r2", "b-to-a", "jitter", "1ms", "loss", "1%", "limit", "100"})
                .exit_code,
            0);
  EXPECT_NE(run({"link", "list"}).out.find(" rate 10mbit delay 20ms jitter 1ms loss 1%\n"),
            std::string::npos);
  auto list_json = run({"--json", "link", "list"});
  EXPECT_NE(list_json.out.find(R"("b_to_a":{"configured":{"rate_bps":10000000,)"),
            std::string::npos)
      << list_json.out;
  EXPECT_EQ(list_json.out.find("emulation_lateness"), std::string::npos) << list_json.out;
}

TEST_F(FpctlNodes, LinkShowHasAQueueDisciplinesRows) {
  ASSERT_EQ(run({"link", "add", "r1-r2", "r1:to-r2", "r2", "rate", "10mbit"}).exit_code, 0);
  // Without a queue discipline on either direction there are no aqm rows.
  auto plain = run({"link", "show", "r1-r2"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out.find("aqm"), std::string::npos) << plain.out;
  auto set = run({"link", "set", "r1-r2", "a-to-b", "aqm", "codel", "target", "2ms", "ecn"});
  ASSERT_EQ(set.exit_code, 0) << set.err;
  h_->onServer([&] {
    LinkDirectionStats s;
    s.tx_packets = 1000;
    s.delivered = 990;
    s.aqm_drops = 7;
    s.aqm_marks = 2;
    s.queue_drops = 3;
    return multi_->setLinkStats("r1-r2", s, LinkDirectionStats{});
  });
  auto show = run({"link", "show", "r1-r2"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  for (const char* line : {"    aqm             codel aqm-limit-bytes 1500000 target 2ms interval 100ms ecn none\n",
                           "    queue drops     3                        0\n",
                           "    aqm drops       7                        0\n",
                           "    aqm marks       2                        0\n",
                           "    drop ratio      1.00%                    -\n"})
    EXPECT_NE(show.out.find(line), std::string::npos) << line << "\n" << show.out;
}

TEST_F(FpctlSegments, SegmentShowCountsBackoffDropsApart) {
  ASSERT_EQ(run({"segment", "add", "lan", "r1", "r2", "rate", "10mbit"}).exit_code, 0);
  auto quiet = run({"segment", "show", "lan"});
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.out.find("backoff"), std::string::npos) << "none yet: " << quiet.out;
  ASSERT_TRUE(h_->onServer([&] {
    LinkDirectionStats s;
    s.tx_packets = 1000;
    s.delivered = 990;
    s.queue_drops = 4;
    s.backoff_drops = 6;
    return multi_->setSegmentStats("lan", s);
  }));
  auto show = run({"segment", "show", "lan"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("  medium, measured:   sent 1000, delivered 990, dropped 10 (1.00%; "
                          "queue 4, loss 0, capacity 0, down 0, backoff 6), "),
            std::string::npos)
      << show.out;
  auto json = run({"--json", "segment", "show", "lan"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find(R"("queue_drops":4,)"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find(R"("backoff_drops":6,)"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find(R"("drop_ratio":0.01})"), std::string::npos) << json.out;
}

// list and show of links, segments and bridges share one implementation: each kind's
// text and JSON, whole, and a name that is not there.
TEST_F(FpctlSegments, LinkAndSegmentListAndShowPrintExactly) {
  // fastpathd started 2026-11-28 21:06:40.123 UTC: `show` ends saying so.
  h_->onServer([&] {
    multi_->setStatsEpoch(StatsEpoch{1795900000123000000ull, 0, 0});
    return 0;
  });
  ASSERT_EQ(run({"link", "add", "r1-r2", "r1:to-r2", "r2", "rate", "10mbit", "delay", "5ms"})
                .exit_code,
            0);
  ASSERT_EQ(run({"segment", "add", "lan", "r1", "r2:eth9"}).exit_code, 0);
  EXPECT_EQ(run({"link", "list"}).out,
      "NAME             STATE A                                B                               "
      " EMULATION\n"
      "r1-r2            up    r1:to-r2 (port 1000)             r2:r1-r2 (port 1001)            "
      " rate 10mbit delay 5ms\n");
  EXPECT_EQ(run({"--json", "link", "list"}).out,
      "[{\"name\":\"r1-r2\",\"up\":true,\"a\":{\"node\":\"r1\",\"port\":\"to-r2\","
      "\"id\":1000,\"mac\":\"02:fe:00:00:00:01\",\"mtu\":1500,\"down\":false},"
      "\"b\":{\"node\":\"r2\",\"port\":\"r1-r2\",\"id\":1001,\"mac\":\"02:fe:00:00:00:02\","
      "\"mtu\":1500,\"down\":false},\"a_to_b\":{\"configured\":{\"rate_bps\":10000000,"
      "\"overhead_bytes\":0,\"mpu_bytes\":0,\"delay_ns\":5000000,\"jitter_ns\":0,"
      "\"distribution\":\"uniform\",\"reorder\":false,\"limit_packets\":100,"
      "\"limit_bytes\":0,\"loss\":0,\"gemodel\":null,\"duplicate\":0,"
      "\"corrupt\":0,\"seed\":0,\"text\":\"rate 10mbit delay 5ms limit 100\","
      "\"aqm\":\"none\"},\"measured\":{\"tx_packets\":0,\"tx_bytes\":0,"
      "\"enqueued\":0,\"delivered\":0,\"queue_drops\":0,\"loss_drops\":0,"
      "\"full_drops\":0,\"aqm_drops\":0,\"aqm_marks\":0,\"aqm_forced_drops\":0,"
      "\"aqm_forced_marks\":0,\"aqm_drop_bytes\":0,\"aqm_forced_drop_bytes\":0,"
      "\"backoff_drops\":0,\"fq_packets\":0,\"fq_bytes\":0,"
      "\"link_down_drops\":0,\"duplicated\":0,\"corrupted\":0,\"depth_packets\":0,"
      "\"depth_bytes\":0,\"in_flight\":0,\"sojourn_p50_ns\":0,\"sojourn_p99_ns\":0,"
      "\"sojourn_max_ns\":0,\"lateness_p50_ns\":0,\"lateness_p99_ns\":0,"
      "\"lateness_max_ns\":0,\"drop_ratio\":null}},\"b_to_a\":{\"configured\":{\"rate_bps\":100"
      "00000,\"overhead_bytes\":0,\"mpu_bytes\":0,\"delay_ns\":5000000,"
      "\"jitter_ns\":0,\"distribution\":\"uniform\",\"reorder\":false,"
      "\"limit_packets\":100,\"limit_bytes\":0,\"loss\":0,\"gemodel\":null,"
      "\"duplicate\":0,\"corrupt\":0,\"seed\":0,\"text\":\"rate 10mbit delay 5ms limit 100\","
      "\"aqm\":\"none\"},\"measured\":{\"tx_packets\":0,\"tx_bytes\":0,"
      "\"enqueued\":0,\"delivered\":0,\"queue_drops\":0,\"loss_drops\":0,"
      "\"full_drops\":0,\"aqm_drops\":0,\"aqm_marks\":0,\"aqm_forced_drops\":0,"
      "\"aqm_forced_marks\":0,\"aqm_drop_bytes\":0,\"aqm_forced_drop_bytes\":0,"
      "\"backoff_drops\":0,\"fq_packets\":0,\"fq_bytes\":0,"
      "\"link_down_drops\":0,\"duplicated\":0,\"corrupted\":0,\"depth_packets\":0,"
      "\"depth_bytes\":0,\"in_flight\":0,\"sojourn_p50_ns\":0,\"sojourn_p99_ns\":0,"
      "\"sojourn_max_ns\":0,\"lateness_p50_ns\":0,\"lateness_p99_ns\":0,"
      "\"lateness_max_ns\":0,\"drop_ratio\":null}}}]\n");
  EXPECT_EQ(run({"link", "show", "r1-r2"}).out,
      "link r1-r2 up\n"
      "  a: node r1 port to-r2 id 1000 02:fe:00:00:00:01 mtu 1500\n"
      "  b: node r2 port r1-r2 id 1001 02:fe:00:00:00:02 mtu 1500\n"
      "\n"
      "                    a-to-b (r1 -> r2)        b-to-a (r2 -> r1)\n"
      "  configured\n"
      "    rate            10mbit                   10mbit\n"
      "    delay           5ms                      5ms\n"
      "    jitter          -                        -\n"
      "    loss            -                        -\n"
      "    limit           100 packets              100 packets\n"
      "  measured\n"
      "    sent            0                        0\n"
      "    delivered       0                        0\n"
      "    queue drops     0                        0\n"
      "    loss drops      0                        0\n"
      "    drop ratio      -                        -\n"
      "    depth           0 packets, 0 B           0 packets, 0 B\n"
      "    in flight       0                        0\n"
      "    sojourn p50     -                        -\n"
      "    sojourn p99     -                        -\n"
      "    lateness p50    -                        -\n"
      "    lateness p99    -                        -\n"
      "    lateness max    -                        -\n"
      "  histograms and maxima since 2026-11-28 21:06:40.123 UTC (fastpathd started, never "
      "reset); counters since fastpathd started\n");
  EXPECT_EQ(run({"--json", "link", "show", "r1-r2"}).out,
      "{\"name\":\"r1-r2\",\"up\":true,\"a\":{\"node\":\"r1\",\"port\":\"to-r2\","
      "\"id\":1000,\"mac\":\"02:fe:00:00:00:01\",\"mtu\":1500,\"down\":false},"
      "\"b\":{\"node\":\"r2\",\"port\":\"r1-r2\",\"id\":1001,\"mac\":\"02:fe:00:00:00:02\","
      "\"mtu\":1500,\"down\":false},\"a_to_b\":{\"configured\":{\"rate_bps\":10000000,"
      "\"overhead_bytes\":0,\"mpu_bytes\":0,\"delay_ns\":5000000,\"jitter_ns\":0,"
      "\"distribution\":\"uniform\",\"reorder\":false,\"limit_packets\":100,"
      "\"limit_bytes\":0,\"loss\":0,\"gemodel\":null,\"duplicate\":0,"
      "\"corrupt\":0,\"seed\":0,\"text\":\"rate 10mbit delay 5ms limit 100\","
      "\"aqm\":\"none\"},\"measured\":{\"tx_packets\":0,\"tx_bytes\":0,"
      "\"enqueued\":0,\"delivered\":0,\"queue_drops\":0,\"loss_drops\":0,"
      "\"full_drops\":0,\"aqm_drops\":0,\"aqm_marks\":0,\"aqm_forced_drops\":0,"
      "\"aqm_forced_marks\":0,\"aqm_drop_bytes\":0,\"aqm_forced_drop_bytes\":0,"
      "\"backoff_drops\":0,\"fq_packets\":0,\"fq_bytes\":0,"
      "\"link_down_drops\":0,\"duplicated\":0,\"corrupted\":0,\"depth_packets\":0,"
      "\"depth_bytes\":0,\"in_flight\":0,\"sojourn_p50_ns\":0,\"sojourn_p99_ns\":0,"
      "\"sojourn_max_ns\":0,\"lateness_p50_ns\":0,\"lateness_p99_ns\":0,"
      "\"lateness_max_ns\":0,\"drop_ratio\":null}},\"b_to_a\":{\"configured\":{\"rate_bps\":100"
      "00000,\"overhead_bytes\":0,\"mpu_bytes\":0,\"delay_ns\":5000000,"
      "\"jitter_ns\":0,\"distribution\":\"uniform\",\"reorder\":false,"
      "\"limit_packets\":100,\"limit_bytes\":0,\"loss\":0,\"gemodel\":null,"
      "\"duplicate\":0,\"corrupt\":0,\"seed\":0,\"text\":\"rate 10mbit delay 5ms limit 100\","
      "\"aqm\":\"none\"},\"measured\":{\"tx_packets\":0,\"tx_bytes\":0,"
      "\"enqueued\":0,\"delivered\":0,\"queue_drops\":0,\"loss_drops\":0,"
      "\"full_drops\":0,\"aqm_drops\":0,\"aqm_marks\":0,\"aqm_forced_drops\":0,"
      "\"aqm_forced_marks\":0,\"aqm_drop_bytes\":0,\"aqm_forced_drop_bytes\":0,"
      "\"backoff_drops\":0,\"fq_packets\":0,\"fq_bytes\":0,"
      "\"link_down_drops\":0,\"duplicated\":0,\"corrupted\":0,\"depth_packets\":0,"
      "\"depth_bytes\":0,\"in_flight\":0,\"sojourn_p50_ns\":0,\"sojourn_p99_ns\":0,"
      "\"sojourn_max_ns\":0,\"lateness_p50_ns\":0,\"lateness_p99_ns\":0,"
      "\"lateness_max_ns\":0,\"drop_ratio\":null}},\"emulation_lateness\":[],"
      "\"histograms\":{\"since_unix_ns\":1795900000123000000,\"resets\":0}}\n");
  EXPECT_EQ(run({"segment", "list"}).out,
      "NAME             STATE PORTS                                            EMULATION\n"
      "lan              up    r1:lan r2:eth9                                   -\n");
  EXPECT_EQ(run({"--json", "segment", "list"}).out,
      "[{\"name\":\"lan\",\"up\":true,\"ports\":[{\"node\":\"r1\",\"port\":\"lan\","
      "\"id\":0,\"mac\":\"00:00:00:00:00:00\",\"mtu\":1500,\"up\":true,"
      "\"tx_packets\":0,\"tx_bytes\":0,\"rx_packets\":0,\"rx_bytes\":0,"
      "\"unknown_dst_drops\":0,\"no_frame_drops\":0,\"queue_full_drops\":0,"
      "\"down_drops\":0},{\"node\":\"r2\",\"port\":\"eth9\",\"id\":0,"
      "\"mac\":\"00:00:00:00:00:00\",\"mtu\":1500,\"up\":true,\"tx_packets\":0,"
      "\"tx_bytes\":0,\"rx_packets\":0,\"rx_bytes\":0,\"unknown_dst_drops\":0,"
      "\"no_frame_drops\":0,\"queue_full_drops\":0,\"down_drops\":0}],"
      "\"configured\":{\"rate_bps\":0,\"overhead_bytes\":0,\"mpu_bytes\":0,"
      "\"delay_ns\":0,\"jitter_ns\":0,\"distribution\":\"uniform\",\"reorder\":false,"
      "\"limit_packets\":100,\"limit_bytes\":0,\"loss\":0,\"gemodel\":null,"
      "\"duplicate\":0,\"corrupt\":0,\"seed\":0,\"text\":\"rate unlimited delay 0ms limit 100\""
      ",\"aqm\":\"none\"},\"measured\":{\"tx_packets\":0,\"tx_bytes\":0,"
      "\"enqueued\":0,\"delivered\":0,\"queue_drops\":0,\"loss_drops\":0,"
      "\"full_drops\":0,\"aqm_drops\":0,\"aqm_marks\":0,\"aqm_forced_drops\":0,"
      "\"aqm_forced_marks\":0,\"aqm_drop_bytes\":0,\"aqm_forced_drop_bytes\":0,"
      "\"backoff_drops\":0,\"fq_packets\":0,\"fq_bytes\":0,"
      "\"link_down_drops\":0,\"duplicated\":0,\"corrupted\":0,\"depth_packets\":0,"
      "\"depth_bytes\":0,\"in_flight\":0,\"sojourn_p50_ns\":0,\"sojourn_p99_ns\":0,"
      "\"sojourn_max_ns\":0,\"lateness_p50_ns\":0,\"lateness_p99_ns\":0,"
      "\"lateness_max_ns\":0,\"drop_ratio\":null}}]\n");
  EXPECT_EQ(run({"segment", "show", "lan"}).out,
      "segment lan: up, 2 port(s)\n"
      "  NODE                 PORT         ID     MAC               MTU   STATE         TX     "
      "    RX  UNKNOWN  NOFRAME    QFULL     DOWN\n"
      "  r1                   lan          0      00:00:00:00:00:00 1500  up             0     "
      "     0        0        0        0        0\n"
      "  r2                   eth9         0      00:00:00:00:00:00 1500  up             0     "
      "     0        0        0        0        0\n"
      "  medium, configured: -\n"
      "  medium, measured:   sent 0, delivered 0, dropped 0 (-; queue 0,"
      " loss 0, capacity 0, down 0), queued 0, in flight 0, time in queue p50 - p99 -\n"
      "  histograms and maxima since 2026-11-28 21:06:40.123 UTC (fastpathd started, never "
      "reset); counters since fastpathd started\n");
  EXPECT_EQ(run({"--json", "segment", "show", "lan"}).out,
      "{\"name\":\"lan\",\"up\":true,\"ports\":[{\"node\":\"r1\",\"port\":\"lan\","
      "\"id\":0,\"mac\":\"00:00:00:00:00:00\",\"mtu\":1500,\"up\":true,"
      "\"tx_packets\":0,\"tx_bytes\":0,\"rx_packets\":0,\"rx_bytes\":0,"
      "\"unknown_dst_drops\":0,\"no_frame_drops\":0,\"queue_full_drops\":0,"
      "\"down_drops\":0},{\"node\":\"r2\",\"port\":\"eth9\",\"id\":0,"
      "\"mac\":\"00:00:00:00:00:00\",\"mtu\":1500,\"up\":true,\"tx_packets\":0,"
      "\"tx_bytes\":0,\"rx_packets\":0,\"rx_bytes\":0,\"unknown_dst_drops\":0,"
      "\"no_frame_drops\":0,\"queue_full_drops\":0,\"down_drops\":0}],"
      "\"configured\":{\"rate_bps\":0,\"overhead_bytes\":0,\"mpu_bytes\":0,"
      "\"delay_ns\":0,\"jitter_ns\":0,\"distribution\":\"uniform\",\"reorder\":false,"
      "\"limit_packets\":100,\"limit_bytes\":0,\"loss\":0,\"gemodel\":null,"
      "\"duplicate\":0,\"corrupt\":0,\"seed\":0,\"text\":\"rate unlimited delay 0ms limit 100\""
      ",\"aqm\":\"none\"},\"measured\":{\"tx_packets\":0,\"tx_bytes\":0,"
      "\"enqueued\":0,\"delivered\":0,\"queue_drops\":0,\"loss_drops\":0,"
      "\"full_drops\":0,\"aqm_drops\":0,\"aqm_marks\":0,\"aqm_forced_drops\":0,"
      "\"aqm_forced_marks\":0,\"aqm_drop_bytes\":0,\"aqm_forced_drop_bytes\":0,"
      "\"backoff_drops\":0,\"fq_packets\":0,\"fq_bytes\":0,"
      "\"link_down_drops\":0,\"duplicated\":0,\"corrupted\":0,\"depth_packets\":0,"
      "\"depth_bytes\":0,\"in_flight\":0,\"sojourn_p50_ns\":0,\"sojourn_p99_ns\":0,"
      "\"sojourn_max_ns\":0,\"lateness_p50_ns\":0,\"lateness_p99_ns\":0,"
      "\"lateness_max_ns\":0,\"drop_ratio\":null},"
      "\"histograms\":{\"since_unix_ns\":1795900000123000000,\"resets\":0}}\n");
  for (const char* kind : {"link", "segment"}) {
    auto none = run({kind, "show", "nope"});
    EXPECT_EQ(none.exit_code, 1);
    EXPECT_EQ(none.out, "");
    EXPECT_EQ(none.err, std::string("fpctl: no ") + kind + " 'nope' (`fpctl " + kind +
                             " list` lists them)\n");
  }
}

TEST_F(FpctlBridges, ListAndShowPrintExactly) {
  BridgeInfo b;
  b.name = "sw1";
  b.node = "r1";
  b.ageing_ns = 20'000'000'000;
  b.ports = {{"lan1", "seg1", 1000, macOf("02:00:00:00:01:01"), 7, 5},
             {"lan2", "seg2", 1001, macOf("02:00:00:00:01:02"), 3, 9}};
  b.learned = {{macOf("02:00:00:00:0a:01"), 0, 19'500'000'000},
               {macOf("02:00:00:00:0a:02"), 1, 1'250'000'000}};
  b.received = 10;
  b.forwarded = 6;
  b.flooded = 2;
  b.local = 1;
  b.no_frame = 0;
  b.loop_drops = 0;
  b.learn_full = 1;
  BridgeInfo empty;
  empty.name = "sw2";
  empty.node = "r2";
  h_->onServer([&] {
    multi_->list = {b, empty};
    return true;
  });
  EXPECT_EQ(run({"bridge", "list"}).out,
      "NAME             NODE             PORTS                                             LEAR"
      "NED      HEARD\n"
      "sw1              r1               lan1@seg1 lan2@seg2                                   "
      "  2         10\n"
      "sw2              r2                                                                     "
      "  0          0\n");
  EXPECT_EQ(run({"--json", "bridge", "list"}).out,
      "[{\"name\":\"sw1\",\"node\":\"r1\",\"ageing_ns\":20000000000,\"ports\":[{\"port\":\"lan1"
      "\",\"segment\":\"seg1\",\"id\":1000,\"mac\":\"02:00:00:00:01:01\","
      "\"rx_packets\":7,\"tx_packets\":5},{\"port\":\"lan2\",\"segment\":\"seg2\","
      "\"id\":1001,\"mac\":\"02:00:00:00:01:02\",\"rx_packets\":3,\"tx_packets\":9}],"
      "\"learned\":[{\"mac\":\"02:00:00:00:0a:01\",\"port\":\"lan1\","
      "\"expires_in_ns\":19500000000},{\"mac\":\"02:00:00:00:0a:02\","
      "\"port\":\"lan2\",\"expires_in_ns\":1250000000}],\"received\":10,"
      "\"forwarded\":6,\"flooded\":2,\"local_drops\":1,\"no_frame_drops\":0,"
      "\"loop_drops\":0,\"learn_full\":1},{\"name\":\"sw2\",\"node\":\"r2\","
      "\"ageing_ns\":300000000000,\"ports\":[],\"learned\":[],\"received\":0,"
      "\"forwarded\":0,\"flooded\":0,\"local_drops\":0,\"no_frame_drops\":0,"
      "\"loop_drops\":0,\"learn_full\":0}]\n");
  EXPECT_EQ(run({"bridge", "show", "sw1"}).out,
      "bridge sw1 on node r1: 2 port(s), ageing 20 s\n"
      "  PORT         SEGMENT              ID     MAC                    HEARD       SENT\n"
      "  lan1         seg1                 1000   02:00:00:00:01:01          7          5\n"
      "  lan2         seg2                 1001   02:00:00:00:01:02          3          9\n"
      "  heard 10, forwarded 6, flooded 2; dropped: own MAC 1, no frame 0,"
      " loop 0; not learned (table full) 1\n"
      "  learned: 2\n"
      "  MAC               PORT         EXPIRES IN\n"
      "  02:00:00:00:0a:01 lan1         19.5 s\n"
      "  02:00:00:00:0a:02 lan2         1.2 s\n");
  EXPECT_EQ(run({"--json", "bridge", "show", "sw1"}).out,
      "{\"name\":\"sw1\",\"node\":\"r1\",\"ageing_ns\":20000000000,\"ports\":[{\"port\":\"lan1\""
      ",\"segment\":\"seg1\",\"id\":1000,\"mac\":\"02:00:00:00:01:01\","
      "\"rx_packets\":7,\"tx_packets\":5},{\"port\":\"lan2\",\"segment\":\"seg2\","
      "\"id\":1001,\"mac\":\"02:00:00:00:01:02\",\"rx_packets\":3,\"tx_packets\":9}],"
      "\"learned\":[{\"mac\":\"02:00:00:00:0a:01\",\"port\":\"lan1\","
      "\"expires_in_ns\":19500000000},{\"mac\":\"02:00:00:00:0a:02\","
      "\"port\":\"lan2\",\"expires_in_ns\":1250000000}],\"received\":10,"
      "\"forwarded\":6,\"flooded\":2,\"local_drops\":1,\"no_frame_drops\":0,"
      "\"loop_drops\":0,\"learn_full\":1}\n");
  EXPECT_EQ(run({"bridge", "show", "sw2"}).out,
      "bridge sw2 on node r2: 0 port(s), ageing 300 s\n"
      "  PORT         SEGMENT              ID     MAC                    HEARD       SENT\n"
      "  heard 0, forwarded 0, flooded 0; dropped: own MAC 0, no frame 0,"
      " loop 0; not learned (table full) 0\n"
      "  learned: 0\n");
  auto none = run({"bridge", "show", "nope"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_EQ(none.out, "");
  EXPECT_EQ(none.err, "fpctl: no bridge 'nope' (`fpctl bridge list` lists them)\n") << none.err;
}

// A medium's per-member counters, ACKs sent and owed-but-unsent included, print exactly.
TEST_F(FpctlSegments, MediumShowPrintsAcksSentAndUnsent) {
  MediumInfo m;
  m.name = "air";
  m.elapsed_ns = 2000000000;
  MediumInfo::Port p;
  p.node = "r1";
  p.port = "air";
  p.id = 256;
  p.tx_packets = 9;
  p.rx_packets = 6;
  p.retries = 6;
  p.retry_drops = 2;
  p.tx_airtime_ns = 21000000;
  p.busy_ns = 2000000;
  p.acks_sent = 5;
  p.acks_unsent = 1;
  m.ports.push_back(p);
  m.pairs.push_back(MediumInfo::Pair{"r1", "r2", -60, 33.6, 1.0, 6, 6, 0, 0});
  h_->onServer([&] {
    multi_->addMedium(m);
    return true;
  });
  EXPECT_EQ(run({"medium", "show", "air"}).out,
      "medium air: up, 1 member(s), 1 pair(s), data 11.0 Mbit/s, basic 1.0 Mbit/s, rate control "
      "constant, 0 update(s)\n"
      "  NODE             PORT         ID             TX         RX   AIRTIME   BUSY  RETRIES  "
      "GAVE-UP COLLIDED   LATE       ACKS ACK-UNSENT\n"
      "  r1               air          256             9          6    0.021s   0.1%        6  "
      "      2        0      0          5          1\n"
      "  FROM             TO                 RX dBm  SNR dB  EXPECTED     TRIES  MEASURED    "
      "ERRORS  COLLIDED\n"
      "  r1               r2                  -60.0    33.6     1.000         6     1.000     "
      "    0         0\n");
  const std::string json = run({"--json", "medium", "show", "air"}).out;
  EXPECT_NE(json.find("\"expired_drops\":0,\"acks_lost\":0,\"duplicates\":0,\"acks_sent\":5,"
                      "\"acks_unsent\":1}"),
            std::string::npos)
      << json;
}

}  // namespace
}  // namespace fastpath::ctrl
