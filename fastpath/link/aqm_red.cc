// SPDX-License-Identifier: GPL-2.0-only
// The queue disc's admission for RED (aqm_queue.h): ns-3's RedQueueDisc decides at
// enqueue, so the decision is taken at the frame's arrival, with the frames then still
// in the disc (their dequeue times are later) and, when the disc was idle, the time a
// dequeue last found it empty.
#include <algorithm>

#include "link/aqm_queue.h"

namespace fastpath {

AqmQueue::Outcome AqmQueue::admitRed(const LinkParams& p, uint64_t now, uint64_t slot,
                                     uint32_t len, bool ect, LinkRng& rng) {
  release(now);
  const bool packets = p.aqm_limit_packets != 0;
  const uint64_t queued = packets ? size() : bytes_;
  // ns-3 dequeues from the disc whenever the device queue has room; a dequeue that finds
  // the disc empty marks it idle. After the last frame left (last_dequeue_), the device
  // had room at once, or when the frame `limit_packets` ahead started (`slot`): that is
  // the disc's last empty dequeue, if it came before this frame.
  const uint64_t empty_at = std::max(last_dequeue_, slot);
  const bool idle = size() == 0 && empty_at <= now;
  const Red::Verdict v = red_.enqueue(p, now, queued, idle, empty_at, len, ect, rng);
  if (v == Red::Verdict::kUnforcedDrop) return {Fate::kDrop, 0};
  if (v == Red::Verdict::kForcedDrop) return {Fate::kForcedDrop, 0};
  // Passed RED: its internal queue (MaxSize) may still refuse it.
  if ((packets && size() + 1 > p.aqm_limit_packets) ||
      (!packets && bytes_ + len > p.aqm_limit_bytes))
    return {Fate::kOverLimit, 0};
  if (size() >= ring_.size()) return {Fate::kFull, 0};
  const uint64_t dequeue = std::max({now, last_dequeue_, slot});
  last_dequeue_ = dequeue;
  last_dropped_ = false;
  ring_[tail_++ % ring_.size()] = Entry{dequeue, len};
  bytes_ += len;
  return {v == Red::Verdict::kUnforcedMark ? Fate::kMark
          : v == Red::Verdict::kForcedMark ? Fate::kForcedMark
                                           : Fate::kPass,
          dequeue};
}

}  // namespace fastpath
