// SPDX-License-Identifier: GPL-2.0-only
// The subtable (group) allocator shared by the LPM algorithms: a free list with deferred
// reuse. A retired group may still be read by a lookup, so it only becomes allocatable
// again in releaseRetired(), which the owner calls after an epoch synchronize().
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
    free_.reserve(count);
    for (uint32_t g = count; g-- > 0;) free_.push_back(g);
    used_ = 0;
  }

  std::optional<uint32_t> alloc() {
    if (free_.empty()) return std::nullopt;
    const uint32_t g = free_.back();
    free_.pop_back();
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
  uint32_t freeCount() const { return static_cast<uint32_t>(free_.size()); }
  uint32_t retiredCount() const { return static_cast<uint32_t>(retired_.size()); }

 private:
  std::vector<uint32_t> free_;
  std::vector<uint32_t> retired_;
  uint32_t used_ = 0;
};

}  // namespace fastpath
