// SPDX-License-Identifier: GPL-2.0-only
#include "link/codel.h"

namespace fastpath {
namespace {

constexpr int kCoDelShift = 10;   // CoDel's time unit: 1024 ns
constexpr int kRecInvShift = 16;  // the reciprocal square root keeps its top 16 bits

uint64_t units(uint64_t ns) { return ns >> kCoDelShift; }

}  // namespace

uint16_t CoDel::newtonStep(uint16_t rec, uint32_t count) {
  // x' = x / 2 * (3 - count * x^2), x in Q0.32.
  const uint32_t x = uint32_t(rec) << kRecInvShift;
  const uint32_t x2 = uint32_t((uint64_t(x) * x) >> 32);
  uint64_t v = (3ull << 32) - uint64_t(count) * x2;
  v >>= 2;  // headroom for the product below
  v = (v * x) >> (32 - 2 + 1);
  return uint16_t(v >> kRecInvShift);
}

uint64_t CoDel::controlLaw(uint64_t t, uint64_t interval, uint16_t rec) {
  // interval / sqrt(count), with the interval in 32 bits as ns-3 keeps it.
  const uint32_t iv = uint32_t(interval);
  return t + uint32_t((uint64_t(iv) * (uint64_t(rec) << kRecInvShift)) >> 32);
}

bool CoDel::okToDrop(uint64_t now, uint64_t sojourn, uint64_t bytes_behind) {
  if (units(sojourn) < units(p_->aqm_target_ns) || bytes_behind < p_->aqm_min_bytes) {
    first_above_ = 0;  // below target: stay below for at least an interval
    return false;
  }
  if (first_above_ == 0) {
    first_above_ = now + units(p_->aqm_interval_ns);
    return false;
  }
  return now > first_above_;
}

CoDel::Verdict CoDel::sent(uint64_t sojourn, bool ect) const {
  if (p_->aqm_ecn && ect && p_->aqm_ce_threshold_ns &&
      units(sojourn) > units(p_->aqm_ce_threshold_ns))
    return Verdict::kMark;
  return Verdict::kPass;
}

CoDel::Verdict CoDel::dropAgain(uint64_t now, bool ecn) {
  ++count_;
  rec_inv_sqrt_ = newtonStep(rec_inv_sqrt_, count_);
  if (ecn) {  // marked and sent: the dequeue ends with it
    drop_next_ = controlLaw(now, units(p_->aqm_interval_ns), rec_inv_sqrt_);
    return Verdict::kMark;
  }
  pending_ = Pending::kLoop;
  return Verdict::kDrop;
}

CoDel::Verdict CoDel::head(const LinkParams& p, uint64_t now_ns, uint64_t sojourn,
                           uint64_t bytes_behind, bool ect, bool waited, bool emptied) {
  p_ = &p;
  const uint64_t now = units(now_ns);
  const bool ecn = p.aqm_ecn && ect;
  if (pending_ != Pending::kNone && !waited) {
    // The dequeue that dropped the previous frame found no next one.
    first_above_ = 0;
    if (pending_ == Pending::kLoop) dropping_ = false;
    pending_ = Pending::kNone;
  } else if (pending_ == Pending::kNone && emptied) {
    dropping_ = false;
  }
  if (pending_ == Pending::kLoop) {
    pending_ = Pending::kNone;
    if (!okToDrop(now, sojourn, bytes_behind))
      dropping_ = false;
    else
      drop_next_ = controlLaw(drop_next_, units(p.aqm_interval_ns), rec_inv_sqrt_);
    if (dropping_ && now >= drop_next_) return dropAgain(now, ecn);
    return sent(sojourn, ect);
  }
  if (pending_ == Pending::kEnter) {
    pending_ = Pending::kNone;
    okToDrop(now, sojourn, bytes_behind);  // only moves first_above_
    return sent(sojourn, ect);
  }
  const bool ok = okToDrop(now, sojourn, bytes_behind);
  if (dropping_) {
    if (!ok) {
      dropping_ = false;  // the sojourn fell below target
      return sent(sojourn, ect);
    }
    if (now >= drop_next_) return dropAgain(now, ecn);
    return sent(sojourn, ect);
  }
  if (!ok) return sent(sojourn, ect);
  // Enter the dropping state with this frame. Re-entered soon after leaving it, the drop
  // rate that controlled the queue last time is the starting point.
  const Verdict v = ecn ? Verdict::kMark : Verdict::kDrop;
  if (!ecn) pending_ = Pending::kEnter;
  dropping_ = true;
  const int64_t delta = int64_t(count_) - int64_t(last_count_);
  if (delta > 1 && now >= drop_next_ && now - drop_next_ < 16 * units(p.aqm_interval_ns)) {
    count_ = delta;
    rec_inv_sqrt_ = newtonStep(rec_inv_sqrt_, count_);
  } else {
    count_ = 1;
    rec_inv_sqrt_ = 0xffff;
  }
  last_count_ = count_;
  drop_next_ = controlLaw(now, units(p.aqm_interval_ns), rec_inv_sqrt_);
  return v;
}

}  // namespace fastpath
