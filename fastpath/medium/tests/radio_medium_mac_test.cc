// SPDX-License-Identifier: GPL-2.0-only
// The radio medium's MAC as ns-3 3.37's: the ACK is decoded at the data's sender with the
// reverse pair (absent, or too weak for the ACK's rate: lost, the frame is retried and its
// copies are duplicates the receiver does not deliver again), and the queue holds 500 frames
// and drops those that waited longer than 500 ms (WifiMacQueue's MaxSize and MaxDelay).
#include <gtest/gtest.h>

#include <vector>

#include "medium/airtime.h"
#include "medium/radio_medium.h"
#include "medium_test_support.h"

namespace fastpath::medium {
namespace {

TEST(RadioMediumMac, WithoutTheReversePairNoAckArrives) {
  // 1 hears 0, 0 does not hear 1: every try arrives, no ACK does. Delivered once; the six
  // retries are duplicates; after seven tries the sender gives up (and tells its routing).
  MediumRun med(phy11b(), 2, 1, {{0, 1, -60}});
  auto& [m, r] = med;
  m.send(kMs, 0, 1, kEth, 7, r);
  runAll(m, r);
  EXPECT_EQ(r.outcomes[7], TxOutcome::kRetryLimit);
  ASSERT_EQ(r.deliveries.size(), 1u);
  EXPECT_EQ(r.deliveries[0].to, 1u);
  EXPECT_EQ(m.stats(0).acks_lost.get(), 7u);
  EXPECT_EQ(m.stats(0).retries.get(), 6u);
  EXPECT_EQ(m.stats(1).duplicates.get(), 6u);
  EXPECT_EQ(m.stats(1).rx_packets.get(), 1u);
  const auto snap = m.pairs().snapshot();
  ASSERT_EQ(snap.size(), 1u);
  EXPECT_EQ(snap[0].stats->attempts.get(), 7u);
  EXPECT_EQ(snap[0].stats->delivered.get(), 7u);
}

/// 0 sends `n` unicasts to 1 (queued at once, sent one after the other).
RadioMedium& ackRun(MediumRun& med, int n) {
  for (int i = 0; i < n; ++i) med.m.send(kMs, 0, 1, 200, uint64_t(i), med.r);
  runAll(med.m, med.r);
  return med.m;
}

TEST(RadioMediumMac, TheAcksRateDecidesAtTheEdgeOfReception) {
  // The reverse pair 1 dB over the noise floor (-93.6 dBm), its preamble detected: an ACK
  // at 1 Mbit/s (DBPSK with its spreading gain) nearly always passes, one at 11 Mbit/s
  // (ns-3's answer to 11 Mbit/s data when 11 Mbit/s is a basic rate) rarely.
  MediumPhy slow = atTheEdge(phy11b());
  slow.preamble_snr_db = 0;
  MediumPhy fast = slow;
  fast.ack_rate_kbps = 11000;
  MediumRun a(slow, 2, 5, {{0, 1, -60}, {1, 0, -92.6}});
  MediumRun b(fast, 2, 5, {{0, 1, -60}, {1, 0, -92.6}});
  const int n = 15;  // ACKs lost, 7 tries each: 15 frames stay under the queue's 500 ms
  const RadioMedium& ma = ackRun(a, n);
  const RadioMedium& mb = ackRun(b, n);
  int acked_a = 0, acked_b = 0;
  for (const auto& [c, o] : a.r.outcomes) acked_a += o == TxOutcome::kAcked;
  for (const auto& [c, o] : b.r.outcomes) acked_b += o == TxOutcome::kAcked;
  EXPECT_GE(acked_a, n - 1);
  EXPECT_LE(acked_b, n / 2);  // a few pass in one of their seven tries
  EXPECT_LE(ma.stats(0).acks_lost.get(), 1u);
  EXPECT_GT(mb.stats(0).acks_lost.get(), uint64_t(6 * n));  // ~7 per frame
  EXPECT_EQ(mb.stats(0).expired_drops.get(), 0u);
  // Every frame reached 1 exactly once, however many of its ACKs were lost.
  EXPECT_EQ(a.r.deliveries.size(), size_t(n));
  EXPECT_EQ(b.r.deliveries.size(), size_t(n));
  EXPECT_EQ(mb.stats(1).rx_packets.get(), uint64_t(n));
  EXPECT_GT(mb.stats(1).duplicates.get(), uint64_t(5 * n));
}

TEST(RadioMediumMac, AnAckUnderInterferenceAtTheSenderIsLost) {
  // 2 hears neither 0 nor 1 (it does not defer to them) and broadcasts long frames that
  // reach 0 as strongly as 1's ACK: the ACKs that overlap them are lost, the others pass.
  MediumPhy phy = phy11b();
  MediumRun med(phy, 3, 9, {{0, 1, -60}, {1, 0, -70}, {2, 0, -70}});
  auto& [m, r] = med;
  uint64_t t = kMs;
  for (int i = 0; i < 60; ++i, t += 3 * kMs) {
    m.send(t, 0, 1, 200, uint64_t(i), r);
    m.send(t, 2, kBroadcast, 1400, uint64_t(1000 + i), r);
    r.now = t;
    m.advance(t, r);
  }
  runAll(m, r);
  EXPECT_GT(m.stats(0).acks_lost.get(), 0u);
  int acked = 0;
  for (int i = 0; i < 60; ++i) acked += r.outcomes[uint64_t(i)] == TxOutcome::kAcked;
  EXPECT_GT(acked, 0);
}

TEST(RadioMediumMac, TheQueueHoldsNs3sFiveHundredFrames) {
  MediumRun med(phy11b(), 2, 1, mesh({0, 1}, -60));
  auto& [m, r] = med;
  int refused = 0;
  for (int i = 0; i < 600; ++i) refused += !m.send(kMs, 0, kBroadcast, 100, uint64_t(i), r);
  EXPECT_EQ(refused, 100);
  EXPECT_EQ(m.stats(0).queue_drops.get(), 100u);
}

TEST(RadioMediumMac, FramesOlderThanMaxDelayAreDroppedUnsent) {
  // 100 broadcasts of 1000 bytes at 1 Mbit/s (~8.6 ms each) queued at once: about 58 fit
  // in 500 ms; the rest expire when they reach the head, none goes late.
  MediumRun med(phy11b(), 2, 1, mesh({0, 1}, -60));
  auto& [m, r] = med;
  for (int i = 0; i < 100; ++i) m.send(kMs, 0, kBroadcast, kEth, uint64_t(i), r);
  runAll(m, r);
  const uint64_t air = frameTiming(1000, wifiFrameBytes(kEth)).duration_ns;
  int sent = 0, expired = 0;
  for (int i = 0; i < 100; ++i) {
    const TxOutcome o = r.outcomes.at(uint64_t(i));
    if (o == TxOutcome::kBroadcast) {
      ++sent;
      EXPECT_EQ(expired, 0) << "frame " << i << " went after an older one expired";
      EXPECT_LE(r.done_at[uint64_t(i)] - air - kMs, RadioMedium::kMaxDelayNs) << "frame " << i;
    } else {
      EXPECT_EQ(o, TxOutcome::kExpired) << "frame " << i;
      ++expired;
    }
  }
  EXPECT_GT(sent, 50);
  EXPECT_LT(sent, 65);
  EXPECT_EQ(m.stats(0).expired_drops.get(), uint64_t(expired));
  EXPECT_EQ(r.deliveries.size(), size_t(sent));
  // A frame queued now, on an idle medium, goes.
  m.send(2000 * kMs, 0, kBroadcast, kEth, 500, r);
  runAll(m, r);
  EXPECT_EQ(r.outcomes.at(500), TxOutcome::kBroadcast);
}

TEST(RadioMediumMac, AFrameAlreadySentIsNotExpired) {
  // A unicast whose ACKs never come, retried 32 times at 1 Mbit/s: its tries outlast
  // 500 ms, and ns-3 keeps a frame in flight until its retries end. The frames queued with
  // it are older than 500 ms when it is done: dropped unsent.
  MediumPhy phy = phy11b();
  phy.data_rate_kbps = 1000;
  phy.retry_limit = 32;
  MediumRun med(phy, 2, 1, {{0, 1, -60}});
  auto& [m, r] = med;
  for (int i = 0; i < 40; ++i) m.send(kMs, 0, 1, 1500, uint64_t(i), r);
  runAll(m, r);
  EXPECT_EQ(r.outcomes.at(0), TxOutcome::kRetryLimit);
  EXPECT_GT(r.done_at.at(0), kMs + RadioMedium::kMaxDelayNs);
  EXPECT_EQ(m.stats(0).retries.get(), 31u);
  for (int i = 1; i < 40; ++i) EXPECT_EQ(r.outcomes.at(uint64_t(i)), TxOutcome::kExpired) << i;
  EXPECT_EQ(m.stats(0).expired_drops.get(), 39u);
  EXPECT_EQ(r.deliveries.size(), 1u);
}

}  // namespace
}  // namespace fastpath::medium
