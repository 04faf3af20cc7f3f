// SPDX-License-Identifier: GPL-2.0-only
#include "link/aqm_queue.h"

#include <algorithm>

#include "link/link_shaper.h"

namespace fastpath {

AqmQueue::AqmQueue(uint32_t capacity) : ring_(capacity) {}

AqmQueue::Outcome AqmQueue::admit(const LinkParams& p, uint64_t now, uint64_t slot,
                                  uint32_t len, bool ect, LinkRng& rng) {
  if (p.aqm == LinkParams::Aqm::kRed) return admitRed(p, now, slot, len, ect, rng);
  const bool cobalt = p.aqm == LinkParams::Aqm::kCobalt;
  const size_t cap = ring_.size();
  release(now);
  // ns-3's queue disc enqueue: over its MaxSize, dropped before it enters.
  if ((p.aqm_limit_packets && size() + 1 > p.aqm_limit_packets) ||
      (!p.aqm_limit_packets && p.aqm_limit_bytes && bytes_ + len > p.aqm_limit_bytes)) {
    if (cobalt) cobalt_.full(p, now);
    return {Fate::kOverLimit, 0};
  }
  if (size() >= cap) return {Fate::kFull, 0};
  const uint64_t dequeue = std::max({now, last_dequeue_, slot});
  // Queued when the frame before it left: taken in the same dequeue. Otherwise, if the
  // device had room in between (a dequeue found the disc empty), CoDel saw the empty queue.
  const bool waited = now <= last_dequeue_;
  const bool emptied = !waited && now > slot;
  // COBALT hears of every dequeue that found the queue empty, with its time: right after a
  // drop (the same dequeue), or when the device next had room.
  if (cobalt && !waited && (last_dropped_ || emptied))
    cobalt_.empty(p, last_dropped_ ? last_dequeue_ : std::max(last_dequeue_, slot));
  const uint64_t ahead = bytes_;
  last_dequeue_ = dequeue;
  ring_[tail_++ % cap] = Entry{dequeue, len};
  bytes_ += len;
  Fate fate = Fate::kPass;
  auto from = [](auto v) {
    return v == decltype(v)::kDrop ? Fate::kDrop : v == decltype(v)::kMark ? Fate::kMark
                                                                           : Fate::kPass;
  };
  if (p.aqm == LinkParams::Aqm::kCoDel)
    fate = from(codel_.head(p, dequeue, dequeue - now, ahead, ect, waited, emptied));
  else if (cobalt)
    fate = from(cobalt_.head(p, dequeue, dequeue - now, ect, rng));
  last_dropped_ = fate == Fate::kDrop;
  return {fate, dequeue};
}

void AqmQueue::release(uint64_t now) {
  const size_t cap = ring_.size();
  while (head_ != tail_ && ring_[head_ % cap].dequeue <= now) bytes_ -= ring_[head_++ % cap].len;
}

void AqmQueue::moveFrom(const AqmQueue& old) {
  const size_t oc = old.ring_.size(), cap = ring_.size();
  for (uint64_t i = old.head_; i != old.tail_ && tail_ - head_ < cap; ++i)
    ring_[tail_++ % cap] = old.ring_[i % oc];
  bytes_ = old.bytes_;
  last_dequeue_ = old.last_dequeue_;
  last_dropped_ = old.last_dropped_;
  codel_ = old.codel_;
  cobalt_ = old.cobalt_;
  red_ = old.red_;
}

void AqmQueue::clear() {
  head_ = tail_ = bytes_ = 0;
  last_dequeue_ = 0;
  last_dropped_ = false;
}

}  // namespace fastpath
