// SPDX-License-Identifier: GPL-2.0-only
// One million seeded random frames through the real xdp_fp_classify (BPF_PROG_TEST_RUN):
// mutations of the fixtures and plain random bytes. Every frame gets a defined verdict
// with a reason of its class, DATA only for complete, forwardable IP headers, and the
// per-CPU counters add up to exactly the frames sent.
#include <gtest/gtest.h>
#include <linux/bpf.h>

#include <array>
#include <random>

#include "classifier_fixtures.h"

namespace fastpath::testing {
namespace {

constexpr uint64_t kSeed = 0xfa57c1a5;
constexpr size_t kFrames = 1000000;

uint8_t verdictOfReason(uint8_t reason) {
  switch (reason) {
    case FP_REASON_DROP_TRUNCATED:
    case FP_REASON_DROP_BAD_HEADER:
    case FP_REASON_DROP_VLAN:
    case FP_REASON_DROP_OTHER_HOST:
    case FP_REASON_DROP_OWN_SOURCE:
    case FP_REASON_DROP_BAD_CHECKSUM:
    case FP_REASON_NO_XSK_DROP: return FP_VERDICT_DROP;
  }
  if (reason <= FP_REASON_DATA_IPV6) return FP_VERDICT_DATA;
  if (reason <= FP_REASON_CTRL_ICMPV6_ND) return FP_VERDICT_CONTROL;
  if (reason <= FP_REASON_PUNT_UNKNOWN_L3) return FP_VERDICT_PUNT;
  return FP_VERDICT_PASS;
}

uint16_t be16(const Bytes& b, size_t at) { return static_cast<uint16_t>((b[at] << 8) | b[at + 1]); }

/// What DATA promises fastpathd: a complete IP header it may forward without checks.
::testing::AssertionResult forwardable(const Bytes& f, const fp_xdp_meta& m) {
  size_t l3 = m.l3_offset;
  if (m.l3_proto == FP_L3_IPV4) {
    if (l3 + 20 > f.size()) return ::testing::AssertionFailure() << "IPv4 header cut";
    if (f[l3] != 0x45) return ::testing::AssertionFailure() << "not version 4 / IHL 5";
    if (l3 + be16(f, l3 + 2) > f.size()) return ::testing::AssertionFailure() << "packet cut";
    if (be16(f, l3 + 6) & 0x3fff) return ::testing::AssertionFailure() << "fragment";
    if (f[l3 + 8] <= 1) return ::testing::AssertionFailure() << "TTL expired";
    return ::testing::AssertionSuccess();
  }
  if (m.l3_proto == FP_L3_IPV6) {
    if (l3 + 40 > f.size()) return ::testing::AssertionFailure() << "IPv6 header cut";
    if ((f[l3] >> 4) != 6) return ::testing::AssertionFailure() << "not version 6";
    if (l3 + 40 + be16(f, l3 + 4) > f.size()) return ::testing::AssertionFailure() << "packet cut";
    if (f[l3 + 7] <= 1) return ::testing::AssertionFailure() << "hop limit expired";
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "DATA without IP";
}

TEST(ClassifierFuzzTest, MillionRandomFramesAllDefinedAndCounted) {
  std::string why;
  if (!havePrivileges(&why)) GTEST_SKIP() << why;
  ClassifierEnv env;
  ASSERT_EQ(env.open(true), "");
  const std::vector<Fixture> fx = fixtures();
  std::mt19937_64 rng(kSeed);
  std::array<uint64_t, FP_VERDICT_MAX> seen{};
  uint64_t bytes = 0;
  Bytes frame;
  frame.reserve(512);
  for (size_t i = 0; i < kFrames; ++i) {
    mutatedFrame(rng, fx, &frame);
    RunResult r = runFrame(env.cls->progFd(), frame);
    ASSERT_EQ(r.err, 0) << "frame " << i;
    bytes += frame.size();
    if (r.retval == XDP_PASS || r.retval == XDP_DROP) {
      ASSERT_FALSE(r.has_meta) << "frame " << i;
      seen[r.retval == XDP_PASS ? FP_VERDICT_PASS : FP_VERDICT_DROP]++;
      continue;
    }
    ASSERT_EQ(r.retval, XDP_REDIRECT) << "frame " << i;
    ASSERT_TRUE(r.has_meta) << "frame " << i;
    ASSERT_LT(r.meta.verdict, FP_VERDICT_PASS) << "frame " << i;
    ASSERT_LT(r.meta.reason, FP_REASON_PASS_RULE) << "frame " << i;
    ASSERT_EQ(verdictOfReason(r.meta.reason), r.meta.verdict)
        << "frame " << i << ": " << reasonName(r.meta.reason);
    ASSERT_LE(r.meta.l3_offset, frame.size());
    ASSERT_LE(r.meta.l4_offset, frame.size());
    if (r.meta.verdict == FP_VERDICT_DATA) {
      ASSERT_TRUE(forwardable(frame, r.meta)) << "frame " << i;
    }
    seen[r.meta.verdict]++;
  }
  auto stats = env.cls->readStats();
  ASSERT_TRUE(stats) << stats.error().message;
  uint64_t verdicts = 0, reasons = 0, counted_bytes = 0;
  for (unsigned v = 0; v < FP_VERDICT_MAX; ++v) {
    EXPECT_EQ(stats->verdict[v].packets, seen[v]) << verdictName(v);
    verdicts += stats->verdict[v].packets;
    counted_bytes += stats->verdict[v].bytes;
  }
  for (unsigned r = 0; r < FP_REASON_MAX; ++r)
    if (r != FP_REASON_META_FAILED) reasons += stats->reason[r].packets;
  EXPECT_EQ(verdicts, kFrames);
  EXPECT_EQ(reasons, kFrames);
  EXPECT_EQ(counted_bytes, bytes);
  EXPECT_EQ(stats->reason[FP_REASON_META_FAILED].packets, 0u);
  for (unsigned v = 0; v < FP_VERDICT_MAX; ++v) {
    if (v != FP_VERDICT_PASS) {
      EXPECT_GT(seen[v], 0u) << verdictName(v);
    }
  }
  for (unsigned v = 0; v < FP_VERDICT_MAX; ++v)
    std::printf("  %-8s %8llu\n", verdictName(v), static_cast<unsigned long long>(seen[v]));
}

}  // namespace
}  // namespace fastpath::testing
