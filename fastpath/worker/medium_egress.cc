// SPDX-License-Identifier: GPL-2.0-only
#include "worker/medium_egress.h"

#include <algorithm>
#include <cstring>

namespace fastpath {

void MediumEgress::transmit(const LinkPortSlot& slot, uint64_t addr, uint32_t len,
                            uint64_t now) {
  const MediumSlot& m = *slot.medium;
  if (!m.state->up.load(std::memory_order_relaxed))
    return frames_.drop(slot.port, WorkerDrop::kLinkDown, addr);
  if (len < 14) return frames_.drop(slot.port, WorkerDrop::kMediumUnknownDst, addr);
  const uint8_t* pkt = frames_.data(addr);
  int32_t to = medium::kBroadcast;
  if (!(pkt[0] & 1)) {
    // Unicast: the member whose MAC it is (acknowledged and retried by the model).
    to = -2;
    for (size_t i = 0; i < m.members.size(); ++i)
      if (i != slot.member && std::memcmp(m.members[i].mac, pkt, 6) == 0) to = int32_t(i);
    if (to == -2) return frames_.drop(slot.port, WorkerDrop::kMediumUnknownDst, addr);
  }
  WorkerPortCounters& pc = frames_.port(slot.port);
  pc.tx_packets.add(1);
  pc.tx_bytes.add(len);
  frames_.book().heldToLink(1);  // the model holds it until done()
  cur_ = &m;
  m.model->send(now, slot.member, to, len, addr | uint64_t(len) << 48, *this);
}

uint32_t MediumEgress::advance(const LinkPortTable& t, uint64_t now) {
  received_ = 0;
  for (const MediumSlot& m : t.media) {
    if (m.model->nextEventNs() > now) continue;
    cur_ = &m;
    m.model->advance(now, *this);
  }
  return received_;
}

uint64_t MediumEgress::nextEvent(const LinkPortTable& t) const {
  uint64_t next = ~0ull;
  for (const MediumSlot& m : t.media) next = std::min(next, m.model->nextEventNs());
  return next;
}

// The cookie is the frame's UMEM address with its length in the top 16 bits (UMEM
// addresses are far below 2^48).
void MediumEgress::deliver(uint64_t cookie, uint32_t to, uint64_t due_ns) {
  const uint64_t addr = cookie & ((uint64_t(1) << 48) - 1);
  const uint32_t len = uint32_t(cookie >> 48);
  const MediumMember& r = cur_->members[to];
  if (r.inbound->size() == r.inbound->capacity())
    return frames_.count(r.port, WorkerDrop::kLinkQueueFull);
  LinkFrame copy{0, len, r.port, due_ns};
  if (!frames_.copyOf(frames_.data(addr), len, &copy.addr))
    return frames_.count(r.port, WorkerDrop::kMediumNoFrame);
  inbox_.push(*r.inbound, r.port, copy, WorkerFrames::From::kHeld);
  ++received_;
}

void MediumEgress::done(uint64_t cookie, uint32_t from, medium::TxOutcome outcome) {
  const uint64_t addr = cookie & ((uint64_t(1) << 48) - 1);
  const PortId port = cur_->members[from].port;
  switch (outcome) {
    case medium::TxOutcome::kQueueFull:
      return frames_.drop(port, WorkerDrop::kMediumQueueFull, addr, WorkerFrames::From::kLink);
    case medium::TxOutcome::kExpired:
      return frames_.drop(port, WorkerDrop::kMediumExpired, addr, WorkerFrames::From::kLink);
    case medium::TxOutcome::kRetryLimit: {
      WorkerEvent e{FastPathEvent::Kind::kMediumRetryLimit, port, {}, {}};
      std::memcpy(e.mac.bytes.data(), frames_.data(addr), 6);  // the frame's destination
      if (events_.push(e))
        counters_.events.add(1);
      else
        counters_.events_dropped.add(1);
      return frames_.drop(port, WorkerDrop::kMediumRetryLimit, addr, WorkerFrames::From::kLink);
    }
    default:
      frames_.pool().give(addr);
      frames_.book().linkToFree(1);
  }
}

void MediumEgress::discard(medium::RadioMedium& model) {
  model.discardAll([&](uint64_t cookie) {
    frames_.pool().give(cookie & ((uint64_t(1) << 48) - 1));
    frames_.book().linkToFree(1);
  });
}

}  // namespace fastpath
