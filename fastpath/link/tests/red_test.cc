// SPDX-License-Identifier: GPL-2.0-only
// RED's decisions on fixed arrival patterns, no clock: the average queue (EWMA, aged over
// an idle period), the count between two unforced drops (Wait), the gentle band and the
// forced threshold, ARED's and Feng's adaptation of the maximum probability, NLRED's
// quadratic probability, and the disc around it (a drop takes no room, MaxSize after RED).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "fastpath/link_params.h"
#include "link/aqm_queue.h"
#include "link/link_shaper.h"
#include "link/red.h"

namespace fastpath {
namespace {

constexpr uint64_t kMs = 1000000;

// RED with the average following the queue at once (QW 1) unless said otherwise:
// MinTh 5, MaxTh 15, LInterm 10 (max p 0.1).
LinkParams red(double qw = 1) {
  LinkParams p;
  p.rate_bps = 1000000;
  p.aqm = LinkParams::Aqm::kRed;
  p.aqm_limit_packets = 1000;
  p.red.qw = qw;
  p.red.l_interm = 10;
  p.red.link_bps = 1000000;
  return p;
}

TEST(Red, TheAverageIsAnEwmaOfTheQueueAgedOverIdleTime) {
  LinkParams p = red(0.25);
  LinkRng rng(1);
  Red r;
  double want = 0;
  const uint64_t queued[] = {0, 2, 4, 4, 3, 1};
  uint64_t t = 0;
  for (uint64_t q : queued) {
    r.enqueue(p, t += kMs, q, false, 0, 500, false, rng);
    want = want * 0.75 + 0.25 * double(q);
    EXPECT_DOUBLE_EQ(r.average(), want) << q;
  }
  // Idle for 10 ms at 1 Mbit/s of 500-byte packets (250 a second): 2 packets' time, so
  // the average decays by (1 - w)^(2 + 1) before the new sample.
  t += 10 * kMs;
  r.enqueue(p, t, 0, true, t - 10 * kMs, 500, false, rng);
  want = want * std::pow(0.75, 3);
  EXPECT_DOUBLE_EQ(r.average(), want);
  // Not idle: the same gap does not age it.
  r.enqueue(p, t += 10 * kMs, 0, false, 0, 500, false, rng);
  EXPECT_DOUBLE_EQ(r.average(), want * 0.75);
}

TEST(Red, WaitSpacesUnforcedDropsBetweenOneAndTwoOverTheProbability) {
  LinkParams p = red();
  LinkRng rng(7);
  Red r;
  // Average 10: p = 0.1 * (10 - 5) / 10 = 0.05, so no drop before 20 frames and always by 40.
  std::vector<uint64_t> gaps;
  uint64_t since = 0;
  for (int i = 0; i < 20000; ++i) {
    ++since;
    const Red::Verdict v = r.enqueue(p, uint64_t(i + 1) * kMs, 10, false, 0, 500, false, rng);
    ASSERT_NE(v, Red::Verdict::kForcedDrop);
    if (v == Red::Verdict::kUnforcedDrop) {
      gaps.push_back(since);
      since = 0;
    }
  }
  ASSERT_GT(gaps.size(), 400u);
  // The first gap counts from the band's entry (count 1 there, not a drop).
  for (size_t i = 1; i < gaps.size(); ++i) {
    EXPECT_GE(gaps[i], 20u) << i;
    EXPECT_LE(gaps[i], 40u) << i;
  }
  // Without Wait drops may come at any count: some closer than 20.
  p.red.wait = false;
  Red nw;
  size_t close = 0;
  since = 0;
  for (int i = 0; i < 20000; ++i) {
    ++since;
    if (nw.enqueue(p, uint64_t(i + 1) * kMs, 10, false, 0, 500, false, rng) ==
        Red::Verdict::kUnforcedDrop) {
      close += since < 20;
      since = 0;
    }
  }
  EXPECT_GT(close, 100u);
}

TEST(Red, GentleRisesToOneAtTwiceMaxThThenForces) {
  LinkParams p = red();
  LinkRng rng(3);
  Red r;
  // Below MinTh or a queue of one: nothing.
  EXPECT_EQ(r.enqueue(p, kMs, 4, false, 0, 500, false, rng), Red::Verdict::kPass);
  EXPECT_EQ(r.enqueue(p, 2 * kMs, 1, false, 0, 500, false, rng), Red::Verdict::kPass);
  // Gentle band: average 20 between MaxTh and 2 MaxTh, p = 0.1 + 0.9 * (20 - 15) / 15 = 0.4:
  // with Wait, a drop 3 to 5 frames apart (count * 0.4 >= 1, always at >= 2).
  int drops = 0;
  for (int i = 0; i < 1000; ++i)
    drops += r.enqueue(p, uint64_t(3 + i) * kMs, 20, false, 0, 500, false, rng) ==
             Red::Verdict::kUnforcedDrop;
  EXPECT_GT(drops, 1000 / 5);
  EXPECT_LE(drops, 1000 / 3 + 1);
  EXPECT_NEAR(r.lastProbability(), 0.4, 0.4);
  // At 2 MaxTh: forced.
  EXPECT_EQ(r.enqueue(p, 2000 * kMs, 30, false, 0, 500, false, rng), Red::Verdict::kForcedDrop);
  // Not gentle: forced from MaxTh.
  p.red.gentle = false;
  Red ng;
  EXPECT_EQ(ng.enqueue(p, kMs, 15, false, 0, 500, false, rng), Red::Verdict::kForcedDrop);
  // ECN-capable, UseEcn, no hard drop: marked instead, counted as forced.
  p.aqm_ecn = true;
  p.red.hard_drop = false;
  EXPECT_EQ(ng.enqueue(p, 2 * kMs, 15, false, 0, 500, true, rng), Red::Verdict::kForcedMark);
  EXPECT_EQ(ng.enqueue(p, 3 * kMs, 15, false, 0, 500, false, rng), Red::Verdict::kForcedDrop);
}

TEST(Red, AdaptMaxPStepsOncePerIntervalUpThenDown) {
  LinkParams p = red();
  p.red.adapt_max_p = true;
  LinkRng rng(5);
  Red r;
  // Average 14 (> MaxTh - 0.4 (MaxTh - MinTh) = 11): max p rises by min(Alpha, max p / 4)
  // at the first frame and then after each Interval (500 ms) — frames every 100 ms.
  for (int i = 0; i <= 20; ++i) r.enqueue(p, uint64_t(i) * 100 * kMs, 14, false, 0, 500, false, rng);
  double want = 0.1;
  for (int step = 0; step < 4; ++step) want += std::min(0.01, want / 4);  // t = 0, 0.6, 1.2, 1.8 s
  EXPECT_DOUBLE_EQ(r.maxP(), want);
  // Average 6 (< MinTh + 4): times Beta (0.9) per interval, from 2.4 s on.
  for (int i = 21; i <= 30; ++i) r.enqueue(p, uint64_t(i) * 100 * kMs, 6, false, 0, 500, false, rng);
  EXPECT_DOUBLE_EQ(r.maxP(), want * 0.9 * 0.9);  // at 2.4 and 3.0 s
}

TEST(Red, AredSetsThresholdsAndWeightFromTheLink) {
  LinkParams p = red();
  p.red.ared = true;
  p.red.link_bps = 10000000;  // 2500 packets of 500 bytes a second
  LinkRng rng(5);
  Red r;
  r.enqueue(p, kMs, 0, false, 0, 500, false, rng);
  EXPECT_DOUBLE_EQ(r.minTh(), std::max(5.0, 0.005 * 2500 / 2));
  EXPECT_DOUBLE_EQ(r.maxTh(), 3 * r.minTh());
  EXPECT_DOUBLE_EQ(r.weight(), 1 - std::exp(-1.0 / 2500));
  // Bytes: the automatic thresholds count MeanPktSize bytes a packet.
  p.aqm_limit_packets = 0;
  p.aqm_limit_bytes = 500000;
  r.enqueue(p, 2 * kMs, 0, false, 0, 500, false, rng);
  EXPECT_DOUBLE_EQ(r.minTh(), 500 * std::max(5.0, 0.005 * 2500 / 2));
}

TEST(Red, FengDividesOnFallingBelowAndMultipliesOnRisingAbove) {
  LinkParams p = red();
  p.red.feng = true;
  LinkRng rng(9);
  Red r;
  uint64_t t = 0;
  auto at = [&](uint64_t q) { r.enqueue(p, t += kMs, q, false, 0, 500, false, rng); };
  at(3);  // below (starts above): / FengAlpha
  EXPECT_DOUBLE_EQ(r.maxP(), 0.1 / 3);
  at(2);  // still below: unchanged
  EXPECT_DOUBLE_EQ(r.maxP(), 0.1 / 3);
  at(20);  // above: * FengBeta
  EXPECT_DOUBLE_EQ(r.maxP(), 0.1 / 3 * 2);
  at(25);  // still above
  EXPECT_DOUBLE_EQ(r.maxP(), 0.1 / 3 * 2);
  at(10);  // between, then above again: * FengBeta once more
  at(20);
  EXPECT_DOUBLE_EQ(r.maxP(), 0.1 / 3 * 4);
}

TEST(Red, NlredSquaresTheLinearProbability) {
  LinkParams p = red();
  p.red.wait = false;
  LinkRng rng(11);
  for (bool nl : {false, true}) {
    p.red.nonlinear = nl;
    Red r;
    // The first frame in the band starts the count (1); the second is drawn with count 2.
    r.enqueue(p, kMs, 10, false, 0, 500, false, rng);
    r.enqueue(p, 2 * kMs, 10, false, 0, 500, false, rng);
    const double pb = nl ? 0.5 * 0.5 * 1.5 * 0.1 : 0.5 * 0.1;
    EXPECT_DOUBLE_EQ(r.lastProbability(), pb / (1 - 2 * pb)) << nl;
  }
}

// In the disc: RED's drop takes no room, MaxSize refuses what RED let through, and the
// disc is idle only when a dequeue found it empty before the frame came.
TEST(RedQueue, DropsTakeNoRoomAndTheLimitComesAfterRed) {
  LinkParams p = red();
  p.red.min_th = 100;
  p.red.max_th = 200;
  p.aqm_limit_packets = 3;
  LinkRng rng(1);
  AqmQueue q(64);
  const uint64_t far = 1000 * kMs;  // the device queue full until then
  std::vector<AqmQueue::Fate> fates;
  for (int i = 0; i < 4; ++i) fates.push_back(q.admit(p, kMs, far, 500, false, rng).fate);
  EXPECT_EQ(fates, (std::vector<AqmQueue::Fate>{AqmQueue::Fate::kPass, AqmQueue::Fate::kPass,
                                                 AqmQueue::Fate::kPass,
                                                 AqmQueue::Fate::kOverLimit}));
  EXPECT_EQ(q.size(), 3u);
  // RED sees the disc's length before the frame: 0, 1, 2 then 3.
  EXPECT_DOUBLE_EQ(q.red().average(), 3);
  // Forced drops (average 3 over 2 MaxTh) leave the disc as it was, and come before the
  // limit: counted as RED's, not as the disc's overflow.
  p.red.min_th = 1;
  p.red.max_th = 1;
  EXPECT_EQ(q.admit(p, 2 * kMs, far, 500, false, rng).fate, AqmQueue::Fate::kForcedDrop);
  EXPECT_EQ(q.size(), 3u);
}

TEST(RedQueue, IdleOnlyAfterADequeueFoundTheDiscEmpty) {
  LinkParams p = red(0.5);
  LinkRng rng(1);
  AqmQueue q(64);
  // Two frames with the device full until 10 ms: the second waits in the disc.
  q.admit(p, kMs, 10 * kMs, 500, false, rng);
  q.admit(p, kMs, 10 * kMs, 500, false, rng);
  EXPECT_DOUBLE_EQ(q.red().average(), 0.5);
  // At 50 ms the disc is empty, the device had room at 10 ms: idle 40 ms = 10 packets.
  q.admit(p, 50 * kMs, 10 * kMs, 500, false, rng);
  EXPECT_DOUBLE_EQ(q.red().average(), 0.5 * std::pow(0.5, 11));
  // The device queue still full when the disc emptied and when the frame comes: not idle.
  AqmQueue busy(64);
  busy.admit(p, kMs, 10 * kMs, 500, false, rng);
  busy.admit(p, kMs, 10 * kMs, 500, false, rng);
  busy.admit(p, 50 * kMs, 60 * kMs, 500, false, rng);
  EXPECT_DOUBLE_EQ(busy.red().average(), 0.25);
}

// Through the link: a standing queue at 1 Mbit/s (500-byte frames every 2 ms arrive at
// twice the rate) makes RED drop; its drops and forced drops are counted with their bytes,
// and a dropped frame takes no time on the link.
TEST(RedQueue, TheLinkCountsUnforcedAndForcedDropsWithTheirBytes) {
  LinkParams p = red(0.02);
  p.limit_packets = 1;
  p.aqm_limit_packets = 100;
  LinkShaper s(p, 1, LinkShaper::capacityFor(p));
  uint64_t drops = 0;
  for (int i = 0; i < 2000; ++i) {
    const auto r = s.admit(uint64_t(i) * 2 * kMs, uint64_t(i) << 12, 500);
    drops += r == LinkShaper::Admit::kAqmDrop;
    ASSERT_NE(r, LinkShaper::Admit::kQueueFull) << i;
  }
  EXPECT_EQ(s.counters.aqm_drops.load(), drops);
  EXPECT_EQ(s.counters.aqm_drop_bytes.load(), drops * 500);
  EXPECT_GT(s.counters.aqm_forced_drops.load(), 0u) << "the queue grows past 2 MaxTh";
  EXPECT_LT(s.counters.aqm_forced_drops.load(), drops) << "some were unforced";
  EXPECT_EQ(s.counters.aqm_forced_drop_bytes.load(), s.counters.aqm_forced_drops.load() * 500);
  // Half the frames fit the rate: about half are dropped.
  EXPECT_NEAR(double(drops), 1000, 60);
}

}  // namespace
}  // namespace fastpath
