// SPDX-License-Identifier: GPL-2.0-only
// Early hand-over to timed control clients (worker_timed.h), and the worker's two calls
// into it: each release pass, and each sleep decision.
#include "worker/worker_timed.h"

#include <algorithm>
#include <cstring>

#include "fastpath/control_timing.h"
#include "fastpath/userspace_classifier.h"
#include "worker/control_channel.h"
#include "worker/worker.h"

namespace fastpath {

TimedRelease::TimedRelease(WorkerFrames& frames, LinkInbox& inbox)
    : frames_(frames), inbox_(inbox), index_(ShaperKey::kCount, -1) {
  list_.reserve(64);
  got_.reserve(64);
}

uint64_t TimedRelease::leadOf(const LinkPortTable& t, PortId p) {
  const LinkPortSlot* s = t.find(p);
  if (!s || !s->channel || s->medium) return 0;
  const ControlChannel& ch = *s->channel;
  return ch.attached() && ch.timed() ? ch.leadNs() : 0;
}

bool TimedRelease::hasTimedReceiver(const LinkPortTable& t, uint32_t key) {
  if (ShaperKey::isEgress(key)) return false;
  if (ShaperKey::isSegment(key)) {
    const size_t i = key - ShaperKey::kSegmentBase;
    if (i >= t.segments.size()) return false;
    for (const SegmentMember& m : t.segments[i].members)
      if (!m.bridge && leadOf(t, m.port)) return true;  // a bridge's port has no client
    return false;
  }
  const LinkPortSlot* slot = t.find(PortId(key));
  if (!slot || !slot->shaper || slot->segment || slot->medium) return false;
  const LinkPortSlot* peer = t.find(slot->peer);
  return peer && !peer->segment && leadOf(t, peer->port);
}

void TimedRelease::entered(const LinkPortTable& t, uint32_t key) {
  if (index_[key] >= 0 || !hasTimedReceiver(t, key)) return;
  index_[key] = int32_t(list_.size());
  Watch& w = list_.emplace_back();
  w.key = key;
  if (!ShaperKey::isSegment(key)) w.peer = t.find(PortId(key))->peer;
}

void TimedRelease::unwatch(size_t i) {
  index_[list_[i].key] = -1;
  if (i + 1 != list_.size()) {
    list_[i] = list_.back();
    index_[list_[i].key] = int32_t(i);
  }
  list_.pop_back();
}

void TimedRelease::adopt(const LinkPortTable& t, const ActiveSet& active) {
  for (const Watch& w : list_) index_[w.key] = -1;
  list_.clear();
  for (size_t i = 0; i < active.size(); ++i) entered(t, active[i]);
}

uint64_t TimedRelease::left(uint32_t key, uint64_t addr) {
  const int32_t i = index_[key];
  if (i < 0 || list_[size_t(i)].addr != addr) return 0;
  Watch& w = list_[size_t(i)];
  w.addr = ~0ull;  // the address may come back with another frame
  return w.served;
}

void TimedRelease::decide(const LinkPortTable& t, Watch& w, const LinkFrame& f) {
  w.addr = f.addr;
  w.takers = w.early = w.served = 0;
  const uint8_t* pkt = frames_.data(f.addr);
  auto classify = [&](const LinkPortSlot& at, size_t bit) {
    ++classified_;
    const fp_xdp_meta m = at.classifier->classify(pkt, f.len);
    if (m.verdict != FP_VERDICT_CONTROL) return;
    w.early |= uint64_t(1) << bit;
    w.verdict[bit] = pack(m);
  };
  if (!ShaperKey::isSegment(w.key)) {
    w.takers = 1;
    const LinkPortSlot* peer = t.find(w.peer);
    if (peer && leadOf(t, w.peer)) classify(*peer, 0);
    return;
  }
  // Who the fan-out gives the frame to at its arrival time (SegmentFanout::deliver): the
  // member of its destination MAC, or every member but the sender; of those, the ones
  // with a timed client that classify it CONTROL may have it early.
  const SegmentSlot& seg = t.segments[w.key - ShaperKey::kSegmentBase];
  if (f.len < 14) return;
  const bool unicast = !(pkt[0] & 1);
  for (size_t i = 0; i < seg.members.size() && i < kMaxSegmentPorts; ++i) {
    const SegmentMember& m = seg.members[i];
    if (m.port == PortId(f.from) || m.bridge ||
        !m.port_state->up.load(std::memory_order_relaxed))
      continue;
    if (unicast && std::memcmp(m.mac, pkt, 6) != 0) continue;
    w.takers |= uint64_t(1) << i;
    if (const LinkPortSlot* s = t.find(m.port); s && leadOf(t, m.port)) classify(*s, i);
    if (unicast) break;
  }
}

void TimedRelease::got(PortId p) {
  if (std::find(got_.begin(), got_.end(), p) == got_.end()) got_.push_back(p);
}

uint32_t TimedRelease::releaseLink(const LinkPortTable& t, Watch& w, LinkShaper& sh,
                                   uint64_t now, uint32_t batch) {
  const LinkPortSlot* slot = t.find(PortId(w.key));
  const uint64_t lead = leadOf(t, w.peer);
  if (!slot || !lead) return 0;
  const LinkQueue& q = *slot->to_peer;
  const uint32_t room = std::min<uint32_t>(q.capacity() - q.size(), batch);
  uint32_t n = 0;
  LinkFrame f;
  while (n < room && sh.peekNext(&f)) {
    if (f.addr != w.addr) decide(t, w, f);
    if (!mayDeliverEarly(f.due, now, lead, true, w.early)) break;
    sh.releaseNext(&f);
    w.addr = ~0ull;
    f.verdict = w.verdict[0];
    if (!inbox_.push(*slot->to_peer, slot->peer, f, WorkerFrames::From::kLink))
      frames_.drop(slot->peer, WorkerDrop::kLinkQueueFull, f.addr, WorkerFrames::From::kLink);
    ++n;
  }
  if (n) got(slot->peer);
  return n;
}

void TimedRelease::handSegment(const SegmentMember& m, const LinkFrame& f,
                               CarriedVerdict verdict, bool last) {
  LinkFrame to = f;
  to.verdict = verdict;
  if (last) {
    if (!inbox_.push(*m.inbound, m.port, to, WorkerFrames::From::kLink))
      frames_.drop(m.port, WorkerDrop::kLinkQueueFull, f.addr, WorkerFrames::From::kLink);
    return;
  }
  if (m.inbound->size() == m.inbound->capacity())
    return frames_.count(m.port, WorkerDrop::kLinkQueueFull);
  if (!frames_.copyOf(frames_.data(f.addr), f.len, &to.addr))
    return frames_.count(PortId(f.from), WorkerDrop::kSegmentNoFrame);
  inbox_.push(*m.inbound, m.port, to, WorkerFrames::From::kHeld);
}

uint32_t TimedRelease::releaseSegment(const LinkPortTable& t, Watch& w, LinkShaper& sh,
                                      uint64_t now, uint32_t batch) {
  const SegmentSlot& seg = t.segments[w.key - ShaperKey::kSegmentBase];
  uint32_t n = 0;
  LinkFrame f;
  // Only the head frame: a member that takes this one at its arrival time takes the ones
  // behind it after it, so no member's frames change order.
  while (n < batch && sh.peekNext(&f)) {
    if (f.addr != w.addr) decide(t, w, f);
    uint64_t ready = 0;
    for (uint64_t pending = w.early & ~w.served; pending; pending &= pending - 1) {
      const int i = __builtin_ctzll(pending);
      if (mayDeliverEarly(f.due, now, leadOf(t, seg.members[size_t(i)].port), true, true))
        ready |= uint64_t(1) << i;
    }
    if (!ready) break;
    // When nobody is left for the arrival time, the frame leaves the medium now and the
    // last member takes it itself.
    const bool leaves = (w.takers & ~(w.served | ready)) == 0;
    if (leaves) sh.releaseNext(&f);
    const int last = leaves ? 63 - __builtin_clzll(ready) : -1;
    for (uint64_t r = ready; r; r &= r - 1) {
      const int i = __builtin_ctzll(r);
      handSegment(seg.members[size_t(i)], f, w.verdict[i], i == last);
      got(seg.members[size_t(i)].port);
    }
    w.served |= ready;
    if (!leaves) break;  // the rest waits for the arrival time, and so does what follows
    w.addr = ~0ull;
    ++n;
  }
  return n;
}

std::span<const PortId> TimedRelease::release(const LinkPortTable& t, uint64_t now,
                                              uint32_t batch, uint32_t* handed) {
  got_.clear();
  uint32_t n = 0;
  for (size_t i = 0; i < list_.size();) {
    Watch& w = list_[i];
    LinkShaper* sh = LinkEmulation::shaperOf(t, w.key);
    if (!sh || !sh->size()) {
      unwatch(i);
      continue;
    }
    n += ShaperKey::isSegment(w.key) ? releaseSegment(t, w, *sh, now, batch)
                                     : releaseLink(t, w, *sh, now, batch);
    ++i;
  }
  *handed = n;
  return got_;
}

uint64_t TimedRelease::next(const LinkPortTable& t, uint64_t now) {
  uint64_t at = ~0ull;
  for (size_t i = 0; i < list_.size();) {
    Watch& w = list_[i];
    const LinkShaper* sh = LinkEmulation::shaperOf(t, w.key);
    LinkFrame f;
    if (!sh || !sh->peekNext(&f)) {
      unwatch(i);
      continue;
    }
    ++i;
    if (f.addr != w.addr) decide(t, w, f);
    if (f.due <= now) continue;  // too late to go early: released at its time (takeDue)
    for (uint64_t pending = w.early & ~w.served; pending; pending &= pending - 1) {
      const int b = __builtin_ctzll(pending);
      const PortId p = ShaperKey::isSegment(w.key)
                           ? t.segments[w.key - ShaperKey::kSegmentBase].members[size_t(b)].port
                           : w.peer;
      if (const uint64_t lead = leadOf(t, p)) at = std::min(at, f.due > lead ? f.due - lead : 0);
    }
  }
  return at;
}

uint32_t Worker::releaseEarly(uint64_t now) {
  uint32_t handed = 0;
  const std::span<const PortId> ports = timed_.release(*links_, now, options_.batch_size, &handed);
  uint32_t work = 0;
  for (const PortId p : ports)
    if (const LinkPortSlot* s = links_->find(p)) work += receiveLink(*s);
  return work;
}

uint64_t Worker::nextEarly(uint64_t now) {
  return timed_.watched() ? timed_.next(*links_, now) : ~0ull;
}

}  // namespace fastpath
