// SPDX-License-Identifier: GPL-2.0-only
// A segment (shared medium, ns-3's CsmaChannel) through a real fastpathd: four nodes on
// segment "lan" inside R — n1 (fp0, from S's s0), n3 (fp2, from S's s1), n2 (fp1, to D) and
// n4 (no interface). Frames from S cross the segment to n2 and leave to D; frames written
// into the nodes' control channels test the MAC delivery (unicast to one port, broadcast
// to every other). Deterministic checks (who receives what, counters, the frame ledger),
// plus one on the shared rate with a bound that only a loaded machine can loosen. Every
// traffic loop is bounded in count and time.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "daemon/daemon.h"
#include "forwarding_veth_fixture.h"
#include "netns.h"

namespace fastpath {
namespace {

using namespace vethtest;

// The segment's ports: n<i> has 198.18.100.<i> and MAC 02:00:00:00:64:0<i>.
MacAddress segMac(int i) { return mac("02:00:00:00:64:0" + std::to_string(i)); }

class SegmentVeth : public SrdFixture {
 protected:
  void SetUp() override {
    makeTopology("seg");
    if (IsSkipped()) return;
    topo_->addVeth(s_, "s1", r_, "fp2");
    s1_mac_ = mac(topo_->mac(s_, "s1"));
    r2_mac_ = mac(topo_->mac(r_, "fp2"));
    Config c;
    c.topology.nodes.resize(3);
    c.topology.nodes[0].spec.name = "n1";
    c.topology.nodes[0].interfaces = {"fp0"};
    c.topology.nodes[1].spec.name = "n2";
    c.topology.nodes[1].interfaces = {"fp1"};
    c.topology.nodes[2].spec.name = "n3";
    c.topology.nodes[2].interfaces = {"fp2"};
    c.control_socket = "/tmp/fp-seg-" + std::to_string(getpid()) + ".sock";
    c.ring_size = 2048;
    c.cores = {1};
    startDaemon(std::move(c));
    if (HasFatalFailure()) return;
    ASSERT_TRUE(daemon_->createNode(NodeSpec{"n4", "local"}).ok());
    SegmentSpec s;
    s.name = "lan";
    for (int i = 1; i <= 4; ++i)
      s.ports.push_back(SegmentPortSpec{"n" + std::to_string(i), "lan", segMac(i), 1500});
    auto st = daemon_->createSegment(s);
    ASSERT_TRUE(st.ok()) << st.error().message;
    // n1 and n3 reach D's network through n2 on the segment; n2 through fp1.
    for (const char* n : {"n1", "n3"}) {
      const PortId lan = node(n).portByName("lan").value();
      const IpAddress via = IpAddress::parse("198.18.100.2").value();
      ASSERT_TRUE(node(n).addNeighbour(Neighbour{via, lan, segMac(2)}).ok());
      RouteBatch b;
      b.add.push_back(Route{IpPrefix::parse("198.18.9.0/24").value(), via, lan, 0});
      auto r = node(n).applyRoutes(b);
      ASSERT_TRUE(r.ok()) << r.error().message;
    }
    const PortId fp1 = node("n2").portByName("fp1").value();
    ASSERT_TRUE(
        node("n2").addNeighbour(Neighbour{IpAddress::parse("198.18.9.2").value(), fp1, d_mac_}).ok());
    RouteBatch b;
    b.add.push_back(Route{IpPrefix::parse("198.18.9.0/24").value(), IpAddress(), fp1, 0});
    ASSERT_TRUE(node("n2").applyRoutes(b).ok());
  }
  void TearDown() override {
    for (int fd : fds_) close(fd);
    SrdFixture::TearDown();
  }

  NodeControl& node(const std::string& name) {
    auto n = daemon_->node(name);
    EXPECT_TRUE(n.ok());
    return **n;
  }
  SegmentInfo segment() {
    for (const auto& s : daemon_->segments())
      if (s.name == "lan") return s;
    ADD_FAILURE() << "no segment lan";
    return {};
  }
  SegmentInfo::Port port(int i) { return segment().ports.at(size_t(i - 1)); }
  FrameAccounting ledger() { return daemon_->workers()[0]->accounting(); }
  /// The client end of n<i>'s segment port's control channel (opened once).
  int channel(int i) {
    if (ch_[i] >= 0) return ch_[i];
    auto& n = node("n" + std::to_string(i));
    auto fd = n.controlChannelFd(n.portByName("lan").value());
    EXPECT_TRUE(fd.ok());
    ch_[i] = fd.ok() ? *fd : -1;
    fds_.push_back(ch_[i]);
    return ch_[i];
  }
  /// Frames read from a channel within `ms` (stops early at `want`).
  static std::vector<std::vector<uint8_t>> readFrames(int fd, size_t want, int ms) {
    std::vector<std::vector<uint8_t>> out;
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    uint8_t buf[2048];
    while (out.size() < want && std::chrono::steady_clock::now() < end) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 10) <= 0) continue;
      ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
      if (n > 0) out.emplace_back(buf, buf + n);
    }
    return out;
  }
  /// An ARP frame (request to broadcast, or reply to a MAC) from n<from>'s segment port.
  static std::vector<uint8_t> arp(int from, const MacAddress& dst, uint8_t tag) {
    std::vector<uint8_t> f(60, 0);
    std::memcpy(&f[0], dst.bytes.data(), 6);
    std::memcpy(&f[6], segMac(from).bytes.data(), 6);
    f[12] = 0x08, f[13] = 0x06;  // ARP
    const uint8_t hdr[] = {0, 1, 8, 0, 6, 4, 0, uint8_t(dst.bytes[0] & 1 ? 1 : 2)};
    std::memcpy(&f[14], hdr, sizeof hdr);
    std::memcpy(&f[22], segMac(from).bytes.data(), 6);
    const uint8_t spa[] = {198, 18, 100, uint8_t(from)};
    std::memcpy(&f[28], spa, 4);
    const uint8_t tpa[] = {198, 18, 100, tag};
    std::memcpy(&f[38], tpa, 4);
    return f;
  }
  std::vector<std::vector<uint8_t>> frames(const MacAddress& dst, const MacAddress& src) {
    std::vector<std::vector<uint8_t>> out;
    for (uint32_t i = 0; i < 16; ++i)
      out.push_back(buildFrame(dst, src, false, "198.18.0." + std::to_string(10 + i),
                               "198.18.9.2", 64, i));
    return out;
  }
  template <typename F>
  static bool waitUntil(F done, int ms) {
    for (int k = 0; k < ms / 10; ++k) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return done();
  }

  MacAddress s1_mac_, r2_mac_;
  int ch_[5] = {-1, -1, -1, -1, -1};
  std::vector<int> fds_;
};

TEST_F(SegmentVeth, UnicastReachesOnlyTheDestinationsNode) {
  Capture cap(d_, "d0");
  ASSERT_TRUE(cap.ok());
  ASSERT_EQ(sendFrames(s_, "s0", frames(r0_mac_, s_mac_), 500, 20000, 5000).sent, 500u);
  ASSERT_TRUE(cap.waitFor(500, 5000)) << cap.count();
  EXPECT_TRUE(waitUntil([&] { return port(2).rx_packets >= 500; }, 2000));
  EXPECT_EQ(port(1).tx_packets, 500u);
  EXPECT_EQ(port(2).rx_packets, 500u);
  EXPECT_EQ(port(3).rx_packets, 0u) << "a unicast frame reaches only its destination's port";
  EXPECT_EQ(port(4).rx_packets, 0u);
  EXPECT_EQ(port(1).rx_packets, 0u);
  for (const auto& f : cap.frames()) {
    EXPECT_EQ(f[14 + 8], 62) << "two hops: n1 and n2";
    EXPECT_EQ(0, std::memcmp(&f[6], r1_mac_.bytes.data(), 6));
  }
  const FrameAccounting a = ledger();
  EXPECT_EQ(a.in_link, 0u);
  EXPECT_TRUE(a.balanced());
}

TEST_F(SegmentVeth, BroadcastReachesEveryOtherPortAndUnicastOnlyItsMac) {
  for (int i = 1; i <= 4; ++i) ASSERT_GE(channel(i), 0);
  // n1 asks who has 198.18.100.3: n2, n3 and n4 hear it, n1 does not hear itself.
  const auto req = arp(1, mac("ff:ff:ff:ff:ff:ff"), 3);
  ASSERT_EQ(write(channel(1), req.data(), req.size()), ssize_t(req.size()));
  for (int i = 2; i <= 4; ++i) {
    auto got = readFrames(channel(i), 1, 2000);
    ASSERT_EQ(got.size(), 1u) << "n" << i << " hears the broadcast";
    EXPECT_EQ(got[0], req) << "n" << i << " gets the frame as sent";
  }
  EXPECT_TRUE(readFrames(channel(1), 1, 200).empty()) << "the sender does not hear itself";
  // n3 answers n1 alone.
  const auto reply = arp(3, segMac(1), 1);
  ASSERT_EQ(write(channel(3), reply.data(), reply.size()), ssize_t(reply.size()));
  auto got = readFrames(channel(1), 1, 2000);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], reply);
  for (int i : {2, 4}) EXPECT_TRUE(readFrames(channel(i), 1, 200).empty()) << "n" << i;
  // A multicast (IPv4 all-hosts MAC) is a broadcast on the medium.
  const auto mc = arp(2, mac("01:00:5e:00:00:01"), 9);
  ASSERT_EQ(write(channel(2), mc.data(), mc.size()), ssize_t(mc.size()));
  for (int i : {1, 3, 4}) EXPECT_EQ(readFrames(channel(i), 1, 2000).size(), 1u) << "n" << i;
  // A unicast to a MAC no port has is dropped and counted at its sender.
  const auto lost = arp(4, mac("02:00:00:00:99:99"), 1);
  ASSERT_EQ(write(channel(4), lost.data(), lost.size()), ssize_t(lost.size()));
  EXPECT_TRUE(waitUntil([&] { return port(4).unknown_dst_drops == 1; }, 2000));
  for (int i : {1, 2, 3}) EXPECT_TRUE(readFrames(channel(i), 1, 100).empty()) << "n" << i;
  // Counters add up: 4 frames sent, 3 + 1 + 3 delivered, 1 dropped; n1 got the reply and
  // the multicast, n2 the broadcast, n3 and n4 the broadcast and the multicast.
  const SegmentInfo s = segment();
  uint64_t tx = 0, rx = 0;
  for (const auto& p : s.ports) tx += p.tx_packets, rx += p.rx_packets;
  EXPECT_EQ(tx, 4u);
  EXPECT_EQ(rx, 7u);
  EXPECT_EQ(s.ports[0].rx_packets, 2u);
  EXPECT_EQ(s.ports[1].rx_packets, 1u);
  EXPECT_EQ(s.ports[2].rx_packets, 2u);
  EXPECT_EQ(s.ports[3].rx_packets, 2u);
  EXPECT_EQ(s.ports[3].unknown_dst_drops, 1u);
  for (const auto& p : s.ports) EXPECT_EQ(p.no_frame_drops + p.queue_full_drops, 0u);
  EXPECT_TRUE(ledger().balanced());
}

TEST_F(SegmentVeth, TwoSendersShareTheSegmentsRate) {
  // 2 Mbit/s for everyone: 1,600 frames of 160 bytes take 1.02 s on the medium; with a
  // rate per sender they would take half of that.
  LinkParams p;
  p.rate_bps = 2000000;
  p.limit_packets = 5000;
  ASSERT_TRUE(daemon_->setSegmentParams("lan", p).ok());
  Capture cap(d_, "d0");
  ASSERT_TRUE(cap.ok());
  constexpr uint64_t kEach = 800;
  const auto t0 = std::chrono::steady_clock::now();
  std::thread a([&] { sendFrames(s_, "s0", frames(r0_mac_, s_mac_), kEach, 20000, 5000); });
  std::thread b([&] { sendFrames(s_, "s1", frames(r2_mac_, s1_mac_), kEach, 20000, 5000); });
  a.join();
  b.join();
  ASSERT_TRUE(cap.waitFor(2 * kEach, 8000)) << cap.count();
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double medium = 2.0 * kEach * kFrameLen * 8 / 2e6;
  EXPECT_GE(took, 0.9 * medium) << "both senders' frames went through one medium";
  std::cout << "[ segment ] 2 x " << kEach << " frames of " << kFrameLen
            << " B through one 2 Mbit/s medium: " << took << " s (the medium alone: " << medium
            << " s; a rate per sender: " << medium / 2 << " s)\n";
  const SegmentInfo s = segment();
  EXPECT_EQ(s.ports[0].tx_packets, kEach);
  EXPECT_EQ(s.ports[2].tx_packets, kEach);
  EXPECT_EQ(s.ports[1].rx_packets, 2 * kEach);
  EXPECT_EQ(s.stats.enqueued, 2 * kEach) << "one queue for both senders";
  EXPECT_EQ(s.stats.delivered, 2 * kEach);
  EXPECT_EQ(s.stats.queue_drops + s.stats.loss_drops + s.stats.full_drops, 0u);
  EXPECT_GT(s.stats.sojourn_p99_ns, 300000000u) << "frames waited for each other";
  EXPECT_EQ(s.ports[3].rx_packets, 0u);
  EXPECT_TRUE(ledger().balanced());
}

TEST_F(SegmentVeth, DownDropsAndCountsUpPassesAndDeleteDrains) {
  std::vector<FastPathEvent> events;
  daemon_->setEventSink([&](const FastPathEvent& e) { events.push_back(e); });
  ASSERT_TRUE(daemon_->setSegmentState("lan", false).ok());
  EXPECT_EQ(events.size(), 4u) << "one port down event per node";
  ASSERT_EQ(sendFrames(s_, "s0", frames(r0_mac_, s_mac_), 200, 20000, 5000).sent, 200u);
  // n1's route goes through a port that is down: counted at the segment port.
  EXPECT_TRUE(waitUntil([&] { return port(1).down_drops >= 200; }, 3000));
  EXPECT_EQ(port(1).down_drops, 200u);
  EXPECT_EQ(port(2).rx_packets, 0u);
  ASSERT_TRUE(daemon_->setSegmentState("lan", true).ok());
  {
    Capture cap(d_, "d0");
    ASSERT_EQ(sendFrames(s_, "s0", frames(r0_mac_, s_mac_), 200, 20000, 5000).sent, 200u);
    EXPECT_TRUE(cap.waitFor(200, 5000)) << cap.count();
  }
  // Frames held in the medium (5 s of delay) are discarded and counted when it goes.
  LinkParams p;
  p.delay_ns = 5000000000ull;
  ASSERT_TRUE(daemon_->setSegmentParams("lan", p).ok());
  ASSERT_EQ(sendFrames(s_, "s0", frames(r0_mac_, s_mac_), 300, 20000, 5000).sent, 300u);
  ASSERT_TRUE(waitUntil([&] { return segment().stats.in_flight == 300; }, 3000));
  EXPECT_EQ(ledger().in_link, 300u) << "frames in the segment are in the ledger";
  const uint64_t discarded = counter(daemon_->defaultNode().stats(), "worker 0", "link_frames_discarded");
  ASSERT_TRUE(daemon_->deleteSegment("lan").ok());
  EXPECT_TRUE(daemon_->segments().empty());
  for (int i = 1; i <= 4; ++i)
    EXPECT_FALSE(node("n" + std::to_string(i)).portByName("lan").ok()) << "n" << i;
  EXPECT_TRUE(waitUntil([&] { return ledger().in_link == 0; }, 2000));
  EXPECT_EQ(counter(daemon_->defaultNode().stats(), "worker 0", "link_frames_discarded"), discarded + 300);
  EXPECT_TRUE(ledger().balanced());
}

TEST_F(SegmentVeth, APortSetDownNeitherSendsNorReceivesTheOthersGoOn) {
  for (int i = 1; i <= 4; ++i) ASSERT_GE(channel(i), 0);
  std::vector<FastPathEvent> events;
  daemon_->setEventSink([&](const FastPathEvent& e) { events.push_back(e); });
  ASSERT_TRUE(daemon_->setSegmentState("lan", false, "n3").ok());
  ASSERT_EQ(events.size(), 1u) << "one event, for n3's port";
  EXPECT_EQ(events[0].node, "n3");
  EXPECT_EQ(events[0].kind, FastPathEvent::Kind::kPortDown);
  EXPECT_FALSE(port(3).up);
  EXPECT_TRUE(port(2).up);
  // n1's broadcast reaches n2 and n4, not n3.
  const auto req = arp(1, mac("ff:ff:ff:ff:ff:ff"), 3);
  ASSERT_EQ(write(channel(1), req.data(), req.size()), ssize_t(req.size()));
  for (int i : {2, 4}) EXPECT_EQ(readFrames(channel(i), 1, 2000).size(), 1u) << "n" << i;
  EXPECT_TRUE(readFrames(channel(3), 1, 200).empty()) << "n3's port is down";
  // A unicast to n3 is dropped at n3's port; what n3 sends is dropped too.
  const auto to3 = arp(1, segMac(3), 3);
  ASSERT_EQ(write(channel(1), to3.data(), to3.size()), ssize_t(to3.size()));
  const auto from3 = arp(3, segMac(1), 1);
  ASSERT_EQ(write(channel(3), from3.data(), from3.size()), ssize_t(from3.size()));
  EXPECT_TRUE(waitUntil([&] { return port(3).down_drops == 2; }, 2000)) << port(3).down_drops;
  EXPECT_TRUE(readFrames(channel(1), 1, 200).empty());
  // Up again: n3 hears the next broadcast.
  ASSERT_TRUE(daemon_->setSegmentState("lan", true, "n3").ok());
  ASSERT_EQ(write(channel(1), req.data(), req.size()), ssize_t(req.size()));
  EXPECT_EQ(readFrames(channel(3), 1, 2000).size(), 1u);
  EXPECT_EQ(daemon_->setSegmentState("lan", false, "nx").error().code, -ENOENT);
  EXPECT_TRUE(ledger().balanced());
}

TEST_F(SegmentVeth, BadSegmentsAreRefusedWithReasons) {
  SegmentSpec s;
  s.name = "lan";
  s.ports = {SegmentPortSpec{"n1", "x", {}, 1500}};
  auto st = daemon_->createSegment(s);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("exists already"), std::string::npos) << st.error().message;
  s.name = "lan2";
  s.ports = {SegmentPortSpec{"n1", "lan", {}, 1500}};
  st = daemon_->createSegment(s);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("has a port named lan"), std::string::npos);
  s.ports = {SegmentPortSpec{"n1", "a", {}, 1500}, SegmentPortSpec{"n1", "b", {}, 1500}};
  st = daemon_->createSegment(s);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("attached twice"), std::string::npos);
  s.ports = {SegmentPortSpec{"nx", "a", {}, 1500}};
  EXPECT_EQ(daemon_->createSegment(s).error().code, -ENOENT);
  s.ports = {SegmentPortSpec{"n1", "a", segMac(2), 1500}};
  EXPECT_EQ(daemon_->createSegment(s).error().code, -EEXIST) << "MAC in use";
  s.ports = {SegmentPortSpec{"n1", "a", mac("01:00:00:00:00:01"), 1500}};
  EXPECT_EQ(daemon_->createSegment(s).error().code, -EINVAL) << "multicast MAC";
  s.ports.clear();
  EXPECT_EQ(daemon_->createSegment(s).error().code, -EINVAL) << "no port";
  for (int i = 0; i < 65; ++i) s.ports.push_back(SegmentPortSpec{"n1", "p" + std::to_string(i), {}, 1500});
  EXPECT_EQ(daemon_->createSegment(s).error().code, -EINVAL) << "65 ports";
  LinkParams bad;
  bad.loss = 2;
  EXPECT_FALSE(daemon_->setSegmentParams("lan", bad).ok());
  LinkParams codel;
  codel.aqm = LinkParams::Aqm::kCoDel;
  st = daemon_->setSegmentParams("lan", codel);
  ASSERT_FALSE(st.ok()) << "a queue discipline on a shared medium";
  EXPECT_EQ(st.error().code, -EINVAL);
  EXPECT_NE(st.error().message.find("queue discipline"), std::string::npos) << st.error().message;
  EXPECT_EQ(daemon_->setSegmentState("nope", true).error().code, -ENOENT);
  // Deleting a node takes its port off the segment; the others stay.
  ASSERT_TRUE(daemon_->deleteNode("n4").ok());
  EXPECT_EQ(segment().ports.size(), 3u);
}

TEST_F(SegmentVeth, ASegmentOfTheTopologyIsCreatedAtStart) {
  daemon_.reset();
  guard_.reset();
  Config c;
  c.topology.nodes.resize(2);
  c.topology.nodes[0].spec.name = "n1";
  c.topology.nodes[0].interfaces = {"fp0"};
  c.topology.nodes[1].spec.name = "n2";
  c.topology.nodes[1].interfaces = {"fp1"};
  c.topology.segments.resize(1);
  c.topology.segments[0].spec.name = "lan0";
  c.topology.segments[0].spec.ports = {SegmentPortSpec{"n1", "lan0", segMac(1), 1500},
                                       SegmentPortSpec{"n2", "lan0", segMac(2), 1500}};
  c.topology.segments[0].spec.params.rate_bps = 10000000;
  c.control_socket = "/tmp/fp-seg-" + std::to_string(getpid()) + ".sock";
  c.cores = {1};
  startDaemon(std::move(c));
  if (HasFatalFailure()) return;
  auto segs = daemon_->segments();
  ASSERT_EQ(segs.size(), 1u);
  EXPECT_EQ(segs[0].name, "lan0");
  EXPECT_EQ(segs[0].params.rate_bps, 10000000u);
  ASSERT_EQ(segs[0].ports.size(), 2u);
  EXPECT_EQ(segs[0].ports[1].mac, segMac(2));
  EXPECT_TRUE(node("n2").portByName("lan0").ok());
}

}  // namespace
}  // namespace fastpath

namespace fastpath {
namespace {

TEST_F(SegmentVeth, ABridgeIsCheckedListedAndGoesWithItsSegment) {
  // n4 has a port on lan; a second segment gives it another, for a bridge over both.
  SegmentSpec s2;
  s2.name = "lan2";
  s2.ports = {SegmentPortSpec{"n4", "p2", {}, 1500}, SegmentPortSpec{"n1", "x", {}, 1500}};
  ASSERT_TRUE(daemon_->createSegment(s2).ok());
  BridgeSpec b;
  b.name = "br";
  b.node = "n4";
  b.ports = {"lan", "p2"};
  b.ageing_ns = 60'000'000'000ull;
  auto st = daemon_->createBridge(b);
  ASSERT_TRUE(st.ok()) << st.error().message;
  auto list = daemon_->bridges();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].node, "n4");
  ASSERT_EQ(list[0].ports.size(), 2u);
  EXPECT_EQ(list[0].ports[0].segment, "lan");
  EXPECT_EQ(list[0].ports[1].segment, "lan2");
  EXPECT_EQ(list[0].ageing_ns, 60'000'000'000ull);
  // Refusals, each with its reason.
  EXPECT_EQ(daemon_->createBridge(b).error().code, -EEXIST);
  BridgeSpec bad = b;
  bad.name = "br2";
  st = daemon_->createBridge(bad);
  EXPECT_EQ(st.error().code, -EBUSY);
  EXPECT_NE(st.error().message.find("already a port of bridge br"), std::string::npos)
      << st.error().message;
  bad.node = "nx";
  EXPECT_EQ(daemon_->createBridge(bad).error().code, -ENOENT);
  bad.node = "n1";
  bad.ports = {"fp0"};
  st = daemon_->createBridge(bad);
  EXPECT_EQ(st.error().code, -ENOENT) << "an interface port is no segment port";
  bad.ports = {"x"};
  bad.ageing_ns = 0;
  EXPECT_EQ(daemon_->createBridge(bad).error().code, -EINVAL) << "ageing 0";
  bad.ageing_ns = kDefaultBridgeAgeingNs;
  bad.ports.clear();
  EXPECT_EQ(daemon_->createBridge(bad).error().code, -EINVAL) << "no port";
  bad.name = "bad name";
  bad.ports = {"x"};
  EXPECT_EQ(daemon_->createBridge(bad).error().code, -EINVAL) << "name";
  EXPECT_EQ(daemon_->deleteBridge("nobridge").error().code, -ENOENT);
  // Deleting a segment with one of its ports deletes the bridge; a new one can be made
  // and deleted alone.
  ASSERT_TRUE(daemon_->deleteSegment("lan2").ok());
  EXPECT_TRUE(daemon_->bridges().empty());
  b.ports = {"lan"};
  ASSERT_TRUE(daemon_->createBridge(b).ok());
  ASSERT_TRUE(daemon_->deleteBridge("br").ok());
  EXPECT_TRUE(daemon_->bridges().empty());
  EXPECT_TRUE(ledger().balanced());
}

}  // namespace
}  // namespace fastpath
