// SPDX-License-Identifier: GPL-2.0-only
// The userspace twin against the XDP program, frame by frame: every fixture, every
// truncation of every fixture and 1M seeded fuzzed frames give the same action and, for
// frames delivered to the socket, the same metadata; and over each run the twin's reasons
// add up to the program's reason counters exactly (the reason of a dropped or passed frame
// is not in any metadata).
#include "fastpath/userspace_classifier.h"

#include <gtest/gtest.h>
#include <linux/bpf.h>

#include <array>
#include <cstdio>
#include <random>
#include <string>

#include "classifier_fixtures.h"

namespace fastpath::testing {
namespace {

constexpr uint64_t kSeed = 0x7e1f5eedULL;
constexpr size_t kFuzzFrames = 1000000;

std::string hex(const Bytes& b) {
  std::string s;
  char buf[4];
  for (uint8_t x : b) {
    std::snprintf(buf, sizeof(buf), "%02x", x);
    s += buf;
  }
  return s;
}

class UserspaceTwin : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!havePrivileges(&why)) GTEST_SKIP() << why;
    ASSERT_EQ(env_.open(true, FP_NO_XSK_PASS, wire_ ? FP_WIRE_PORT : FP_WIRE_NONE, encap_), "");
    UserspaceClassifier::Config cfg;
    cfg.port_mac = MacAddress{kDstMac};  // as ClassifierEnv configures the program
    cfg.wire = wire_ ? FP_WIRE_PORT : FP_WIRE_NONE;
    cfg.encap = encap_;
    cfg.underlay_addr = underlayAddr(V4{}.dst);
    twin_ = UserspaceClassifier(cfg);
    ASSERT_TRUE(twin_.setRules(fixtureRules()));
    twin_.setWireTags(wireTags());
    twin_.setWireVnis(wireVnis());
  }

  // Every table: with wire_ every frame of each meets the wire's rules.
  std::vector<Fixture> allFixtures() const {
    std::vector<Fixture> fx = fixtures();
    for (auto& w : wireFixtures()) fx.push_back(std::move(w));
    for (auto& w : vxlanFixtures()) fx.push_back(std::move(w));
    return fx;
  }

  // One frame through both; false (with the frame in the failure) on any difference.
  ::testing::AssertionResult same(const Bytes& frame) {
    RunResult r = runFrame(env_.cls->progFd(), frame);
    if (r.err != 0) return ::testing::AssertionFailure() << "test_run error " << r.err;
    const fp_xdp_meta m = twin_.classify(frame.data(), uint32_t(frame.size()));
    reasons_[m.reason]++;
    const uint32_t want = m.verdict == FP_VERDICT_PASS   ? XDP_PASS
                          : m.verdict == FP_VERDICT_DROP ? XDP_DROP
                                                         : XDP_REDIRECT;
    if (r.retval != want)
      return ::testing::AssertionFailure()
             << "XDP action " << r.retval << ", twin " << verdictName(m.verdict) << "/"
             << reasonName(m.reason) << " for frame " << hex(frame);
    if (want != XDP_REDIRECT) return ::testing::AssertionSuccess();
    if (!r.has_meta) return ::testing::AssertionFailure() << "no metadata from XDP";
    const fp_xdp_meta& x = r.meta;
    if (x.verdict != m.verdict || x.reason != m.reason || x.l3_proto != m.l3_proto ||
        x.l4_proto != m.l4_proto || x.l3_offset != m.l3_offset || x.l4_offset != m.l4_offset)
      return ::testing::AssertionFailure()
             << "XDP " << verdictName(x.verdict) << "/" << reasonName(x.reason) << " l3 "
             << int(x.l3_proto) << "@" << x.l3_offset << " l4 " << int(x.l4_proto) << "@"
             << x.l4_offset << ", twin " << verdictName(m.verdict) << "/" << reasonName(m.reason)
             << " l3 " << int(m.l3_proto) << "@" << m.l3_offset << " l4 " << int(m.l4_proto) << "@"
             << m.l4_offset << " for frame " << hex(frame);
    // Only the program stamps the arrival: a frame on an internal link has its model
    // arrival time instead, so the twin leaves the stamp unset.
    if (x.rx_ns == 0 || m.rx_ns != 0)
      return ::testing::AssertionFailure() << "arrival stamp: XDP " << x.rx_ns << ", twin "
                                           << m.rx_ns << " for frame " << hex(frame);
    return ::testing::AssertionSuccess();
  }

  // The program's reason counters equal the twin's reasons over the run.
  void expectSameReasonCounts() {
    auto stats = env_.cls->readStats();
    ASSERT_TRUE(stats) << stats.error().message;
    for (unsigned r = 0; r < FP_REASON_MAX; ++r)
      EXPECT_EQ(stats->reason[r].packets, reasons_[r]) << reasonName(r);
  }

  // Every table's truncations and fuzzed frames (a smaller run: a wire's rules read few
  // bytes).
  void everyTruncationAndFuzzedFrameAgrees() {
    const std::vector<Fixture> fx = allFixtures();
    for (const Fixture& f : fx)
      for (size_t len = 14; len < f.frame.size(); ++len)
        ASSERT_TRUE(same(Bytes(f.frame.begin(), f.frame.begin() + long(len))))
            << f.description << " cut at " << len;
    std::mt19937_64 rng(kSeed);
    Bytes frame;
    for (size_t i = 0; i < kFuzzFrames / 5; ++i) {
      mutatedFrame(rng, fx, &frame);
      ASSERT_TRUE(same(frame)) << "fuzzed frame " << i << " (seed " << kSeed << ")";
    }
    expectSameReasonCounts();
  }

  bool wire_ = false;
  uint32_t encap_ = FP_ENCAP_VLAN;
  ClassifierEnv env_;
  UserspaceClassifier twin_;
  std::array<uint64_t, FP_REASON_MAX> reasons_{};
};

TEST_F(UserspaceTwin, EveryFixtureAgreesAndMatchesTheTable) {
  for (const Fixture& fx : fixtures()) {
    SCOPED_TRACE(fx.description);
    EXPECT_TRUE(same(fx.frame));
    const fp_xdp_meta m = twin_.classify(fx.frame.data(), uint32_t(fx.frame.size()));
    EXPECT_STREQ(verdictName(m.verdict), verdictName(fx.verdict));
    EXPECT_STREQ(reasonName(m.reason), reasonName(fx.reason));
  }
  expectSameReasonCounts();
}

TEST_F(UserspaceTwin, EveryTruncationOfEveryFixtureAgrees) {
  for (const Fixture& fx : fixtures())
    for (size_t len = 14; len < fx.frame.size(); ++len)
      ASSERT_TRUE(same(Bytes(fx.frame.begin(), fx.frame.begin() + long(len))))
          << fx.description << " cut at " << len;
  expectSameReasonCounts();
}

TEST_F(UserspaceTwin, MillionFuzzedFramesAgree) {
  std::printf("seed %#llx\n", static_cast<unsigned long long>(kSeed));
  const std::vector<Fixture> fx = fixtures();
  std::mt19937_64 rng(kSeed);
  Bytes frame;
  frame.reserve(512);
  for (size_t i = 0; i < kFuzzFrames; ++i) {
    mutatedFrame(rng, fx, &frame);
    ASSERT_TRUE(same(frame)) << "fuzzed frame " << i << " (seed " << kSeed << ")";
  }
  expectSameReasonCounts();
}

// The same contract on a wire between hosts (fp_config.wire): both tables, their
// truncations and fuzzed frames (a smaller run: the wire's rules read 18 bytes).
class UserspaceTwinWire : public UserspaceTwin {
 protected:
  UserspaceTwinWire() { wire_ = true; }
};

TEST_F(UserspaceTwinWire, EveryFixtureAgreesAndWireFixturesMatchTheTable) {
  for (const Fixture& fx : allFixtures()) EXPECT_TRUE(same(fx.frame)) << fx.description;
  for (const Fixture& fx : wireFixtures()) {
    const fp_xdp_meta m = twin_.classify(fx.frame.data(), uint32_t(fx.frame.size()));
    EXPECT_STREQ(reasonName(m.reason), reasonName(fx.reason)) << fx.description;
  }
  expectSameReasonCounts();
}

TEST_F(UserspaceTwinWire, EveryTruncationAndFuzzedFrameAgrees) {
  everyTruncationAndFuzzedFrameAgrees();
}

// The same on a VXLAN wire: every table, the VXLAN table's reasons, every truncation and
// fuzzed frames (VXLAN frames among the mutated ones).
class UserspaceTwinVxlan : public UserspaceTwin {
 protected:
  UserspaceTwinVxlan() {
    wire_ = true;
    encap_ = FP_ENCAP_VXLAN;
  }
};

TEST_F(UserspaceTwinVxlan, EveryFixtureAgreesAndVxlanFixturesMatchTheTable) {
  for (const Fixture& fx : allFixtures()) EXPECT_TRUE(same(fx.frame)) << fx.description;
  for (const Fixture& fx : vxlanFixtures()) {
    const fp_xdp_meta m = twin_.classify(fx.frame.data(), uint32_t(fx.frame.size()));
    EXPECT_STREQ(reasonName(m.reason), reasonName(fx.reason)) << fx.description;
  }
  expectSameReasonCounts();
}

TEST_F(UserspaceTwinVxlan, EveryTruncationAndFuzzedFrameAgrees) {
  everyTruncationAndFuzzedFrameAgrees();
}

}  // namespace
}  // namespace fastpath::testing
