// SPDX-License-Identifier: GPL-2.0-only
#include "worker/link_emulation.h"

#include <time.h>

#include <algorithm>

#include "fastpath/monotonic_clock.h"
#include "link/ecn.h"
#include "xsk/xsk_port.h"

namespace fastpath {

LinkEmulation::LinkEmulation(WorkerFrames& frames, uint32_t max_release)
    : frames_(frames),
      active_(ShaperKey::kCount),
      order_(ShaperKey::kCount),
      parked_(ShaperKey::kCount),
      due_(max_release),
      out_(max_release),
      arrival_(max_release),
      room_(ShaperKey::kCount),
      room_pass_(ShaperKey::kCount) {
  deferred_.reserve(ShaperKey::kCount);
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
  // frame the model had arrive earlier (`sent`) is sent then: never later than the clock,
  // which is read only when the last value it gave is not past `sent` already.
  uint64_t now = sent;
  if (!sent || sent > clock_floor_) {
    const uint64_t clock = monotonicNs();
    clock_floor_ = clock;
    now = sent && sent < clock ? sent : clock;
  }
  // Only a queue discipline with ECN looks at the frame's ECN bits; only FqCoDel at its flow.
  const LinkParams& p = sh.params();
  const bool ect = p.aqm_ecn && ecnCapable(pkt, len);
  const uint32_t flow = p.aqm == LinkParams::Aqm::kFqCoDel
                            ? FqCoDel::flowHash(pkt, len, p.aqm_fq_perturbation)
                            : 0;
  auto admit = [&](uint64_t a) {
    const LinkShaper::Admit r = sh.admit(now, a, len, from, ect, flow);
    if (LinkShaper::queued(r)) {
      if (r == LinkShaper::Admit::kQueuedMarked) markCongestion(frames_.data(a), len);
      frames_.book().heldToLink(1);
      active_.add(key);
      // Its place in the order: earlier only if this frame arrives before the shaper's
      // others (jitter may reorder).
      order_.lower(key, sh.nextArrival());
    } else {
      frames_.drop(at,
                   r == LinkShaper::Admit::kQueueFull ? WorkerDrop::kLinkQueueDrop
                   : r == LinkShaper::Admit::kAqmDrop ? WorkerDrop::kLinkAqmDrop
                   : r == LinkShaper::Admit::kBackoffDrop ? WorkerDrop::kLinkBackoffDrop
                                                      : WorkerDrop::kLinkEmulationFull,
                   a);
    }
    if (sh.hasDiscEvents()) [[unlikely]]
      applyDiscEvents(sh, at, ShaperKey::isSegment(key));
  };
  // A duplicate is a copy in a frame of its own, sent right after the original.
  uint64_t copy = 0;
  const bool duplicate = d.duplicate && frames_.copyOf(pkt, len, &copy);
  if (duplicate) sh.counters.duplicated.fetch_add(1, std::memory_order_relaxed);
  admit(addr);
  if (duplicate) admit(copy);
}

void LinkEmulation::applyDiscEvents(LinkShaper& sh, PortId at, bool segment) {
  for (const LinkShaper::DiscEvent& e : sh.discEvents()) {
    using K = LinkShaper::DiscEvent::Kind;
    if (e.kind == K::kMark) {
      markCongestion(frames_.data(e.addr), e.len);
      continue;
    }
    // Held by the link since its admission: it leaves the link's part of the ledger.
    frames_.drop(segment ? PortId(e.from) : at,
                 e.kind == K::kAqmDrop     ? WorkerDrop::kLinkAqmDrop
                 : e.kind == K::kQueueDrop ? WorkerDrop::kLinkQueueDrop
                                           : WorkerDrop::kLinkBackoffDrop,
                 e.addr, WorkerFrames::From::kLink);
  }
  sh.clearDiscEvents();
}

bool LinkEmulation::settle(const LinkPortTable& t, std::span<XskSocket* const> served) {
  while (!order_.empty()) {
    const DueOrder::Entry top = order_.top();
    const LinkShaper* sh = shaperOf(t, top.key);
    if (!sh || !sh->size()) {  // emptied ahead of the order (a timed client's release)
      order_.pop();
      active_.remove(top.key);
    } else if (ShaperKey::isEgress(top.key) && (top.key >= served.size() || !served[top.key])) {
      // An egress whose port left is waited for by nobody: its table retires it soon.
      order_.pop();
      parked_.add(top.key);
    } else if (sh->nextArrival() != top.time) {  // its earliest frame left ahead of the order
      order_.set(top.key, sh->nextArrival());
    } else {
      return true;
    }
  }
  return false;
}

uint32_t LinkEmulation::roomOf(uint32_t key, const LinkPortTable& t, uint32_t cap) {
  if (ShaperKey::isEgress(key) || ShaperKey::isSegment(key)) return cap;
  // The peer end takes no more than its queue's room this pass (the frames taken go on to
  // it only after takeDue): counted down from the room at the first visit of the pass.
  if (room_pass_[key] != pass_) {
    const LinkQueue& q = *t.find(PortId(key))->to_peer;
    room_[key] = q.capacity() - q.size();
    room_pass_[key] = pass_;
  }
  return room_[key];
}

void LinkEmulation::unpark(const LinkPortTable& t, std::span<XskSocket* const> served) {
  parked_.retain([&](uint32_t key) {
    if (order_.contains(key)) return false;  // back in the order (a frame sent since)
    const LinkShaper* sh = shaperOf(t, key);
    if (!sh || !sh->size()) {
      active_.remove(key);
      return false;
    }
    if (key >= served.size() || !served[key]) return true;
    order_.set(key, sh->nextArrival());
    return false;
  });
}

std::span<const Released> LinkEmulation::takeDue(uint64_t now, const LinkPortTable& t,
                                                 std::span<XskSocket* const> served) {
  if (++pass_ == 0) {  // wrapped: no stale pass number may match
    std::fill(room_pass_.begin(), room_pass_.end(), 0);
    pass_ = 1;
  }
  if (!parked_.empty()) [[unlikely]]
    unpark(t, served);
  const uint32_t cap = uint32_t(due_.size());
  uint32_t n = 0;
  deferred_.clear();
  // The shaper with the earliest frame, again and again: a pass that cannot take
  // everything due (more than `cap`) takes the earliest frames across links, and what it
  // leaves is due later than anything it took.
  while (n < cap && settle(t, served) && order_.top().time <= now) {
    const uint32_t key = order_.top().key;
    LinkShaper* sh = shaperOf(t, key);
    const uint32_t room = std::min(cap - n, roomOf(key, t, cap));
    order_.pop();
    if (!room) {  // its peer's queue is full: the rest waits for the next pass
      deferred_.push_back(key);
      continue;
    }
    // This shaper's frames up to the next one's earliest (one bulk release when a single
    // link has frames due, the usual case); those arriving with it too if this one has the
    // lower key, else they wait for the next one's.
    uint64_t until = now;
    if (!order_.empty() && order_.top().time <= now)
      until = order_.top().key < key ? order_.top().time - 1 : order_.top().time;
    const uint32_t k = sh->release(until, out_.data(), arrival_.data(), room);
    if (sh->hasDiscEvents()) [[unlikely]]
      applyDiscEvents(*sh, PortId(key), ShaperKey::isSegment(key));
    for (uint32_t j = 0; j < k; ++j, ++n) due_[n] = Released{out_[j], key, n};
    if (!ShaperKey::isEgress(key) && !ShaperKey::isSegment(key)) room_[key] -= k;
    if (!sh->size())
      active_.remove(key);
    else if (k)
      order_.set(key, sh->nextArrival());  // back in, at its next frame's arrival
    else
      deferred_.push_back(key);
  }
  for (uint32_t key : deferred_) order_.set(key, shaperOf(t, key)->nextArrival());
  settle(t, served);  // nextArrival() is a frame's arrival, not a stale one
  took_max_ = n == cap;
  // In due order already (each shaper gives its frames in arrival order).
  return {due_.data(), n};
}

void LinkEmulation::adopt(const LinkPortTable& t) {
  active_.clear();
  order_.clear();
  parked_.clear();
  auto look = [&](LinkShaper* sh, uint32_t key) {
    if (!sh || !sh->size()) return;
    active_.add(key);
    order_.set(key, sh->nextArrival());
  };
  for (PortId p = 0; p < t.egress.size(); ++p) look(t.egress[p], p);
  for (const LinkPortSlot& s : t.slots) look(s.shaper, s.port);
  for (size_t i = 0; i < t.segments.size(); ++i) look(t.segments[i].shaper, ShaperKey::segment(i));
}

}  // namespace fastpath
