// SPDX-License-Identifier: GPL-2.0-only
// How many frames a worker lends the kernel for receiving on one port (fill ring + frames
// the kernel put on the RX ring), sized by time: the frames the worker forwards in
// `budget_us` at the rate it is measured to drain its RX rings. A frame then waits at most
// about budget_us between the kernel's copy into the UMEM and the worker taking it. Under
// overload the kernel finds the fill ring empty and drops at RX, before the copy, counted
// in the socket's XDP_STATISTICS (rx_dropped, rx_fill_ring_empty_descs), instead of
// queueing thousands of frames (a 4,096-entry ring is ~10 ms at 400k frames/s): a queue
// nobody configured would distort an emulation's delays.
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
        target_(max_frames) {}

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
  }

  /// Frames to keep lent for RX on one port (fill ring + RX ring).
  uint32_t target() const { return target_; }
  /// The measured drain rate, frames/s of busy time (0 until a window was measured).
  uint64_t ratePps() const { return rate_pps_; }
  uint32_t budgetUs() const { return budget_us_; }

 private:
  /// Busy time summed before the rate is updated: long enough to cover the preemptions
  /// of a shared CPU, short enough to follow a change of load within a few milliseconds.
  static constexpr uint64_t kWindowNs = 2000000;
  uint32_t budget_us_;
  uint32_t min_, max_;
  uint32_t target_;
  uint64_t frames_ = 0, ns_ = 0;
  uint64_t rate_pps_ = 0;
};

}  // namespace fastpath
