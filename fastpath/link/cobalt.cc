// SPDX-License-Identifier: GPL-2.0-only
#include "link/cobalt.h"

#include <algorithm>

#include "link/link_shaper.h"

namespace fastpath {

Cobalt::Cobalt() {
  // The cache holds count 0 .. 15: each entry four Newton steps on from the one before.
  rec_inv_sqrt_ = ~0u;
  cache_[0] = rec_inv_sqrt_;
  for (count_ = 1; count_ < kCache; ++count_) {
    for (int i = 0; i < 4; ++i) newtonStep();
    cache_[count_] = rec_inv_sqrt_;
  }
  count_ = 0;
  rec_inv_sqrt_ = ~0u;
}

void Cobalt::newtonStep() {
  // x' = x / 2 * (3 - count * x^2), x in Q0.32.
  const uint32_t x = rec_inv_sqrt_;
  const uint32_t x2 = uint32_t((uint64_t(x) * x) >> 32);
  uint64_t v = (3ull << 32) - uint64_t(count_) * x2;
  v >>= 2;
  v = (v * x) >> (32 - 2 + 1);
  rec_inv_sqrt_ = uint32_t(v);
}

void Cobalt::invSqrt() {
  if (count_ < kCache)
    rec_inv_sqrt_ = cache_[count_];
  else
    newtonStep();
}

int64_t Cobalt::controlLaw(const LinkParams& p, int64_t t) const {
  return t + int64_t((uint64_t(uint32_t(p.aqm_interval_ns)) * rec_inv_sqrt_) >> 32);
}

void Cobalt::full(const LinkParams& p, uint64_t now_ns) {
  const int64_t now = int64_t(now_ns);
  if (now - last_blue_ > int64_t(p.aqm_target_ns)) {
    p_drop_ = std::min(p_drop_ + p.aqm_blue_increment, 1.0);
    last_blue_ = now;
  }
  dropping_ = true;
  drop_next_ = now;
  if (!count_) count_ = 1;
}

void Cobalt::empty(const LinkParams& p, uint64_t now_ns) {
  const int64_t now = int64_t(now_ns);
  if (p_drop_ > 0 && now - last_blue_ > int64_t(p.aqm_target_ns)) {
    p_drop_ = std::max(p_drop_ - p.aqm_blue_decrement, 0.0);
    last_blue_ = now;
  }
  dropping_ = false;
  if (count_ && now - drop_next_ >= 0) {  // the schedule decays rather than resets
    --count_;
    invSqrt();
    drop_next_ = controlLaw(p, drop_next_);
  }
}

Cobalt::Verdict Cobalt::head(const LinkParams& p, uint64_t now_ns, uint64_t sojourn_ns, bool ect,
                             LinkRng& rng) {
  const int64_t now = int64_t(now_ns), sojourn = int64_t(sojourn_ns);
  int64_t schedule = now - drop_next_;
  const bool over_target = sojourn > int64_t(p.aqm_target_ns);
  bool next_due = count_ && schedule >= 0;
  bool marked = false, drop = false;
  if (over_target) {
    if (!dropping_) {
      dropping_ = true;
      drop_next_ = controlLaw(p, now);
    }
    if (!count_) count_ = 1;
  } else if (dropping_) {
    dropping_ = false;
  }
  if (next_due && dropping_) {
    marked = p.aqm_ecn && ect;
    drop = !marked;
    if (count_ != UINT32_MAX) ++count_;
    invSqrt();
    drop_next_ = controlLaw(p, drop_next_);
    schedule = now - drop_next_;
  } else {
    while (next_due) {
      --count_;
      invSqrt();
      drop_next_ = controlLaw(p, drop_next_);
      schedule = now - drop_next_;
      next_due = count_ && schedule >= 0;
    }
  }
  if (!marked && p.aqm_ecn && ect && p.aqm_ce_threshold_ns &&
      sojourn > int64_t(p.aqm_ce_threshold_ns))
    marked = true;
  // BLUE: raised when a frame has waited beyond its threshold (at most once a target).
  if (sojourn > int64_t(p.aqm_blue_threshold_ns) && now - last_blue_ > int64_t(p.aqm_target_ns)) {
    p_drop_ = std::min(p_drop_ + p.aqm_blue_increment, 1.0);
    last_blue_ = now;
  }
  if (p_drop_ > 0) drop = drop || rng.uniform() < p_drop_;  // BLUE (without ECN, deliberately)
  // drop_next_ doubles as an activity timeout
  if (!count_)
    drop_next_ = now + int64_t(p.aqm_interval_ns);
  else if (schedule > 0 && !drop)
    drop_next_ = now;
  if (drop) return Verdict::kDrop;
  return marked ? Verdict::kMark : Verdict::kPass;
}

}  // namespace fastpath
