// SPDX-License-Identifier: GPL-2.0-only
// What the per-packet stages of one worker (forwarding, link hand-off, segment fan-out,
// emulation) share: the UMEM and its pool, the ledger of where each frame is (FrameBook),
// and the per-port counters. Every drop goes through drop(), so a drop's counter, the
// frame's return to the pool and the ledger cannot drift apart.
#pragma once

#include <cstdint>
#include <cstring>

#include "fastpath/net_types.h"
#include "worker/worker_counters.h"
#include "xsk/frame_pool.h"
#include "xsk/umem.h"

namespace fastpath {

class WorkerFrames {
 public:
  WorkerFrames(Umem& umem, FrameBook& book, WorkerPortCounters* ports)
      : umem_(umem), book_(book), ports_(ports) {}

  Umem& umem() { return umem_; }
  FramePool& pool() { return umem_.pool(); }
  FrameBook& book() { return book_; }
  uint8_t* data(uint64_t addr) { return umem_.data(addr); }
  WorkerPortCounters& port(PortId p) { return ports_[p]; }

  /// Where a dropped frame was in the ledger.
  enum class From : uint8_t { kHeld, kLink };
  /// Drops one frame: counted at port `at` for `why`, back to the pool.
  void drop(PortId at, WorkerDrop why, uint64_t addr, From from = From::kHeld) {
    count(at, why);
    umem_.pool().give(addr);
    if (from == From::kHeld)
      book_.heldToFree(1);
    else
      book_.linkToFree(1);
  }
  /// A drop that had no frame to give back (none could be taken from the pool).
  void count(PortId at, WorkerDrop why, uint64_t n = 1) { ports_[at].drop[size_t(why)].add(n); }
  /// A free frame holding a copy of `len` bytes of `src` (held); false: the pool is empty.
  bool copyOf(const uint8_t* src, uint32_t len, uint64_t* out) {
    if (!umem_.pool().take(out)) return false;
    book_.takenFromPool(1);
    std::memcpy(umem_.data(*out), src, len);
    return true;
  }

 private:
  Umem& umem_;
  FrameBook& book_;
  WorkerPortCounters* ports_;
};

}  // namespace fastpath
