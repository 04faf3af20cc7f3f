// SPDX-License-Identifier: GPL-2.0-only
// Segments (shared media) inside a worker: a frame sent on a segment port enters the
// medium's emulation, or is fanned out at once; leaving the medium it goes to the port of
// its destination MAC (as a CsmaNetDevice keeps only frames for itself), or — broadcast,
// multicast — to every port but the sender, a copy per extra port. What nobody can take
// is a counted drop.
#pragma once

#include "link/link_ports.h"
#include "worker/link_emulation.h"
#include "worker/link_inbox.h"
#include "worker/worker_frames.h"

namespace fastpath {

class SegmentFanout {
 public:
  SegmentFanout(WorkerFrames& frames, LinkInbox& inbox, LinkEmulation& emulation)
      : frames_(frames), inbox_(inbox), emulation_(emulation) {}

  /// A held frame sent on segment port `slot` of table `t`; `sent` as
  /// LinkEmulation::transmit takes it.
  void transmit(const LinkPortTable& t, const LinkPortSlot& slot, uint64_t addr, uint32_t len,
                uint64_t sent = 0);
  /// A frame leaving the medium (in_link, f.from the sender) to its port(s), but not to
  /// the members in `served` (a bit per member index: they took it ahead of its time, see
  /// worker_timed.h); a frame every member took already goes back to the pool.
  void deliver(const SegmentSlot& seg, const LinkFrame& f, uint64_t served = 0);

 private:
  WorkerFrames& frames_;
  LinkInbox& inbox_;
  LinkEmulation& emulation_;
};

}  // namespace fastpath
