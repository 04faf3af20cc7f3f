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

}  // namespace
}  // namespace fastpath
