// SPDX-License-Identifier: GPL-2.0-only
// Frame pool and frame ledger under synthetic bursts: frames move between the pool,
// model fill/RX/TX/completion rings and a model kernel exactly as the worker moves them;
// after every step the ledger must balance and no frame may be duplicated or lost.
#include <gtest/gtest.h>

#include <deque>
#include <random>
#include <set>

#include "xsk/frame_pool.h"
#include "xsk/umem.h"

namespace fastpath {
namespace {

constexpr uint32_t kFrameSize = 2048;

TEST(FramePool, TakeGiveLifoAndBounds) {
  FramePool pool(4, kFrameSize);
  EXPECT_EQ(pool.available(), 4u);
  std::set<uint64_t> got;
  uint64_t a;
  while (pool.take(&a)) got.insert(a);
  EXPECT_EQ(got, (std::set<uint64_t>{0, 2048, 4096, 6144}));
  EXPECT_FALSE(pool.take(&a));
  // Addresses inside a frame (RX descriptors carry an offset) come back as the chunk base.
  EXPECT_TRUE(pool.give(4096 + 256));
  ASSERT_TRUE(pool.take(&a));
  EXPECT_EQ(a, 4096u);
  for (uint64_t x : {0, 2048, 4096, 6144}) EXPECT_TRUE(pool.give(x));
  EXPECT_FALSE(pool.give(0)) << "a fifth frame in a 4-frame pool must be refused";
}

struct ModelPort {
  std::deque<uint64_t> fill, rx, tx, comp;
  std::deque<uint64_t> kernel_rx, kernel_tx;  // taken by the kernel, not yet posted
};

TEST(FrameBook, SyntheticBurstsKeepTheLedgerBalanced) {
  constexpr uint32_t kFrames = 1024, kRing = 256, kBatch = 64;
  FramePool pool(kFrames, kFrameSize);
  FrameBook book(&pool);
  ModelPort ports[2];
  std::mt19937 rng(7);
  uint64_t forwarded = 0, dropped = 0;

  auto check = [&](int step) {
    FrameAccounting a = book.snapshot();
    for (auto& p : ports) {
      a.fill_ring += p.fill.size();
      a.rx_ring += p.rx.size();
      a.tx_ring += p.tx.size();
      a.comp_ring += p.comp.size();
    }
    ASSERT_TRUE(a.balanced()) << "step " << step << ": free " << a.free << " lent_rx " << a.lent_rx
                              << " lent_tx " << a.lent_tx << " held " << a.held;
    uint64_t in_kernel = 0;
    for (auto& p : ports) in_kernel += p.kernel_rx.size() + p.kernel_tx.size();
    ASSERT_EQ(a.inKernel(), int64_t(in_kernel)) << "step " << step;
  };

  for (int step = 0; step < 20000; ++step) {
    // Kernel side: random bursts take fill entries, post some to RX, transmit TX entries.
    for (auto& p : ports) {
      uint32_t n = rng() % (kBatch * 2);
      for (uint32_t i = 0; i < n && !p.fill.empty(); ++i) {
        p.kernel_rx.push_back(p.fill.front());
        p.fill.pop_front();
      }
      n = rng() % (kBatch * 2);
      for (uint32_t i = 0; i < n && !p.kernel_rx.empty() && p.rx.size() < kRing; ++i) {
        p.rx.push_back(p.kernel_rx.front() + 256);  // RX addresses carry the headroom
        p.kernel_rx.pop_front();
      }
      n = rng() % kBatch;
      for (uint32_t i = 0; i < n && !p.tx.empty(); ++i) {
        p.kernel_tx.push_back(p.tx.front());
        p.tx.pop_front();
      }
      n = rng() % kBatch;
      for (uint32_t i = 0; i < n && !p.kernel_tx.empty() && p.comp.size() < kRing; ++i) {
        p.comp.push_back(p.kernel_tx.front());
        p.kernel_tx.pop_front();
      }
    }
    // Worker side, in the worker's order: completions, refill, RX -> other port's TX.
    for (auto& p : ports) {
      uint32_t n = 0;
      while (!p.comp.empty() && n < kBatch) {
        ASSERT_TRUE(pool.give(p.comp.front()));
        p.comp.pop_front();
        ++n;
      }
      book.completed(n);
    }
    for (auto& p : ports) {
      uint32_t room = kRing - uint32_t(p.fill.size());
      uint32_t n = 0;
      uint64_t a;
      while (n < room && pool.take(&a)) {
        p.fill.push_back(a);
        ++n;
      }
      book.lentForRx(n);
    }
    for (int i = 0; i < 2; ++i) {
      auto& in = ports[i];
      auto& out = ports[1 - i];
      uint32_t n = std::min<uint32_t>(kBatch, uint32_t(in.rx.size()));
      book.receivedFromRx(n);
      for (uint32_t k = 0; k < n; ++k) {
        uint64_t a = in.rx.front();
        in.rx.pop_front();
        if (out.tx.size() < kRing && rng() % 8) {
          out.tx.push_back(a);
          book.heldToTx(1);
          ++forwarded;
        } else {
          ASSERT_TRUE(pool.give(a));
          book.heldToFree(1);
          ++dropped;
        }
      }
    }
    check(step);
  }
  EXPECT_GT(forwarded, 100000u);
  EXPECT_GT(dropped, 1000u);
  // Every frame is accounted for exactly once: collect all addresses.
  std::multiset<uint64_t> all;
  uint64_t a;
  while (pool.take(&a)) all.insert(a);
  for (auto& p : ports)
    for (auto* q : {&p.fill, &p.rx, &p.tx, &p.comp, &p.kernel_rx, &p.kernel_tx})
      for (uint64_t x : *q) all.insert(x - x % kFrameSize);
  EXPECT_EQ(all.size(), kFrames);
  EXPECT_EQ(std::set<uint64_t>(all.begin(), all.end()).size(), kFrames) << "duplicated frame";
}

TEST(Umem, CreatesWithoutTouchingAnyInterface) {
  UmemOptions o;
  o.frames = 256;
  o.fill_size = 64;
  o.comp_size = 64;
  auto u = Umem::create(o);
  if (!u.ok()) GTEST_SKIP() << "AF_XDP sockets unavailable: " << u.error().message;
  EXPECT_EQ((*u)->pool().capacity(), 256u);
  EXPECT_EQ((*u)->size(), 256u * 4096u);
  o.frame_size = 3000;
  EXPECT_FALSE(Umem::create(o).ok()) << "frame size 3000 must be refused";
}

}  // namespace
}  // namespace fastpath
