// SPDX-License-Identifier: GPL-2.0-only
// The ACK as a transmission of its own, on a fake clock: the destination of a unicast frame
// sends it SIFS after the frame's end, at the control answer rate, for its airtime. A member
// near the destination but hidden from the sender senses it and defers; a frame overlapping
// it at the sender loses it (a retry, and a duplicate the destination does not deliver
// again); at a neighbour of the destination it is interference that can destroy a
// reception; and an ACK the destination cannot send (it is transmitting) is counted.
#include <gtest/gtest.h>

#include "medium/airtime.h"
#include "medium/radio_medium.h"
#include "medium_test_support.h"

namespace fastpath::medium {
namespace {

constexpr uint64_t kUs = 1000;
constexpr uint64_t kT0 = 10 * kMs;
constexpr uint64_t kSifs = 10 * kUs;
// ns-3 3.37's durations (802.11b long preamble): 1022 bytes at 11 Mbit/s, the ACK's 14 at
// 1 Mbit/s (the basic rate, phy11b's control answer rate).
constexpr uint64_t kData11M = 936 * kUs;
constexpr uint64_t kAck1M = 304 * kUs;
constexpr uint64_t kAckStart = kT0 + kData11M + kSifs;  // 0's frame to 1 sent at kT0
constexpr uint64_t kAckEnd = kAckStart + kAck1M;

TEST(RadioMediumAck, AirtimesAreNs3s) {
  EXPECT_EQ(frameTiming(11000, wifiFrameBytes(kEth)).duration_ns, kData11M);
  EXPECT_EQ(frameTiming(1000, kAckBytes).duration_ns, kAck1M);
}

/// 0 -> 1 in range of each other; 2 hears 1 (and 1 hears 2), not 0. 0 sends a unicast frame
/// to 1 at kT0 (the medium idle: at once); 2 a broadcast at `t2`. When 2's frame went on the
/// air.
struct HiddenFromTheSender {
  MediumRun med{phy11b(), 3, 4, {{0, 1, -60}, {1, 0, -60}, {1, 2, -60}, {2, 1, -60}}};
  uint64_t start2 = 0;

  explicit HiddenFromTheSender(uint64_t t2) {
    auto& [m, r] = med;
    m.send(kT0, 0, 1, kEth, 1, r);
    runAll(m, r, t2 - 1);
    m.send(t2, 2, kBroadcast, kEth, 2, r);
    runAll(m, r);
    start2 = r.done_at.at(2) - frameTiming(1000, wifiFrameBytes(kEth)).duration_ns;
  }
};

TEST(RadioMediumAck, AMemberHiddenFromTheSenderDefersDuringTheAck) {
  // 2 has a frame while 1's ACK is on the air: it senses the ACK and waits for its end,
  // DIFS and a backoff.
  HiddenFromTheSender h(kAckStart + 50 * kUs);
  auto& [m, r] = h.med;
  const DcfTiming dcf = dcfTiming(true);
  EXPECT_GE(h.start2, kAckEnd + dcf.difs_ns);
  EXPECT_LE(h.start2, kAckEnd + dcf.difs_ns + dcf.cw_min * dcf.slot_ns);
  EXPECT_EQ(m.stats(2).busy_ns.get(), kAck1M);  // the ACK, nothing of 0's frame
  EXPECT_EQ(r.outcomes.at(1), TxOutcome::kAcked);
  EXPECT_EQ(r.done_at.at(1), kAckEnd);
  EXPECT_EQ(m.stats(1).acks_sent.get(), 1u);
  EXPECT_EQ(m.stats(1).collisions.get(), 0u);
  // The ACK's airtime is the exchange's, at its sender: not counted again at 1.
  EXPECT_EQ(m.stats(0).tx_airtime_ns.get(), kData11M + kSifs + kAck1M);
  EXPECT_EQ(m.stats(1).tx_airtime_ns.get(), 0u);
}

TEST(RadioMediumAck, AMemberHiddenFromTheSenderStillSendsDuringTheFrameAndAfterTheAck) {
  // The same member with its frame during 0's frame (which it cannot sense: a hidden
  // terminal) or after the ACK: it sends at once.
  EXPECT_EQ(HiddenFromTheSender(kT0 + 100 * kUs).start2, kT0 + 100 * kUs);
  const uint64_t later = kAckEnd + 5 * kMs;
  EXPECT_EQ(HiddenFromTheSender(later).start2, later);
}

/// 0 -> 1 at -70 dBm both ways. 2 reaches only 0 (at -55 dBm, 15 dB above 1's ACK) and
/// sends a short unicast frame to 3 (36 bytes at 11 Mbit/s: 219 us, shorter than the ACK)
/// at `t2`; 3 hears and answers only 2.
struct InterfererAtTheSender {
  MediumRun med{phy11b(), 4, 7,
                {{0, 1, -70}, {1, 0, -70}, {2, 0, -55}, {2, 3, -60}, {3, 2, -60}}};

  explicit InterfererAtTheSender(uint64_t t2) {
    auto& [m, r] = med;
    m.send(kT0, 0, 1, kEth, 1, r);
    runAll(m, r, t2 - 1);
    m.send(t2, 2, 3, 14, 2, r);
    runAll(m, r);
  }
};

TEST(RadioMediumAck, AFrameOverlappingTheAckAtTheSenderLosesIt) {
  // 2's frame begins 20 us into the ACK and ends before it: the ACK's chunks under it fail.
  // The frame is sent again; 1 answers the copy but does not deliver it twice.
  const uint64_t t2 = kAckStart + 20 * kUs;
  ASSERT_LT(t2 + frameTiming(11000, wifiFrameBytes(14)).duration_ns, kAckEnd);
  InterfererAtTheSender s(t2);
  auto& [m, r] = s.med;
  EXPECT_EQ(r.outcomes.at(1), TxOutcome::kAcked);
  EXPECT_GT(r.done_at.at(1), kAckEnd);
  EXPECT_EQ(m.stats(0).acks_lost.get(), 1u);
  EXPECT_EQ(m.stats(0).retries.get(), 1u);
  EXPECT_EQ(m.stats(1).acks_sent.get(), 2u);
  EXPECT_EQ(m.stats(1).duplicates.get(), 1u);
  EXPECT_EQ(m.stats(1).rx_packets.get(), 1u);
  int to1 = 0;
  for (const auto& d : r.deliveries) to1 += d.cookie == 1;
  EXPECT_EQ(to1, 1);
  EXPECT_EQ(r.outcomes.at(2), TxOutcome::kAcked);  // 2's own exchange is undisturbed
}

TEST(RadioMediumAck, TheSameFrameClearOfTheAckLeavesIt) {
  // 2's frame while 0 is sending its own (half duplex: nothing to lose) or after the ACK's
  // end: the ACK is decoded at once. Only an overlap with the ACK counts.
  for (const uint64_t t2 : {kT0 + 100 * kUs, kAckEnd + 10 * kUs}) {
    InterfererAtTheSender s(t2);
    EXPECT_EQ(s.med.m.stats(0).acks_lost.get(), 0u) << t2;
    EXPECT_EQ(s.med.r.done_at.at(1), kAckEnd) << t2;
    EXPECT_EQ(s.med.r.outcomes.at(2), TxOutcome::kAcked) << t2;
  }
}

/// 4 broadcasts a long frame to 3 (-75 dBm; 4 hears no one) at kT0 - 100 us; 0 sends a
/// unicast frame to 1 at kT0 (`unicast`); 3 hears 1 at -60 dBm and nothing of 0.
struct ReceptionNearTheDestination {
  MediumRun med{phy11b(), 5, 11, {{0, 1, -60}, {1, 0, -60}, {1, 3, -60}, {4, 3, -75}}};

  explicit ReceptionNearTheDestination(bool unicast) {
    auto& [m, r] = med;
    m.send(kT0 - 100 * kUs, 4, kBroadcast, kEth, 4, r);
    if (unicast) m.send(kT0, 0, 1, kEth, 1, r);
    runAll(m, r);
  }
  bool reached3() const {
    for (const auto& d : med.r.deliveries)
      if (d.cookie == 4 && d.to == 3) return true;
    return false;
  }
};

TEST(RadioMediumAck, AnAckAtANeighbourOfTheDestinationDestroysItsReception) {
  // 1's ACK reaches 3 15 dB above 4's frame, in the middle of it (4's 1 Mbit/s frame lasts
  // ~8.6 ms): 3 loses it, counted as a collision at 3 and on the pair 4 -> 3.
  ReceptionNearTheDestination with(true);
  auto& [m, r] = with.med;
  EXPECT_EQ(r.outcomes.at(1), TxOutcome::kAcked);
  EXPECT_FALSE(with.reached3());
  EXPECT_EQ(m.stats(3).collisions.get(), 1u);
  EXPECT_EQ(m.stats(3).rx_packets.get(), 0u);
  EXPECT_EQ(m.stats(3).busy_ns.get(), frameTiming(1000, wifiFrameBytes(kEth)).duration_ns);
  bool pair_seen = false;
  for (const auto& s : m.pairs().snapshot()) {
    if (s.pair.from != 4) continue;
    pair_seen = true;
    EXPECT_EQ(s.stats->attempts.get(), 1u);
    EXPECT_EQ(s.stats->collision_drops.get(), 1u);
    EXPECT_EQ(s.stats->delivered.get(), 0u);
  }
  EXPECT_TRUE(pair_seen);
  // 0's frame itself never reaches 3: without the ACK, 3 receives 4's frame.
  ReceptionNearTheDestination without(false);
  EXPECT_TRUE(without.reached3());
  EXPECT_EQ(without.med.m.stats(3).collisions.get(), 0u);
}

TEST(RadioMediumAck, AnAckTheDestinationCannotSendIsCounted) {
  // Carrier sense above the pairs' power (-60 dBm against a -50 dBm threshold): 1 decodes
  // 0's frame without sensing it, and its own broadcast, queued 5 us after that frame's
  // end, goes at once. When its ACK is due it is transmitting: no ACK, the sender counts it
  // lost and sends again; 1 acknowledges the copy.
  MediumPhy phy = phy11b();
  phy.cs_threshold_dbm = -50;
  MediumRun med(phy, 2, 3, mesh({0, 1}, -60));
  auto& [m, r] = med;
  m.send(kT0, 0, 1, kEth, 1, r);
  runAll(m, r, kT0 + kData11M + 5 * kUs - 1);
  m.send(kT0 + kData11M + 5 * kUs, 1, kBroadcast, 100, 2, r);
  runAll(m, r);
  EXPECT_EQ(m.stats(1).acks_unsent.get(), 1u);
  EXPECT_EQ(m.stats(0).acks_lost.get(), 1u);
  EXPECT_GE(m.stats(1).acks_sent.get(), 1u);
  EXPECT_EQ(r.outcomes.at(1), TxOutcome::kAcked);
  EXPECT_EQ(m.stats(1).rx_packets.get(), 1u);
}

}  // namespace
}  // namespace fastpath::medium
