// SPDX-License-Identifier: GPL-2.0-only
// ns-3's CSMA backoff (src/csma/model/backoff.cc with CsmaNetDevice's defaults), for a shared
// medium's shaper. A CsmaNetDevice that finds its channel busy (another frame transmitting,
// or still propagating for the channel's delay) does not wait for it to go idle: it retries
// after a random number of 1 us slots, the window doubling with each retry (1, 3, 7, ...
// slots, at most 1000 from the tenth retry on), and starts at the first retry that finds the
// channel idle. Over a 2 ms propagation the retries are up to a millisecond apart, so a
// frame behind another starts up to ~1 ms after the channel went idle, not at that instant.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace fastpath {

struct CsmaBackoff {
  static constexpr uint64_t kSlotNs = 1000;  ///< Backoff::m_slotTime (1 us)
  static constexpr uint32_t kMinSlots = 1;   ///< Backoff::m_minSlots
  static constexpr uint32_t kMaxSlots = 1000;
  static constexpr uint32_t kCeiling = 10;
  /// Backoff::m_maxRetries: the device gives the frame up after this many (TransmitAbort).
  static constexpr uint32_t kMaxRetries = 1000;

  /// Slots of the `retry`-th backoff (1, 2, ...) for a uniform draw `u` in [0, 1):
  /// Backoff::GetBackoffTime truncates a uniform real in [minSlots, 2^min(retry, ceiling) - 1)
  /// (at most maxSlots), so retry 1 is always one slot, retry 2 one or two.
  static uint32_t slots(uint32_t retry, double u) {
    const uint32_t ceiling = std::min(retry, kCeiling);
    const uint32_t max_slot = std::min(uint32_t((1u << ceiling) - 1), kMaxSlots);
    return uint32_t(double(kMinSlots) + u * double(max_slot - kMinSlots));
  }

  /// When a device that first tries at `try_at` starts to transmit on a channel busy until
  /// `busy_until` (the retry whose time is at or after it: the channel's propagation-complete
  /// event comes first at equal times), drawing one `uniform()` in [0, 1) per retry. Returns
  /// false when the device would give the frame up (kMaxRetries retries, only with a
  /// channel busy for over ~0.5 s); `retries` says how many it took.
  template <typename Uniform>
  static bool start(uint64_t try_at, uint64_t busy_until, Uniform&& uniform, uint64_t* at,
                    uint32_t* retries = nullptr) {
    uint64_t t = try_at;
    uint32_t r = 0;
    while (t < busy_until) {
      if (r == kMaxRetries) {
        if (retries) *retries = r;
        return false;
      }
      ++r;
      t += uint64_t(slots(r, uniform())) * kSlotNs;
    }
    *at = t;
    if (retries) *retries = r;
    return true;
  }
};

}  // namespace fastpath
