// SPDX-License-Identifier: GPL-2.0-only
#include "medium/rate_control.h"

#include <algorithm>
#include <cstdint>

namespace fastpath::medium {

namespace {
// Counters saturate rather than wrap: a wrapped timer would meet its threshold again.
void bump(uint16_t& c) {
  if (c < UINT16_MAX) ++c;
}

// The rates ns-3 marks mandatory (WifiMode::IsMandatory): every 802.11b rate; 6, 12 and
// 24 Mbit/s of OFDM. A control answer is sent at one of them when no basic rate fits.
bool mandatory(uint32_t kbps) {
  return isDsssRate(kbps) || kbps == 6000 || kbps == 12000 || kbps == 24000;
}
}  // namespace

RateAdaptation::RateAdaptation(const MediumPhy& phy, uint32_t members)
    : data_kbps_(phy.data_rate_kbps),
      members_(members),
      success_threshold_(phy.arf_success_threshold),
      timer_threshold_(phy.arf_timer_threshold),
      rates_(ratesUpTo(phy.data_rate_kbps)) {
  if (phy.rate_control == RateControl::kArf && !rates_.empty())
    arf_.resize(size_t(members) * members);
}

void RateAdaptation::dataOk(uint32_t from, uint32_t to) {
  if (arf_.empty()) return;
  Station& s = arf_[index(from, to)];
  bump(s.timer);
  bump(s.success);
  s.failed = 0;
  s.recovery = false;
  // Equality, as ns-3's: at the top rate the counters run past their thresholds.
  if ((s.success == success_threshold_ || s.timer == timer_threshold_) &&
      s.rate + 1u < rates_.size()) {
    ++s.rate;
    s.timer = s.success = 0;
    s.recovery = true;
  }
}

void RateAdaptation::dataFailed(uint32_t from, uint32_t to) {
  if (arf_.empty()) return;
  Station& s = arf_[index(from, to)];
  bump(s.timer);
  bump(s.failed);
  s.success = 0;
  if (s.recovery) {
    // The first try after a move up failed: back to the rate that worked.
    if (s.failed == 1 && s.rate > 0) --s.rate;
    s.timer = 0;
  } else {
    // Two failures in a row (the 2nd, 4th, ...) fall back one rate.
    if (s.failed % 2 == 0 && s.rate > 0) --s.rate;
    if (s.failed >= 2) s.timer = 0;
  }
}

uint32_t RateAdaptation::ackRateKbps(uint32_t data_kbps, uint32_t top_ack_kbps) const {
  if (arf_.empty() || data_kbps >= top_ack_kbps) return top_ack_kbps;
  uint32_t best = 0;
  for (uint32_t r : ratesUpTo(data_kbps))
    if (mandatory(r)) best = std::max(best, r);
  return best ? best : top_ack_kbps;
}

}  // namespace fastpath::medium
