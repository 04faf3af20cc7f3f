// SPDX-License-Identifier: GPL-2.0-only
// Link emulation inside a worker, its own stage as VPP keeps nsim in its own graph node:
// frames sent on an emulated link direction, segment medium or interface egress enter
// that LinkShaper here (loss, duplication, corruption, queue, times), and each pass takes
// out what is due across every shaper holding frames, in due-time order, for the
// worker's egress dispatch to hand on. Only shapers that hold frames are visited: idle
// links cost nothing. Lateness (handed on after the due time) is recorded where the frame
// finally leaves the worker's hands (Worker), so every wait inside the worker counts.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "link/link_ports.h"
#include "link/link_shaper.h"
#include "worker/active_set.h"
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
  /// Takes out the frames due by `now` from every shaper holding frames, in due-time
  /// order across shapers (equal ones: the lower key first), at most the `max_release`
  /// earliest of them. A link direction gives no more than its peer's
  /// queue takes, an interface egress nothing while its port is not in `served` (the rest
  /// stays, late and counted so, rather than dropped by a queue the model does not have).
  std::span<const Released> takeDue(uint64_t now, const LinkPortTable& t,
                                    std::span<XskSocket* const> served);
  /// The earliest arrival held (after takeDue and the admissions since); UINT64_MAX: none.
  uint64_t nextArrival() const { return next_arrival_; }
  /// The last takeDue took as many frames as a pass may: what is due still waits for the
  /// next pass.
  bool tookMax() const { return took_max_; }
  /// The shapers holding frames (their ShaperKeys).
  const ActiveSet& active() const { return active_; }
  /// A new table: the shapers holding frames are found again in it.
  void adopt(const LinkPortTable& t);
  /// The shaper `key` names in `t` (nullptr: none).
  static LinkShaper* shaperOf(const LinkPortTable& t, uint32_t key);

 private:
  WorkerFrames& frames_;
  ActiveSet active_;  // shapers holding frames
  uint64_t next_arrival_ = ~0ull;
  bool took_max_ = false;
  std::vector<Released> due_;
  std::vector<LinkFrame> out_;
  std::vector<uint64_t> arrival_;
  struct Head {
    uint64_t arrival;  ///< the shaper's earliest frame
    uint32_t key;
    uint32_t room;  ///< frames the shaper may still give this pass (its peer's queue)
  };
  std::vector<Head> heads_;  // takeDue's merge
};

}  // namespace fastpath
