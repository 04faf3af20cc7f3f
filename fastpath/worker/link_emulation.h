// SPDX-License-Identifier: GPL-2.0-only
// Link emulation inside a worker, its own stage as VPP keeps nsim in its own graph node:
// frames sent on an emulated link direction, segment medium or interface egress enter
// that LinkShaper here (loss, duplication, corruption, queue, times), and each pass takes
// out what is due across the shapers, in due-time order, for the worker's egress dispatch
// to hand on. The shapers holding frames wait in a DueOrder keyed by their earliest
// frame's arrival: a pass touches only the shapers with frames due (each re-enters with
// its next frame's arrival after a release), and the next arrival is read in O(1), so
// neither idle links nor links holding frames for later cost a pass anything.
// Lateness (handed on after the due time) is recorded where the frame finally leaves the
// worker's hands (Worker), so every wait inside the worker counts.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "link/link_ports.h"
#include "link/link_shaper.h"
#include "worker/active_set.h"
#include "worker/due_order.h"
#include "worker/worker_frames.h"

namespace fastpath {

class XskSocket;

/// Which shaper of a LinkPortTable: an interface port's egress (the port id), a link
/// port's direction (the port id) or a segment's medium (kMaxPorts + its index).
struct ShaperKey {
  static constexpr uint32_t kSegmentBase = kMaxPorts;
  static constexpr uint32_t kCount = kMaxPorts + kMaxLinks;
  static uint32_t segment(size_t index) { return kSegmentBase + uint32_t(index); }
  static bool isEgress(uint32_t key) { return key < kFirstLinkPort; }
  static bool isSegment(uint32_t key) { return key >= kSegmentBase; }
};

/// A frame taken out of an emulation, with the shaper it left.
struct Released {
  LinkFrame frame;  ///< `due` is its arrival time
  uint32_t key;     ///< ShaperKey
  uint32_t seq;     ///< order of release, for equal due times
};

class LinkEmulation {
 public:
  /// `max_release`: frames taken out per pass at most (the rest next pass, late).
  LinkEmulation(WorkerFrames& frames, uint32_t max_release);

  /// Admits a held frame into shaper `key` of the current table (loss, duplication,
  /// corruption, queue); drops are counted at `at`, the sending port. `from` comes back
  /// with the frame (a segment's sender). `sent`: when the model has the node send it —
  /// a frame that came out of an emulated link is sent at its arrival time there, however
  /// late the worker got to it, so that its queue admission and its times on this link are
  /// those of the model and one late pass is not passed on to every hop after it; 0: now
  /// (a frame from a real interface, or not emulated before).
  void transmit(LinkShaper& sh, uint32_t key, PortId at, uint64_t addr, uint32_t len,
                PortId from = 0, uint64_t sent = 0);
  /// Takes out the frames due by `now`, in arrival order across shapers (equal arrivals:
  /// the lower ShaperKey first — interface egress by port, then link directions by port,
  /// then segments), at most the `max_release` earliest of them. A link direction gives no
  /// more than its peer's queue takes, an interface egress nothing while its port is not
  /// in `served` (the rest stays, late and counted so, rather than dropped by a queue the
  /// model does not have). Visits only shapers with frames due: O(log n) per shaper
  /// visited, nothing for the others.
  std::span<const Released> takeDue(uint64_t now, const LinkPortTable& t,
                                    std::span<XskSocket* const> served);
  /// The earliest arrival held (after takeDue and the admissions since); UINT64_MAX: none.
  /// A frame taken out ahead of the order (a timed client's early release) may leave it
  /// earlier than the shaper's next frame until the next takeDue: a wake-up too early,
  /// never one too late.
  uint64_t nextArrival() const { return order_.empty() ? ~0ull : order_.top().time; }
  /// The last takeDue took as many frames as a pass may: what is due still waits for the
  /// next pass.
  bool tookMax() const { return took_max_; }
  /// The shapers holding frames (their ShaperKeys; one emptied by a release ahead of the
  /// order stays listed until the next takeDue reaches its time).
  const ActiveSet& active() const { return active_; }
  /// `clock`: a value CLOCK_MONOTONIC gave (monotonicNs()) a moment ago. The clock is past
  /// it, so a frame sent at or before it (`sent` of transmit(): its arrival at the sending
  /// node, due by the pass that released it) is sent then without reading the clock again:
  /// one clock read less per emulated hop, the same times.
  void sawClock(uint64_t clock) {
    if (clock > clock_floor_) clock_floor_ = clock;
  }
  /// A new table: the shapers holding frames are found again in it.
  void adopt(const LinkPortTable& t);
  /// The shaper `key` names in `t` (nullptr: none).
  static LinkShaper* shaperOf(const LinkPortTable& t, uint32_t key);

 private:
  // Brings the order's first entry up to date (shapers emptied or moved on ahead of the
  // order, egress of ports not served parked); false: no shaper holds frames.
  bool settle(const LinkPortTable& t, std::span<XskSocket* const> served);
  // Frames the shaper `key` may still give in this pass (its peer's queue room).
  uint32_t roomOf(uint32_t key, const LinkPortTable& t, uint32_t cap);
  // Parked egress shapers whose port is served again go back into the order.
  void unpark(const LinkPortTable& t, std::span<XskSocket* const> served);
  // What a flow-queue discipline decided after admission (LinkShaper::discEvents): marks
  // set CE, drops freed and counted at `at` (a segment's: at the frame's sender).
  void applyDiscEvents(LinkShaper& sh, PortId at, bool segment);

  WorkerFrames& frames_;
  ActiveSet active_;  // shapers holding frames
  // The shapers holding frames, by their earliest arrival (a shaper whose port is not
  // served is parked instead, and one whose peer queue is full leaves it for the pass).
  DueOrder order_;
  ActiveSet parked_;                // interface egress shapers of a port not served
  std::vector<uint32_t> deferred_;  // left for this pass: the peer's queue is full
  bool took_max_ = false;
  std::vector<Released> due_;
  std::vector<LinkFrame> out_;
  std::vector<uint64_t> arrival_;
  // Per key, the peer queue's room left in the pass numbered room_pass_[key].
  std::vector<uint32_t> room_, room_pass_;
  uint32_t pass_ = 0;
  uint64_t clock_floor_ = 0;  // the clock is at or past it (sawClock, the last read)
};

}  // namespace fastpath
