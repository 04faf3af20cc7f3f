// SPDX-License-Identifier: GPL-2.0-only
// Frames for timed control clients (fastpath/control_timing.h), handed over ahead of their
// arrival time: an ns-3 device on a timed channel delivers each frame at its model arrival
// time, so the wake-ups between fastpathd and the simulator thread cost no model time as
// long as they stay under the client's lead. Only frames whose whole remaining way is that
// client go early: a point-to-point link direction whose peer end's classifier makes the
// frame CONTROL (handed to the port's channel and to nothing else). Anything the peer node
// forwards, drops or passes waits for its arrival time as before.
#include <time.h>

#include "fastpath/control_timing.h"
#include "fastpath/userspace_classifier.h"
#include "worker/worker.h"

namespace fastpath {

const LinkPortSlot* Worker::timedPeer(uint32_t key) const {
  if (ShaperKey::isEgress(key) || ShaperKey::isSegment(key)) return nullptr;
  const LinkPortSlot* slot = links_->find(PortId(key));
  if (!slot || !slot->shaper || slot->segment || slot->medium) return nullptr;
  const LinkPortSlot* peer = links_->find(slot->peer);
  if (!peer || peer->segment || peer->medium || !peer->channel) return nullptr;
  const ControlChannel& ch = *peer->channel;
  return ch.attached() && ch.timed() && ch.leadNs() ? peer : nullptr;
}

bool Worker::controlAt(const LinkPortSlot& peer, const LinkFrame& f) const {
  return peer.classifier->classify(umem_->data(f.addr), f.len).verdict == FP_VERDICT_CONTROL;
}

uint32_t Worker::releaseEarly(uint64_t now) {
  uint32_t work = 0;
  const ActiveSet& active = emulation_.active();
  // (receiveLink may add shapers to the set: they are appended, and visited too.)
  for (size_t i = 0; i < active.size(); ++i) {
    const LinkPortSlot* peer = timedPeer(active[i]);
    if (!peer) continue;
    const LinkPortSlot& slot = *links_->find(PortId(active[i]));
    const uint64_t lead = peer->channel->leadNs();
    const LinkQueue& q = *slot.to_peer;
    const uint32_t room = std::min<uint32_t>(q.capacity() - q.size(), options_.batch_size);
    uint32_t n = 0;
    LinkFrame f;
    while (n < room && slot.shaper->peekNext(&f) &&
           mayDeliverEarly(f.due, now, lead, true, controlAt(*peer, f))) {
      slot.shaper->releaseNext(&f);
      handoff_.arrive(slot, f);
      ++n;
    }
    if (n) work += receiveLink(*peer);
  }
  return work;
}

uint64_t Worker::nextEarly() const {
  uint64_t t = ~0ull;
  const ActiveSet& active = emulation_.active();
  for (size_t i = 0; i < active.size(); ++i) {
    const LinkPortSlot* peer = timedPeer(active[i]);
    if (!peer) continue;
    LinkFrame f;
    if (!links_->find(PortId(active[i]))->shaper->peekNext(&f) || !controlAt(*peer, f)) continue;
    const uint64_t lead = peer->channel->leadNs();
    t = std::min(t, f.due > lead ? f.due - lead : 0);
  }
  return t;
}

}  // namespace fastpath
