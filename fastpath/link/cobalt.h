// SPDX-License-Identifier: GPL-2.0-only
// COBALT (CoDel + BLUE), as ns-3's CobaltQueueDisc runs it (after Linux's sch_cake): a
// CoDel whose drop schedule decays instead of resetting when the queue empties, plus BLUE's
// drop probability, raised when the queue overflows or a frame has waited beyond a
// threshold, lowered when a dequeue finds the queue empty. One decision per frame at the
// head of the queue, at its dequeue time (aqm_queue.h says how that time is known).
// Times in nanoseconds; the reciprocal square root in Q0.32 with a cache of the first 16.
#pragma once

#include <array>
#include <cstdint>

#include "fastpath/link_params.h"

namespace fastpath {

class LinkRng;

class Cobalt {
 public:
  enum class Verdict : uint8_t { kPass, kDrop, kMark };
  Cobalt();
  /// The frame at the head at `now` after `sojourn` ns; `rng` gives BLUE's draw, one per
  /// frame while its probability is above 0 (as ns-3 draws).
  Verdict head(const LinkParams& p, uint64_t now, uint64_t sojourn, bool ect, LinkRng& rng);
  /// A dequeue at `now` found the queue empty.
  void empty(const LinkParams& p, uint64_t now);
  /// A frame was refused at `now`: the queue was full.
  void full(const LinkParams& p, uint64_t now);

  uint32_t count() const { return count_; }
  bool dropping() const { return dropping_; }
  double pDrop() const { return p_drop_; }

 private:
  void newtonStep();
  void invSqrt();
  int64_t controlLaw(const LinkParams& p, int64_t t) const;

  static constexpr uint32_t kCache = 16;
  std::array<uint32_t, kCache> cache_{};
  uint32_t count_ = 0;
  uint32_t rec_inv_sqrt_ = ~0u;
  bool dropping_ = false;
  int64_t drop_next_ = 0;
  int64_t last_blue_ = 0;
  double p_drop_ = 0;
};

}  // namespace fastpath
