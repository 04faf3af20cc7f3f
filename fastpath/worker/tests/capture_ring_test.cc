// SPDX-License-Identifier: GPL-2.0-only
// The capture ring alone: frames copied up to the snap length in order, a full ring drops
// and counts instead of waiting, and a reader on another thread sees every frame the
// writer did not count as dropped.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

#include "worker/capture_tap.h"

namespace fastpath {
namespace {

CaptureRecord record(uint32_t len, uint64_t t) {
  CaptureRecord r;
  r.mono_ns = t;
  r.orig_len = len;
  r.port = 3;
  r.point = kCaptureRx;
  return r;
}

TEST(CaptureRingTest, CopiesUpToTheSnapLengthInOrder) {
  CaptureRing ring(4, 64);
  EXPECT_EQ(ring.capacity(), 4u);
  std::vector<uint8_t> frame(200);
  for (size_t i = 0; i < frame.size(); ++i) frame[i] = uint8_t(i);
  ring.offer(record(200, 1), frame.data());
  ring.offer(record(20, 2), frame.data() + 7);
  const uint8_t* data = nullptr;
  const CaptureRecord* r = ring.front(&data);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->orig_len, 200u);
  EXPECT_EQ(r->cap_len, 64u) << "cut at the snap length";
  EXPECT_EQ(r->mono_ns, 1u);
  EXPECT_EQ(std::memcmp(data, frame.data(), 64), 0);
  ring.consume();
  r = ring.front(&data);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->cap_len, 20u) << "a short frame is copied whole";
  EXPECT_EQ(data[0], 7);
  ring.consume();
  EXPECT_EQ(ring.front(&data), nullptr);
  EXPECT_EQ(ring.captured(), 2u);
  EXPECT_EQ(ring.dropped(), 0u);
}

TEST(CaptureRingTest, FullRingDropsAndCountsWithoutWaiting) {
  CaptureRing ring(8, 128);
  std::vector<uint8_t> frame(100, 0xab);
  for (uint64_t i = 0; i < 1000; ++i) ring.offer(record(100, i), frame.data());
  EXPECT_EQ(ring.captured(), 8u);
  EXPECT_EQ(ring.dropped(), 992u);
  // The ring keeps the oldest frames; once read, there is room again.
  const uint8_t* data = nullptr;
  for (uint64_t i = 0; i < 8; ++i) {
    const CaptureRecord* r = ring.front(&data);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->mono_ns, i);
    ring.consume();
  }
  ring.offer(record(100, 5000), frame.data());
  ASSERT_NE(ring.front(&data), nullptr);
  EXPECT_EQ(ring.captured(), 9u);
}

TEST(CaptureRingTest, SlowReaderOnAnotherThreadSeesCapturedMinusDropped) {
  CaptureRing ring(64, 32);
  constexpr uint64_t kFrames = 200000;
  std::atomic<bool> done{false};
  uint64_t read = 0, last = 0;
  bool ordered = true, intact = true;
  std::thread reader([&] {
    const uint8_t* data = nullptr;
    for (;;) {
      const CaptureRecord* r = ring.front(&data);
      if (!r) {
        if (done.load()) {
          if (!ring.front(&data)) break;
          continue;
        }
        std::this_thread::yield();
        continue;
      }
      if (read && r->mono_ns <= last) ordered = false;
      uint64_t v;
      std::memcpy(&v, data, 8);
      if (v != r->mono_ns) intact = false;
      last = r->mono_ns;
      ++read;
      ring.consume();
    }
  });
  uint8_t frame[32] = {};
  for (uint64_t i = 1; i <= kFrames; ++i) {
    std::memcpy(frame, &i, 8);
    ring.offer(record(32, i), frame);
  }
  done = true;
  reader.join();
  EXPECT_EQ(read + ring.dropped(), kFrames);
  EXPECT_EQ(ring.captured(), read);
  EXPECT_TRUE(ordered);
  EXPECT_TRUE(intact) << "a slot was overwritten while being read";
}

}  // namespace
}  // namespace fastpath
