// SPDX-License-Identifier: GPL-2.0-only
// The subtable (group) allocator shared by the LPM algorithms: a free list with deferred
// reuse. A retired group may still be read by a lookup, so it only becomes allocatable
// again in releaseRetired(), which the owner calls after an epoch synchronize().
// Groups never handed out are counted, not listed: an empty pool costs nothing however
// large its capacity (a daemon holds many tables, most of them small).
// Control thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace fastpath {

class LpmGroupPool {
 public:
  /// Makes groups 0..count-1 free (allocated lowest first).
  void reset(uint32_t count) {
    free_.clear();
    retired_.clear();
    count_ = count;
    next_ = 0;
    used_ = 0;
  }

  std::optional<uint32_t> alloc() {
    uint32_t g;
    if (!free_.empty()) {
      g = free_.back();
      free_.pop_back();
    } else if (next_ < count_) {
      g = next_++;
    } else {
      return std::nullopt;
    }
    ++used_;
    return g;
  }

  void retire(uint32_t group) {
    retired_.push_back(group);
    --used_;
  }

  void releaseRetired() {
    free_.insert(free_.end(), retired_.begin(), retired_.end());
    retired_.clear();
  }

  uint32_t used() const { return used_; }
  uint32_t freeCount() const { return static_cast<uint32_t>(free_.size()) + (count_ - next_); }
  uint32_t retiredCount() const { return static_cast<uint32_t>(retired_.size()); }
  /// Groups ever handed out since reset(): the touched part of the table is below this.
  uint32_t highWater() const { return next_; }

 private:
  std::vector<uint32_t> free_;
  std::vector<uint32_t> retired_;
  uint32_t count_ = 0;
  uint32_t next_ = 0;  // groups next_..count_-1 were never handed out
  uint32_t used_ = 0;
};

}  // namespace fastpath
