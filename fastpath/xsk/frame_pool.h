// SPDX-License-Identifier: GPL-2.0-only
// Free frames of one UMEM and the ledger that proves none is lost: every frame is free,
// lent to the kernel for receive (fill ring -> kernel -> RX ring), lent for transmit
// (TX ring -> kernel -> completion ring), or held by the worker for the current batch.
// Owned and touched by exactly one thread (the worker); no allocation after construction.
#pragma once

#include <cstdint>
#include <vector>

namespace fastpath {

/// LIFO stack of free frame addresses (most recently freed first: warm in cache).
class FramePool {
 public:
  FramePool() = default;
  /// Holds `frames` frames of `frame_size` bytes (a power of two, as an aligned UMEM's);
  /// all free at start.
  FramePool(uint32_t frames, uint32_t frame_size) { reset(frames, frame_size); }
  void reset(uint32_t frames, uint32_t frame_size) {
    stack_.assign(frames, 0);
    for (uint32_t i = 0; i < frames; ++i) stack_[i] = uint64_t(frames - 1 - i) * frame_size;
    top_ = frames;
    frame_size_ = frame_size;
    frame_mask_ = ~uint64_t(frame_size - 1);
  }
  uint32_t capacity() const { return uint32_t(stack_.size()); }
  uint32_t available() const { return top_; }
  uint32_t frameSize() const { return frame_size_; }
  /// Takes one frame; false when empty.
  bool take(uint64_t* addr) {
    if (top_ == 0) return false;
    *addr = stack_[--top_];
    return true;
  }
  /// Returns a frame (any address inside it); the chunk base is stored. Returning more
  /// frames than the pool holds is a bug; it is refused (false) instead of overflowing.
  bool give(uint64_t addr) {
    if (top_ == stack_.size()) return false;
    stack_[top_++] = addr & frame_mask_;  // no division per frame
    return true;
  }

 private:
  std::vector<uint64_t> stack_;
  uint32_t top_ = 0;
  uint32_t frame_size_ = 2048;
  uint64_t frame_mask_ = ~uint64_t(2048 - 1);
};

/// Where the frames of one UMEM are. By construction
///   free + lent_rx + lent_tx + held + in_link == total
/// where lent_rx covers fill ring + kernel + RX ring, lent_tx covers TX ring + kernel +
/// completion ring. Ring levels (read from the shared ring pointers) split these further.
struct FrameAccounting {
  uint64_t total = 0;
  uint64_t free = 0;
  uint64_t lent_rx = 0;    ///< produced on fill rings, not yet consumed from RX rings
  uint64_t lent_tx = 0;    ///< produced on TX rings, not yet consumed from completion rings
  uint64_t held = 0;       ///< taken by the worker and not yet given back or lent
  uint64_t in_link = 0;    ///< in flight on an internal link (a LinkQueue of this worker)
  /// Lent to the kernel on a socket that was closed before it gave them back (an interface
  /// port detached while the driver held frames): out of circulation for good.
  uint64_t lost = 0;
  uint64_t fill_ring = 0;  ///< entries sitting in fill rings (kernel has not taken them)
  uint64_t rx_ring = 0;    ///< entries sitting in RX rings
  uint64_t tx_ring = 0;    ///< entries sitting in TX rings
  uint64_t comp_ring = 0;  ///< entries sitting in completion rings
  /// Frames inside the kernel (taken from fill/TX, not yet on RX/completion).
  int64_t inKernel() const {
    return int64_t(lent_rx + lent_tx) - int64_t(fill_ring + rx_ring + tx_ring + comp_ring);
  }
  bool balanced() const { return free + lent_rx + lent_tx + held + in_link + lost == total; }
};

/// The worker's book of frame movements. Every transition goes through one of these so
/// the ledger stays exact; the counters are plain integers (single-threaded owner).
class FrameBook {
 public:
  explicit FrameBook(FramePool* pool) : pool_(pool) {}
  FramePool& pool() { return *pool_; }
  /// n frames taken from the pool and produced on a fill ring.
  void lentForRx(uint32_t n) { lent_rx_ += n; }
  /// n frames consumed from an RX ring: now held by the worker.
  void receivedFromRx(uint32_t n) {
    lent_rx_ -= n;
    held_ += n;
  }
  /// A held frame put on a TX ring.
  void heldToTx(uint32_t n) {
    held_ -= n;
    lent_tx_ += n;
  }
  /// Free frames taken from the pool by the worker (e.g. to copy a client's frame in).
  void takenFromPool(uint32_t n) { held_ += n; }
  /// n frames consumed from a completion ring: back to free (caller gives them).
  void completed(uint32_t n) { lent_tx_ -= n; }
  /// A held frame given back to the pool (dropped or copied out).
  void heldToFree(uint32_t n) { held_ -= n; }
  /// A held frame sent on an internal link (queued for the peer end).
  void heldToLink(uint32_t n) {
    held_ -= n;
    in_link_ += n;
  }
  /// n frames taken from a link queue at the peer end: held again.
  void linkToHeld(uint32_t n) {
    in_link_ -= n;
    held_ += n;
  }
  /// n frames of a deleted link's queue given back to the pool.
  void linkToFree(uint32_t n) { in_link_ -= n; }
  /// A detached port's socket: n frames taken back from its fill ring (free again), and
  /// frames the kernel kept when the socket closed.
  void unlentRx(uint32_t n) { lent_rx_ -= n; }
  void unlentTx(uint32_t n) { lent_tx_ -= n; }
  void lostRx(uint32_t n) {
    lent_rx_ -= n;
    lost_ += n;
  }
  void lostTx(uint32_t n) {
    lent_tx_ -= n;
    lost_ += n;
  }
  uint64_t lost() const { return lost_; }
  uint64_t inLink() const { return in_link_; }
  uint64_t lentRx() const { return lent_rx_; }
  uint64_t lentTx() const { return lent_tx_; }
  uint64_t held() const { return held_; }
  FrameAccounting snapshot() const {
    FrameAccounting a;
    a.total = pool_->capacity();
    a.free = pool_->available();
    a.lent_rx = lent_rx_;
    a.lent_tx = lent_tx_;
    a.held = held_;
    a.in_link = in_link_;
    a.lost = lost_;
    return a;
  }

 private:
  FramePool* pool_;
  uint64_t lent_rx_ = 0;
  uint64_t lent_tx_ = 0;
  uint64_t held_ = 0;
  uint64_t in_link_ = 0;
  uint64_t lost_ = 0;
};

}  // namespace fastpath
