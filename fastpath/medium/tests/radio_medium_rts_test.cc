// SPDX-License-Identifier: GPL-2.0-only
// RTS/CTS and the control frames' rates on a fake clock: the exchange's timing against
// ns-3's airtime (DsssPhy: 144 us preamble + 48 us header at 1 Mbit/s, payload rounded up to
// whole microseconds), the ACK at its own rate, the NAV of a member that decodes only the
// CTS, the RTS tried up to the short retry limit, the frame up to the long one, and the
// hidden terminal: RTS/CTS turns the data frames' collisions into short RTS collisions.
#include <gtest/gtest.h>

#include "medium/airtime.h"
#include "medium/radio_medium.h"
#include "medium_test_support.h"

namespace fastpath::medium {
namespace {

constexpr uint64_t kUs = 1000;
// ns-3 3.37's durations (WifiPhy::CalculateTxDuration, 802.11b long preamble).
constexpr uint64_t kRts1M = 352 * kUs;    // 20 bytes at 1 Mbit/s: 192 + 160
constexpr uint64_t kCts1M = 304 * kUs;    // 14 bytes at 1 Mbit/s: 192 + 112
constexpr uint64_t kAck1M = 304 * kUs;
constexpr uint64_t kAck11M = 203 * kUs;   // 14 bytes at 11 Mbit/s: 192 + ceil(112 / 11)
constexpr uint64_t kData11M = 936 * kUs;  // 1022 bytes at 11 Mbit/s: 192 + ceil(8176 / 11)
constexpr uint64_t kSifs = 10 * kUs;

MediumPhy rtsPhy() {
  MediumPhy p = phy11b();
  p.rts_threshold = 100;  // wifi-hidden-terminal's "on"
  p.rts_rate_kbps = 1000;
  p.cts_rate_kbps = 1000;
  p.ack_rate_kbps = 11000;
  return p;
}

TEST(RadioMediumRts, AirtimesAreNs3s) {
  EXPECT_EQ(frameTiming(1000, kRtsBytes).duration_ns, kRts1M);
  EXPECT_EQ(frameTiming(1000, kCtsBytes).duration_ns, kCts1M);
  EXPECT_EQ(frameTiming(11000, kAckBytes).duration_ns, kAck11M);
  EXPECT_EQ(frameTiming(11000, wifiFrameBytes(kEth)).duration_ns, kData11M);
}

TEST(RadioMediumRts, ExchangeOnAnIdleMediumTakesRtsCtsDataAck) {
  MediumRun med(rtsPhy(), 3, 1, mesh({0, 1, 2}, -60));
  auto& [m, r] = med;
  const uint64_t t0 = 10 * kMs;
  m.send(t0, 0, 1, kEth, 7, r);  // idle for DIFS: no backoff
  runAll(m, r);
  const uint64_t data_end = t0 + kRts1M + kSifs + kCts1M + kSifs + kData11M;
  ASSERT_EQ(r.deliveries.size(), 1u);
  EXPECT_EQ(r.deliveries[0].to, 1u);
  EXPECT_EQ(r.deliveries[0].t, data_end);
  EXPECT_EQ(r.outcomes[7], TxOutcome::kAcked);
  EXPECT_EQ(r.done_at[7], data_end + kSifs + kAck11M);  // the ACK at 11 Mbit/s
  EXPECT_EQ(m.stats(0).tx_airtime_ns.get(), kRts1M + kData11M + kSifs + kAck11M);
  EXPECT_EQ(m.stats(1).tx_airtime_ns.get(), kCts1M);  // the CTS is the destination's
  EXPECT_EQ(m.stats(0).retries.get(), 0u);
}

TEST(RadioMediumRts, BelowTheThresholdNoRtsAndTheAckAtItsRate) {
  MediumPhy phy = rtsPhy();
  phy.rts_threshold = 2200;  // wifi-hidden-terminal's "off"
  phy.ack_rate_kbps = 1000;
  MediumRun med(phy, 2, 1, mesh({0, 1}, -60));
  auto& [m, r] = med;
  m.send(10 * kMs, 0, 1, kEth, 7, r);
  runAll(m, r);
  ASSERT_EQ(r.deliveries.size(), 1u);
  EXPECT_EQ(r.deliveries[0].t, 10 * kMs + kData11M);
  EXPECT_EQ(r.done_at[7], 10 * kMs + kData11M + kSifs + kAck1M);
  EXPECT_EQ(m.stats(1).tx_airtime_ns.get(), 0u);
}

TEST(RadioMediumRts, AMemberThatHearsOnlyTheCtsDefersForTheExchange) {
  // 0 -> 1 with RTS/CTS; 2 hears 1 but not 0. 2 has a frame for 1 just after the CTS
  // began: without its NAV it would transmit over 0's data frame.
  MediumRun med(rtsPhy(), 3, 4, {{0, 1, -60}, {1, 0, -60}, {1, 2, -60}, {2, 1, -60}});
  auto& [m, r] = med;
  const uint64_t t0 = 10 * kMs;
  m.send(t0, 0, 1, kEth, 1, r);
  const uint64_t cts_end = t0 + kRts1M + kSifs + kCts1M;
  runAll(m, r, cts_end - 1);
  m.send(cts_end - 1, 2, 1, kEth, 2, r);
  runAll(m, r);
  EXPECT_EQ(r.outcomes[1], TxOutcome::kAcked);
  EXPECT_EQ(r.outcomes[2], TxOutcome::kAcked);
  EXPECT_EQ(m.stats(1).collisions.get(), 0u);
  EXPECT_EQ(m.stats(0).retries.get(), 0u);
  EXPECT_EQ(m.stats(2).retries.get(), 0u);
  // 2's frame (its RTS first) went after the NAV (to the end of 0's ACK) and DIFS.
  uint64_t second = 0;
  for (const auto& d : r.deliveries) second = d.cookie == 2 ? d.t : second;
  const uint64_t nav_end = cts_end + kSifs + kData11M + kSifs + kAck11M;
  const uint64_t difs = dcfTiming(true).difs_ns;
  EXPECT_GE(second, nav_end + difs + kRts1M + kSifs + kCts1M + kSifs + kData11M);
}

TEST(RadioMediumRts, AnUnansweredRtsIsTriedUpToTheShortRetryLimit) {
  MediumPhy phy = rtsPhy();
  phy.retry_limit = 5;
  MediumRun med(phy, 2, 2, {{0, 1, -60}});  // 1 hears 0, 0 does not hear 1: no CTS arrives
  auto& [m, r] = med;
  m.send(kMs, 0, 1, kEth, 1, r);
  runAll(m, r);
  EXPECT_EQ(r.outcomes[1], TxOutcome::kRetryLimit);
  EXPECT_TRUE(r.deliveries.empty());  // the frame itself never went
  EXPECT_EQ(m.stats(0).tx_airtime_ns.get(), 5 * kRts1M);
  EXPECT_EQ(m.stats(1).tx_airtime_ns.get(), 5 * kCts1M);  // 1 answered each time
  EXPECT_EQ(m.stats(0).retries.get(), 4u);
  EXPECT_EQ(m.stats(0).retry_drops.get(), 1u);
}

TEST(RadioMediumRts, TheFrameAfterACtsIsTriedUpToTheLongRetryLimit) {
  MediumPhy phy = atTheEdge(rtsPhy());
  phy.long_retry_limit = 3;
  // SNR ~4.3 dB: the 1 Mbit/s RTS and CTS pass, the 11 Mbit/s frame does not.
  MediumRun med(phy, 2, 3, edgePairs());
  auto& [m, r] = med;
  m.send(kMs, 0, 1, kEth, 1, r);
  runAll(m, r);
  EXPECT_EQ(r.outcomes[1], TxOutcome::kRetryLimit);
  EXPECT_TRUE(r.deliveries.empty());
  EXPECT_EQ(m.stats(0).retries.get(), 2u);
  EXPECT_EQ(m.stats(0).tx_airtime_ns.get(), 3 * (kRts1M + kData11M + kSifs + kAck11M));
  EXPECT_EQ(m.stats(1).tx_airtime_ns.get(), 3 * kCts1M);
  const auto snap = m.pairs().snapshot();
  for (const auto& s : snap) {
    if (s.pair.from == 0) {
      EXPECT_EQ(s.stats->error_drops.get(), 3u);
    }
  }
}

/// 0 and 2, hidden from each other, each send `n` frames to 1 (saturated). Returns the
/// frames 1 received.
size_t hiddenDelivered(bool rts, int n, uint64_t* collisions) {
  MediumPhy phy = rtsPhy();
  if (!rts) phy.rts_threshold = 65535;
  MediumRun med(phy, 3, 5, hiddenPairs());
  auto& [m, r] = med;
  bothSendTo1(med, n);
  runAll(m, r);
  *collisions = m.stats(1).collisions.get();
  return r.deliveries.size();
}

TEST(RadioMediumRts, HiddenTerminalsDeliverMoreWithRtsCts) {
  const int n = 100;
  uint64_t off_collisions = 0, on_collisions = 0;
  const size_t off = hiddenDelivered(false, n, &off_collisions);
  const size_t on = hiddenDelivered(true, n, &on_collisions);
  // Without: the data frames overlap and exhaust their retries. With: only RTS collide;
  // the CTS silences the other sender for the frame.
  const size_t all = size_t(2 * n);
  EXPECT_LT(off, all) << "some frames exhaust their retries in collisions";
  EXPECT_LE(2 * (all - on), all - off) << "with RTS/CTS at most half as many lost: " << on
                                       << " against " << off;
  EXPECT_LT(2 * on_collisions, off_collisions);
}

}  // namespace
}  // namespace fastpath::medium
