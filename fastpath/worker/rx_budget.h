// SPDX-License-Identifier: GPL-2.0-only
// How many frames a worker lends the kernel for receiving on one port (fill ring + frames
// the kernel put on the RX ring). Below saturation each port gets kBurstFactor times the
// budget (the whole fill ring until the rate is measured), so a burst - the worker or the
// NAPI thread off the CPU for a millisecond or two - is absorbed.
// Under overload - the kernel dropping at RX because the worker cannot keep up, or a queue
// that does not drain - a full ring is only a standing queue (a 4,096-entry ring is ~10 ms at
// 400k frames/s, a delay nobody configured that would distort an emulation's delays): the
// worker then lends only what it drains in `budget_us` at the rate it is measured to drain
// its RX rings, so a frame waits at most about that long, and the kernel drops the excess
// at RX before copying it, counted in the socket's XDP_STATISTICS (rx_dropped,
// rx_fill_ring_empty_descs). Only what persists is an overload: drops or a standing queue
// in kOverloadWindows windows in a row. One window's worth is a stall - the worker or the
// NAPI thread kept off the CPU for a few milliseconds - that a burst's allowance absorbs
// or not; taking it for an overload would shrink what is lent to the budget for the hold
// time and turn every later stall below saturation into drops. The overload holds while
// it persists, and for a hold time after.
#pragma once

#include <algorithm>
#include <cstdint>

namespace fastpath {

class RxBudget {
 public:
  /// budget_us 0: no bound (max_frames, i.e. the fill ring, always). min_frames keeps a
  /// few batches lent whatever the rate; max_frames is the fill ring's size.
  RxBudget(uint32_t budget_us, uint32_t min_frames, uint32_t max_frames)
      : budget_us_(budget_us),
        min_(std::min(min_frames, max_frames)),
        max_(max_frames),
        target_(max_frames),
        burst_target_(max_frames) {}

  /// The worker's pass that received `frames` (> 0) started `ns` before the next pass
  /// started: wall-clock time, so a worker that shares its CPU (with the NAPI thread
  /// filling its rings, or anything else) is measured at the rate it really drains.
  void addBusy(uint32_t frames, uint64_t ns) {
    frames_ += frames;
    ns_ += ns;
    if (ns_ < kWindowNs) return;
    const uint64_t rate = frames_ * 1000000000ull / ns_;
    rate_pps_ = rate_pps_ ? (rate + 3 * rate_pps_) / 4 : rate;  // smoothed over windows
    frames_ = 0;
    ns_ = 0;
    if (!budget_us_) return;
    const uint64_t t = rate_pps_ * budget_us_ / 1000000;
    target_ = uint32_t(std::clamp<uint64_t>(t, min_, max_));
    burst_target_ = uint32_t(std::clamp<uint64_t>(t * kBurstFactor, min_, max_));
  }

  /// The worker's view of the last window: `arrived` frames (received + dropped by the
  /// kernel at RX), `dropped` of them at RX, and the fewest frames its passes left on the
  /// RX rings (a burst drains, an overload does not). At least 1 in kOverloadShare
  /// dropped, or a standing queue over the budget, in kOverloadWindows windows in a row
  /// starts (or extends) the overload hold, during which target() is the budget.
  void addWindow(uint64_t now_ns, uint64_t arrived, uint64_t dropped, uint32_t min_backlog) {
    const bool drops = dropped && dropped * kOverloadShare >= arrived;
    const bool standing = budget_us_ && rate_pps_ && min_backlog > target_;
    streak_ = drops || standing ? streak_ + 1 : 0;
    if (streak_ >= kOverloadWindows) overloaded_until_ns_ = now_ns + kHoldNs;
    overloaded_ = budget_us_ && now_ns < overloaded_until_ns_;
  }
  bool overloaded() const { return overloaded_; }

  /// Frames to keep lent for RX on one port (fill ring + RX ring).
  uint32_t target() const { return overloaded_ ? target_ : burst_target_; }
  /// What target() is under overload.
  uint32_t budgetTarget() const { return target_; }
  /// The measured drain rate, frames/s of busy time (0 until a window was measured).
  uint64_t ratePps() const { return rate_pps_; }
  uint32_t budgetUs() const { return budget_us_; }

 private:
  /// Busy time summed before the rate is updated: long enough to cover the preemptions
  /// of a shared CPU, short enough to follow a change of load within a few milliseconds.
  static constexpr uint64_t kWindowNs = 2000000;
  /// Overload: at least 1 in kOverloadShare arriving frames dropped at RX in a window.
  static constexpr uint64_t kOverloadShare = 1000;
  /// Windows in a row with drops or a standing queue that make an overload (6 ms): a
  /// stall's drops and backlog fall in one window or two.
  static constexpr uint32_t kOverloadWindows = 3;
  static constexpr uint64_t kHoldNs = 200000000;
  /// Below saturation: this many budgets lent, for bursts. Also the longest queue an
  /// overload builds before it is recognised (kOverloadWindows watch windows later).
  static constexpr uint64_t kBurstFactor = 4;
  bool overloaded_ = false;
  uint32_t streak_ = 0;  ///< windows in a row with drops or a standing queue
  uint64_t overloaded_until_ns_ = 0;
  uint32_t budget_us_;
  uint32_t min_, max_;
  uint32_t target_;        // under overload
  uint32_t burst_target_;  // below saturation
  uint64_t frames_ = 0, ns_ = 0;
  uint64_t rate_pps_ = 0;
};

}  // namespace fastpath
