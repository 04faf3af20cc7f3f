// SPDX-License-Identifier: GPL-2.0-only
// Frames handed to link ports of this worker (a link's peer end, a segment's ports): the
// push onto the port's LinkQueue and the list of ports that have frames waiting, which is
// what a pass receives from (idle link ports cost nothing).
#pragma once

#include "link/link_ports.h"
#include "worker/active_set.h"
#include "worker/worker_frames.h"

namespace fastpath {

class LinkInbox {
 public:
  explicit LinkInbox(WorkerFrames& frames)
      : frames_(frames), ports_(size_t(kMaxPorts - kFirstLinkPort)) {}

  /// A frame the worker holds (kHeld) or took out of an emulation (kLink) onto `port`'s
  /// queue `q`; false: the queue was full (the caller drops it).
  bool push(LinkQueue& q, PortId port, const LinkFrame& f, WorkerFrames::From from) {
    if (!q.push(f)) return false;
    if (from == WorkerFrames::From::kHeld) frames_.book().heldToLink(1);
    ports_.add(uint32_t(port - kFirstLinkPort));
    return true;
  }
  /// Ports with frames waiting, in the order they got them (grows while walked).
  size_t size() const { return ports_.size(); }
  PortId port(size_t i) const { return PortId(ports_[i] + kFirstLinkPort); }
  /// After a pass: ports whose queue is empty leave the list.
  void prune(const LinkPortTable& t) {
    ports_.retain([&](uint32_t k) {
      const LinkPortSlot* s = t.find(PortId(k + kFirstLinkPort));
      return s && s->inbound->size() > 0;
    });
  }
  /// A new table: the list is rebuilt from its queues (ports may have gone or moved).
  void adopt(const LinkPortTable& t) {
    ports_.clear();
    for (const LinkPortSlot& s : t.slots)
      if (s.inbound->size()) ports_.add(uint32_t(s.port - kFirstLinkPort));
  }

 private:
  WorkerFrames& frames_;
  ActiveSet ports_;
};

}  // namespace fastpath
