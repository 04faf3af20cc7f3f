// SPDX-License-Identifier: GPL-2.0-only
#include "worker/link_emulation.h"

#include <time.h>

#include <algorithm>

#include "link/ecn.h"
#include "xsk/xsk_port.h"

namespace fastpath {

LinkEmulation::LinkEmulation(WorkerFrames& frames, uint32_t max_release)
    : frames_(frames),
      active_(ShaperKey::kCount),
      due_(max_release),
      out_(max_release),
      arrival_(max_release) {
  heads_.reserve(ShaperKey::kCount);
}

LinkShaper* LinkEmulation::shaperOf(const LinkPortTable& t, uint32_t key) {
  if (ShaperKey::isEgress(key)) return key < t.egress.size() ? t.egress[key] : nullptr;
  if (ShaperKey::isSegment(key)) {
    const size_t i = key - ShaperKey::kSegmentBase;
    return i < t.segments.size() ? t.segments[i].shaper : nullptr;
  }
  const LinkPortSlot* s = t.find(PortId(key));
  return s ? s->shaper : nullptr;
}

void LinkEmulation::transmit(LinkShaper& sh, uint32_t key, PortId at, uint64_t addr,
                             uint32_t len, PortId from, uint64_t sent) {
  const LinkShaper::Decision d = sh.decide(len);
  if (d.fate == LinkShaper::Fate::kLost) return frames_.drop(at, WorkerDrop::kLinkLoss, addr);
  uint8_t* pkt = frames_.data(addr);
  if (d.corrupt_bit >= 0) {
    pkt[d.corrupt_bit / 8] ^= uint8_t(1u << (d.corrupt_bit % 8));
    sh.counters.corrupted.fetch_add(1, std::memory_order_relaxed);
  }
  // The frame's own sending time, not the pass's start: a pass takes microseconds. A
  // frame the model had arrive earlier (`sent`) is sent then: never later than the clock.
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  const uint64_t clock = uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
  const uint64_t now = sent && sent < clock ? sent : clock;
  // Only a queue discipline with ECN looks at the frame's ECN bits.
  const bool ect = sh.params().aqm_ecn && ecnCapable(pkt, len);
  auto admit = [&](uint64_t a) {
    const LinkShaper::Admit r = sh.admit(now, a, len, from, ect);
    if (LinkShaper::queued(r)) {
      if (r == LinkShaper::Admit::kQueuedMarked) markCongestion(frames_.data(a), len);
      frames_.book().heldToLink(1);
      active_.add(key);
      next_arrival_ = std::min(next_arrival_, sh.nextArrival());
      return;
    }
    frames_.drop(at,
                 r == LinkShaper::Admit::kQueueFull ? WorkerDrop::kLinkQueueDrop
                 : r == LinkShaper::Admit::kAqmDrop ? WorkerDrop::kLinkAqmDrop
                                                    : WorkerDrop::kLinkEmulationFull,
                 a);
  };
  // A duplicate is a copy in a frame of its own, sent right after the original.
  uint64_t copy = 0;
  const bool duplicate = d.duplicate && frames_.copyOf(pkt, len, &copy);
  if (duplicate) sh.counters.duplicated.fetch_add(1, std::memory_order_relaxed);
  admit(addr);
  if (duplicate) admit(copy);
}

std::span<const Released> LinkEmulation::takeDue(uint64_t now, const LinkPortTable& t,
                                                 std::span<XskSocket* const> served) {
  next_arrival_ = ~0ull;
  const uint32_t cap = uint32_t(due_.size());
  uint32_t n = 0;
  // The shapers with frames due, by their earliest arrival (a min-heap): merged, so that
  // a pass that cannot take everything due (more than `cap`) takes the earliest frames
  // across links, and what it leaves is due later than anything it took.
  heads_.clear();
  for (size_t i = 0; i < active_.size(); ++i) {
    const uint32_t key = active_[i];
    const LinkShaper* sh = shaperOf(t, key);
    if (!sh || sh->nextArrival() > now) continue;
    uint32_t room = cap;
    if (ShaperKey::isEgress(key)) {
      if (key >= served.size() || !served[key]) continue;  // a detached port's is retired
    } else if (!ShaperKey::isSegment(key)) {
      const LinkQueue& q = *t.find(PortId(key))->to_peer;
      room = q.capacity() - q.size();  // the peer end takes no more this pass
    }
    if (room) heads_.push_back(Head{sh->nextArrival(), key, room});
  }
  auto later = [](const Head& a, const Head& b) {
    return a.arrival != b.arrival ? a.arrival > b.arrival : a.key > b.key;
  };
  std::make_heap(heads_.begin(), heads_.end(), later);
  while (n < cap && !heads_.empty()) {
    std::pop_heap(heads_.begin(), heads_.end(), later);
    Head h = heads_.back();
    heads_.pop_back();
    LinkShaper* sh = shaperOf(t, h.key);
    // This shaper's frames up to the next one's earliest (one bulk release when a single
    // link has frames due, the usual case).
    const uint64_t until = heads_.empty() ? now : std::min(now, heads_.front().arrival);
    const uint32_t k = sh->release(until, out_.data(), arrival_.data(), std::min(cap - n, h.room));
    for (uint32_t j = 0; j < k; ++j, ++n) due_[n] = Released{out_[j], h.key, n};
    h.room -= k;
    h.arrival = sh->nextArrival();
    if (k && h.room && h.arrival <= now) {
      heads_.push_back(h);
      std::push_heap(heads_.begin(), heads_.end(), later);
    }
  }
  active_.retain([&](uint32_t key) {
    const LinkShaper* sh = shaperOf(t, key);
    if (!sh || !sh->size()) return false;
    // An egress whose port left is waited for by nobody: its table retires it soon.
    if (!ShaperKey::isEgress(key) || (key < served.size() && served[key]))
      next_arrival_ = std::min(next_arrival_, sh->nextArrival());
    return true;
  });
  took_max_ = n == cap;
  // Merged: in due order already (each shaper gives its frames in arrival order).
  return {due_.data(), n};
}

void LinkEmulation::adopt(const LinkPortTable& t) {
  active_.clear();
  next_arrival_ = ~0ull;
  auto look = [&](LinkShaper* sh, uint32_t key) {
    if (!sh || !sh->size()) return;
    active_.add(key);
    next_arrival_ = std::min(next_arrival_, sh->nextArrival());
  };
  for (PortId p = 0; p < t.egress.size(); ++p) look(t.egress[p], p);
  for (const LinkPortSlot& s : t.slots) look(s.shaper, s.port);
  for (size_t i = 0; i < t.segments.size(); ++i) look(t.segments[i].shaper, ShaperKey::segment(i));
}

}  // namespace fastpath
