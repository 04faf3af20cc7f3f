// SPDX-License-Identifier: GPL-2.0-only
// Frames for timed control clients (fastpath/control_timing.h), handed over ahead of their
// arrival time: an ns-3 device on a timed channel delivers each frame at its model arrival
// time, so the wake-ups between fastpathd and the simulator thread cost no model time as
// long as they stay under the client's lead. Only a receiver whose whole remaining way is
// that client gets a frame early: the end of a point-to-point link direction, or a member
// of a segment, whose classifier makes the frame CONTROL (handed to the port's channel and
// to nothing else). Anything a node forwards, drops or passes, and every other member of a
// segment, gets the frame at its arrival time as before.
//
// Cost follows the timed traffic: only the emulations (link directions, segment media)
// that took a frame while one of their receivers had a timed client are looked at, and
// only their head frame (the one the emulation gives next), whose verdicts are taken once
// and kept until it leaves. A frame handed over early carries its verdict to the
// receiving end (LinkFrame::verdict; cached(), cachedMeta()), which then does not classify
// it again.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fp_abi.h"
#include "link/link_ports.h"
#include "worker/link_emulation.h"
#include "worker/link_inbox.h"
#include "worker/worker_frames.h"

namespace fastpath {

class TimedRelease {
 public:
  TimedRelease(WorkerFrames& frames, LinkInbox& inbox);

  /// A frame entered emulation `key` (ShaperKey: a link direction or a segment's medium)
  /// of table `t`: the emulation is watched while it holds frames if one of its receivers
  /// has a timed client now.
  void entered(const LinkPortTable& t, uint32_t key);
  /// Hands over every head frame whose receivers may take it by `now` (their lead), at
  /// most `batch` frames per emulation (and no more than a link's peer queue takes), onto
  /// the receivers' queues. Returns the ports that got frames (each once, until the next
  /// call); `handed`: the frames handed over.
  std::span<const PortId> release(const LinkPortTable& t, uint64_t now, uint32_t batch,
                                  uint32_t* handed);
  /// When the next frame may be handed over early (UINT64_MAX: none held). A head frame
  /// whose stamp is past `now` (it waited behind a frame sent after it: LinkShaper::place)
  /// can no longer go early and leaves at its release time: no wake-up for it here.
  uint64_t next(const LinkPortTable& t, uint64_t now);
  /// The frame at `addr` left emulation `key` at its arrival time: the members of a
  /// segment that got it early already (a bit per member index; 0: none).
  uint64_t left(uint32_t key, uint64_t addr);
  /// A new table: verdicts taken with the old one are forgotten, and the emulations that
  /// hold frames (`active`) are looked at again.
  void adopt(const LinkPortTable& t, const ActiveSet& active);
  /// Emulations watched now (tests and counters).
  size_t watched() const { return list_.size(); }
  /// Classifications taken for head frames so far (each frame once per receiver).
  uint64_t classified() const { return classified_; }

  /// A frame handed over early carries its receiver's verdict (CONTROL and its reason and
  /// protocols) in LinkFrame::verdict.
  static bool cached(const LinkFrame& f) { return f.verdict.control; }
  static CarriedVerdict pack(const fp_xdp_meta& m) {
    return CarriedVerdict{true, m.reason, m.l3_proto, m.l4_proto};
  }
  /// The verdict a cached frame carries: CONTROL (header offsets are not kept: nothing
  /// looks at a CONTROL frame's headers on the way to the channel).
  static fp_xdp_meta cachedMeta(const LinkFrame& f) {
    fp_xdp_meta m{};
    m.magic = FP_META_MAGIC;
    m.verdict = FP_VERDICT_CONTROL;
    m.reason = f.verdict.reason;
    m.l3_proto = f.verdict.l3_proto;
    m.l4_proto = f.verdict.l4_proto;
    return m;
  }

 private:
  /// One watched emulation and what was decided for its head frame.
  struct Watch {
    uint32_t key = 0;
    uint64_t addr = ~0ull;  ///< the head frame the verdicts are for (~0: none taken)
    uint64_t takers = 0;    ///< members the frame goes to (links: bit 0, the peer end)
    uint64_t early = 0;     ///< of those, the ones that may take it early
    uint64_t served = 0;    ///< of those, the ones that got it
    PortId peer = 0;                                ///< links: the peer end
    CarriedVerdict verdict[kMaxSegmentPorts] = {};  ///< the verdict per early member
  };
  /// Takes the verdicts for `w`'s head frame `f`.
  void decide(const LinkPortTable& t, Watch& w, const LinkFrame& f);
  /// The client lead of port `p` when its channel is timed (0: not timed, or no client).
  static uint64_t leadOf(const LinkPortTable& t, PortId p);
  /// Whether emulation `key` has a receiver with a timed client now.
  static bool hasTimedReceiver(const LinkPortTable& t, uint32_t key);
  void unwatch(size_t i);

  WorkerFrames& frames_;
  LinkInbox& inbox_;
  std::vector<int32_t> index_;  // ShaperKey -> position in list_, or -1
  std::vector<Watch> list_;
  uint64_t classified_ = 0;

  std::vector<PortId> got_;  // release(): the ports that got frames
  uint32_t releaseLink(const LinkPortTable& t, Watch& w, LinkShaper& sh, uint64_t now,
                       uint32_t batch);
  uint32_t releaseSegment(const LinkPortTable& t, Watch& w, LinkShaper& sh, uint64_t now,
                          uint32_t batch);
  /// Segment head frame `f` to member `m` early; `last`: no member is left to take it
  /// after this one, so it takes the frame itself (else a copy; what cannot be handed
  /// over is a counted drop, as at the arrival time).
  void handSegment(const SegmentMember& m, const LinkFrame& f, CarriedVerdict verdict,
                   bool last);
  void got(PortId p);
};

}  // namespace fastpath
