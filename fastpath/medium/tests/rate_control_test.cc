// SPDX-License-Identifier: GPL-2.0-only
// Rate adaptation: ARF's moves as ns-3's ArfWifiManager makes them (up after 10 successes
// or 15 tries, back at the first failure after a move up, otherwise at every second failure
// in a row), per destination; the ACK's rate for each data rate; and the model sending at
// the rate ARF picks, its ACK at the answer rate.
#include <gtest/gtest.h>

#include "medium/airtime.h"
#include "medium/radio_medium.h"
#include "medium/rate_control.h"
#include "medium_test_support.h"

namespace fastpath::medium {
namespace {

MediumPhy arf11b() {
  MediumPhy p = phy11b();
  p.rate_control = fastpath::RateControl::kArf;
  p.ack_rate_kbps = 11000;  // ns-3's answer to 11 Mbit/s on an ad hoc 802.11b MAC
  return p;
}

TEST(RateAdaptation, ConstantKeepsTheDataRate) {
  RateAdaptation r(phy11b(), 2);
  for (int i = 0; i < 30; ++i) r.dataOk(0, 1);
  EXPECT_EQ(r.rateKbps(0, 1), 11000u);
  for (int i = 0; i < 30; ++i) r.dataFailed(0, 1);
  EXPECT_EQ(r.rateKbps(0, 1), 11000u);
  EXPECT_EQ(r.ackRateKbps(11000, 2000), 2000u);
}

TEST(RateAdaptation, ArfStartsLowestAndClimbsAfterTenSuccesses) {
  RateAdaptation r(arf11b(), 3);
  EXPECT_EQ(r.rateKbps(0, 1), 1000u);
  for (int i = 0; i < 9; ++i) r.dataOk(0, 1);
  EXPECT_EQ(r.rateKbps(0, 1), 1000u);
  r.dataOk(0, 1);
  EXPECT_EQ(r.rateKbps(0, 1), 2000u);
  for (int i = 0; i < 20; ++i) r.dataOk(0, 1);
  EXPECT_EQ(r.rateKbps(0, 1), 11000u);
  for (int i = 0; i < 20; ++i) r.dataOk(0, 1);
  EXPECT_EQ(r.rateKbps(0, 1), 11000u);  // the top: nothing faster
  // Per destination: 0 -> 2 and 1 -> 0 are untouched.
  EXPECT_EQ(r.rateKbps(0, 2), 1000u);
  EXPECT_EQ(r.rateKbps(1, 0), 1000u);
}

TEST(RateAdaptation, ArfFallsBackAtOnceAfterAMoveUpFails) {
  RateAdaptation r(arf11b(), 2);
  for (int i = 0; i < 10; ++i) r.dataOk(0, 1);
  ASSERT_EQ(r.rateKbps(0, 1), 2000u);  // in recovery
  r.dataFailed(0, 1);
  EXPECT_EQ(r.rateKbps(0, 1), 1000u);
  r.dataFailed(0, 1);  // still in recovery: only the first failure falls back
  EXPECT_EQ(r.rateKbps(0, 1), 1000u);
}

TEST(RateAdaptation, ArfOtherwiseFallsBackAtEverySecondFailure) {
  RateAdaptation r(arf11b(), 2);
  for (int i = 0; i < 20; ++i) r.dataOk(0, 1);
  ASSERT_EQ(r.rateKbps(0, 1), 5500u);
  r.dataOk(0, 1);  // out of recovery
  r.dataFailed(0, 1);
  EXPECT_EQ(r.rateKbps(0, 1), 5500u);
  r.dataFailed(0, 1);
  EXPECT_EQ(r.rateKbps(0, 1), 2000u);
  r.dataFailed(0, 1);
  EXPECT_EQ(r.rateKbps(0, 1), 2000u);
  r.dataFailed(0, 1);
  EXPECT_EQ(r.rateKbps(0, 1), 1000u);
  for (int i = 0; i < 4; ++i) r.dataFailed(0, 1);
  EXPECT_EQ(r.rateKbps(0, 1), 1000u);  // the bottom
}

TEST(RateAdaptation, ArfClimbsAfterFifteenTriesWithoutTenSuccessesInARow) {
  RateAdaptation r(arf11b(), 2);
  for (int i = 0; i < 7; ++i) {
    r.dataOk(0, 1);
    r.dataFailed(0, 1);  // a lone failure neither falls back nor resets the timer
  }
  EXPECT_EQ(r.rateKbps(0, 1), 1000u);
  r.dataOk(0, 1);  // the 15th try
  EXPECT_EQ(r.rateKbps(0, 1), 2000u);
}

TEST(RateAdaptation, AckRateIsTheHighestMandatoryRateAtOrBelowTheData) {
  RateAdaptation b(arf11b(), 2);
  EXPECT_EQ(b.ackRateKbps(11000, 11000), 11000u);
  EXPECT_EQ(b.ackRateKbps(5500, 11000), 5500u);
  EXPECT_EQ(b.ackRateKbps(1000, 11000), 1000u);
  EXPECT_EQ(b.ackRateKbps(5500, 2000), 2000u);  // never above the top rate's answer
  MediumPhy g;
  g.data_rate_kbps = 54000;
  g.basic_rate_kbps = 6000;
  g.rate_control = fastpath::RateControl::kArf;
  RateAdaptation o(g, 2);
  EXPECT_EQ(o.rateKbps(0, 1), 6000u);
  EXPECT_EQ(o.ackRateKbps(9000, 24000), 6000u);
  EXPECT_EQ(o.ackRateKbps(18000, 24000), 12000u);
  EXPECT_EQ(o.ackRateKbps(54000, 24000), 24000u);
}

TEST(RateAdaptation, TheModelSendsAtArfsRateWithItsAck) {
  RadioMedium m(arf11b(), 2, 1);
  m.pairs().apply(mesh({0, 1}, -50), false);  // no error at any rate
  Recorder r;
  const uint32_t bytes = wifiFrameBytes(kEth);
  const uint64_t sifs = dcfTiming(true).sifs_ns;
  auto airOf = [&](uint64_t cookie) {
    // Sent alone after an idle medium: no backoff, on the air from the send.
    const uint64_t t0 = (cookie + 1) * 100 * kMs;
    m.send(t0, 0, 1, kEth, cookie, r);
    runAll(m, r);
    EXPECT_EQ(r.outcomes[cookie], TxOutcome::kAcked);
    return std::pair{r.deliveries.back().t - t0, r.done_at[cookie] - r.deliveries.back().t};
  };
  auto [air0, ack0] = airOf(0);
  EXPECT_EQ(air0, frameTiming(1000, bytes).duration_ns);
  EXPECT_EQ(ack0, sifs + frameTiming(1000, kAckBytes).duration_ns);
  for (uint64_t c = 1; c < 10; ++c) airOf(c);
  auto [air10, ack10] = airOf(10);  // after 10 acknowledged frames
  EXPECT_EQ(air10, frameTiming(2000, bytes).duration_ns);
  EXPECT_EQ(ack10, sifs + frameTiming(2000, kAckBytes).duration_ns);
  // The other direction has its own station: still at the lowest rate.
  m.send(2000 * kMs, 1, 0, kEth, 99, r);
  runAll(m, r);
  EXPECT_EQ(r.deliveries.back().t - 2000 * kMs, frameTiming(1000, bytes).duration_ns);
}

TEST(RateAdaptation, TheModelFallsBackWhenFramesAreLost) {
  // About 3 dB over the noise (preamble detection off): DBPSK and DQPSK (1, 2 Mbit/s, spread
  // 11 times) get through, CCK (5.5, 11 Mbit/s) hardly: ARF keeps trying up and falling back.
  MediumPhy p = arf11b();
  p.preamble_snr_db = -100;
  p.preamble_min_rssi_dbm = -200;
  RadioMedium m(p, 2, 3);
  m.pairs().apply(mesh({0, 1}, -91), false);
  Recorder r;
  for (uint64_t c = 0; c < 200; ++c) m.send(kMs + c * 50 * kMs, 0, 1, kEth, c, r);
  runAll(m, r);
  uint64_t acked = 0;
  for (auto& [c, o] : r.outcomes) acked += o == TxOutcome::kAcked;
  EXPECT_GT(acked, 190u);
  // ARF's moves up to 5.5 Mbit/s fail and fall back: one retry per move, about every 10
  // frames; at a constant 11 Mbit/s nearly every frame would be dropped.
  EXPECT_GT(m.stats(0).retries.get(), 10u);
  EXPECT_LT(m.stats(0).retries.get(), 60u);
  EXPECT_EQ(m.stats(0).retry_drops.get(), 0u);
  MediumPhy c = p;
  c.rate_control = fastpath::RateControl::kConstant;
  RadioMedium k(c, 2, 3);
  k.pairs().apply(mesh({0, 1}, -91), false);
  Recorder rk;
  for (uint64_t f = 0; f < 50; ++f) k.send(kMs + f * 50 * kMs, 0, 1, kEth, f, rk);
  runAll(k, rk);
  EXPECT_GT(k.stats(0).retry_drops.get(), 40u);
}

}  // namespace
}  // namespace fastpath::medium
