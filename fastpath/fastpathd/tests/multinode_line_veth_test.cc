// SPDX-License-Identifier: GPL-2.0-only
// Many nodes in one fastpathd: S -- [n1 = n2 = ... = n8] -- D, the eight nodes in one
// daemon inside namespace R (n1's interface fp0 faces S, n8's fp1 faces D), joined by
// internal links (=), with the static routes and neighbours of a topology file. A side
// node x joins n4 and n5 for the route change. Frames are sent from S and captured at D;
// every traffic loop is bounded in count and time.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "daemon/daemon.h"
#include "daemon/topology.h"
#include "forwarding_veth_fixture.h"
#include "netns.h"

namespace fastpath {
namespace {

using namespace vethtest;

constexpr int kNodes = 8;

// Link i joins n<i> and n<i+1> over 198.18.(100+i).0/30: n<i> is .1, n<i+1> is .2.
std::string linkMac(int link, int end) {
  char b[32];
  snprintf(b, sizeof b, "02:00:00:00:%02x:%02x", link, end);
  return b;
}
std::string linkIp(int link, int end) {
  return "198.18." + std::to_string(100 + link) + "." + std::to_string(end);
}

class MultiNodeLine : public SrdFixture {
 protected:
  void SetUp() override {
    makeTopology("mnl");
    if (IsSkipped()) return;
    topo_path_ = "/tmp/fp-mnl-" + std::to_string(getpid()) + ".yaml";
    std::ofstream(topo_path_) << topologyText();
    auto t = parseTopologyFile(topo_path_);
    ASSERT_TRUE(t.ok()) << t.error().message;
    Config c;
    c.topology_file = topo_path_;
    c.topology = *t;
    c.control_socket = "/tmp/fp-mnl-" + std::to_string(getpid()) + ".sock";
    c.ring_size = 2048;
    c.cores = {1};
    startDaemon(std::move(c));
  }
  void TearDown() override {
    SrdFixture::TearDown();
    unlink(topo_path_.c_str());
  }

  // Towards D (198.18.9.0/24) hop by hop; towards n3's network 198.18.33.0/24 only n1
  // and n2 have a route (n3 has none: it must punt, and no frame may reach n4..n8).
  std::string topologyText() {
    std::string t = "nodes:\n";
    for (int i = 1; i <= kNodes; ++i) {
      t += "  - name: n" + std::to_string(i) + "\n";
      if (i == 1) t += "    interfaces: [fp0]\n";
      if (i == kNodes) t += "    interfaces: [fp1]\n";
      t += "    routes:\n";
      if (i < kNodes) {
        t += "      - {prefix: 198.18.9.0/24, via: " + linkIp(i, 2) + ", dev: l" +
             std::to_string(i) + "}\n";
        if (i < 3)
          t += "      - {prefix: 198.18.33.0/24, via: " + linkIp(i, 2) + ", dev: l" +
               std::to_string(i) + "}\n";
        t += "    neighbours:\n      - {ip: " + linkIp(i, 2) + ", mac: \"" + linkMac(i, 2) +
             "\", dev: l" + std::to_string(i) + "}\n";
      } else {
        t += "      - {prefix: 198.18.9.0/24, dev: fp1}\n";
        t += "    neighbours:\n      - {ip: 198.18.9.2, mac: \"" + d_mac_.toString() +
             "\", dev: fp1}\n";
      }
    }
    // x: the detour between n4 and n5.
    t += "  - name: x\n    routes:\n      - {prefix: 198.18.9.0/24, via: 198.18.120.2, dev: "
         "x-n5}\n    neighbours:\n      - {ip: 198.18.120.2, mac: \"02:00:00:00:20:02\", dev: "
         "x-n5}\n";
    t += "links:\n";
    for (int i = 1; i < kNodes; ++i)
      t += "  - name: l" + std::to_string(i) + "\n    a: {node: n" + std::to_string(i) +
           ", mac: \"" + linkMac(i, 1) + "\"}\n    b: {node: n" + std::to_string(i + 1) +
           ", mac: \"" + linkMac(i, 2) + "\"}\n";
    t += "  - name: n4-x\n    a: {node: n4, port: n4-x, mac: \"02:00:00:00:10:01\"}\n"
         "    b: {node: x, port: x-n4, mac: \"02:00:00:00:10:02\"}\n";
    t += "  - name: x-n5\n    a: {node: x, port: x-n5, mac: \"02:00:00:00:20:01\"}\n"
         "    b: {node: n5, port: n5-x, mac: \"02:00:00:00:20:02\"}\n";
    return t;
  }

  NodeControl& node(const std::string& name) {
    auto n = daemon_->node(name);
    EXPECT_TRUE(n.ok());
    return **n;
  }
  uint64_t portCounter(const std::string& n, const std::string& port, const std::string& k) {
    return counter(node(n).stats(), "port " + port, k);
  }
  std::vector<std::vector<uint8_t>> frames(const std::string& dst, int count = 16) {
    std::vector<std::vector<uint8_t>> out;
    for (int i = 0; i < count; ++i)
      out.push_back(buildFrame(r0_mac_, s_mac_, false, "198.18.0." + std::to_string(10 + i), dst,
                               64, uint32_t(i)));
    return out;
  }
  FrameAccounting ledger() { return daemon_->workers()[0]->accounting(); }

  std::string topo_path_;
};

TEST_F(MultiNodeLine, TrafficCrossesEightNodesWithTtlDecrementedEightTimes) {
  Capture cap(d_, "d0");
  ASSERT_TRUE(cap.ok());
  auto sent = sendFrames(s_, "s0", frames("198.18.9.2"), 1000, 20000, 5000);
  ASSERT_EQ(sent.sent, 1000u);
  ASSERT_TRUE(cap.waitFor(1000, 5000)) << cap.count();
  for (const auto& f : cap.frames()) {
    ASSERT_GE(f.size(), 34u);
    EXPECT_EQ(f[14 + 8], 64 - kNodes) << "TTL";
    EXPECT_EQ(0, std::memcmp(f.data(), d_mac_.bytes.data(), 6));
    EXPECT_EQ(0, std::memcmp(f.data() + 6, r1_mac_.bytes.data(), 6));
  }
  for (int i = 1; i < kNodes; ++i) {
    const std::string l = "l" + std::to_string(i);
    EXPECT_EQ(portCounter("n" + std::to_string(i), l, "tx_packets"), 1000u) << l;
    EXPECT_EQ(portCounter("n" + std::to_string(i + 1), l, "rx_packets"), 1000u) << l;
  }
}

TEST_F(MultiNodeLine, LinkCountersAreExactAndTheLedgerHoldsAfterAMillionFrames) {
  // D's interface counts what arrives (a capture socket can fall behind on a busy machine).
  auto rxAtD = [&] {
    return std::stoull(topo_->execOutput(d_, "cat /sys/class/net/d0/statistics/rx_packets"));
  };
  const uint64_t d0 = rxAtD();
  constexpr uint64_t kFrames = 1000000;
  auto sent = sendFrames(s_, "s0", frames("198.18.9.2", 64), kFrames, 250000, 20000);
  ASSERT_EQ(sent.sent, kFrames);
  // What entered n1 is what left n8 (less counted drops, which must be none here).
  const uint64_t in = [&] {
    uint64_t last = ~0ull, now = 0;
    for (int k = 0; k < 200 && now != last; ++k) {
      last = now;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      now = portCounter("n1", "fp0", "rx_packets");
    }
    return now;
  }();
  // Frames the machine could not take in at S or at n1 (a busy machine) are not the
  // subject here: what entered n1 must come out exactly.
  EXPECT_GT(in, kFrames / 4);
  // Our frames are the ones n1 forwards (the kernel's own IPv6 link-up frames are control).
  const uint64_t forwarded = portCounter("n1", "fp0", "forward");
  EXPECT_GE(forwarded + 16, in);
  uint64_t expect = forwarded;
  for (int i = 1; i < kNodes; ++i) {
    const std::string l = "l" + std::to_string(i);
    const std::string a = "n" + std::to_string(i), b = "n" + std::to_string(i + 1);
    EXPECT_EQ(portCounter(a, l, "tx_packets"), expect) << l;
    EXPECT_EQ(portCounter(b, l, "rx_packets"), expect) << l;
    EXPECT_EQ(portCounter(a, l, "drop_link_queue_full"), 0u) << l;
    expect = portCounter(b, l, "rx_packets");
  }
  EXPECT_EQ(portCounter("n8", "fp1", "tx_packets"), forwarded);
  uint64_t at_d = 0;
  for (int k = 0; k < 100 && at_d < forwarded; ++k) {
    at_d = rxAtD() - d0;
    if (at_d < forwarded) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_GE(at_d, forwarded) << "D received what n8 sent";
  EXPECT_LE(at_d, forwarded + 64) << "and little else (the kernel's own frames)";
  FrameAccounting a = ledger();
  EXPECT_TRUE(a.balanced()) << "free " << a.free << " rx " << a.lent_rx << " tx " << a.lent_tx
                            << " held " << a.held << " links " << a.in_link << " total "
                            << a.total;
  EXPECT_EQ(a.in_link, 0u);
  EXPECT_EQ(a.held, 0u);
}

TEST_F(MultiNodeLine, ARouteChangeOnNode4MovesTheTraffic) {
  Capture cap(d_, "d0");
  ASSERT_TRUE(cap.ok());
  RouteBatch b;
  b.add.push_back(Route{IpPrefix::parse("198.18.9.0/24").value(), IpAddress(),
                        node("n4").portByName("n4-x").value(), 0});
  b.add.back().next_hop = IpAddress::parse("198.18.110.2").value();
  ASSERT_TRUE(node("n4").addNeighbour(Neighbour{IpAddress::parse("198.18.110.2").value(),
                                                 node("n4").portByName("n4-x").value(),
                                                 mac("02:00:00:00:10:02")})
                  .ok());
  auto st = node("n4").applyRoutes(b);
  ASSERT_TRUE(st.ok()) << st.error().message;
  ASSERT_EQ(sendFrames(s_, "s0", frames("198.18.9.2"), 500, 20000, 5000).sent, 500u);
  ASSERT_TRUE(cap.waitFor(500, 5000)) << cap.count();
  for (const auto& f : cap.frames()) EXPECT_EQ(f[14 + 8], 64 - kNodes - 1) << "one hop more";
  EXPECT_EQ(portCounter("x", "x-n4", "rx_packets"), 500u);
  EXPECT_EQ(portCounter("n5", "n5-x", "rx_packets"), 500u);
  EXPECT_EQ(portCounter("n4", "l4", "tx_packets"), 0u);
}

TEST_F(MultiNodeLine, FramesForNode3sNetworkNeverLeakIntoNodesWithoutARoute) {
  ASSERT_EQ(sendFrames(s_, "s0", frames("198.18.33.7"), 300, 20000, 5000).sent, 300u);
  uint64_t at_n3 = 0;
  for (int k = 0; k < 100 && at_n3 < 300; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    at_n3 = portCounter("n3", "l2", "rx_packets");
  }
  EXPECT_EQ(at_n3, 300u);
  // n3 has no route: a punt (no control client: counted), never forwarded.
  EXPECT_EQ(portCounter("n3", "l2", "punt_no_route"), 300u);
  EXPECT_EQ(portCounter("n3", "l2", "drop_no_control_client"), 300u);
  for (int i = 3; i < kNodes; ++i)
    EXPECT_EQ(portCounter("n" + std::to_string(i + 1), "l" + std::to_string(i), "rx_packets"), 0u);
  EXPECT_EQ(portCounter("n8", "fp1", "tx_packets"), 0u);
  // The tables are the nodes' own: n1's route for it is nowhere else.
  for (int i = 3; i <= kNodes; ++i)
    for (const auto& r : node("n" + std::to_string(i)).routes())
      EXPECT_NE(r.prefix.toString(), "198.18.33.0/24") << "n" << i;
  // A node refuses another node's port.
  RouteBatch b;
  b.add.push_back(Route{IpPrefix::parse("198.18.44.0/24").value(), IpAddress(),
                        node("n1").portByName("l1").value(), 0});
  EXPECT_FALSE(node("n5").applyRoutes(b).ok());
}

TEST_F(MultiNodeLine, ALinkSetDownDropsAndCountsAndComesBack) {
  std::vector<FastPathEvent> events;
  daemon_->setEventSink([&](const FastPathEvent& e) { events.push_back(e); });
  ASSERT_TRUE(daemon_->setLinkState("l5", false).ok());
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, FastPathEvent::Kind::kPortDown);
  EXPECT_EQ(events[0].node, "n5");
  EXPECT_EQ(events[1].node, "n6");
  ASSERT_EQ(sendFrames(s_, "s0", frames("198.18.9.2"), 200, 20000, 5000).sent, 200u);
  uint64_t dropped = 0;
  for (int k = 0; k < 100 && dropped < 200; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    dropped = portCounter("n5", "l5", "drop_link_down");
  }
  EXPECT_EQ(dropped, 200u);
  EXPECT_EQ(portCounter("n6", "l5", "rx_packets"), 0u);
  ASSERT_TRUE(daemon_->setLinkState("l5", true).ok());
  Capture cap(d_, "d0");
  ASSERT_EQ(sendFrames(s_, "s0", frames("198.18.9.2"), 200, 20000, 5000).sent, 200u);
  EXPECT_TRUE(cap.waitFor(200, 5000)) << cap.count();
}

TEST_F(MultiNodeLine, LinksAndNodesComeAndGoAtRunTime) {
  ASSERT_TRUE(daemon_->createNode(NodeSpec{"y", "local"}).ok());
  LinkSpec l;
  l.name = "n8-y";
  l.a.node = "n8";
  l.b.node = "y";
  ASSERT_TRUE(daemon_->createLink(l).ok());
  EXPECT_FALSE(daemon_->createLink(l).ok()) << "a second link of that name";
  l.name = "y-y";
  l.a.node = "y";
  EXPECT_FALSE(daemon_->createLink(l).ok()) << "a link from a node to itself";
  ASSERT_TRUE(node("y").portByName("n8-y").ok());
  ASSERT_TRUE(daemon_->deleteNode("y").ok());
  EXPECT_FALSE(node("n8").portByName("n8-y").ok()) << "the link went with the node";
  EXPECT_FALSE(daemon_->deleteNode("n1").ok()) << "n1 has an interface port";
  // Traffic still flows, and the ledger holds.
  Capture cap(d_, "d0");
  ASSERT_EQ(sendFrames(s_, "s0", frames("198.18.9.2"), 100, 20000, 5000).sent, 100u);
  EXPECT_TRUE(cap.waitFor(100, 5000)) << cap.count();
  EXPECT_TRUE(ledger().balanced());
}

}  // namespace
}  // namespace fastpath
