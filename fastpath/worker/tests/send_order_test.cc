// SPDX-License-Identifier: GPL-2.0-only
// orderBySent (send_order.h): a pass's client frames, queued channel after channel, put in
// send-stamp order across channels; equal stamps and frames without a stamp keep their queue
// order; a batch in order already is left as it is and says so.
#include "worker/send_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <vector>

namespace fastpath {
namespace {

struct Batch {
  std::vector<std::unique_ptr<ControlTxFrame>> frames;
  std::vector<ControlTxFrame*> view;
  // A frame of `port` stamped `sent`; its queue position goes into len to tell it apart.
  void add(PortId port, uint64_t sent) {
    auto f = std::make_unique<ControlTxFrame>();
    f->port = port;
    f->sent = sent;
    f->len = uint32_t(frames.size());
    view.push_back(f.get());
    frames.push_back(std::move(f));
  }
  std::vector<uint32_t> positions() const {
    std::vector<uint32_t> out;
    for (const ControlTxFrame* f : view) out.push_back(f->len);
    return out;
  }
  bool order() { return orderBySent(std::span<ControlTxFrame*>(view.data(), view.size())); }
};

TEST(SendOrderTest, TwoChannelsQueuedOneAfterTheOtherAreMergedBySendTime) {
  Batch b;
  b.add(1, 100);  // channel 1: 100, 300, 500
  b.add(1, 300);
  b.add(1, 500);
  b.add(2, 200);  // channel 2: 200, 400
  b.add(2, 400);
  EXPECT_TRUE(b.order());
  EXPECT_EQ(b.positions(), (std::vector<uint32_t>{0, 3, 1, 4, 2}));
}

TEST(SendOrderTest, EqualStampsKeepTheQueueOrder) {
  Batch b;
  b.add(1, 100);
  b.add(1, 200);
  b.add(2, 100);  // the simulator wrote port 1's first: it stays first
  b.add(2, 200);
  EXPECT_TRUE(b.order());
  EXPECT_EQ(b.positions(), (std::vector<uint32_t>{0, 2, 1, 3}));
}

TEST(SendOrderTest, FramesWithoutAStampGoAfterTheStampedOnesInTheirOrder) {
  Batch b;
  b.add(1, 0);  // an untimed channel: sent when taken, after every stamp of the batch
  b.add(2, 500);
  b.add(1, 0);
  b.add(2, 600);
  EXPECT_TRUE(b.order());
  EXPECT_EQ(b.positions(), (std::vector<uint32_t>{1, 3, 0, 2}));
}

TEST(SendOrderTest, ABatchInOrderIsLeftAsItIs) {
  Batch one;
  for (uint64_t t : {100, 100, 250, 900}) one.add(7, t);  // one channel: always in order
  EXPECT_FALSE(one.order());
  EXPECT_EQ(one.positions(), (std::vector<uint32_t>{0, 1, 2, 3}));
  Batch empty;
  EXPECT_FALSE(empty.order());
}

// Seeded: any interleaving of per-channel ordered runs comes out sorted by stamp, and
// stable (equal stamps in queue order), as std::stable_sort would give it.
TEST(SendOrderTest, RandomRunsComeOutAsAStableSort) {
  std::mt19937_64 rng(21);
  for (int round = 0; round < 200; ++round) {
    Batch b;
    const int channels = 1 + int(rng() % 4);
    for (int c = 0; c < channels; ++c) {
      uint64_t t = 1 + rng() % 50;
      const int n = int(rng() % 20);
      for (int i = 0; i < n; ++i) {
        b.add(PortId(c), rng() % 5 == 0 ? 0 : t);
        t += rng() % 3;  // equal stamps happen
      }
    }
    std::vector<ControlTxFrame*> want = b.view;
    std::stable_sort(want.begin(), want.end(), [](const ControlTxFrame* x, const ControlTxFrame* y) {
      return sendKey(*x) < sendKey(*y);
    });
    b.order();
    ASSERT_EQ(b.view, want) << "round " << round;
  }
}

}  // namespace
}  // namespace fastpath
