// SPDX-License-Identifier: GPL-2.0-only
// The small keys (ports, shapers) that have work, in the order they got it: a pass visits
// only these, so idle links cost nothing. Sized once (no allocation on the data path);
// adding a listed key again is a no-op, and entries may be added while the list is walked
// by index (they are visited in the same walk).
#pragma once

#include <cstdint>
#include <vector>

namespace fastpath {

class ActiveSet {
 public:
  /// Keys are [0, keys).
  explicit ActiveSet(size_t keys) : listed_(keys, 0) { list_.reserve(keys); }

  void add(uint32_t key) {
    if (listed_[key]) return;
    listed_[key] = 1;
    list_.push_back(key);
  }
  size_t size() const { return list_.size(); }
  bool empty() const { return list_.empty(); }
  uint32_t operator[](size_t i) const { return list_[i]; }
  /// Keeps the keys for which `busy(key)` holds, in their order; unlists the others.
  template <typename Busy>
  void retain(Busy busy) {
    size_t k = 0;
    for (uint32_t key : list_) {
      if (busy(key))
        list_[k++] = key;
      else
        listed_[key] = 0;
    }
    list_.resize(k);
  }
  void clear() {
    for (uint32_t key : list_) listed_[key] = 0;
    list_.clear();
  }

 private:
  std::vector<uint8_t> listed_;
  std::vector<uint32_t> list_;
};

}  // namespace fastpath
