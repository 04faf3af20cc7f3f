// SPDX-License-Identifier: GPL-2.0-only
// Learning bridges between segments through the worker's real pass (Worker::pollOnce) on
// in-memory AF_XDP rings (worker_links_fixture.h), as ns-3's BridgeNetDevice over
// CsmaNetDevices: every frame on a segment reaches its bridge port; the bridge learns the
// source, floods broadcast and unknown destinations to every other port, sends a learned
// destination's frames to its port only, forgets a MAC its ageing time after it was last
// seen, and a frame crossing two segments takes each segment's time. No root needed.
#include "worker_links_fixture.h"

namespace fastpath {
namespace {

using links_testing::linkMac;
using links_testing::sleepUntil;
using links_testing::WorkerLinksTest;

const MacAddress kBroadcast{{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};

// Three segments, each of node A's port (member 0), node B's port (member 1) and a bridge
// port (member 2); one bridge over the three bridge ports.
class WorkerBridgeTest : public WorkerLinksTest {
 protected:
  void build(const LinkParams* s1 = nullptr, const LinkParams* s2 = nullptr,
             uint64_t ageing_ns = 300'000'000'000ull) {
    for (int s = 0; s < 3; ++s) {
      p_[s][0] = linkPort(3 * s, 0);
      p_[s][1] = linkPort(3 * s, 1);
      p_[s][2] = linkPort(3 * s + 1, 0);
      addSegment(p_[s], s == 0 ? s1 : s == 1 ? s2 : nullptr, 100 + s);
    }
    addBridge({0, 1, 2}, ageing_ns);
    start();
  }
  uint64_t rx(int s, int m) { return worker_->portCounters(p_[s][m]).rx_packets.get(); }
  uint64_t drops(int s, int m, WorkerDrop why) {
    return worker_->portCounters(p_[s][m]).drop[size_t(why)].get();
  }
  const BridgeState& bridge() { return *bridge_states_[0]; }
  MacAddress mac(int s, int m) { return linkMac(100 + s, m); }
  // What left on port 1, whatever it is (B forwards what the broadcast brought it).
  void drain() {
    kernelTransmit(*out_, 1024, [](const xdp_desc&) {});
  }

  PortId p_[3][3];
};

TEST_F(WorkerBridgeTest, FloodsUnknownLearnsSourcesThenForwardsToTheLearnedPortOnly) {
  build();
  // A on segment 0 to B's port on segment 1: unknown to the bridge, flooded to segments
  // 1 and 2; on 1, B's port takes it (and B forwards it out of port 1); on 2 no port has
  // the MAC (counted at the bridge's port there, as the flood's waste).
  const MacAddress a0 = mac(0, 0), b1 = mac(1, 1);
  sendRaw(p_[0][0], b1, 1, &a0);
  poll();
  EXPECT_EQ(bridge().received.get(), 1u);
  EXPECT_EQ(bridge().flooded.get(), 1u);
  EXPECT_EQ(bridge().forwarded.get(), 0u);
  EXPECT_EQ(rx(1, 1), 1u);
  EXPECT_EQ(collect(63), std::vector<uint32_t>{1});
  EXPECT_EQ(drops(2, 2, WorkerDrop::kSegmentUnknownDst), 1u);
  EXPECT_EQ(drops(0, 0, WorkerDrop::kSegmentUnknownDst), 0u) << "the bridge heard it";
  EXPECT_EQ(rx(0, 1), 0u) << "a unicast reached a port whose MAC it is not";
  // B answers A: the bridge learned A on its port 0 and sends it there only.
  sendRaw(p_[1][1], a0, 2, &b1);
  poll();
  EXPECT_EQ(bridge().forwarded.get(), 1u);
  EXPECT_EQ(bridge().flooded.get(), 1u);
  EXPECT_EQ(rx(0, 0), 1u) << "A's port got the answer";
  EXPECT_EQ(drops(2, 2, WorkerDrop::kSegmentUnknownDst), 1u) << "not flooded to segment 2";
  EXPECT_EQ(worker_->portCounters(p_[0][2]).tx_packets.get(), 1u);
  // A to B again: B is learned now, on port 1.
  sendRaw(p_[0][0], b1, 3, &a0);
  poll();
  EXPECT_EQ(bridge().forwarded.get(), 2u);
  EXPECT_EQ(bridge().flooded.get(), 1u);
  EXPECT_EQ(rx(1, 1), 2u);
  EXPECT_EQ(drops(2, 2, WorkerDrop::kSegmentUnknownDst), 1u);
  EXPECT_EQ(collect(63), std::vector<uint32_t>{3});
  const auto learned = bridge().table.entries(monotonicNs());
  ASSERT_EQ(learned.size(), 2u);
  // Broadcast from A: every port of every segment but A's own.
  sendRaw(p_[0][0], kBroadcast, 4, &a0);
  poll();
  EXPECT_EQ(bridge().flooded.get(), 2u);
  EXPECT_EQ(rx(0, 1), 1u);
  EXPECT_EQ(rx(1, 0), 1u);
  EXPECT_EQ(rx(1, 1), 3u);
  EXPECT_EQ(rx(2, 0), 1u);
  EXPECT_EQ(rx(2, 1), 1u);
  EXPECT_EQ(rx(0, 0), 1u) << "the sender heard its own broadcast back";
  // To the bridge port's own MAC: nothing above the bridge, counted.
  sendRaw(p_[0][0], mac(0, 2), 5, &a0);
  poll();
  EXPECT_EQ(bridge().local.get(), 1u);
  EXPECT_EQ(drops(0, 2, WorkerDrop::kBridgeLocal), 1u);
  drain();
  poll();
  expectBalanced("after the bridge");
  EXPECT_EQ(worker_->accounting().in_link, 0u);
}

// A frame of an unshaped segment reaches the bridge in the pass that sent it: the bridge
// learns its source at that pass's clock (the worker's, read once per pass), not at a
// clock read of its own per frame.
TEST_F(WorkerBridgeTest, AFrameOfAnUnshapedSegmentIsLearnedAtThePassClock) {
  const uint64_t age = 300'000'000'000ull;
  build(nullptr, nullptr, age);
  const MacAddress a0 = mac(0, 0), b1 = mac(1, 1);
  sendRaw(p_[0][0], b1, 1, &a0);
  poll();
  const uint64_t pass = worker_->passClockNs();
  ASSERT_GT(pass, 0u);
  EXPECT_EQ(bridge().received.get(), 1u);
  const auto learned = bridge().table.entries(pass);
  ASSERT_EQ(learned.size(), 1u);
  EXPECT_EQ(std::memcmp(learned[0].mac, a0.bytes.data(), 6), 0);
  EXPECT_EQ(learned[0].port, 0u);
  EXPECT_EQ(learned[0].expires_ns, pass + age) << "learned at the pass's clock";
  // The next pass: a later clock, and the entry of a source heard again moves with it.
  sleepUntil(pass + 1'000'000);
  sendRaw(p_[0][0], b1, 2, &a0);
  poll();
  const uint64_t next = worker_->passClockNs();
  EXPECT_GE(next, pass + 1'000'000);
  const auto again = bridge().table.entries(next);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].expires_ns, next + age);
  collect(63);
  poll();
  expectBalanced("after the pass clock");
}

TEST_F(WorkerBridgeTest, ALearnedMacIsForgottenItsAgeingTimeAfterItWasLastSeen) {
  const uint64_t age = 30'000'000;  // 30 ms
  build(nullptr, nullptr, age);
  const MacAddress a0 = mac(0, 0), b1 = mac(1, 1);
  sendRaw(p_[1][1], a0, 1, &b1);  // the bridge learns B on port 1 (and floods: A unknown)
  poll();
  const uint64_t learned_at = monotonicNs();
  sendRaw(p_[0][0], b1, 2, &a0);
  poll();
  ASSERT_LT(monotonicNs(), learned_at + age) << "the machine was too slow for this test";
  EXPECT_EQ(bridge().forwarded.get(), 1u);
  EXPECT_EQ(bridge().flooded.get(), 1u);
  sleepUntil(learned_at + age + 1'000'000);
  sendRaw(p_[0][0], b1, 3, &a0);
  poll();
  EXPECT_EQ(bridge().forwarded.get(), 1u) << "forwarded to a MAC whose entry expired";
  EXPECT_EQ(bridge().flooded.get(), 2u);
  EXPECT_EQ(drops(2, 2, WorkerDrop::kSegmentUnknownDst), 2u) << "flooded to segment 2 again";
  collect(63);
  poll();
  expectBalanced("after ageing");
}

TEST_F(WorkerBridgeTest, AFrameCrossingTwoSegmentsTakesEachSegmentsTime) {
  LinkParams s1, s2;
  s1.delay_ns = 2'000'000;
  s2.delay_ns = 3'000'000;
  s2.rate_bps = 10'000'000;  // 160 bytes: 128 us on segment 1's medium
  build(&s1, &s2);
  const MacAddress a0 = mac(0, 0), b1 = mac(1, 1);
  const uint64_t t_send = monotonicNs();
  sendRaw(p_[0][0], b1, 1, &a0);
  poll();
  std::vector<uint32_t> out;
  uint64_t t_seen = 0;
  uint64_t bridge_heard_at = 0;
  while (out.empty() && monotonicNs() < t_send + 1'000'000'000) {
    poll();
    if (!bridge_heard_at && bridge().received.get()) bridge_heard_at = monotonicNs();
    t_seen = monotonicNs();
    for (uint32_t s : collect(63)) out.push_back(s);
  }
  ASSERT_EQ(out, std::vector<uint32_t>{1});
  EXPECT_GE(bridge_heard_at, t_send + s1.delay_ns) << "the bridge heard it before segment 0's delay";
  EXPECT_GE(t_seen, t_send + s1.delay_ns + s2.delay_ns + 128'000)
      << "B had it before both segments' times";
  EXPECT_EQ(worker_->portCounters(p_[1][2]).tx_packets.get(), 1u);
  poll();
  expectBalanced("after two segments");
}

TEST_F(WorkerBridgeTest, ABridgePortThatIsDownHearsNothingAndItIsCounted) {
  build();
  const_cast<LinkState*>(table_.segments[0].members[2].port_state)->up.store(false);
  const MacAddress a0 = mac(0, 0), b1 = mac(1, 1);
  sendRaw(p_[0][0], b1, 1, &a0);
  poll();
  EXPECT_EQ(bridge().received.get(), 0u);
  EXPECT_EQ(drops(0, 2, WorkerDrop::kLinkDown), 1u);
  EXPECT_EQ(rx(1, 1), 0u);
  poll();
  expectBalanced("with a bridge port down");
}

}  // namespace
}  // namespace fastpath
