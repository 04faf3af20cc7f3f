// SPDX-License-Identifier: GPL-2.0-only
// A token bucket for the worker's punt limiter: `rate` tokens per second, at most `burst`
// stored. Time is passed in by the caller (nanoseconds of a monotonic clock, read once per
// batch), so the bucket itself never reads a clock, allocates or locks, and tests drive
// it with a deterministic time source.
#pragma once

#include <algorithm>
#include <cstdint>

namespace fastpath {

class TokenBucket {
 public:
  /// rate 0: unlimited (take() always succeeds). The bucket starts full.
  TokenBucket(uint64_t rate_per_s = 0, uint64_t burst = 1) { configure(rate_per_s, burst); }

  void configure(uint64_t rate_per_s, uint64_t burst) {
    rate_ = rate_per_s;
    cap_ = std::max<uint64_t>(burst, 1) * kScale;
    credit_ = cap_;
    last_ns_ = 0;
    started_ = false;
  }

  /// Adds the tokens earned since the previous refill. `now_ns` must not go backwards
  /// (a smaller value is ignored).
  void refill(uint64_t now_ns) {
    if (!started_) {
      started_ = true;
      last_ns_ = now_ns;
      return;
    }
    if (now_ns <= last_ns_ || !rate_) return;
    uint64_t dt = now_ns - last_ns_;
    // Beyond the time to fill the bucket from empty nothing more can be earned; capping
    // first keeps dt * rate far from overflowing.
    const uint64_t fill_ns = cap_ / rate_ + 1;
    if (dt > fill_ns) dt = fill_ns;
    credit_ = std::min(cap_, credit_ + dt * rate_);
    last_ns_ = now_ns;
  }

  /// Takes one token; false when the bucket is empty.
  bool take() {
    if (!rate_) return true;
    if (credit_ < kScale) return false;
    credit_ -= kScale;
    return true;
  }

  bool unlimited() const { return rate_ == 0; }
  uint64_t rate() const { return rate_; }
  uint64_t burst() const { return cap_ / kScale; }
  /// Whole tokens available now.
  uint64_t tokens() const { return rate_ ? credit_ / kScale : burst(); }

 private:
  // One token = 1e9 credit units, earned at `rate` units per nanosecond: integer math,
  // no rounding drift at any rate.
  static constexpr uint64_t kScale = 1000000000ull;
  uint64_t rate_ = 0;
  uint64_t cap_ = kScale;
  uint64_t credit_ = kScale;
  uint64_t last_ns_ = 0;
  bool started_ = false;
};

}  // namespace fastpath
