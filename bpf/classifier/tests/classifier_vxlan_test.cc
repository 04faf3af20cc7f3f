// SPDX-License-Identifier: GPL-2.0-only
// The real xdp_fp_classify on a VXLAN wire and a VXLAN link end, through
// BPF_PROG_TEST_RUN: the VXLAN fixture table (what goes to the link, what to the kernel,
// what is dropped and why), the outer headers taken off on the way in and put on on the
// way out (RFC 7348: lengths, IPv4 checksum, DF, TTL, the source port from the flow).
#include <gtest/gtest.h>
#include <linux/bpf.h>

#include <map>
#include <set>

#include "classifier_fixtures.h"

namespace fastpath::testing {
namespace {

class ClassifierVxlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!havePrivileges(&why)) GTEST_SKIP() << why;
  }
};

uint16_t be16(const Bytes& b, size_t off) { return uint16_t(b[off] << 8 | b[off + 1]); }

// Every frame of the table: to the kernel (XDP_PASS) or dropped, never to a socket, each
// counted under its reason; the port's and the 802.1Q wire's tables are underlay traffic.
TEST_F(ClassifierVxlanTest, WireFixturesPassOrDropWithTheirReason) {
  ClassifierEnv env;
  ASSERT_EQ(env.open(true, FP_NO_XSK_PASS, FP_WIRE_PORT, FP_ENCAP_VXLAN), "");
  std::map<unsigned, uint64_t> reasons;
  for (const Fixture& fx : vxlanFixtures()) {
    SCOPED_TRACE(fx.description);
    RunResult r = runFrame(env.cls->progFd(), fx.frame);
    ASSERT_EQ(r.err, 0);
    EXPECT_EQ(r.retval, fx.verdict == FP_VERDICT_PASS ? XDP_PASS : XDP_DROP);
    EXPECT_FALSE(r.has_meta) << "a wire hands nothing to an AF_XDP socket";
    reasons[fx.reason]++;
  }
  auto stats = env.cls->readStats();
  ASSERT_TRUE(stats) << stats.error().message;
  for (unsigned r = 0; r < FP_REASON_MAX; ++r)
    EXPECT_EQ(stats->reason[r].packets, reasons[r]) << reasonName(r);
  EXPECT_EQ(stats->verdict[FP_VERDICT_DATA].packets, 0u);
}

// A link's frame from its peer leaves the program as the inner frame, redirected to the
// link's end; the same frame for a VNI that is not carried any more is dropped.
TEST_F(ClassifierVxlanTest, WireStripsTheOuterHeadersForTheLinkEnd) {
  ClassifierEnv env;
  ASSERT_EQ(env.open(false, FP_NO_XSK_PASS, FP_WIRE_PORT, FP_ENCAP_VXLAN), "");
  ASSERT_TRUE(env.cls->setWireVnis({{100, {underlayAddr(V4{}.src), 1}}}));
  const Bytes inner = ipv4(L2{kOtherHostMac, kMulticastMac, {}}, {}, udp(1000, 2000, 300));
  RunResult r = runFrame(env.cls->progFd(), vxlanFrame(inner, 100));
  ASSERT_EQ(r.err, 0);
  EXPECT_EQ(r.retval, uint32_t(XDP_REDIRECT));
  EXPECT_EQ(r.out, inner);
  r = runFrame(env.cls->progFd(), vxlanFrame(inner, 101));
  EXPECT_EQ(r.retval, uint32_t(XDP_DROP)) << "VNI 101 is no longer carried";
}

// A link end: every frame leaves behind outer Ethernet, IPv4 (DF, TTL 64, a correct
// checksum, the right length), UDP (to 4789, source port in 49152..65535 from the inner
// flow, checksum 0) and VXLAN (I flag, VNI 100), the frame itself unchanged, to the wire.
TEST_F(ClassifierVxlanTest, LinkEndEncapsulatesEveryFrameForTheWire) {
  ClassifierEnv env;
  ASSERT_EQ(env.open(false, FP_NO_XSK_PASS, FP_WIRE_LINK_END, FP_ENCAP_VXLAN), "");
  uint64_t sent = 0;
  std::set<uint16_t> ports;
  for (const Fixture& fx : fixtures()) {
    SCOPED_TRACE(fx.description);
    RunResult r = runFrame(env.cls->progFd(), fx.frame);
    ASSERT_EQ(r.err, 0);
    EXPECT_EQ(r.retval, uint32_t(XDP_REDIRECT));
    const Bytes& o = r.out;
    ASSERT_EQ(o.size(), fx.frame.size() + FP_VXLAN_OVERHEAD);
    EXPECT_EQ(Bytes(o.begin(), o.begin() + 6), Bytes(kDstMac.begin(), kDstMac.end()));
    EXPECT_EQ(Bytes(o.begin() + 6, o.begin() + 12), Bytes(kSrcMac.begin(), kSrcMac.end()));
    EXPECT_EQ(be16(o, 12), 0x0800);
    EXPECT_EQ(o[14], 0x45);
    EXPECT_EQ(be16(o, 16), fx.frame.size() + 36) << "IPv4 total length";
    EXPECT_EQ(be16(o, 20), 0x4000) << "DF, no fragment";
    EXPECT_EQ(o[22], 64) << "TTL";
    EXPECT_EQ(o[23], 17);
    uint32_t sum = 0;
    for (size_t i = 14; i < 34; i += 2) sum += be16(o, i);
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    EXPECT_EQ(sum, 0xffffu) << "IPv4 header checksum";
    EXPECT_EQ(Bytes(o.begin() + 26, o.begin() + 30), Bytes({198, 18, 1, 1}));
    EXPECT_EQ(Bytes(o.begin() + 30, o.begin() + 34), Bytes({198, 18, 0, 1}));
    const uint16_t sport = be16(o, 34);
    EXPECT_GE(sport, 49152);
    ports.insert(sport);
    EXPECT_EQ(be16(o, 36), 4789);
    EXPECT_EQ(be16(o, 38), fx.frame.size() + 16) << "UDP length";
    EXPECT_EQ(be16(o, 40), 0) << "UDP checksum 0 (RFC 7348 5)";
    EXPECT_EQ(Bytes(o.begin() + 42, o.begin() + 50), Bytes({0x08, 0, 0, 0, 0, 0, 100, 0}));
    EXPECT_EQ(Bytes(o.begin() + 50, o.end()), fx.frame);
    // One flow, one source port.
    RunResult again = runFrame(env.cls->progFd(), fx.frame);
    EXPECT_EQ(be16(again.out, 34), sport);
    sent += 2;
  }
  EXPECT_GT(ports.size(), 5u) << "different flows spread over source ports";
  auto stats = env.cls->readStats();
  ASSERT_TRUE(stats) << stats.error().message;
  EXPECT_EQ(stats->reason[FP_REASON_PASS_WIRE_TX].packets, sent);
}

// A link end follows its next hop: with an entry, the outer destination is the entry's MAC
// (the rest of the header the template's); without a next hop every frame is dropped and
// counted, and a returning next hop lets frames through again.
TEST_F(ClassifierVxlanTest, LinkEndFollowsItsNextHopAndDropsWithoutOne) {
  ClassifierEnv env;
  ASSERT_EQ(env.open(false, FP_NO_XSK_PASS, FP_WIRE_LINK_END, FP_ENCAP_VXLAN), "");
  const Bytes frame = fixtures().front().frame;
  RunResult before = runFrame(env.cls->progFd(), frame);
  ASSERT_EQ(before.retval, uint32_t(XDP_REDIRECT));
  const MacAddress router2{{0x02, 0x52, 0x32, 0x00, 0x00, 0x07}};
  ASSERT_TRUE(env.cls->setVxlanNextHop(router2));
  RunResult r = runFrame(env.cls->progFd(), frame);
  ASSERT_EQ(r.err, 0);
  EXPECT_EQ(r.retval, uint32_t(XDP_REDIRECT));
  EXPECT_EQ(Bytes(r.out.begin(), r.out.begin() + 6),
            Bytes(router2.bytes.begin(), router2.bytes.end()));
  EXPECT_EQ(Bytes(r.out.begin() + 6, r.out.end()), Bytes(before.out.begin() + 6, before.out.end()))
      << "only the next hop's MAC changes";
  ASSERT_TRUE(env.cls->setVxlanNextHop(std::nullopt));
  for (int i = 0; i < 3; ++i) {
    r = runFrame(env.cls->progFd(), frame);
    EXPECT_EQ(r.retval, uint32_t(XDP_DROP));
  }
  ASSERT_TRUE(env.cls->setVxlanNextHop(MacAddress{kDstMac}));
  r = runFrame(env.cls->progFd(), frame);
  EXPECT_EQ(r.retval, uint32_t(XDP_REDIRECT));
  EXPECT_EQ(r.out, before.out) << "the template's next hop again";
  auto stats = env.cls->readStats();
  ASSERT_TRUE(stats) << stats.error().message;
  EXPECT_EQ(stats->reason[FP_REASON_DROP_WIRE_NO_NEXT_HOP].packets, 3u);
  EXPECT_EQ(stats->reason[FP_REASON_PASS_WIRE_TX].packets, 3u);
}

// Every truncation of every VXLAN fixture: dropped or to the kernel, never redirected
// elsewhere, and a frame cut inside the VXLAN or inner Ethernet header is counted truncated.
TEST_F(ClassifierVxlanTest, EveryCutFrameIsDroppedOrPassed) {
  ClassifierEnv env;
  ASSERT_EQ(env.open(false, FP_NO_XSK_PASS, FP_WIRE_PORT, FP_ENCAP_VXLAN), "");
  const Bytes full = vxlanFrame(arp(), 100);
  for (size_t len = 0; len < full.size(); ++len) {
    RunResult r = runFrame(env.cls->progFd(), Bytes(full.begin(), full.begin() + long(len)));
    if (r.err) continue;  // too short for test_run itself
    EXPECT_EQ(r.retval, len < 42 ? XDP_PASS : XDP_DROP) << "cut at " << len;
  }
}

}  // namespace
}  // namespace fastpath::testing
