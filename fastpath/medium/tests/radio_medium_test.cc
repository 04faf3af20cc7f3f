// SPDX-License-Identifier: GPL-2.0-only
// The radio medium on a fake clock: airtime of broadcast and unicast frames, deferral to a
// sensed transmission, hidden terminals colliding, far-apart pairs not slowing each other,
// retries up to the limit, runs repeating with a seed, and pair updates seen whole by
// every frame.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "medium/airtime.h"
#include "medium/radio_medium.h"
#include "medium_test_support.h"

namespace fastpath::medium {
namespace {

TEST(RadioMedium, BroadcastOnAnIdleMediumTakesItsAirtime) {
  MediumRun med(phy11b(), 3, 1, mesh({0, 1, 2}, -60));
  auto& [m, r] = med;
  m.send(10 * kMs, 0, kBroadcast, kEth, 7, r);
  runAll(m, r);
  const uint64_t air = frameTiming(1000, wifiFrameBytes(kEth)).duration_ns;
  ASSERT_EQ(r.deliveries.size(), 2u);
  for (const auto& d : r.deliveries) EXPECT_EQ(d.t, 10 * kMs + air);
  EXPECT_EQ(r.outcomes[7], TxOutcome::kBroadcast);
  EXPECT_EQ(m.stats(0).tx_airtime_ns.get(), air);
  EXPECT_EQ(m.stats(1).busy_ns.get(), air);
}

TEST(RadioMedium, UnicastIsAcknowledgedAfterSifsAndAck) {
  MediumRun med(phy11b(), 3, 1, mesh({0, 1, 2}, -60));
  auto& [m, r] = med;
  m.send(10 * kMs, 0, 1, kEth, 7, r);
  runAll(m, r);
  const uint64_t air = frameTiming(11000, wifiFrameBytes(kEth)).duration_ns;
  const uint64_t ack = frameTiming(1000, kAckBytes).duration_ns;
  ASSERT_EQ(r.deliveries.size(), 1u);  // member 2 hears it but it is not for 2
  EXPECT_EQ(r.deliveries[0].to, 1u);
  EXPECT_EQ(r.deliveries[0].t, 10 * kMs + air);
  EXPECT_EQ(r.outcomes[7], TxOutcome::kAcked);
  EXPECT_EQ(r.done_at[7], 10 * kMs + air + 10000 + ack);
  // The NAV: member 2 senses the medium busy until the ACK is over.
  EXPECT_EQ(m.stats(2).busy_ns.get(), air + 10000 + ack);
}

TEST(RadioMedium, SenderDefersWhileItSensesATransmission) {
  MediumRun med(phy11b(), 3, 1, mesh({0, 1, 2}, -60));
  auto& [m, r] = med;
  const uint64_t t0 = 10 * kMs;
  m.send(t0, 0, kBroadcast, kEth, 1, r);
  m.send(t0 + 100000, 2, kBroadcast, kEth, 2, r);  // 0 is on the air
  runAll(m, r);
  const uint64_t air = frameTiming(1000, wifiFrameBytes(kEth)).duration_ns;
  const DcfTiming dcf = dcfTiming(true);
  uint64_t second = 0;
  for (const auto& d : r.deliveries)
    if (d.cookie == 2) second = d.t;
  ASSERT_NE(second, 0u);
  const uint64_t start = second - air;
  EXPECT_GE(start, t0 + air + dcf.difs_ns);
  EXPECT_LE(start, t0 + air + dcf.difs_ns + dcf.cw_min * dcf.slot_ns);
  EXPECT_EQ(r.deliveries.size(), 4u);  // both frames to both other members
  for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(m.stats(i).collisions.get(), 0u);
}

/// 0 and 2 both send `n` unicast frames to 1, saturated; `sense`: whether they sense each
/// other. Returns the collisions at 1.
uint64_t twoSendersToOne(bool sense, int n, Recorder* out = nullptr) {
  std::vector<IndexedPair> p = hiddenPairs();
  if (sense) p.insert(p.end(), {{0, 2, -80}, {2, 0, -80}});
  MediumRun med(phy11b(), 3, 5, p);
  auto& [m, r] = med;
  bothSendTo1(med, n);
  runAll(m, r);
  if (out) *out = r;
  return m.stats(1).collisions.get();
}

TEST(RadioMedium, HiddenTerminalsCollide) {
  const int n = 100;
  Recorder hidden, visible;
  const uint64_t hidden_collisions = twoSendersToOne(false, n, &hidden);
  const uint64_t visible_collisions = twoSendersToOne(true, n, &visible);
  // Hidden: every frame overlaps the other sender's (they never defer to each other).
  EXPECT_GT(hidden_collisions, uint64_t(n));
  // Sensing each other, they collide only when their backoffs end in the same slot.
  EXPECT_LT(visible_collisions * 5, hidden_collisions);
  int hidden_lost = 0;
  for (const auto& [c, o] : hidden.outcomes) hidden_lost += o == TxOutcome::kRetryLimit;
  EXPECT_GT(hidden_lost, 0) << "retries exhausted by hidden-terminal collisions";
  for (const auto& [c, o] : visible.outcomes) EXPECT_EQ(o, TxOutcome::kAcked);
}

/// The time `n` saturated unicast frames from 0 to 1 take, with 2 -> 3 sending as many at
/// the same time; `coupled`: whether the two pairs sense each other.
uint64_t pairCompletion(bool other_active, bool coupled, int n) {
  std::vector<IndexedPair> p = {{0, 1, -60}, {1, 0, -60}, {2, 3, -60}, {3, 2, -60}};
  if (coupled) p = mesh({0, 1, 2, 3}, -60);
  MediumRun med(phy11b(), 4, 9, p);
  auto& [m, r] = med;
  for (int i = 0; i < n; ++i) {
    m.send(kMs, 0, 1, kEth, uint64_t(i), r);
    if (other_active) m.send(kMs, 2, 3, kEth, uint64_t(1000 + i), r);
  }
  runAll(m, r);
  // Every frame sent: none waited past the queue's MaxDelay (that would end the run early).
  EXPECT_EQ(m.stats(0).expired_drops.get() + m.stats(2).expired_drops.get(), 0u);
  uint64_t last = 0;
  for (int i = 0; i < n; ++i) last = std::max(last, r.done_at[uint64_t(i)]);
  return last - kMs;
}

TEST(RadioMedium, FarApartPairsDoNotSlowEachOther) {
  const int n = 150;  // sharing the channel, the last frame waits well under 500 ms
  const double alone = double(pairCompletion(false, false, n));
  const double far = double(pairCompletion(true, false, n));
  const double near = double(pairCompletion(true, true, n));
  EXPECT_NEAR(far / alone, 1.0, 0.05);  // only the backoff draws differ
  EXPECT_GT(near / alone, 1.7);         // one shared channel: about half each
}

TEST(RadioMedium, UnicastIsRetriedUpToTheLimitThenDropped) {
  MediumPhy phy = atTheEdge(phy11b());
  phy.retry_limit = 4;
  // Detected (SNR ~4.3 dB, above the preamble's 4 dB) but 11 Mbit/s needs ~6 dB or more.
  MediumRun med(phy, 2, 3, edgePairs());
  auto& [m, r] = med;
  m.send(kMs, 0, 1, kEth, 1, r);
  runAll(m, r);
  EXPECT_EQ(r.outcomes[1], TxOutcome::kRetryLimit);
  EXPECT_EQ(m.stats(0).retries.get(), 3u);
  EXPECT_EQ(m.stats(0).retry_drops.get(), 1u);
  EXPECT_TRUE(r.deliveries.empty());
  const auto snap = m.pairs().snapshot();
  ASSERT_EQ(snap.size(), 2u);
  EXPECT_EQ(snap[0].stats->attempts.get(), 4u);
  EXPECT_EQ(snap[0].stats->error_drops.get(), 4u);
}

TEST(RadioMedium, BelowDetectionNothingIsReceivedButTheMediumIsSensed) {
  MediumPhy phy = phy11b();
  phy.cs_threshold_dbm = -101;  // senses what it cannot detect (preamble RSSI -82 dBm)
  MediumRun med(phy, 2, 3, {{0, 1, -90}});
  auto& [m, r] = med;
  m.send(kMs, 0, kBroadcast, kEth, 1, r);
  runAll(m, r);
  EXPECT_TRUE(r.deliveries.empty());
  EXPECT_EQ(m.stats(1).busy_ns.get(), frameTiming(1000, wifiFrameBytes(kEth)).duration_ns);
}

TEST(RadioMedium, ASeedRepeatsARun) {
  Recorder a, b;
  twoSendersToOne(false, 50, &a);
  twoSendersToOne(false, 50, &b);
  ASSERT_EQ(a.deliveries.size(), b.deliveries.size());
  for (size_t i = 0; i < a.deliveries.size(); ++i) {
    EXPECT_EQ(a.deliveries[i].cookie, b.deliveries[i].cookie);
    EXPECT_EQ(a.deliveries[i].t, b.deliveries[i].t);
  }
}

TEST(RadioMedium, AFrameInFlightKeepsThePairsItStartedWith) {
  MediumRun med(phy11b(), 3, 1, {{0, 1, -60}});
  auto& [m, r] = med;
  m.send(kMs, 0, kBroadcast, kEth, 1, r);
  m.advance(kMs, r);  // on the air
  m.pairs().apply({{0, 2, -60}}, true);  // 1 out of range, 2 in range
  runAll(m, r);
  ASSERT_EQ(r.deliveries.size(), 1u);
  EXPECT_EQ(r.deliveries[0].to, 1u);
  m.send(10 * kMs, 0, kBroadcast, kEth, 2, r);
  runAll(m, r);
  ASSERT_EQ(r.deliveries.size(), 2u);
  EXPECT_EQ(r.deliveries[1].to, 2u);
}

TEST(RadioMedium, EveryFrameSeesABatchWholeOrNotAtAll) {
  // A batch moves the sender's whole neighbourhood from {1..8} to {9..16}: every frame
  // reaches exactly one of the two sets, whatever update it starts under.
  auto batch = [](bool second) {
    std::vector<IndexedPair> p;
    for (uint32_t k = 1; k <= 16; ++k)
      p.push_back({0, k, -60, (k <= 8) == second});
    return p;
  };
  MediumRun med(phy11b(), 17, 1, batch(false));
  auto& [m, r] = med;
  uint64_t t = kMs;
  for (uint64_t f = 0; f < 200; ++f) {
    m.send(t, 0, kBroadcast, 100, f, r);
    if (f % 3 == 0) m.pairs().apply(batch(f % 2 == 1), false);
    t += 150000;  // updates land before, during and between frames
    r.now = t;
    m.advance(t, r);
  }
  runAll(m, r);
  std::map<uint64_t, std::set<uint32_t>> reached;
  for (const auto& d : r.deliveries) reached[d.cookie].insert(d.to);
  std::set<uint32_t> low, high;
  for (uint32_t k = 1; k <= 8; ++k) low.insert(k), high.insert(k + 8);
  int sets_seen[2] = {0, 0};
  for (const auto& [f, to] : reached) {
    EXPECT_TRUE(to == low || to == high) << "frame " << f << " reached a mix";
    ++sets_seen[to == high];
  }
  EXPECT_GT(sets_seen[0], 0);
  EXPECT_GT(sets_seen[1], 0);
  EXPECT_EQ(m.pairs().updates(), 1u + 67u);
}

}  // namespace
}  // namespace fastpath::medium
