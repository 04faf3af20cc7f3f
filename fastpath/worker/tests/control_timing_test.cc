// SPDX-License-Identifier: GPL-2.0-only
// The rules of timed control channels (fastpath/control_timing.h): how fastpathd takes a
// client's send stamp, and which frames may be handed to a client before their arrival.
#include "fastpath/control_timing.h"

#include <gtest/gtest.h>

namespace fastpath {
namespace {

TEST(ClampSentStamp, APastStampInOrderIsKeptAndItsAgeMeasured) {
  const SentStamp s = clampSentStamp(900, 1000, 800);
  EXPECT_EQ(s.sent, 900u);
  EXPECT_EQ(s.age, 100u);
  EXPECT_FALSE(s.future);
  EXPECT_FALSE(s.reordered);
}

TEST(ClampSentStamp, AStampAheadOfTheClockIsNowAndCounted) {
  const SentStamp s = clampSentStamp(1500, 1000, 800);
  EXPECT_EQ(s.sent, 1000u);
  EXPECT_TRUE(s.future);
  EXPECT_EQ(s.age, 0u);
}

TEST(ClampSentStamp, AStampBeforeThePreviousFrameIsThePreviousFramesSoFifoHolds) {
  const SentStamp s = clampSentStamp(700, 1000, 800);
  EXPECT_EQ(s.sent, 800u);
  EXPECT_TRUE(s.reordered);
  EXPECT_EQ(s.age, 200u);
}

TEST(ClampSentStamp, NoStampIsNow) {
  const SentStamp s = clampSentStamp(0, 1000, 800);
  EXPECT_EQ(s.sent, 1000u);
  EXPECT_FALSE(s.future);
  EXPECT_FALSE(s.reordered);
}

TEST(ClampSentStamp, APreviousFrameAheadOfTheClockNeverMakesAFutureSendTime) {
  // (The previous frame was clamped to an earlier clock reading; a clock going back is
  // not possible for CLOCK_MONOTONIC, but the rule must never produce a future time.)
  const SentStamp s = clampSentStamp(900, 1000, 1200);
  EXPECT_LE(s.sent, 1000u);
}

TEST(MayDeliverEarly, OnlyControlFramesForATimedClientWithinItsLead) {
  const uint64_t now = 1000000, lead = 2000;
  EXPECT_TRUE(mayDeliverEarly(now + 2000, now, lead, true, true));
  EXPECT_TRUE(mayDeliverEarly(now + 1, now, lead, true, true));
  EXPECT_FALSE(mayDeliverEarly(now + 2001, now, lead, true, true)) << "beyond the lead";
  EXPECT_FALSE(mayDeliverEarly(now + 100, now, lead, false, true)) << "untimed client";
  EXPECT_FALSE(mayDeliverEarly(now + 100, now, lead, true, false))
      << "a frame the node forwards (or drops) must not leave early";
  EXPECT_FALSE(mayDeliverEarly(now + 100, now, 0, true, true)) << "no lead";
  EXPECT_FALSE(mayDeliverEarly(now, now, lead, true, true)) << "due: the normal release's";
  EXPECT_FALSE(mayDeliverEarly(now - 5, now, lead, true, true)) << "late: the normal release's";
}

}  // namespace
}  // namespace fastpath
