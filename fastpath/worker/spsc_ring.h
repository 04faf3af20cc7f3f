// SPDX-License-Identifier: GPL-2.0-only
// Bounded lock-free single-producer single-consumer ring (Lamport, with cached indices).
// Storage is allocated once at construction; push/pop never allocate or block.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace fastpath {

template <typename T>
class SpscRing {
 public:
  /// capacity is rounded up to a power of two.
  explicit SpscRing(uint32_t capacity) {
    uint32_t c = 1;
    while (c < capacity) c <<= 1;
    mask_ = c - 1;
    slots_.reset(new T[c]);
  }
  uint32_t capacity() const { return mask_ + 1; }

  /// Producer: a slot to fill in place, or nullptr when full. Commit with publish().
  T* claim() {
    uint64_t head = head_.load(std::memory_order_relaxed);
    if (head - tail_cache_ > mask_) {
      tail_cache_ = tail_.load(std::memory_order_acquire);
      if (head - tail_cache_ > mask_) return nullptr;
    }
    return &slots_[head & mask_];
  }
  void publish() {
    head_.store(head_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }
  bool push(const T& v) {
    T* s = claim();
    if (!s) return false;
    *s = v;
    publish();
    return true;
  }

  /// Consumer: the oldest slot, or nullptr when empty. Release with consume().
  T* front() {
    uint64_t tail = tail_.load(std::memory_order_relaxed);
    if (tail == head_cache_) {
      head_cache_ = head_.load(std::memory_order_acquire);
      if (tail == head_cache_) return nullptr;
    }
    return &slots_[tail & mask_];
  }
  void consume() {
    tail_.store(tail_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }
  /// Consumer: the `i`-th oldest slot (0: front()), or nullptr when fewer are queued. The
  /// slots up to it stay the consumer's until consumed: the producer never claims them.
  T* peek(uint32_t i) {
    const uint64_t at = tail_.load(std::memory_order_relaxed) + i;
    if (at >= head_cache_) {
      head_cache_ = head_.load(std::memory_order_acquire);
      if (at >= head_cache_) return nullptr;
    }
    return &slots_[at & mask_];
  }
  /// Consumer: releases the `n` oldest slots at once.
  void consume(uint32_t n) {
    tail_.store(tail_.load(std::memory_order_relaxed) + n, std::memory_order_release);
  }
  bool pop(T* out) {
    T* s = front();
    if (!s) return false;
    *out = *s;
    consume();
    return true;
  }
  /// Entries queued (approximate from a third thread).
  uint64_t size() const {
    return head_.load(std::memory_order_acquire) - tail_.load(std::memory_order_acquire);
  }

 private:
  alignas(64) std::atomic<uint64_t> head_{0};  // producer writes
  uint64_t tail_cache_ = 0;                    // producer's view of tail
  alignas(64) std::atomic<uint64_t> tail_{0};  // consumer writes
  uint64_t head_cache_ = 0;                    // consumer's view of head
  alignas(64) std::unique_ptr<T[]> slots_;
  uint32_t mask_ = 0;
};

}  // namespace fastpath
