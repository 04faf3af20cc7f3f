// SPDX-License-Identifier: GPL-2.0-only
// Where a worker's UMEM frames are, as the worker last published it: a seqlock (the worker
// writes once per pass, any thread reads a consistent snapshot) over the frame ledger's
// figures, so the control thread sees a balanced ledger without stopping the worker.
#pragma once

#include <atomic>
#include <cstdint>

#include "xsk/frame_pool.h"

namespace fastpath {

class AccountingSnapshot {
 public:
  /// Worker thread.
  void publish(const FramePool& pool, const FrameBook& book) {
    const uint64_t s = seq_.load(std::memory_order_relaxed);
    seq_.store(s + 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    free_.store(pool.available(), std::memory_order_relaxed);
    lent_rx_.store(book.lentRx(), std::memory_order_relaxed);
    lent_tx_.store(book.lentTx(), std::memory_order_relaxed);
    held_.store(book.held(), std::memory_order_relaxed);
    in_link_.store(book.inLink(), std::memory_order_relaxed);
    seq_.store(s + 2, std::memory_order_release);
  }
  /// Any thread: fills free, lent_rx, lent_tx, held and in_link of `a`.
  void read(FrameAccounting* a) const {
    for (;;) {
      const uint64_t s1 = seq_.load(std::memory_order_acquire);
      if (s1 & 1) continue;
      a->free = free_.load(std::memory_order_relaxed);
      a->lent_rx = lent_rx_.load(std::memory_order_relaxed);
      a->lent_tx = lent_tx_.load(std::memory_order_relaxed);
      a->held = held_.load(std::memory_order_relaxed);
      a->in_link = in_link_.load(std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_acquire);
      if (seq_.load(std::memory_order_relaxed) == s1) return;
    }
  }

 private:
  std::atomic<uint64_t> seq_{0};
  std::atomic<uint64_t> free_{0}, lent_rx_{0}, lent_tx_{0}, held_{0}, in_link_{0};
};

}  // namespace fastpath
