// SPDX-License-Identifier: GPL-2.0-only
// Frames in flight on one direction of an internal link, inside one worker: transmitting
// on a link port pushes the frame's descriptor here, and the worker receives it at the
// peer end on its next pass. Both ends of a link are served by the same worker, so the
// queue has one thread on both sides: no atomics on the data path, no copy, no syscall.
// The queue's objects are pooled by the daemon and never freed while workers run, so a
// worker may drain a queue of a deleted link after it switched to a table without it.
#pragma once

#include <cstdint>
#include <vector>

#include "link/retirable.h"

namespace fastpath {

/// The verdict the receiving port's classifier gave a frame handed over ahead of its
/// arrival time (worker/worker_timed.h): the port does not classify it again. Only CONTROL
/// verdicts are carried; a frame without one is classified at the port.
struct CarriedVerdict {
  bool control = false;  ///< a CONTROL verdict is carried
  uint8_t reason = 0;    ///< its enum fp_reason
  uint8_t l3_proto = 0;  ///< FP_L3_*
  uint8_t l4_proto = 0;  ///< IPPROTO_* of the transport header, 0 if none
};

struct LinkFrame {
  uint64_t addr;
  uint32_t len;
  uint32_t from = 0;  ///< segments: the port that sent it (fan-out skips it); links: unused
  /// Emulated frames: the arrival time the link model gave it (CLOCK_MONOTONIC ns); the
  /// worker reports its lateness against it once the peer end has handed it on. 0: not
  /// emulated.
  uint64_t due = 0;
  CarriedVerdict verdict{};  ///< frames handed over early: their receiver's verdict
};
// The carried verdict takes 4 bytes and the alignment pads them to 8: 32 bytes a frame.
static_assert(sizeof(LinkFrame) == 32);

/// Deleting a link retires its queues (Retirable): the worker discards what is queued
/// (counted) before the daemon reuses them.
class LinkQueue : public Retirable {
 public:
  /// `capacity`: a power of two; frames beyond it are counted drops (link_queue_full).
  explicit LinkQueue(uint32_t capacity) : ring_(capacity), mask_(capacity - 1) {}
  LinkQueue(const LinkQueue&) = delete;
  LinkQueue& operator=(const LinkQueue&) = delete;

  bool push(uint64_t addr, uint32_t len) { return push(LinkFrame{addr, len, 0, 0}); }
  bool push(const LinkFrame& f) {
    if (tail_ - head_ == ring_.size()) return false;
    ring_[tail_++ & mask_] = f;
    return true;
  }
  /// Takes up to `max` frames, oldest first.
  uint32_t pop(LinkFrame* out, uint32_t max) {
    uint32_t n = 0;
    while (n < max && head_ != tail_) out[n++] = ring_[head_++ & mask_];
    return n;
  }
  uint32_t size() const { return uint32_t(tail_ - head_); }
  uint32_t capacity() const { return uint32_t(ring_.size()); }
  /// Control thread, only while no worker can reach the queue (drained).
  void reset() { head_ = tail_ = 0; }

 private:
  std::vector<LinkFrame> ring_;
  uint64_t mask_;
  uint64_t head_ = 0, tail_ = 0;
};

}  // namespace fastpath
