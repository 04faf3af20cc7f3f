// SPDX-License-Identifier: GPL-2.0-only
// fpctl against a server with nodes: links, their emulation parameters and queue
// disciplines, segments.
#include <gtest/gtest.h>

#include "fpctl_runner.h"

namespace fastpath::ctrl {
namespace {

using testing::FpctlNodes;
using testing::FpctlSegments;

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
                           "    worker 0        p50 3.07us  p99 21us  max 1ms  late frames 2\n"})
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
        R"("late_frames":2}]})"})
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

}  // namespace
}  // namespace fastpath::ctrl
