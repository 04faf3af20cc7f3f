// SPDX-License-Identifier: GPL-2.0-only
#include "link/red.h"

#include <algorithm>
#include <cmath>

#include "link/link_shaper.h"

namespace fastpath {

void Red::configure(const LinkParams& p, uint64_t now) {
  const LinkParams::Red& r = p.red;
  cfg_ = r;
  configured_ = true;
  bytes_ = p.aqm_limit_packets == 0;
  // Packets per second at the link's rate, of MeanPktSize: the idle period's arrivals.
  ptc_ = double(r.link_bps) / (8.0 * r.mean_pkt_size);
  min_th_ = r.min_th;
  max_th_ = r.max_th;
  qw_ = r.qw;
  adapt_max_p_ = r.adapt_max_p;
  if (r.ared) {  // ARED: thresholds and weight from the link, the maximum adapts
    min_th_ = max_th_ = qw_ = 0;
    adapt_max_p_ = true;
  }
  band_ = Band::kAbove;
  if (min_th_ == 0 && max_th_ == 0) {
    // Floyd's adaptive RED: MinTh at least 5 packets or half the target delay's queue,
    // MaxTh three times it.
    min_th_ = std::max(5.0, double(r.target_ns) * 1e-9 * ptc_ / 2.0);
    if (bytes_) min_th_ *= r.mean_pkt_size;
    max_th_ = 3 * min_th_;
  }
  avg_ = 0;
  count_ = count_bytes_ = 0;
  old_ = false;
  const double diff = max_th_ - min_th_ == 0 ? 1.0 : max_th_ - min_th_;
  v_a_ = 1.0 / diff;
  v_b_ = -min_th_ / diff;
  cur_max_p_ = 1.0 / r.l_interm;
  if (r.gentle) {  // fixed here, as ns-3 fixes them (max-p's later changes leave them)
    v_c_ = (1.0 - cur_max_p_) / max_th_;
    v_d_ = 2.0 * cur_max_p_ - 1.0;
  }
  if (qw_ == 0) {
    qw_ = 1.0 - std::exp(-1.0 / ptc_);
  } else if (qw_ == -1) {
    const double rtt = std::max(0.1, 3.0 * (double(r.link_delay_ns) * 1e-9 + 1.0 / ptc_));
    qw_ = 1.0 - std::exp(-1.0 / (10 * rtt * ptc_));
  } else if (qw_ == -2) {
    qw_ = 1.0 - std::exp(-10.0 / ptc_);
  }
  bottom_ = r.bottom;
  if (bottom_ == 0)
    bottom_ = std::min(0.01, 8.0 * r.mean_pkt_size * double(r.rtt_ns) * 1e-9 / double(r.link_bps));
  // LastSet is a simulation time and fastpathd knows none: 0 (ns-3's start value, long
  // before a script's traffic) lets the first frame adapt; another value counts from it.
  last_set_ = r.last_set_ns ? int64_t(now) + int64_t(r.last_set_ns)
                            : int64_t(now) - int64_t(r.interval_ns) - 1;
}

void Red::adapt(uint64_t now) {
  const LinkParams::Red& r = cfg_;
  if (adapt_max_p_ && int64_t(now) > last_set_ + int64_t(r.interval_ns)) {
    // ARED's AIMD keeps the average near the middle of the band.
    const double part = 0.4 * (max_th_ - min_th_);
    if (avg_ < min_th_ + part && cur_max_p_ > bottom_) {
      cur_max_p_ *= r.beta;
      last_set_ = int64_t(now);
    } else if (avg_ > max_th_ - part && r.top > cur_max_p_) {
      cur_max_p_ += std::min(r.alpha, 0.25 * cur_max_p_);
      last_set_ = int64_t(now);
    }
  } else if (r.feng) {
    // Feng: divide on falling below the band, multiply on rising above it, once each.
    if (min_th_ < avg_ && avg_ < max_th_) {
      band_ = Band::kBetween;
    } else if (avg_ < min_th_ && band_ != Band::kBelow) {
      band_ = Band::kBelow;
      cur_max_p_ /= r.feng_alpha;
    } else if (avg_ > max_th_ && band_ != Band::kAbove) {
      band_ = Band::kAbove;
      cur_max_p_ *= r.feng_beta;
    }
  }
}

double Red::probability(const LinkParams::Red& r) const {
  double p;
  if (avg_ >= max_th_) {
    p = r.gentle ? v_c_ * avg_ + v_d_ : 1.0;
  } else {
    p = v_a_ * avg_ + v_b_;
    if (r.nonlinear) p *= p * 1.5;
    p *= cur_max_p_;
  }
  return std::min(p, 1.0);
}

double Red::spread(double p, uint32_t len) const {
  // The count since the last drop makes drops evenly spaced (Wait: none before 1/p).
  const double n = bytes_ ? double(count_bytes_ / cfg_.mean_pkt_size) : double(count_);
  if (cfg_.wait)
    p = n * p < 1.0 ? 0.0 : n * p < 2.0 ? p / (2.0 - n * p) : 1.0;
  else
    p = n * p < 1.0 ? p / (1.0 - n * p) : 1.0;
  if (bytes_ && p < 1.0) p = p * len / cfg_.mean_pkt_size;
  return std::min(p, 1.0);
}

Red::Verdict Red::enqueue(const LinkParams& p, uint64_t now, uint64_t queued, bool idle,
                          uint64_t idle_since, uint32_t len, bool ect, LinkRng& rng) {
  if (!configured_ || !(cfg_ == p.red) || bytes_ != (p.aqm_limit_packets == 0)) configure(p, now);
  const LinkParams::Red& r = cfg_;
  // Idle: the average decays as if MeanPktSize packets had kept arriving at the link's rate.
  uint64_t m = 0;
  if (idle && now > idle_since) m = uint64_t(ptc_ * double(now - idle_since) * 1e-9);
  avg_ = avg_ * std::pow(1.0 - qw_, double(m + 1)) + qw_ * double(queued);
  adapt(now);
  ++count_;
  count_bytes_ += len;
  enum { kNone, kUnforced, kForced } drop = kNone;
  if (avg_ >= min_th_ && queued > 1) {
    if (avg_ >= (r.gentle ? 2 * max_th_ : max_th_)) {
      drop = kForced;
    } else if (!old_) {  // just entered the band: the count starts here
      count_ = 1;
      count_bytes_ = len;
      old_ = true;
    } else {
      v_prob_ = spread(probability(r), len);
      if (rng.uniform() <= v_prob_) {
        count_ = count_bytes_ = 0;
        drop = kUnforced;
      }
    }
  } else {
    v_prob_ = 0;
    old_ = false;
  }
  if (drop == kUnforced) return p.aqm_ecn && ect ? Verdict::kUnforcedMark : Verdict::kUnforcedDrop;
  if (drop == kForced) {
    if (!r.hard_drop && p.aqm_ecn && ect) return Verdict::kForcedMark;
    if (r.ns1_compat) count_ = count_bytes_ = 0;
    return Verdict::kForcedDrop;
  }
  return Verdict::kPass;
}

}  // namespace fastpath
