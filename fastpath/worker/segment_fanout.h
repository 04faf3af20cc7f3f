// SPDX-License-Identifier: GPL-2.0-only
// Segments (shared media) inside a worker: a frame sent on a segment port enters the
// medium's emulation, or is fanned out at once; leaving the medium it goes to the port of
// its destination MAC (as a CsmaNetDevice keeps only frames for itself), or — broadcast,
// multicast — to every port but the sender, a copy per extra port. A bridge's port on the
// segment hears every frame (promiscuous, as ns-3's BridgeNetDevice has its ports): the
// bridge learns the source, and sends the frame on the port its destination was learned
// on, or on every other port (broadcast, multicast, unknown), where it enters that
// segment's medium as any sender's frame. What nobody can take is a counted drop.
#pragma once

#include "link/link_ports.h"
#include "worker/link_emulation.h"
#include "worker/link_inbox.h"
#include "worker/worker_frames.h"

namespace fastpath {

class SegmentFanout {
 public:
  /// Where a bridge sends what it forwards: the worker's one egress dispatch (so the
  /// frame is counted, tapped and emulated on the out port's segment as any sender's).
  class Egress {
   public:
    virtual void transmit(PortId port, uint64_t addr, uint32_t len, uint64_t sent) = 0;

   protected:
    ~Egress() = default;
  };

  SegmentFanout(WorkerFrames& frames, LinkInbox& inbox, LinkEmulation& emulation)
      : frames_(frames), inbox_(inbox), emulation_(emulation) {}

  /// A held frame sent on segment port `slot` of table `t`; `sent` as
  /// LinkEmulation::transmit takes it.
  void transmit(const LinkPortTable& t, const LinkPortSlot& slot, uint64_t addr, uint32_t len,
                uint64_t sent = 0);
  /// A frame leaving the medium (in_link, f.from the sender) to its port(s), but not to
  /// the members in `served` (a bit per member index: they took it ahead of its time, see
  /// worker_timed.h); a frame every member took already goes back to the pool. `sent`:
  /// for a frame of an unshaped medium (f.due 0), when the model has it sent (0: unknown).
  void deliver(const SegmentSlot& seg, const LinkFrame& f, uint64_t served = 0,
               uint64_t sent = 0);
  /// Sets where bridges send (the worker); without it, segments with bridge ports are
  /// never published to this fan-out.
  void setEgress(Egress* egress) { egress_ = egress; }
  /// Sets the clock of the worker's pass (CLOCK_MONOTONIC, read once per pass; the worker
  /// owns it): a bridge hears a frame of an unshaped medium then, without a clock read of
  /// its own per frame.
  void setPassClock(const uint64_t* clock) { pass_clock_ = clock; }

  /// Bridges relaying one frame at once at most (unshaped segments in a loop: ns-3 has no
  /// spanning tree either; the frame is dropped and counted as bridge_loop).
  static constexpr uint32_t kMaxBridgeDepth = 16;

 private:
  /// Each bridge port of `seg` but the sender's hears `f` (a copy each); whether any did.
  /// `sent` as deliver() takes it.
  bool toBridges(const SegmentSlot& seg, const LinkFrame& f, uint64_t sent);
  /// Bridge port `m` heard the held frame `addr` at model time `now`: learn, then forward
  /// or flood it (sent on at `now`).
  void bridge(const SegmentMember& m, uint64_t addr, uint32_t len, uint64_t now);

  WorkerFrames& frames_;
  LinkInbox& inbox_;
  LinkEmulation& emulation_;
  Egress* egress_ = nullptr;
  const uint64_t* pass_clock_ = nullptr;
  uint32_t depth_ = 0;
};

}  // namespace fastpath
