// SPDX-License-Identifier: GPL-2.0-only
// Point-to-point internal links inside a worker: a frame sent on a link port goes to the
// peer end's queue (a descriptor move: no copy, no syscall), or into the direction's
// emulation first; a frame the emulation releases goes to the peer end's queue then.
// The peer end receives it on the worker's next look at its queue (LinkInbox).
#pragma once

#include "link/link_ports.h"
#include "worker/link_emulation.h"
#include "worker/link_inbox.h"
#include "worker/worker_frames.h"

namespace fastpath {

class LinkHandoff {
 public:
  LinkHandoff(WorkerFrames& frames, LinkInbox& inbox, LinkEmulation& emulation)
      : frames_(frames), inbox_(inbox), emulation_(emulation) {}

  /// A held frame sent on link port `slot` (not a segment port); `sent` as
  /// LinkEmulation::transmit takes it. `own`: written by the port's own client (its ns-3
  /// device), which decides itself whether its interface sends: an end set down stops
  /// only what the node forwards (the client's state reaches fastpathd a moment later).
  void transmit(const LinkPortSlot& slot, uint64_t addr, uint32_t len, uint64_t sent = 0,
                bool own = false) {
    if (!slot.state->up.load(std::memory_order_relaxed) ||
        (!own && slot.port_state && !slot.port_state->up.load(std::memory_order_relaxed)))
      return frames_.drop(slot.port, WorkerDrop::kLinkDown, addr);
    WorkerPortCounters& pc = frames_.port(slot.port);
    if (slot.shaper) {
      pc.tx_packets.add(1);
      pc.tx_bytes.add(len);
      return emulation_.transmit(*slot.shaper, slot.port, slot.port, addr, len, 0, sent);
    }
    if (!inbox_.push(*slot.to_peer, slot.peer, LinkFrame{addr, len, 0, 0},
                     WorkerFrames::From::kHeld))
      return frames_.drop(slot.port, WorkerDrop::kLinkQueueFull, addr);
    pc.tx_packets.add(1);
    pc.tx_bytes.add(len);
  }
  /// A frame the emulation of `slot`'s direction released (in_link): to the peer end.
  void arrive(const LinkPortSlot& slot, const LinkFrame& f) {
    if (!inbox_.push(*slot.to_peer, slot.peer, f, WorkerFrames::From::kLink))
      frames_.drop(slot.peer, WorkerDrop::kLinkQueueFull, f.addr, WorkerFrames::From::kLink);
  }

 private:
  WorkerFrames& frames_;
  LinkInbox& inbox_;
  LinkEmulation& emulation_;
};

}  // namespace fastpath
