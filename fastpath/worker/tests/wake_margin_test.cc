// SPDX-License-Identifier: GPL-2.0-only
// WakeMargin: how early a worker asks to be woken for an emulated arrival follows the
// overshoot of its recent wake-ups (their 90th percentile), within its bound.
#include "worker/wake_margin.h"

#include <gtest/gtest.h>

namespace fastpath {
namespace {

TEST(WakeMargin, StartsAtItsBoundUntilWakeUpsAreMeasured) {
  WakeMargin m(150000);
  EXPECT_EQ(m.ns(), 150000u);
}

TEST(WakeMargin, FollowsTheNinetiethPercentileOfRecentOvershoots) {
  WakeMargin m(150000);
  // 32 wake-ups: 28 late by 30 us, 4 by 60 us. Three of 32 may overshoot the margin.
  for (unsigned i = 0; i < WakeMargin::kWindow; ++i)
    m.record(1000000, 1000000 + (i % 8 == 0 ? 60000 : 30000));
  EXPECT_EQ(m.ns(), 60000u) << "4 of 32 over the margin: more than 10 % would wake late";
  for (unsigned i = 0; i < WakeMargin::kWindow; ++i) m.record(1000000, 1000000 + 30000);
  EXPECT_EQ(m.ns(), 30000u) << "the old wake-ups left the window";
}

TEST(WakeMargin, ATickLateWakeUpIsBoundedAndEarlyOnesCountAsZero) {
  WakeMargin m(150000);
  for (unsigned i = 0; i < WakeMargin::kWindow; ++i) m.record(1000000, 1000000 + 4000000);
  EXPECT_EQ(m.ns(), 150000u) << "never spins longer than the bound";
  for (unsigned i = 0; i < WakeMargin::kWindow; ++i) m.record(1000000, 999000);
  EXPECT_EQ(m.ns(), 0u) << "an early wake-up is no overshoot";
}

TEST(SpinBudget, SpinsTakeNoMoreThanTheirShareOfTheTime) {
  SpinBudget b(250, 2000000);  // a quarter, saved up to 2 ms
  uint64_t now = 1000000000;
  ASSERT_TRUE(b.allows(now));
  b.spend(2000000);  // the whole burst at once
  EXPECT_FALSE(b.allows(now)) << "spent: sleep";
  now += 4000000;  // 4 ms later: 1 ms earned
  EXPECT_TRUE(b.allows(now));
  // Spinning all the time from here: over 100 ms, at most a quarter of it plus the burst.
  uint64_t spun = 0;
  for (int i = 0; i < 10000; ++i) {
    now += 10000;
    if (b.allows(now)) {
      b.spend(10000);
      spun += 10000;
    }
  }
  EXPECT_LE(spun, 100000000 / 4 + 2000000 + 10000);
  EXPECT_GE(spun, 100000000 / 4 - 10000) << "the share is not given";
}

TEST(SpinBudget, SavesNoMoreThanItsBurst) {
  SpinBudget b(250, 2000000);
  ASSERT_TRUE(b.allows(1000000000));
  EXPECT_TRUE(b.allows(1000000000 + 60000000000ull));  // a minute idle
  b.spend(2000000);
  EXPECT_FALSE(b.allows(1000000000 + 60000000000ull)) << "a long idle time saved more";
}

TEST(ArrivalSleep, WithinTheBudgetItWakesTheMarginBeforeTheArrival) {
  EXPECT_EQ(arrivalSleepNs(500000, 40000, true), 460000u);
  EXPECT_EQ(arrivalSleepNs(30000, 40000, true), 0u) << "nearer than the margin: spin";
}

TEST(ArrivalSleep, OverTheBudgetItSleepsAtLeastTheMarginNotUntilEachArrival) {
  // Arrivals 2 us apart: one wake-up per arrival would keep the CPU busy.
  EXPECT_EQ(arrivalSleepNs(2000, 40000, false), 40000u);
  EXPECT_EQ(arrivalSleepNs(0, 40000, false), 40000u);
  EXPECT_EQ(arrivalSleepNs(500000, 40000, false), 500000u) << "a far arrival: until it";
}

}  // namespace
}  // namespace fastpath
