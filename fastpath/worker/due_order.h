// SPDX-License-Identifier: GPL-2.0-only
// Small keys (shapers) ordered by a time each (the arrival of the shaper's earliest frame):
// an indexed binary min-heap, so the earliest is read in O(1) and a key enters, moves or
// leaves in O(log n) — a pass touches only what is due, however many keys wait for later.
// Equal times: the lower key first, so the order never depends on insertion history.
// Sized once (no allocation on the data path); each key is in it at most once.
#pragma once

#include <cstdint>
#include <vector>

namespace fastpath {

class DueOrder {
 public:
  struct Entry {
    uint64_t time;
    uint32_t key;
  };
  /// Keys are [0, keys).
  explicit DueOrder(size_t keys) : pos_(keys, kAbsent) { heap_.reserve(keys); }

  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  bool contains(uint32_t key) const { return pos_[key] != kAbsent; }
  /// The earliest entry (lowest key among equal times); the order must not be empty.
  const Entry& top() const { return heap_.front(); }
  /// The time `key` has in the order; it must be in it.
  uint64_t timeOf(uint32_t key) const { return heap_[pos_[key]].time; }

  /// Puts `key` at `time`: inserted, or moved (earlier or later) if it is in already.
  void set(uint32_t key, uint64_t time) {
    uint32_t i = pos_[key];
    if (i == kAbsent) {
      i = uint32_t(heap_.size());
      heap_.push_back(Entry{time, key});
      pos_[key] = i;
      up(i);
      return;
    }
    const uint64_t was = heap_[i].time;
    heap_[i].time = time;
    if (time < was)
      up(i);
    else if (time > was)
      down(i);
  }
  /// Puts `key` at `time` unless it is in already at an earlier (or equal) time.
  void lower(uint32_t key, uint64_t time) {
    if (pos_[key] == kAbsent || time < heap_[pos_[key]].time) set(key, time);
  }
  /// Takes the earliest entry out.
  void pop() { erase(heap_.front().key); }
  /// Takes `key` out (no-op if it is not in).
  void erase(uint32_t key) {
    const uint32_t i = pos_[key];
    if (i == kAbsent) return;
    pos_[key] = kAbsent;
    const uint32_t last = uint32_t(heap_.size() - 1);
    if (i != last) {
      // The last entry fills the hole, then goes up or down to its place.
      const uint32_t moved = heap_[last].key;
      place(i, heap_[last]);
      heap_.pop_back();
      up(i);
      down(pos_[moved]);
      return;
    }
    heap_.pop_back();
  }
  void clear() {
    for (const Entry& e : heap_) pos_[e.key] = kAbsent;
    heap_.clear();
  }

 private:
  static constexpr uint32_t kAbsent = ~0u;
  static bool before(const Entry& a, const Entry& b) {
    return a.time != b.time ? a.time < b.time : a.key < b.key;
  }
  void place(uint32_t i, const Entry& e) {
    heap_[i] = e;
    pos_[e.key] = i;
  }
  void up(uint32_t i) {
    const Entry e = heap_[i];
    while (i > 0) {
      const uint32_t parent = (i - 1) / 2;
      if (!before(e, heap_[parent])) break;
      place(i, heap_[parent]);
      i = parent;
    }
    place(i, e);
  }
  void down(uint32_t i) {
    const Entry e = heap_[i];
    const uint32_t n = uint32_t(heap_.size());
    for (;;) {
      uint32_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
      if (!before(heap_[child], e)) break;
      place(i, heap_[child]);
      i = child;
    }
    place(i, e);
  }

  std::vector<uint32_t> pos_;  // key -> index in heap_, or kAbsent
  std::vector<Entry> heap_;
};

}  // namespace fastpath
