// SPDX-License-Identifier: GPL-2.0-only
// The rate of a member's unicast data frames, per destination. Constant (ns-3's
// ConstantRateWifiManager): the medium's data rate. ARF (ns-3's ArfWifiManager, Kamerman
// and Monteban's Auto Rate Fallback): each sender keeps per destination a rate index into
// the family's rates up to the data rate, starting at the lowest, with counters of
// consecutive successes and failures and a timer counted in transmissions. It moves up after
// SuccessThreshold successes in a row or TimerThreshold transmissions since the last change,
// and then is "in recovery": the first failure falls back at once. Otherwise every second
// failure in a row falls back. Each try of a data frame is reported (a retransmission
// counts as ARF's own transmission); RTS failures are not (ns-3's ARF ignores them).
#pragma once

#include <cstdint>
#include <vector>

#include "fastpath/medium_types.h"

namespace fastpath::medium {

class RateAdaptation {
 public:
  RateAdaptation(const MediumPhy& phy, uint32_t members);

  /// The rate of the next data frame from `from` to `to`.
  uint32_t rateKbps(uint32_t from, uint32_t to) const {
    return arf_.empty() ? data_kbps_ : rates_[arf_[index(from, to)].rate];
  }
  /// The try of a data frame from `from` to `to` was acknowledged, or not.
  void dataOk(uint32_t from, uint32_t to);
  void dataFailed(uint32_t from, uint32_t to);

  /// The ACK's rate for a data frame at `data_kbps`: with ARF, the highest mandatory rate
  /// of its family at or below both it and `top_ack_kbps` (ns-3's control answer mode when
  /// the basic rate set holds no faster rate); constant: `top_ack_kbps`.
  uint32_t ackRateKbps(uint32_t data_kbps, uint32_t top_ack_kbps) const;

 private:
  struct Station {
    uint8_t rate = 0;
    bool recovery = false;
    uint16_t timer = 0, success = 0, failed = 0;
  };
  size_t index(uint32_t from, uint32_t to) const { return size_t(from) * members_ + to; }

  uint32_t data_kbps_;
  uint32_t members_;
  uint32_t success_threshold_, timer_threshold_;
  std::vector<uint32_t> rates_;  ///< ARF's rate set, lowest first
  std::vector<Station> arf_;     ///< members x members (empty: constant)
};

}  // namespace fastpath::medium
