// SPDX-License-Identifier: GPL-2.0-only
#include "worker/segment_fanout.h"

#include <algorithm>
#include <cstring>

#include "fastpath/monotonic_clock.h"
#include "link/bridge_state.h"

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
  deliver(seg, LinkFrame{addr, len, slot.port, 0}, 0, sent);
}

void SegmentFanout::deliver(const SegmentSlot& seg, const LinkFrame& f, uint64_t served,
                            uint64_t sent) {
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
  // A frame that nobody else takes but a bridge heard goes back to the pool.
  auto heard = [&] {
    frames_.pool().give(f.addr);
    frames_.book().linkToFree(1);
  };
  const bool bridged = toBridges(seg, f, sent);
  if (!(pkt[0] & 1)) {
    // Unicast: the port whose MAC it is, as a CsmaNetDevice keeps only frames for itself.
    for (const SegmentMember& m : seg.members) {
      if (m.port == from || m.bridge || std::memcmp(m.mac, pkt, 6) != 0) continue;
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
    if (bridged) return heard();
    return drop(from, WorkerDrop::kSegmentUnknownDst);
  }
  // Broadcast and multicast: every port but the sender (and those down); the last one
  // takes the frame itself, the others a copy each.
  auto takes = [&](const SegmentMember& m) {
    return m.port != from && !m.bridge && m.port_state->up.load(std::memory_order_relaxed) &&
           !early(m);
  };
  const SegmentMember* last = nullptr;
  for (const SegmentMember& m : seg.members)
    if (takes(m)) last = &m;
  if (!last && (served || bridged)) {
    // Every member that hears it had it early, or only bridges heard it: nothing left.
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

bool SegmentFanout::toBridges(const SegmentSlot& seg, const LinkFrame& f, uint64_t sent) {
  if (!seg.bridged || !egress_) return false;
  const PortId from = PortId(f.from);
  const uint8_t* pkt = frames_.data(f.addr);
  // The model's time: a frame that left an emulated medium arrived at its due time; one of
  // an unshaped medium at once, in this pass (the worker's clock, read once per pass), but
  // never before the model has it sent (a frame a link delivered in this pass may be due
  // after the pass began).
  const uint64_t now = f.due ? f.due : std::max(pass_clock_ ? *pass_clock_ : monotonicNs(), sent);
  bool any = false;
  for (const SegmentMember& m : seg.members) {
    if (!m.bridge || m.port == from) continue;
    any = true;
    if (!m.port_state->up.load(std::memory_order_relaxed)) {
      frames_.count(m.port, WorkerDrop::kLinkDown);  // the bridge's port is down
      continue;
    }
    uint64_t copy;
    if (!frames_.copyOf(pkt, f.len, &copy)) {
      frames_.count(m.port, WorkerDrop::kBridgeNoFrame);
      continue;
    }
    bridge(m, copy, f.len, now);
  }
  return any;
}

void SegmentFanout::bridge(const SegmentMember& m, uint64_t addr, uint32_t len, uint64_t now) {
  const BridgeSlot& b = *m.bridge;
  BridgeState& st = *b.state;
  WorkerPortCounters& pc = frames_.port(m.port);
  pc.rx_packets.add(1);
  pc.rx_bytes.add(len);
  st.received.add();
  if (depth_ >= kMaxBridgeDepth) return frames_.drop(m.port, WorkerDrop::kBridgeLoop, addr);
  const uint8_t* pkt = frames_.data(addr);
  // ns-3's BridgeNetDevice::Learn: the source is on the port it came in on.
  if (!(pkt[6] & 1)) st.table.learn(pkt + 6, m.bridge_port, now, b.ageing_ns);
  const bool unicast = !(pkt[0] & 1);
  if (unicast && std::memcmp(pkt, m.mac, 6) == 0) {
    // For the bridge's own port (ns-3: up to the bridge node's stack, which fastpathd's
    // bridge has not).
    st.local.add();
    return frames_.drop(m.port, WorkerDrop::kBridgeLocal, addr);
  }
  ++depth_;
  const int out = unicast ? st.table.lookup(pkt, now) : -1;
  if (out >= 0 && out != int(m.bridge_port) && size_t(out) < b.ports.size()) {
    // ForwardUnicast: the learned port, unless it is the one it came in on (ns-3 floods
    // then, as for an unknown destination).
    st.forwarded.add();
    egress_->transmit(b.ports[size_t(out)], addr, len, now);
    --depth_;
    return;
  }
  // Flood: every other port, a copy each but the last, which takes the frame itself.
  st.flooded.add();
  const size_t in = m.bridge_port;
  int last = -1;
  for (size_t i = 0; i < b.ports.size(); ++i)
    if (i != in) last = int(i);
  if (last < 0) {
    --depth_;
    return frames_.drop(m.port, WorkerDrop::kSegmentUnknownDst, addr);  // a bridge of one port
  }
  for (size_t i = 0; i < b.ports.size(); ++i) {
    if (i == in || int(i) == last) continue;
    uint64_t copy;
    if (!frames_.copyOf(pkt, len, &copy)) {
      frames_.count(b.ports[i], WorkerDrop::kBridgeNoFrame);
      continue;
    }
    egress_->transmit(b.ports[i], copy, len, now);
  }
  egress_->transmit(b.ports[size_t(last)], addr, len, now);
  --depth_;
}

}  // namespace fastpath
