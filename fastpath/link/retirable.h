// SPDX-License-Identifier: GPL-2.0-only
// The hand-back of an object a worker may still hold frames in — a deleted link's queue,
// a deleted shaper, or one replaced by a larger successor — from the worker to the
// control thread. One protocol for all of them:
//   control thread: retire(), then name the object in the next LinkPortTable's retired
//                   lists and publish the table (the publication orders the two);
//   worker:         on switching to that table, empties the object (frames discarded and
//                   counted, or moved into the successor) and calls markDrained();
//   control thread: once drained() (after an epoch), reuses or frees the object.
#pragma once

#include <atomic>

namespace fastpath {

class Retirable {
 public:
  /// Control thread: the object leaves the tables; a worker must drain it before reuse.
  void retire() { drained_.store(false, std::memory_order_relaxed); }
  /// Worker: everything it held of the object is gone (a second call is harmless).
  void markDrained() { drained_.store(true, std::memory_order_release); }
  /// Control thread: the worker has drained it (true for an object never retired).
  bool drained() const { return drained_.load(std::memory_order_acquire); }

 private:
  std::atomic<bool> drained_{true};
};

}  // namespace fastpath
