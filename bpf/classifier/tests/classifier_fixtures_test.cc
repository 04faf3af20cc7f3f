// SPDX-License-Identifier: GPL-2.0-only
// The real xdp_fp_classify through BPF_PROG_TEST_RUN: the fixture table (verdict, reason,
// metadata, XDP action), the counters it leaves, the no-XSK policies, and every fixture
// cut at every length.
#include <gtest/gtest.h>
#include <linux/bpf.h>

#include <map>

#include "classifier_fixtures.h"
#include "fastpath/monotonic_clock.h"

namespace fastpath::testing {
namespace {

class ClassifierFixturesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!havePrivileges(&why)) GTEST_SKIP() << why;
  }
};

uint32_t expectedAction(uint8_t verdict) {
  if (verdict == FP_VERDICT_PASS) return XDP_PASS;
  return verdict == FP_VERDICT_DROP ? XDP_DROP : XDP_REDIRECT;
}

TEST_F(ClassifierFixturesTest, EveryFixtureGetsItsVerdictReasonAndMetadata) {
  ClassifierEnv env;
  ASSERT_EQ(env.open(true), "");
  std::map<unsigned, uint64_t> verdicts, reasons;
  std::map<unsigned, uint64_t> verdict_bytes;
  for (const Fixture& fx : fixtures()) {
    SCOPED_TRACE(fx.description);
    const uint64_t before = monotonicNs();
    RunResult r = runFrame(env.cls->progFd(), fx.frame);
    const uint64_t after = monotonicNs();
    ASSERT_EQ(r.err, 0);
    EXPECT_EQ(r.retval, expectedAction(fx.verdict));
    verdicts[fx.verdict]++;
    verdict_bytes[fx.verdict] += fx.frame.size();
    reasons[fx.reason]++;
    if (fx.verdict == FP_VERDICT_PASS || fx.verdict == FP_VERDICT_DROP) {
      EXPECT_FALSE(r.has_meta) << "only frames for the AF_XDP socket carry metadata";
      EXPECT_EQ(r.out, fx.frame);
      continue;
    }
    ASSERT_TRUE(r.has_meta) << "meta_len " << r.meta_len;
    EXPECT_EQ(r.meta_len, sizeof(fp_xdp_meta));
    EXPECT_STREQ(verdictName(r.meta.verdict), verdictName(fx.verdict));
    EXPECT_STREQ(reasonName(r.meta.reason), reasonName(fx.reason));
    EXPECT_EQ(r.meta.l3_proto, fx.l3);
    EXPECT_EQ(r.meta.l4_proto, fx.l4_proto);
    EXPECT_EQ(r.meta.l3_offset, fx.l3_off);
    EXPECT_EQ(r.meta.l4_offset, fx.l4_off);
    // Stamped on the clock fastpathd reads (CLOCK_MONOTONIC), while the program ran.
    EXPECT_GE(r.meta.rx_ns, before) << "the arrival stamp is the program's clock read";
    EXPECT_LE(r.meta.rx_ns, after) << "the arrival stamp is the program's clock read";
    EXPECT_EQ(r.out, fx.frame) << "the frame itself is untouched";
  }
  auto stats = env.cls->readStats();
  ASSERT_TRUE(stats) << stats.error().message;
  for (unsigned v = 0; v < FP_VERDICT_MAX; ++v) {
    EXPECT_EQ(stats->verdict[v].packets, verdicts[v]) << verdictName(v);
    EXPECT_EQ(stats->verdict[v].bytes, verdict_bytes[v]) << verdictName(v);
  }
  for (unsigned r = 0; r < FP_REASON_MAX; ++r)
    EXPECT_EQ(stats->reason[r].packets, reasons[r]) << reasonName(r);
}

// A wire between hosts: only a plan's VLAN from its link's peer end and the probes pass
// (to the kernel's VLAN devices); foreign tags and hosts, untagged and cut frames are
// dropped, each counted under its reason.
TEST_F(ClassifierFixturesTest, WireFixturesPassOrDropWithTheirReason) {
  ClassifierEnv env;
  ASSERT_EQ(env.open(true, FP_NO_XSK_PASS, FP_WIRE_PORT), "");
  std::map<unsigned, uint64_t> reasons;
  for (const Fixture& fx : wireFixtures()) {
    SCOPED_TRACE(fx.description);
    RunResult r = runFrame(env.cls->progFd(), fx.frame);
    ASSERT_EQ(r.err, 0);
    EXPECT_EQ(r.retval, expectedAction(fx.verdict));
    EXPECT_FALSE(r.has_meta) << "a wire hands nothing to an AF_XDP socket";
    reasons[fx.reason]++;
  }
  // Frames of a port's table are no wire's: untagged ones dropped, the VLAN 100 ones
  // from kSrcMac passed to the VLAN device.
  for (const Fixture& fx : fixtures()) {
    RunResult r = runFrame(env.cls->progFd(), fx.frame);
    ASSERT_EQ(r.err, 0);
    EXPECT_NE(r.retval, uint32_t(XDP_REDIRECT)) << fx.description;
  }
  auto stats = env.cls->readStats();
  ASSERT_TRUE(stats) << stats.error().message;
  for (unsigned r : {FP_REASON_PASS_WIRE_LINK, FP_REASON_PASS_WIRE_PROBE,
                     FP_REASON_DROP_WIRE_FOREIGN_TAG, FP_REASON_DROP_WIRE_FOREIGN_HOST,
                     FP_REASON_DROP_WIRE_UNTAGGED})
    EXPECT_GE(stats->reason[r].packets, reasons[r]) << reasonName(r);
  EXPECT_EQ(stats->verdict[FP_VERDICT_DATA].packets, 0u);
}

// A link's wire-side end: every frame the node sent leaves tagged with the link's VLAN
// (the MACs before the tag, the rest unchanged), redirected to the wire; a cut frame is
// dropped.
TEST_F(ClassifierFixturesTest, LinkEndTagsEveryFrameForTheWire) {
  ClassifierEnv env;
  ASSERT_EQ(env.open(false, FP_NO_XSK_PASS, FP_WIRE_LINK_END), "");
  uint64_t sent = 0;
  for (const Fixture& fx : fixtures()) {
    SCOPED_TRACE(fx.description);
    RunResult r = runFrame(env.cls->progFd(), fx.frame);
    ASSERT_EQ(r.err, 0);
    EXPECT_EQ(r.retval, uint32_t(XDP_REDIRECT));
    Bytes want(fx.frame.begin(), fx.frame.begin() + 12);
    want.insert(want.end(), {0x81, 0x00, 0x00, 100});
    want.insert(want.end(), fx.frame.begin() + 12, fx.frame.end());
    EXPECT_EQ(r.out, want);
    sent++;
  }
  auto stats = env.cls->readStats();
  ASSERT_TRUE(stats) << stats.error().message;
  EXPECT_EQ(stats->reason[FP_REASON_PASS_WIRE_TX].packets, sent);
}

TEST_F(ClassifierFixturesTest, NoSocketPassPolicyHandsEveryXskFrameToTheKernel) {
  ClassifierEnv env;
  ASSERT_EQ(env.open(false, FP_NO_XSK_PASS), "");
  uint64_t to_xsk = 0, by_rule = 0, dropped = 0;
  for (const Fixture& fx : fixtures()) {
    SCOPED_TRACE(fx.description);
    RunResult r = runFrame(env.cls->progFd(), fx.frame);
    ASSERT_EQ(r.err, 0);
    EXPECT_FALSE(r.has_meta);
    if (fx.verdict == FP_VERDICT_DROP) {  // dropped in XDP whatever the socket policy
      EXPECT_EQ(r.retval, XDP_DROP);
      dropped++;
      continue;
    }
    EXPECT_EQ(r.retval, XDP_PASS);
    (fx.verdict == FP_VERDICT_PASS ? by_rule : to_xsk)++;
  }
  auto stats = env.cls->readStats();
  ASSERT_TRUE(stats);
  EXPECT_EQ(stats->verdict[FP_VERDICT_PASS].packets, to_xsk + by_rule);
  EXPECT_EQ(stats->reason[FP_REASON_NO_XSK_PASS].packets, to_xsk);
  EXPECT_EQ(stats->reason[FP_REASON_PASS_RULE].packets, by_rule);
  EXPECT_EQ(stats->verdict[FP_VERDICT_DROP].packets, dropped);
}

TEST_F(ClassifierFixturesTest, NoSocketDropPolicyDropsAndCountsButRulePassStillPasses) {
  ClassifierEnv env;
  ASSERT_EQ(env.open(false, FP_NO_XSK_DROP), "");
  uint64_t to_xsk = 0, by_rule = 0, dropped = 0;
  for (const Fixture& fx : fixtures()) {
    SCOPED_TRACE(fx.description);
    RunResult r = runFrame(env.cls->progFd(), fx.frame);
    ASSERT_EQ(r.err, 0);
    if (fx.verdict == FP_VERDICT_PASS) {
      EXPECT_EQ(r.retval, XDP_PASS);
      by_rule++;
    } else {
      EXPECT_EQ(r.retval, XDP_DROP);
      (fx.verdict == FP_VERDICT_DROP ? dropped : to_xsk)++;
    }
  }
  auto stats = env.cls->readStats();
  ASSERT_TRUE(stats);
  EXPECT_EQ(stats->verdict[FP_VERDICT_DROP].packets, to_xsk + dropped);
  EXPECT_EQ(stats->reason[FP_REASON_NO_XSK_DROP].packets, to_xsk);
  EXPECT_EQ(stats->verdict[FP_VERDICT_PASS].packets, by_rule);
}

TEST_F(ClassifierFixturesTest, ConfigChangesBroadcastAndMulticastActions) {
  ClassifierEnv env;
  ASSERT_EQ(env.open(true), "");
  fp_config cfg{};
  cfg.broadcast_action = FP_ACTION_PASS;
  cfg.multicast_action = 0;  // no rule: multicast is classified like unicast
  ASSERT_TRUE(env.cls->setConfig(cfg));
  L2 bcast{kBroadcastMac, kSrcMac, {}};
  RunResult r = runFrame(env.cls->progFd(), ipv4(bcast, {.dst = {255, 255, 255, 255}}, udp(1, 2)));
  EXPECT_EQ(r.retval, XDP_PASS);
  r = runFrame(env.cls->progFd(), arp());
  ASSERT_TRUE(r.has_meta);
  EXPECT_EQ(r.meta.reason, FP_REASON_CTRL_ARP) << "ARP is control whatever the policy";
  r = runFrame(env.cls->progFd(),
               ipv4({kMulticastMac, kSrcMac, {}}, {.dst = {224, 1, 2, 3}}, udp(1, 2)));
  ASSERT_TRUE(r.has_meta);
  EXPECT_EQ(r.meta.reason, FP_REASON_DATA_IPV4);
}

TEST_F(ClassifierFixturesTest, RulesReadBackAndReplaceAtomically) {
  ClassifierEnv env;
  ASSERT_EQ(env.open(false), "");
  EXPECT_EQ(env.cls->rules().size(), fixtureRules().size());
  // Replace: keep OLSR, drop everything else, add RIPng.
  ControlRule olsr;
  olsr.kind = ControlRule::Kind::kL4Port;
  olsr.ip_proto = 17;
  olsr.port = 698;
  ControlRule ripng = olsr;
  ripng.port = 521;
  ASSERT_TRUE(env.cls->setRules({olsr, ripng}));
  auto now = env.cls->rules();
  ASSERT_EQ(now.size(), 2u);
  for (const ControlRule& r : now) {
    EXPECT_EQ(r.kind, ControlRule::Kind::kL4Port);
    EXPECT_TRUE(r.port == 698 || r.port == 521);
  }
  RunResult r = runFrame(env.cls->progFd(), ipv4({}, {.proto = 89}, Bytes(24, 0)));
  EXPECT_EQ(r.retval, XDP_PASS) << "OSPF rule gone: data, and no socket: passed";
  ControlRule bad = olsr;
  bad.ip_proto = 1;
  auto st = env.cls->setRules({bad});
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("only UDP"), std::string::npos) << st.error().message;
  EXPECT_EQ(env.cls->rules().size(), 2u) << "a rejected batch changes nothing";
}

// Every fixture cut at every length the kernel accepts (>= 14 bytes): a defined verdict,
// never DATA unless the whole IP packet is in the frame, and a cut DATA frame is dropped in
// XDP (drop_truncated) before it takes a slot in the AF_XDP ring.
TEST_F(ClassifierFixturesTest, TruncatedFramesNeverBecomeData) {
  ClassifierEnv env;
  ASSERT_EQ(env.open(true), "");
  size_t runs = 0;
  for (const Fixture& fx : fixtures()) {
    size_t ip_end = fx.frame.size();
    if (fx.l3 == FP_L3_IPV4 && fx.verdict == FP_VERDICT_DATA)
      ip_end = fx.l3_off + ((fx.frame[fx.l3_off + 2] << 8) | fx.frame[fx.l3_off + 3]);
    if (fx.l3 == FP_L3_IPV6 && fx.verdict == FP_VERDICT_DATA)
      ip_end = fx.l3_off + 40 + ((fx.frame[fx.l3_off + 4] << 8) | fx.frame[fx.l3_off + 5]);
    for (size_t len = 1; len < fx.frame.size(); ++len) {
      SCOPED_TRACE(fx.description + " cut at " + std::to_string(len));
      Bytes cut(fx.frame.begin(), fx.frame.begin() + static_cast<long>(len));
      RunResult r = runFrame(env.cls->progFd(), cut);
      if (len < 14) {  // the kernel refuses test frames shorter than an Ethernet header
        EXPECT_EQ(r.err, -EINVAL);
        continue;
      }
      ASSERT_EQ(r.err, 0);
      ++runs;
      if (fx.verdict == FP_VERDICT_DATA && len < ip_end) {
        EXPECT_EQ(r.retval, XDP_DROP);
      }
      if (r.retval == XDP_PASS || r.retval == XDP_DROP) {
        EXPECT_FALSE(r.has_meta);
        continue;
      }
      ASSERT_EQ(r.retval, XDP_REDIRECT);
      ASSERT_TRUE(r.has_meta);
      ASSERT_LT(r.meta.verdict, FP_VERDICT_PASS);
      ASSERT_LT(r.meta.reason, FP_REASON_MAX);
      if (r.meta.verdict == FP_VERDICT_DATA) {
        EXPECT_GE(len, ip_end);
      }
    }
  }
  auto stats = env.cls->readStats();
  ASSERT_TRUE(stats);
  uint64_t sum = 0;
  for (const fp_counter& c : stats->verdict) sum += c.packets;
  EXPECT_EQ(sum, runs);
  EXPECT_GT(stats->reason[FP_REASON_DROP_TRUNCATED].packets, 0u);
}

TEST(ClassifierNames, EveryEnumValueHasAName) {
  EXPECT_STREQ(verdictName(FP_VERDICT_DATA), "data");
  EXPECT_STREQ(verdictName(FP_VERDICT_DROP), "drop");
  EXPECT_STREQ(reasonName(FP_REASON_PUNT_TTL_EXPIRED), "punt_ttl_expired");
  EXPECT_STREQ(reasonName(FP_REASON_NO_XSK_DROP), "no_xsk_drop");
  EXPECT_STREQ(reasonName(FP_REASON_MAX), "unknown");
  for (unsigned r = 0; r < FP_REASON_MAX; ++r) EXPECT_STRNE(reasonName(r), "unknown");
}

}  // namespace
}  // namespace fastpath::testing
