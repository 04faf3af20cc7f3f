// SPDX-License-Identifier: GPL-2.0-only
// RxBudget: what the worker lends the kernel for receiving, below saturation and under
// overload, and what counts as an overload (drops or a standing queue that persist, not a
// stall's one window of them).
#include "worker/rx_budget.h"

#include <gtest/gtest.h>

namespace fastpath {
namespace {

constexpr uint64_t kMs = 1000000;

/// A budget of 500 µs at a measured drain rate of 700k frames/s: 350 frames under
/// overload, 1,400 below saturation.
RxBudget measured() {
  RxBudget b(500, 128, 4096);
  b.addBusy(1400, 2 * kMs);
  EXPECT_EQ(b.ratePps(), 700000u);
  EXPECT_EQ(b.budgetTarget(), 350u);
  EXPECT_EQ(b.target(), 1400u);
  return b;
}

TEST(RxBudget, AStallsWindowOfDropsAndBacklogIsNoOverload) {
  RxBudget b = measured();
  uint64_t now = 10 * kMs;
  // 100k frames/s arriving; the worker 7 ms away: one window with drops and a backlog over
  // the budget, the next with the backlog draining, then clean windows.
  b.addWindow(now += 2 * kMs, 200, 20, 900);
  EXPECT_FALSE(b.overloaded());
  b.addWindow(now += 2 * kMs, 200, 0, 400);
  EXPECT_FALSE(b.overloaded());
  for (int i = 0; i < 10; ++i) b.addWindow(now += 2 * kMs, 200, 0, 0);
  EXPECT_FALSE(b.overloaded());
  EXPECT_EQ(b.target(), 1400u) << "a stall must not shrink what is lent";
  // Stalls that keep coming, each a window apart, are not one either.
  for (int i = 0; i < 10; ++i) {
    b.addWindow(now += 2 * kMs, 200, 20, 900);
    b.addWindow(now += 2 * kMs, 200, 0, 0);
  }
  EXPECT_FALSE(b.overloaded());
}

TEST(RxBudget, DropsInThreeWindowsInARowAreAnOverloadUntilTheHoldEnds) {
  RxBudget b = measured();
  uint64_t now = 10 * kMs;
  b.addWindow(now += 2 * kMs, 2000, 600, 0);
  b.addWindow(now += 2 * kMs, 2000, 600, 0);
  EXPECT_FALSE(b.overloaded());
  b.addWindow(now += 2 * kMs, 2000, 600, 0);
  EXPECT_TRUE(b.overloaded());
  EXPECT_EQ(b.target(), 350u);
  // Drops below 1 in 1,000 are none; the hold (200 ms) outlasts them.
  b.addWindow(now += 2 * kMs, 2000, 1, 0);
  EXPECT_TRUE(b.overloaded());
  b.addWindow(now += 195 * kMs, 2000, 0, 0);  // 197 ms after the third window
  EXPECT_TRUE(b.overloaded());
  b.addWindow(now += 4 * kMs, 2000, 0, 0);
  EXPECT_FALSE(b.overloaded());
  EXPECT_EQ(b.target(), 1400u);
}

TEST(RxBudget, AStandingQueueInThreeWindowsInARowIsAnOverload) {
  RxBudget b = measured();
  uint64_t now = 10 * kMs;
  for (int i = 0; i < 2; ++i) b.addWindow(now += 2 * kMs, 1400, 0, 351);
  EXPECT_FALSE(b.overloaded());
  b.addWindow(now += 2 * kMs, 1400, 0, 351);
  EXPECT_TRUE(b.overloaded());
  // A backlog at the budget is no standing queue.
  RxBudget c = measured();
  for (int i = 0; i < 5; ++i) c.addWindow(now += 2 * kMs, 1400, 0, 350);
  EXPECT_FALSE(c.overloaded());
}

TEST(RxBudget, WithoutABudgetNothingIsEverAnOverload) {
  RxBudget b(0, 128, 4096);
  b.addBusy(1400, 2 * kMs);
  uint64_t now = 10 * kMs;
  for (int i = 0; i < 5; ++i) b.addWindow(now += 2 * kMs, 2000, 600, 4000);
  EXPECT_FALSE(b.overloaded());
  EXPECT_EQ(b.target(), 4096u);
}

}  // namespace
}  // namespace fastpath
