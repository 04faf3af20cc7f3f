// SPDX-License-Identifier: GPL-2.0-only
#include "worker/segment_fanout.h"

#include <cstring>

namespace fastpath {

void SegmentFanout::transmit(const LinkPortTable& t, const LinkPortSlot& slot, uint64_t addr,
                             uint32_t len, uint64_t sent) {
  const SegmentSlot& seg = *slot.segment;
  if (!seg.state->up.load(std::memory_order_relaxed) ||
      !slot.port_state->up.load(std::memory_order_relaxed))
    return frames_.drop(slot.port, WorkerDrop::kLinkDown, addr);
  WorkerPortCounters& pc = frames_.port(slot.port);
  pc.tx_packets.add(1);
  pc.tx_bytes.add(len);
  if (seg.shaper)
    return emulation_.transmit(*seg.shaper, ShaperKey::segment(size_t(&seg - t.segments.data())),
                               slot.port, addr, len, slot.port, sent);
  frames_.book().heldToLink(1);
  deliver(seg, LinkFrame{addr, len, slot.port, 0});
}

void SegmentFanout::deliver(const SegmentSlot& seg, const LinkFrame& f, uint64_t served) {
  const PortId from = PortId(f.from);
  const uint8_t* pkt = frames_.data(f.addr);
  auto drop = [&](PortId at, WorkerDrop why) {
    frames_.drop(at, why, f.addr, WorkerFrames::From::kLink);
  };
  // Members that took it ahead of its time (worker_timed.h).
  auto early = [&](const SegmentMember& m) {
    const size_t i = size_t(&m - seg.members.data());
    return i < 64 && (served >> i & 1);
  };
  // Too short for a destination MAC: nothing on the medium can take it.
  if (f.len < 14) return drop(from, WorkerDrop::kSegmentUnknownDst);
  if (!(pkt[0] & 1)) {
    // Unicast: the port whose MAC it is, as a CsmaNetDevice keeps only frames for itself.
    for (const SegmentMember& m : seg.members) {
      if (m.port == from || std::memcmp(m.mac, pkt, 6) != 0) continue;
      if (early(m)) {  // it had it early (the frame normally leaves the medium then)
        frames_.pool().give(f.addr);
        frames_.book().linkToFree(1);
        return;
      }
      if (!m.port_state->up.load(std::memory_order_relaxed))
        return drop(m.port, WorkerDrop::kLinkDown);  // its device is down
      if (!inbox_.push(*m.inbound, m.port, f, WorkerFrames::From::kLink))
        return drop(m.port, WorkerDrop::kLinkQueueFull);
      return;
    }
    return drop(from, WorkerDrop::kSegmentUnknownDst);
  }
  // Broadcast and multicast: every port but the sender (and those down); the last one
  // takes the frame itself, the others a copy each.
  auto takes = [&](const SegmentMember& m) {
    return m.port != from && m.port_state->up.load(std::memory_order_relaxed) && !early(m);
  };
  const SegmentMember* last = nullptr;
  for (const SegmentMember& m : seg.members)
    if (takes(m)) last = &m;
  if (!last && served) {
    // Every member that hears it had it early: nothing left to hand on.
    frames_.pool().give(f.addr);
    frames_.book().linkToFree(1);
    return;
  }
  if (!last) return drop(from, WorkerDrop::kSegmentUnknownDst);  // nobody else to hear it
  for (const SegmentMember& m : seg.members) {
    if (!takes(m) || &m == last) continue;
    if (m.inbound->size() == m.inbound->capacity()) {
      frames_.count(m.port, WorkerDrop::kLinkQueueFull);
      continue;
    }
    LinkFrame copy = f;
    if (!frames_.copyOf(pkt, f.len, &copy.addr)) {
      frames_.count(from, WorkerDrop::kSegmentNoFrame);
      continue;
    }
    inbox_.push(*m.inbound, m.port, copy, WorkerFrames::From::kHeld);
  }
  if (!inbox_.push(*last->inbound, last->port, f, WorkerFrames::From::kLink))
    drop(last->port, WorkerDrop::kLinkQueueFull);
}

}  // namespace fastpath
