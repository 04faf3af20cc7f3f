// SPDX-License-Identifier: GPL-2.0-only
// A link direction with FqCoDel in front of its device queue (fq_codel.h says why it decides
// at dequeue time). The frames wait in the discipline; `fq_next_` is the model time of its
// next dequeue: the time the device queue (limit_packets frames waiting for the wire) next
// has room, or the frame's own arrival when the disc was empty. The shaper's nextArrival()
// includes it, so the worker's due order wakes for it as for an arrival; every admission
// and release first runs the dequeues due by its time (pumpFq), so a dequeue always sees
// the frames that had come by its model time and none that came later, however late the
// worker gets there. A dequeued frame is then placed as any other (place(): transmission
// and arrival from its dequeue time), so it is never released before its model time, and
// its lateness is counted as every link's.
#include <algorithm>

#include "link/link_shaper.h"

namespace fastpath {
namespace {

inline void bump(std::atomic<uint64_t>& c, uint64_t n) {
  c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}

}  // namespace

void LinkShaper::noteFqDrops() {
  counters.fq_packets.store(fq_->size(), std::memory_order_relaxed);
  counters.fq_bytes.store(fq_->bytes(), std::memory_order_relaxed);
  for (const FqCoDel::Dropped& d : fq_dropped_) {
    const bool codel = d.why == FqCoDel::Why::kCoDel;
    bump(codel ? counters.aqm_drops : counters.queue_drops, 1);
    events_.push_back(DiscEvent{d.frame.addr, d.frame.len, d.frame.from,
                                codel ? DiscEvent::Kind::kAqmDrop : DiscEvent::Kind::kQueueDrop});
  }
  fq_dropped_.clear();
}

LinkShaper::Admit LinkShaper::admitFq(const LinkParams& p, uint64_t now, uint64_t addr,
                                      uint32_t len, uint32_t from, bool ect, uint32_t flow) {
  // Switched on at run time the link gets a successor built with the discipline
  // (LinkResources::applyShaping); a shaper given FqCoDel's parameters in place builds it here.
  if (!fq_) [[unlikely]] makeFq(p);
  pumpFq(now);  // the dequeues due before this frame came
  advanceQueue(now);
  if (size() >= capacity_) {
    counters.full_drops.fetch_add(1, std::memory_order_relaxed);
    return Admit::kCapacityFull;
  }
  const bool was_empty = fq_->empty();
  fq_->enqueue(p, now, flow, FqCoDel::Frame{addr, now, len, from, ect}, &fq_dropped_);
  noteFqDrops();  // over the limit: from the fattest flow, perhaps this frame
  // An empty disc dequeues as soon as the device queue has room: now, or when the frame
  // `limit_packets` places ahead starts its transmission (and never before its last
  // dequeue: a frame sent at an earlier model time may reach the worker later).
  if (was_empty && !fq_->empty())
    fq_next_ = std::max({now, fq_last_, deviceSlot(p.limit_packets)});
  pumpFq(now);
  counters.in_flight.store(size(), std::memory_order_relaxed);
  return Admit::kQueued;
}

void LinkShaper::pumpFq(uint64_t upto) {
  const LinkParams& p = params();
  while (fq_next_ != ~0ull && fq_next_ <= upto) {
    const uint64_t at = fq_next_;
    fq_last_ = at;
    advanceQueue(at);  // the device queue as it is at the dequeue
    FqCoDel::Frame f;
    bool mark = false;
    const bool got = fq_->dequeue(p, at, &f, &mark, &fq_dropped_);
    noteFqDrops();
    if (!got) {
      fq_next_ = ~0ull;  // CoDel dropped what was left
      break;
    }
    if (mark) {
      counters.aqm_marks.fetch_add(1, std::memory_order_relaxed);
      events_.push_back(DiscEvent{f.addr, f.len, f.from, DiscEvent::Kind::kMark});
    }
    // The device queue had room, so only a shared medium's backoff can refuse it.
    const Admit a = place(p, at, f.enqueued, f.addr, f.len, f.from, mark);
    if (a == Admit::kQueueFull || a == Admit::kBackoffDrop)
      events_.push_back(DiscEvent{f.addr, f.len, f.from,
                                  a == Admit::kQueueFull ? DiscEvent::Kind::kQueueDrop
                                                         : DiscEvent::Kind::kBackoffDrop});
    fq_next_ = fq_->empty() ? ~0ull : std::max(at, deviceSlot(p.limit_packets));
  }
}

}  // namespace fastpath
