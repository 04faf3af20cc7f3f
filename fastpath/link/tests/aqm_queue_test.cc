// SPDX-License-Identifier: GPL-2.0-only
// The queue discipline on worked examples, no clock: CoDel's drop schedule (the first drop
// an interval after the sojourn went above target, then interval / sqrt(count) apart),
// leaving the dropping state when the sojourn falls, ECN marking in place of drops, the
// disc's limit, and the dequeue times a device queue of N frames gives through LinkShaper.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "fastpath/link_params.h"
#include "link/aqm_queue.h"
#include "link/cobalt.h"
#include "link/codel.h"
#include "link/ecn.h"
#include "link/link_shaper.h"

namespace fastpath {
namespace {

constexpr uint64_t kMs = 1000000, kUs = 1000;

LinkParams codel(uint32_t device_limit = 1) {
  LinkParams p;
  p.rate_bps = 10000000;  // 10 Mbit/s: 1000 bytes take 800 us
  p.limit_packets = device_limit;
  p.aqm = LinkParams::Aqm::kCoDel;
  p.aqm_limit_packets = 100000;
  return p;
}

// CoDel refines 1/sqrt(count) by one Newton step each time count grows by one.
TEST(CoDel, NewtonStepsFollowTheReciprocalSquareRootAsCountGrows) {
  uint16_t rec = 0xffff;
  for (uint32_t count = 2; count <= 400; ++count) {
    rec = CoDel::newtonStep(rec, count);
    if (count == 100 || count == 400) {
      EXPECT_NEAR(double(rec) / 65536.0, 1.0 / std::sqrt(double(count)), 0.01) << count;
    }
  }
  // The control law: t + interval * rec (interval / 2 for rec = 1/2).
  EXPECT_EQ(CoDel::controlLaw(1000, 100000, 0x8000), 1000u + 50000u);
}

// The spacing CoDel's control law gives: drop k+1 comes interval * x_k after drop k, x_k
// its estimate of 1/sqrt(k) (x_1 = 1, then one Newton step per count), in ms.
std::vector<double> dropSchedule(size_t n, double interval_ms) {
  std::vector<double> at{0};
  double x = 1;
  for (size_t k = 1; k < n; ++k) {
    at.push_back(at.back() + interval_ms * x);
    x = x / 2 * (3 - double(k + 1) * x * x);
  }
  return at;
}

// A standing queue: every frame at the head has waited 20 ms (over the 5 ms target), one
// leaves each 1 ms. No drop for the first interval (100 ms) after the sojourn first went
// above target, then drops on the control law's schedule (interval / sqrt(count)).
TEST(CoDel, DropScheduleOnAStandingQueueFollowsTheControlLaw) {
  const LinkParams p = codel();
  CoDel c;
  std::vector<uint64_t> drops;  // frame numbers = ms since the first frame
  const uint64_t t0 = 1000 * kMs;
  for (uint64_t i = 0; i < 800; ++i)
    if (c.head(p, t0 + i * kMs, 20 * kMs, 100000, false, true, false) == CoDel::Verdict::kDrop)
      drops.push_back(i);
  // first_above is set by frame 0 (t0 + 100 ms); the first frame after it is dropped.
  ASSERT_GE(drops.size(), 10u);
  EXPECT_EQ(drops[0], 101u);
  const std::vector<double> want = dropSchedule(10, 100.0 * 1.024 * 97656 / 100000);
  for (size_t k = 1; k < 10; ++k)  // on the 1-ms grid of the frames
    EXPECT_NEAR(double(drops[k] - drops[0]), std::ceil(want[k]), 1.0) << "drop " << k;
  EXPECT_EQ(c.count(), drops.size());
  EXPECT_TRUE(c.dropping());
}

TEST(CoDel, LeavesTheDroppingStateWhenTheSojournFallsBelowTarget) {
  const LinkParams p = codel();
  CoDel c;
  uint64_t now = 0;
  int drops = 0;
  for (int i = 0; i < 200; ++i, now += kMs)
    drops += c.head(p, now + kMs, 20 * kMs, 100000, false, true, false) == CoDel::Verdict::kDrop;
  ASSERT_GT(drops, 0);
  ASSERT_TRUE(c.dropping());
  EXPECT_EQ(c.head(p, now + kMs, 1 * kMs, 100000, false, true, false), CoDel::Verdict::kPass);
  EXPECT_FALSE(c.dropping());
  // A dequeue that finds the queue empty ends it too: the next frame over target enters it
  // again (count starts over from what the last cycle added) instead of counting on.
  CoDel e;
  for (int i = 0; i < 400; ++i) e.head(p, (i + 1) * kMs, 20 * kMs, 100000, false, true, false);
  ASSERT_TRUE(e.dropping());
  const uint32_t before = e.count();
  ASSERT_GT(before, 3u);
  EXPECT_EQ(e.head(p, 500 * kMs, 20 * kMs, 100000, false, false, true), CoDel::Verdict::kDrop);
  EXPECT_LT(e.count(), before);
  // Below MinBytes nothing is dropped, however long the sojourn.
  CoDel d;
  for (int i = 0; i < 300; ++i)
    EXPECT_EQ(d.head(p, (i + 1) * kMs, 20 * kMs, 1000, false, true, false), CoDel::Verdict::kPass);
}

TEST(CoDel, MarksEcnCapableFramesInsteadOfDropping) {
  LinkParams p = codel();
  p.aqm_ecn = true;
  auto run = [&](bool ect, int* marks, int* drops) {
    CoDel c;
    for (int i = 0; i < 400; ++i) {
      const auto v = c.head(p, (i + 1) * kMs, 20 * kMs, 100000, ect, true, false);
      *marks += v == CoDel::Verdict::kMark;
      *drops += v == CoDel::Verdict::kDrop;
    }
  };
  int marks = 0, drops = 0;
  run(true, &marks, &drops);
  EXPECT_EQ(drops, 0);
  EXPECT_GE(marks, 5);
  // Not ECN-capable: dropped, never marked.
  int m2 = 0, d2 = 0;
  run(false, &m2, &d2);
  EXPECT_EQ(m2, 0);
  EXPECT_GE(d2, 5);
}

// COBALT on the same standing queue, and BLUE's probability: raised when the queue
// overflows, lowered when a dequeue finds it empty, at most once per target.
TEST(Cobalt, DropsOnAStandingQueueAndBlueFollowsOverflowAndEmptiness) {
  LinkParams p = codel();
  p.aqm = LinkParams::Aqm::kCobalt;
  Cobalt c;
  LinkRng rng(7);
  std::vector<uint64_t> drops;
  for (uint64_t i = 0; i < 400; ++i)
    if (c.head(p, (i + 1) * kMs, 20 * kMs, false, rng) == Cobalt::Verdict::kDrop)
      drops.push_back(i);
  ASSERT_GE(drops.size(), 3u);
  // Over target from frame 0: dropping, count 1, and drop_next doubles as an activity
  // timeout that frame 0 sets to its own time (the schedule was due), so frame 1 is
  // dropped; then the control law spaces the drops.
  EXPECT_EQ(drops[0], 1u);
  EXPECT_GT(drops[1] - drops[0], 50u);
  EXPECT_EQ(c.pDrop(), 0.0);
  c.full(p, 500 * kMs);
  EXPECT_DOUBLE_EQ(c.pDrop(), 1.0 / 256);
  c.full(p, 501 * kMs);  // within a target of the last change: unchanged
  EXPECT_DOUBLE_EQ(c.pDrop(), 1.0 / 256);
  c.empty(p, 600 * kMs);
  EXPECT_DOUBLE_EQ(c.pDrop(), 1.0 / 256 - 1.0 / 4096);
  EXPECT_FALSE(c.dropping());
}

TEST(AqmQueue, ABurstThroughTheShaperDropsOnCoDelsScheduleAndDropsTakeNoTime) {
  const LinkParams p = codel(1);
  LinkShaper s(p, 1, LinkShaper::capacityFor(p));
  std::vector<int> dropped;
  for (int i = 0; i < 300; ++i) {
    const auto r = s.admit(1 * kMs, uint64_t(i) << 12, 1000);
    if (r == LinkShaper::Admit::kAqmDrop) {
      dropped.push_back(i);
    } else {
      ASSERT_EQ(r, LinkShaper::Admit::kQueued) << i;
    }
  }
  EXPECT_EQ(s.counters.aqm_drops.load(), dropped.size());
  ASSERT_FALSE(dropped.empty());
  // Frame i (no drop before it) leaves the disc at (i - 1) * 800 us: first over target
  // (5 ms) at i = 8 (sojourn 5.6 ms), so first_above = 5.6 ms + 100 ms; the first drop is
  // the first frame dequeued after 105.6 ms: i - 1 = 133 (106.4 ms).
  EXPECT_EQ(dropped[0], 134);
  // Every frame that passed arrives 800 us after the one before it: drops took no time.
  LinkFrame f[512];
  uint64_t arr[512];
  const uint32_t n = s.release(~0ull, f, arr, 512);
  ASSERT_EQ(n, 300 - dropped.size());
  for (uint32_t k = 1; k < n; ++k) EXPECT_EQ(arr[k] - arr[k - 1], 800 * kUs) << k;
}

TEST(AqmQueue, TheDiscsLimitDropsBeforeEnqueueAndIsCountedAsTheQueues) {
  LinkParams p = codel(1);
  p.aqm_limit_packets = 10;
  LinkShaper s(p, 1, LinkShaper::capacityFor(p));
  int queued = 0, full = 0;
  for (int i = 0; i < 20; ++i) {
    const auto r = s.admit(0, uint64_t(i) << 12, 1000);
    queued += LinkShaper::queued(r);
    full += r == LinkShaper::Admit::kQueueFull;
  }
  // As ns-3: the first frame goes through the disc onto the wire, the second into the
  // device queue (1 frame), the next 10 wait in the disc; the other 8 find it full.
  EXPECT_EQ(queued, 12);
  EXPECT_EQ(full, 8);
  EXPECT_EQ(s.counters.queue_drops.load(), 8u);
  EXPECT_EQ(s.counters.aqm_drops.load(), 0u);
}

TEST(Ecn, MarkingSetsCeAndKeepsTheIpv4ChecksumValid) {
  uint8_t f[60] = {};
  f[12] = 0x08;
  f[13] = 0x00;
  const uint8_t ip[20] = {0x45, 0x02, 0x00, 0x28, 0x12, 0x34, 0x40, 0x00, 0x40, 0x06,
                          0x00, 0x00, 198,  18,   0,    1,    198,  18,   0,    2};
  std::copy(ip, ip + 20, f + 14);
  auto csum = [&]() {
    uint32_t s = 0;
    for (int i = 0; i < 20; i += 2) s += uint32_t(f[14 + i] << 8 | f[15 + i]);
    while (s >> 16) s = (s & 0xffff) + (s >> 16);
    return uint16_t(~s);
  };
  const uint16_t c = csum();
  f[24] = uint8_t(c >> 8);
  f[25] = uint8_t(c);
  ASSERT_TRUE(ecnCapable(f, sizeof f));
  ASSERT_TRUE(markCongestion(f, sizeof f));
  EXPECT_EQ(f[15] & 3, 3);
  EXPECT_EQ(csum(), 0);  // a valid header sums to 0xffff: its complement is 0
  f[15] &= ~3;           // Not-ECT: left alone
  EXPECT_FALSE(markCongestion(f, sizeof f));
}

}  // namespace
}  // namespace fastpath
