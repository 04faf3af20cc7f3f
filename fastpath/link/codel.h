// SPDX-License-Identifier: GPL-2.0-only
// CoDel (RFC 8289) as ns-3's CoDelQueueDisc runs it, one decision per frame at the head of
// the queue. ns-3 takes these decisions when the device asks for a packet; an emulated
// link's queue is FIFO with a known service time, so the worker knows at admission when the
// frame will reach the head (its dequeue time) and how long it will have waited, and runs
// the same state machine then, in the same order and with the same times (aqm_queue.h).
//
// The arithmetic is ns-3's: times in CoDel's units of 1024 ns, the drop spacing
// interval / sqrt(count) from a 16-bit reciprocal square root kept by Newton steps, the
// count carried over when the dropping state is re-entered soon after it was left.
#pragma once

#include <cstdint>

#include "fastpath/link_params.h"

namespace fastpath {

class CoDel {
 public:
  enum class Verdict : uint8_t {
    kPass,  ///< sent on
    kDrop,  ///< dropped at the head (takes no time on the link)
    kMark,  ///< sent on with ECN's CE set (the frame is ECN-capable and ECN is on)
  };
  /// The frame at the head at `now` (ns) after `sojourn` ns in the queue, `bytes_behind`
  /// bytes waiting behind it, `ect`: ECN-capable. `waited`: the frame was already queued
  /// when the frame before it left (a drop's caller dequeues it at once); `emptied`: since
  /// then a dequeue found the queue empty (which ends the dropping state, as in ns-3).
  Verdict head(const LinkParams& p, uint64_t now, uint64_t sojourn, uint64_t bytes_behind,
               bool ect, bool waited, bool emptied);

  uint32_t count() const { return count_; }
  bool dropping() const { return dropping_; }
  /// The next drop time in CoDel's units (ns >> 10).
  uint64_t dropNext() const { return drop_next_; }

  /// Linux's and ns-3's fixed-point steps, exposed for their tests: the reciprocal square
  /// root of `count` refined once from `rec` (Q0.16), and t + interval * rec.
  static uint16_t newtonStep(uint16_t rec, uint32_t count);
  static uint64_t controlLaw(uint64_t t, uint64_t interval, uint16_t rec);

 private:
  enum class Pending : uint8_t { kNone, kEnter, kLoop };
  bool okToDrop(uint64_t now, uint64_t sojourn, uint64_t bytes_behind);
  Verdict dropAgain(uint64_t now, bool ecn);
  Verdict sent(uint64_t sojourn, bool ect) const;

  const LinkParams* p_ = nullptr;  // the parameters of the current call
  uint32_t count_ = 0, last_count_ = 0;
  bool dropping_ = false;
  uint16_t rec_inv_sqrt_ = 0xffff;
  uint64_t first_above_ = 0, drop_next_ = 0;  // CoDel units
  // The previous frame was dropped in the middle of a dequeue: the next frame, if it was
  // queued then, is taken in the same dequeue (after entering the dropping state, or in
  // its drop loop).
  Pending pending_ = Pending::kNone;
};

}  // namespace fastpath
