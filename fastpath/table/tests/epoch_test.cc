// SPDX-License-Identifier: GPL-2.0-only
// QSBR epochs: synchronize waits for online readers, ignores offline ones, times out on a
// stuck one without freeing anything, and protects a published pointer under real
// concurrency (the reader checks the object it holds was not reclaimed).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "table/epoch.h"

namespace fastpath {
namespace {

using namespace std::chrono_literals;

TEST(Epoch, NoReadersSynchronizesAndReclaims) {
  EpochDomain d;
  int freed = 0;
  d.retire([&] { ++freed; });
  EXPECT_EQ(d.pendingRetired(), 1u);
  EXPECT_TRUE(d.synchronize(10ms));
  EXPECT_EQ(freed, 1);
  EXPECT_EQ(d.counters().reclaimed, 1u);
}

TEST(Epoch, StuckReaderTimesOutAndKeepsMemory) {
  EpochDomain d;
  auto id = d.registerReader("stuck");
  ASSERT_TRUE(id.ok());
  int freed = 0;
  d.retire([&] { ++freed; });
  EXPECT_FALSE(d.synchronize(20ms));  // registered online, never quiescent
  EXPECT_EQ(freed, 0);
  EXPECT_EQ(d.counters().timeouts, 1u);
  // A quiescent state counts only if it happens after synchronize() started: a live
  // worker loop provides that.
  std::atomic<bool> stop{false};
  std::thread worker([&] {
    while (!stop.load()) {
      d.quiescent(*id);
      std::this_thread::yield();
    }
  });
  EXPECT_TRUE(d.synchronize(5000ms));
  EXPECT_EQ(freed, 1);
  stop = true;
  worker.join();
  // Offline readers do not block; online() makes them count again.
  d.offline(*id);
  EXPECT_TRUE(d.synchronize(20ms));
  d.online(*id);
  EXPECT_FALSE(d.synchronize(20ms));
  d.unregisterReader(*id);
  EXPECT_TRUE(d.synchronize(20ms));
  EXPECT_EQ(d.counters().readers, 0u);
}

TEST(Epoch, RegistrationIsBounded) {
  EpochDomain d;
  std::vector<EpochDomain::ReaderId> ids;
  for (unsigned i = 0; i < EpochDomain::kMaxReaders; ++i) {
    auto id = d.registerReader("w" + std::to_string(i));
    ASSERT_TRUE(id.ok());
    ids.push_back(*id);
  }
  auto extra = d.registerReader("one-too-many");
  ASSERT_FALSE(extra.ok());
  EXPECT_NE(extra.error().message.find("one-too-many"), std::string::npos);
  d.unregisterReader(ids[3]);
  EXPECT_TRUE(d.registerReader("again").ok());
}

struct Box {
  std::atomic<uint64_t> magic{0x600dull};
  uint64_t value = 0;
};

TEST(Epoch, PublishedPointerIsNeverReclaimedUnderAReader) {
  EpochDomain d;
  std::atomic<Box*> current{new Box};
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> bad{0}, reads{0};
  std::atomic<uint64_t> batches{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 1; ++t) {
    readers.emplace_back([&] {
      EpochReader r(d, "reader");
      uint64_t n = 0, last = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        // Hold the pointer for a whole "batch", as a worker does, re-checking it.
        Box* b = current.load(std::memory_order_acquire);
        if (b->value < last) ++bad;  // versions only move forward for one reader
        last = b->value;
        for (int j = 0; j < 4096; ++j, ++n)
          if (b->magic.load(std::memory_order_relaxed) != 0x600d) ++bad;
        r.quiescent();
        ++batches;
        if ((n & 1023) == 0) {  // go offline now and then, like a worker about to poll()
          r.offline();
          std::this_thread::yield();
          r.online();
        }
      }
      reads += n;
    });
  }
  while (batches.load() == 0) std::this_thread::yield();
  std::vector<Box*> graveyard;  // poisoned instead of freed, so a late read sees the poison
  // At least 3000 versions, and enough reader batches to overlap them.
  for (uint64_t v = 1; v < 1000000 && (v <= 3000 || batches.load() < 3000); ++v) {
    Box* next = new Box;
    next->value = v;
    Box* old = current.exchange(next, std::memory_order_acq_rel);
    d.retire([old, &graveyard] {
      old->magic.store(0xdead, std::memory_order_relaxed);
      graveyard.push_back(old);
    });
    ASSERT_TRUE(d.synchronize(5000ms));
  }
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(bad.load(), 0u);
  EXPECT_GT(reads.load(), 0u);
  for (Box* b : graveyard) delete b;
  delete current.load();
}

}  // namespace
}  // namespace fastpath
