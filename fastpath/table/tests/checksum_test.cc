// SPDX-License-Identifier: GPL-2.0-only
// RFC 1624 incremental update against full recomputation on random IPv4 headers.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "table/checksum.h"

namespace fastpath {
namespace {

TEST(Checksum, KnownHeader) {
  // RFC 1071-style worked example: 4500 0073 0000 4000 4011 b861 c0a8 0001 c0a8 00c7.
  uint8_t h[20] = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
                   0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};
  const uint16_t c = ipv4HeaderChecksum(h, 20);
  std::memcpy(h + 10, &c, 2);
  EXPECT_EQ(h[10], 0xb8);
  EXPECT_EQ(h[11], 0x61);
  EXPECT_TRUE(ipv4HeaderChecksumOk(h, 20));
  h[15] ^= 1;
  EXPECT_FALSE(ipv4HeaderChecksumOk(h, 20));
}

TEST(Checksum, TtlDecrementMatchesFullRecomputation) {
  std::mt19937_64 rng(1624);
  uint8_t h[60];
  for (int i = 0; i < 1000000; ++i) {
    const size_t len = 20 + 4 * (rng() % 11);  // options too
    for (size_t j = 0; j < len; ++j) h[j] = static_cast<uint8_t>(rng());
    h[0] = static_cast<uint8_t>(0x40 | (len / 4));
    h[8] = static_cast<uint8_t>(2 + rng() % 254);  // TTL 2..255
    h[10] = h[11] = 0;
    const uint16_t c = ipv4HeaderChecksum(h, len);
    std::memcpy(h + 10, &c, 2);
    ipv4DecrementTtl(h);
    uint16_t inc;
    std::memcpy(&inc, h + 10, 2);
    h[10] = h[11] = 0;
    const uint16_t full = ipv4HeaderChecksum(h, len);
    ASSERT_EQ(inc, full) << "iteration " << i;
  }
}

TEST(Checksum, WordSumsAgree) {
  std::mt19937_64 rng(32);
  uint8_t h[60];
  for (int i = 0; i < 200000; ++i) {
    const size_t len = 4 * (1 + rng() % 15);
    for (size_t j = 0; j < len; ++j) h[j] = static_cast<uint8_t>(rng());
    if (i % 7 == 0) std::memset(h, 0xff, len);  // carry-heavy
    ASSERT_EQ(csumWords32(h, len), csumPartial(h, len)) << "len " << len;
  }
}

TEST(Checksum, ReplaceHandlesTheZeroEdge) {
  // Find a header whose checksum after the TTL change is 0x0000 by full recomputation:
  // eqn. 2 of RFC 1624 would give 0xffff there; eqn. 3 must give 0x0000.
  std::mt19937_64 rng(3);
  int hits = 0;
  uint8_t h[20];
  for (int i = 0; i < 4000000 && hits < 3; ++i) {
    for (auto& b : h) b = static_cast<uint8_t>(rng());
    h[0] = 0x45;
    h[8] = static_cast<uint8_t>(2 + rng() % 254);
    h[10] = h[11] = 0;
    uint8_t after[20];
    std::memcpy(after, h, 20);
    after[8] = static_cast<uint8_t>(after[8] - 1);
    if (ipv4HeaderChecksum(after, 20) != 0) continue;
    ++hits;
    const uint16_t c = ipv4HeaderChecksum(h, 20);
    std::memcpy(h + 10, &c, 2);
    ipv4DecrementTtl(h);
    EXPECT_EQ(h[10], 0);
    EXPECT_EQ(h[11], 0);
  }
  EXPECT_GT(hits, 0);
}

}  // namespace
}  // namespace fastpath
