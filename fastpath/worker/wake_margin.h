// SPDX-License-Identifier: GPL-2.0-only
// How early a worker sleeping for an emulated arrival asks to be woken: what its recent
// wake-ups overshot. A timer wake-up is late by the timer's and the scheduler's latency
// (on a VM tens of microseconds with SCHED_FIFO; up to a scheduler tick, 4 ms at 250 Hz,
// for a SCHED_OTHER thread whose CPU runs something else). Waking by a fixed margin early
// and spinning the rest either spins much longer than needed (margin above the latency) or
// wakes late (below it); sleeping until arrival minus the 90th percentile of the last
// wake-ups' overshoot spins only the difference, which on a quiet real-time worker is a
// few microseconds per wake-up, and never takes the CPU for long from the scenario.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

namespace fastpath {

class WakeMargin {
 public:
  static constexpr unsigned kWindow = 32;
  /// `max_ns`: the margin never exceeds it (the most a worker spins before an arrival);
  /// it starts there, until wake-ups have been measured.
  explicit WakeMargin(uint64_t max_ns) : max_(max_ns), margin_(max_ns) { last_.fill(max_ns); }

  /// Sleep until this long before the arrival; spin when it is nearer than that.
  uint64_t ns() const { return margin_; }
  uint64_t max() const { return max_; }

  /// A timed wake-up asked for `want` came at `got` (CLOCK_MONOTONIC ns).
  void record(uint64_t want, uint64_t got) {
    last_[next_++ % kWindow] = std::min(got > want ? got - want : 0, max_);
    std::array<uint64_t, kWindow> s = last_;
    // The 90th percentile: 3 of the last 32 wake-ups overshot more.
    auto k = s.begin() + (kWindow * 9) / 10;
    std::nth_element(s.begin(), k, s.end());
    margin_ = *k;
  }

 private:
  uint64_t max_;
  uint64_t margin_;
  std::array<uint64_t, kWindow> last_{};
  unsigned next_ = 0;
};

}  // namespace fastpath
