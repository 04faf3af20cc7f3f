// SPDX-License-Identifier: GPL-2.0-only
// A histogram of nanosecond durations (sojourn in a link's queue, a worker's lateness
// against departure times): log-linear buckets (8 per power of two, 12.5 % wide), written
// by one thread with relaxed atomics and read by any, no allocation after construction.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace fastpath {

class LatencyHistogram {
 public:
  static constexpr unsigned kSub = 8;
  static constexpr unsigned kBuckets = 64 * kSub;

  void add(uint64_t ns) {
    auto& b = buckets_[index(ns)];
    b.store(b.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    count_.store(count_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    if (ns > max_.load(std::memory_order_relaxed)) max_.store(ns, std::memory_order_relaxed);
  }
  /// Empties it: the writing thread only (a reader meanwhile may see part of the old
  /// figures, as during add()).
  void reset() {
    for (auto& b : buckets_) b.store(0, std::memory_order_relaxed);
    count_.store(0, std::memory_order_relaxed);
    max_.store(0, std::memory_order_relaxed);
  }
  uint64_t count() const { return count_.load(std::memory_order_relaxed); }
  uint64_t max() const { return max_.load(std::memory_order_relaxed); }
  /// The upper bound of the bucket holding quantile q (0..1); 0 when empty.
  uint64_t quantile(double q) const {
    const uint64_t n = count();
    if (!n) return 0;
    const uint64_t want = uint64_t(q * double(n - 1)) + 1;
    uint64_t seen = 0;
    for (unsigned i = 0; i < kBuckets; ++i) {
      seen += buckets_[i].load(std::memory_order_relaxed);
      if (seen >= want) return std::min(upper(i), max());
    }
    return max();
  }

  static unsigned index(uint64_t ns) {
    if (ns < kSub) return unsigned(ns);
    const unsigned msb = 63u - unsigned(__builtin_clzll(ns));
    const unsigned sub = unsigned(ns >> (msb - 3)) & (kSub - 1);
    return (msb - 2) * kSub + sub;
  }
  static uint64_t upper(unsigned i) {
    if (i < kSub) return i;
    const unsigned msb = i / kSub + 2, sub = i % kSub;
    return ((uint64_t(kSub) + sub + 1) << (msb - 3)) - 1;
  }

 private:
  std::atomic<uint64_t> buckets_[kBuckets] = {};
  std::atomic<uint64_t> count_{0}, max_{0};
};

}  // namespace fastpath
