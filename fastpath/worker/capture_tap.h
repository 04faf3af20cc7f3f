// SPDX-License-Identifier: GPL-2.0-only
// Packet capture inside a worker: a capture's bounded ring (one per worker: the worker is
// its only producer, the control thread its only consumer) and the table of taps the
// control thread publishes to the workers. A tap copies at most `snaplen` bytes of a frame
// into a fixed slot with its time, original length, port and classifier verdict; when the
// reader is behind and the ring is full, the copy is dropped and counted (never a wait:
// forwarding goes on at the link's rate). A worker with no capture attached pays one
// predictable branch per batch.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "fastpath/net_types.h"

namespace fastpath {

/// Where a tap copies frames on a port.
enum CapturePoint : uint8_t {
  kCaptureRx = 1,  ///< received on the port (interface: from the wire; link port: from the peer)
  kCaptureTx = 2,  ///< sent on the port (interface: to the wire; link port: into the link)
};

/// One copied frame, in front of its bytes in a ring slot.
struct CaptureRecord {
  uint64_t mono_ns = 0;   ///< CLOCK_MONOTONIC of the worker's pass
  uint32_t orig_len = 0;  ///< the frame's length
  uint32_t cap_len = 0;   ///< bytes copied (min(orig_len, snaplen))
  PortId port = 0;
  uint8_t point = 0;      ///< kCaptureRx or kCaptureTx
  uint8_t verdict = 0xff; ///< RX: the classifier's FP_VERDICT_*; 0xff: none (TX)
  uint8_t reason = 0xff;  ///< RX: the classifier's FP_REASON_*; 0xff: none
};

/// A bounded single-producer single-consumer ring of copied frames, storage allocated once.
class CaptureRing {
 public:
  /// `slots` is rounded up to a power of two; `snaplen` bytes at most per frame.
  CaptureRing(uint32_t slots, uint32_t snaplen) : snaplen_(snaplen) {
    uint32_t c = 1;
    while (c < slots) c <<= 1;
    mask_ = c - 1;
    stride_ = (sizeof(CaptureRecord) + snaplen + 7) & ~size_t(7);
    storage_.reset(new uint8_t[stride_ * c]);
  }
  uint32_t capacity() const { return mask_ + 1; }
  uint32_t snaplen() const { return snaplen_; }

  /// Producer (the worker): copies the frame, or counts a drop when the ring is full.
  void offer(const CaptureRecord& r, const uint8_t* data) {
    const uint64_t head = head_.load(std::memory_order_relaxed);
    if (head - tail_cache_ > mask_) {
      tail_cache_ = tail_.load(std::memory_order_acquire);
      if (head - tail_cache_ > mask_) {
        dropped_.store(dropped_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        return;
      }
    }
    uint8_t* slot = storage_.get() + (head & mask_) * stride_;
    CaptureRecord rec = r;
    rec.cap_len = r.orig_len < snaplen_ ? r.orig_len : snaplen_;
    std::memcpy(slot, &rec, sizeof(rec));
    std::memcpy(slot + sizeof(rec), data, rec.cap_len);
    head_.store(head + 1, std::memory_order_release);
  }

  /// Consumer: the oldest record (its bytes in `*data`), or nullptr when empty. Release
  /// it with consume().
  const CaptureRecord* front(const uint8_t** data) {
    const uint64_t tail = tail_.load(std::memory_order_relaxed);
    if (tail == head_cache_) {
      head_cache_ = head_.load(std::memory_order_acquire);
      if (tail == head_cache_) return nullptr;
    }
    const uint8_t* slot = storage_.get() + (tail & mask_) * stride_;
    *data = slot + sizeof(CaptureRecord);
    return reinterpret_cast<const CaptureRecord*>(slot);
  }
  void consume() {
    tail_.store(tail_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }
  /// Frames copied into the ring since it was made (any thread).
  uint64_t captured() const { return head_.load(std::memory_order_acquire); }
  /// Frames not copied because the ring was full (any thread).
  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  alignas(64) std::atomic<uint64_t> head_{0};  // producer writes
  uint64_t tail_cache_ = 0;
  std::atomic<uint64_t> dropped_{0};           // producer writes
  alignas(64) std::atomic<uint64_t> tail_{0};  // consumer writes
  uint64_t head_cache_ = 0;
  alignas(64) std::unique_ptr<uint8_t[]> storage_;
  size_t stride_ = 0;
  uint32_t mask_ = 0;
  uint32_t snaplen_ = 0;
};

/// One tap: frames of `port` at `points` into `ring` (this worker's ring of a capture).
struct CaptureTap {
  PortId port = 0;
  uint8_t points = 0;  ///< kCaptureRx | kCaptureTx
  /// Only frames the classifier did not pass as DATA (punts, CONTROL, and on link ports
  /// its drops), with their verdict and reason.
  bool exceptions_only = false;
  CaptureRing* ring = nullptr;
};

/// What a worker taps, published as its link port table is (immutable, versioned).
struct CaptureTable {
  uint64_t version = 0;
  std::vector<CaptureTap> taps;
};

}  // namespace fastpath
