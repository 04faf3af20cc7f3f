// SPDX-License-Identifier: GPL-2.0-only
// The queue disc in front of an emulated link direction, as ns-3 has it on a router's
// device: frames wait in the disc until the device queue (`limit_packets` frames, FIFO, in
// front of the wire) has room, then the disc hands the head frame to it — or drops or marks
// it (CoDel). The link is FIFO with a known service time, so a frame's dequeue time is
// known at admission: it is the later of its sending time, the previous frame's dequeue
// and the transmission start of the frame `limit_packets` places ahead of it (whose start
// frees the device-queue slot). The disc's decision is taken then, with that time and
// that sojourn, in admission order — the order and the times ns-3 dequeues in. A dropped
// frame takes no slot and no time on the link.
//
// RED decides at enqueue instead, from the disc's length then and when a dequeue last
// found it empty (aqm_red.cc); what it drops never enters the disc.
//
// The one estimate: ns-3's MinBytes rule looks at the bytes waiting behind the frame when
// it leaves, which include frames that arrive while it waits; here, the bytes that waited
// ahead of it when it came (the same in a steady queue: what a leaving frame leaves
// behind is what it found, in distribution).
#pragma once

#include <cstdint>
#include <vector>

#include "fastpath/link_params.h"
#include "link/cobalt.h"
#include "link/codel.h"
#include "link/red.h"

namespace fastpath {

class LinkRng;

class AqmQueue {
 public:
  /// `capacity`: frames the disc can hold at once at most (the shaper's).
  explicit AqmQueue(uint32_t capacity);

  enum class Fate : uint8_t {
    kPass,       ///< goes on to the device queue at `dequeue`
    kMark,       ///< goes on, ECN's CE set
    kDrop,       ///< dropped by the discipline at its dequeue time
    kOverLimit,  ///< the disc was full when it came (ns-3: dropped before enqueue)
    kFull,       ///< more frames than the emulation holds (counted as its capacity)
    kForcedDrop,  ///< RED: dropped at enqueue, the average over the forced threshold
    kForcedMark,  ///< RED: goes on marked CE, the average over the forced threshold
  };
  struct Outcome {
    Fate fate;
    uint64_t dequeue;  ///< when it leaves the disc (kPass, kMark)
  };
  /// A frame of `len` bytes sent at `now`; `slot`: when the device queue has room for it
  /// (the transmission start of the frame `limit_packets` places ahead; <= now: room now).
  /// `rng`: the link direction's random stream (COBALT's BLUE draws from it).
  Outcome admit(const LinkParams& p, uint64_t now, uint64_t slot, uint32_t len, bool ect,
                LinkRng& rng);

  uint32_t size() const { return uint32_t(tail_ - head_); }  ///< frames in the disc at the last admit
  const CoDel& codel() const { return codel_; }
  const Cobalt& cobalt() const { return cobalt_; }
  const Red& red() const { return red_; }
  /// Continues `old`'s state (a larger shaper replaces a smaller one).
  void moveFrom(const AqmQueue& old);
  /// Forgets every frame (the link's frames were taken away).
  void clear();

 private:
  struct Entry {
    uint64_t dequeue;
    uint32_t len;
  };
  /// RED decides at enqueue (aqm_red.cc): from the disc's length and idle time at `now`.
  Outcome admitRed(const LinkParams& p, uint64_t now, uint64_t slot, uint32_t len, bool ect,
                   LinkRng& rng);
  /// Forgets the frames that left the disc by `now`.
  void release(uint64_t now);

  std::vector<Entry> ring_;  // frames in the disc, by dequeue time (FIFO)
  uint64_t head_ = 0, tail_ = 0, bytes_ = 0;
  uint64_t last_dequeue_ = 0;
  bool last_dropped_ = false;
  CoDel codel_;
  Cobalt cobalt_;
  Red red_;
};

}  // namespace fastpath
