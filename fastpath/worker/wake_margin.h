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

/// How much of the CPU the spins before arrivals may take: a share of the time that
/// passes, saved up to a burst. With arrivals closer together than the wake margin (a busy
/// line: many frames in flight over many hops) the worker would otherwise never sleep; as a
/// real-time thread it would then hold its CPU until the kernel's real-time throttling
/// stops it for tens of milliseconds (a fair-server period), every frame in flight late by
/// that much. Over the budget it sleeps instead (arrivalSleepNs).
class SpinBudget {
 public:
  SpinBudget(uint32_t share_permille, uint64_t burst_ns)
      : share_(share_permille), burst_(int64_t(burst_ns)), budget_(int64_t(burst_ns)) {}

  /// `ns` were spun.
  void spend(uint64_t ns) { budget_ -= int64_t(ns); }
  /// At `now`: some budget left (the share of the time since the last call is added).
  bool allows(uint64_t now) {
    if (last_ && now > last_)
      budget_ = std::min(burst_, budget_ + int64_t((now - last_) * share_ / 1000));
    last_ = now;
    return budget_ > 0;
  }

 private:
  uint64_t share_;
  int64_t burst_;
  int64_t budget_;
  uint64_t last_ = 0;
};

/// How long a worker with nothing to do sleeps for an emulated arrival `until_ns` away,
/// given its wake margin: while it may spin, until the margin before the arrival (the rest
/// is spun). Over the spin budget, arrivals come closer together than a wake-up costs, and
/// sleeping until each one would keep the CPU as busy as spinning (a timer, a context
/// switch and a pass per arrival): it sleeps at least the margin — what a wake-up overshoots
/// anyway — and hands on what came due meanwhile in one pass, so that the CPU is free
/// between passes and the kernel's real-time throttling never stops the worker.
inline uint64_t arrivalSleepNs(uint64_t until_ns, uint64_t margin_ns, bool may_spin) {
  if (may_spin) return until_ns > margin_ns ? until_ns - margin_ns : 0;
  return std::max(until_ns, margin_ns);
}

}  // namespace fastpath
