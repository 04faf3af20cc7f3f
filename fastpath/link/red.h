// SPDX-License-Identifier: GPL-2.0-only
// RED, as ns-3's RedQueueDisc decides: at enqueue, from the average queue (an EWMA of the
// disc's length, updated at every arrival and aged over an idle period as if packets of
// MeanPktSize had arrived back to back at the link's rate), with a drop probability that
// rises linearly from MinTh to MaxTh (to 1 at 2 MaxTh when gentle, or quadratically
// with NLRED) and is spread out by the count of frames since the last drop. The maximum
// probability adapts with ARED (AIMD every Interval) or Feng's adaptive RED (MIMD on
// leaving the band). Unforced decisions (the probability) and forced ones (over the
// forced threshold) are told apart, as ns-3 counts them. The queue's length and idle time
// come from the dequeue-time model (aqm_queue.h); the random draw from the link
// direction's stream.
#pragma once

#include <cstdint>

#include "fastpath/link_params.h"

namespace fastpath {

class LinkRng;

class Red {
 public:
  enum class Verdict : uint8_t { kPass, kUnforcedDrop, kForcedDrop, kUnforcedMark, kForcedMark };
  /// A frame of `len` bytes arrives at `now` (ns). `queued`: what waits in the disc before
  /// it, in the unit of its limit (packets, or bytes with aqm_limit_bytes); `idle`: a
  /// dequeue found the disc empty since the last arrival, the last time at `idle_since`.
  Verdict enqueue(const LinkParams& p, uint64_t now, uint64_t queued, bool idle,
                  uint64_t idle_since, uint32_t len, bool ect, LinkRng& rng);

  double average() const { return avg_; }
  uint64_t count() const { return count_; }  ///< frames since the last drop (or band entry)
  double maxP() const { return cur_max_p_; }
  double minTh() const { return min_th_; }  ///< after the automatic settings
  double maxTh() const { return max_th_; }
  double weight() const { return qw_; }
  double lastProbability() const { return v_prob_; }

 private:
  void configure(const LinkParams& p, uint64_t now);
  void adapt(uint64_t now);
  double probability(const LinkParams::Red& r) const;
  double spread(double p, uint32_t len) const;

  enum class Band : uint8_t { kBelow, kBetween, kAbove };
  bool configured_ = false;
  LinkParams::Red cfg_;  // the settings configure() ran with
  bool bytes_ = false;   // thresholds in bytes (the limit's unit)
  // Resolved settings (the automatic ones computed).
  double min_th_ = 0, max_th_ = 0, qw_ = 0, ptc_ = 0, bottom_ = 0;
  double v_a_ = 0, v_b_ = 0, v_c_ = 0, v_d_ = 0;
  bool adapt_max_p_ = false;
  // State.
  double avg_ = 0, cur_max_p_ = 0, v_prob_ = 0;
  uint64_t count_ = 0, count_bytes_ = 0;
  bool old_ = false;
  int64_t last_set_ = 0;
  Band band_ = Band::kAbove;
};

}  // namespace fastpath
