// SPDX-License-Identifier: GPL-2.0-only
// The small keys (ports, shapers) that have work, in the order they got it: a pass visits
// only these, so idle links cost nothing. Sized once (no allocation on the data path);
// adding a listed key again is a no-op, and entries may be added while the list is walked
// by index (they are visited in the same walk). remove() takes one key out in O(1) (the
// last key takes its place): not while the list is walked.
#pragma once

#include <cstdint>
#include <vector>

namespace fastpath {

class ActiveSet {
 public:
  /// Keys are [0, keys).
  explicit ActiveSet(size_t keys) : pos_(keys, 0) { list_.reserve(keys); }

  void add(uint32_t key) {
    if (pos_[key]) return;
    list_.push_back(key);
    pos_[key] = uint32_t(list_.size());
  }
  bool contains(uint32_t key) const { return pos_[key] != 0; }
  void remove(uint32_t key) {
    const uint32_t p = pos_[key];
    if (!p) return;
    const uint32_t last = list_.back();
    list_[p - 1] = last;
    pos_[last] = p;
    list_.pop_back();
    pos_[key] = 0;
  }
  size_t size() const { return list_.size(); }
  bool empty() const { return list_.empty(); }
  uint32_t operator[](size_t i) const { return list_[i]; }
  /// Keeps the keys for which `busy(key)` holds, in their order; unlists the others.
  template <typename Busy>
  void retain(Busy busy) {
    size_t k = 0;
    for (uint32_t key : list_) {
      if (busy(key)) {
        list_[k++] = key;
        pos_[key] = uint32_t(k);
      } else {
        pos_[key] = 0;
      }
    }
    list_.resize(k);
  }
  void clear() {
    for (uint32_t key : list_) pos_[key] = 0;
    list_.clear();
  }

 private:
  std::vector<uint32_t> pos_;  // key -> its index in list_ + 1, or 0: not listed
  std::vector<uint32_t> list_;
};

}  // namespace fastpath
