// SPDX-License-Identifier: GPL-2.0-only
// BatchSendTimes (rx_batch.h): the arrival times of the batch being processed, answered by
// frame address while its scope is open, in batch order; 0 (now) outside the scope, for a
// frame that is not the batch's, and for one asked after a later frame was answered.
#include "worker/rx_batch.h"

#include <gtest/gtest.h>

#include <vector>

namespace fastpath {
namespace {

std::vector<RxFrame> batchOf(std::initializer_list<std::pair<uint64_t, uint64_t>> addr_sent) {
  std::vector<RxFrame> out;
  for (const auto& [addr, sent] : addr_sent) {
    RxFrame f{};
    f.addr = addr;
    f.sent = sent;
    out.push_back(f);
  }
  return out;
}

TEST(BatchSendTimes, AnswersTheBatchsFramesInOrderWhileOpen) {
  BatchSendTimes times;
  const auto batch = batchOf({{0x1000, 11}, {0x2000, 0}, {0x3000, 33}, {0x4000, 44}});
  {
    const BatchSendTimes::Scope open(times, batch);
    EXPECT_TRUE(times.open());
    EXPECT_EQ(times.sentAt(0x1000), 11u);
    EXPECT_EQ(times.sentAt(0x2000), 0u);  // a frame without a stamp: now
    // A frame that was dropped in between is skipped over: the next one is still found.
    EXPECT_EQ(times.sentAt(0x4000), 44u);
  }
  EXPECT_FALSE(times.open());
}

TEST(BatchSendTimes, ClosedOrUnknownFramesAreSentNow) {
  BatchSendTimes times;
  const auto batch = batchOf({{0x1000, 11}, {0x2000, 22}});
  EXPECT_EQ(times.sentAt(0x1000), 0u);  // no batch open
  {
    const BatchSendTimes::Scope open(times, batch);
    // Not one of the batch's frames (a copy made for a client frame): now. The search
    // ran to the end, so the batch's own frames are behind it too.
    EXPECT_EQ(times.sentAt(0x9000), 0u);
    EXPECT_EQ(times.sentAt(0x2000), 0u);
  }
  // The scope closed: the batch's frames are no longer answered, even at their addresses.
  EXPECT_EQ(times.sentAt(0x1000), 0u);
}

TEST(BatchSendTimes, EachBatchStartsFromItsFirstFrame) {
  BatchSendTimes times;
  const auto first = batchOf({{0x1000, 11}, {0x2000, 22}});
  const auto second = batchOf({{0x1000, 111}, {0x2000, 222}});
  {
    const BatchSendTimes::Scope open(times, first);
    EXPECT_EQ(times.sentAt(0x2000), 22u);
  }
  {
    const BatchSendTimes::Scope open(times, second);
    EXPECT_EQ(times.sentAt(0x1000), 111u);  // from the start again, with this batch's times
    EXPECT_EQ(times.sentAt(0x2000), 222u);
  }
}

TEST(BatchSendTimes, ABatchOpenedInsideAnotherHandsTheCursorBack) {
  BatchSendTimes times;
  const auto outer = batchOf({{0x1000, 11}, {0x2000, 22}, {0x3000, 33}});
  const auto inner = batchOf({{0x4000, 44}, {0x5000, 55}});
  const BatchSendTimes::Scope open(times, outer);
  EXPECT_EQ(times.sentAt(0x1000), 11u);
  {
    const BatchSendTimes::Scope nested(times, inner);
    EXPECT_EQ(times.sentAt(0x4000), 44u);
    EXPECT_EQ(times.sentAt(0x5000), 55u);
  }
  // The outer batch's cursor is where it stood: its remaining frames keep their times.
  EXPECT_EQ(times.sentAt(0x2000), 22u);
  EXPECT_EQ(times.sentAt(0x3000), 33u);
}

TEST(BatchSendTimes, AnAddressTwiceInABatchIsAnsweredInTurn) {
  // A frame address comes back to the pool and can be received again within one batch of
  // a link port (dropped at the peer, refilled, received): each use has its own time.
  BatchSendTimes times;
  const auto batch = batchOf({{0x1000, 5}, {0x2000, 6}, {0x1000, 7}});
  const BatchSendTimes::Scope open(times, batch);
  EXPECT_EQ(times.sentAt(0x1000), 5u);
  EXPECT_EQ(times.sentAt(0x1000), 7u);
}

}  // namespace
}  // namespace fastpath
