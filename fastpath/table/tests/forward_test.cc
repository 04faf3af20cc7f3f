// SPDX-License-Identifier: GPL-2.0-only
// forwardFrame on synthetic frames against a real FibManager: rewrites checked byte by
// byte (MACs, TTL / hop limit, checksum against full recomputation, nothing else
// touched), every punt reason, and punts leave the frame untouched.
#include <gtest/gtest.h>

#include <arpa/inet.h>

#include <cstring>
#include <random>
#include <set>
#include <vector>

#include "fib_testing.h"
#include "table/checksum.h"
#include "table/forward.h"

namespace fastpath {
namespace {

IpAddress ip(const std::string& s) { return IpAddress::parse(s).value(); }
MacAddress mac(uint8_t a, uint8_t b) {
  MacAddress m;
  m.bytes = {0x02, 0, 0, 0, a, b};
  return m;
}
Route route(const std::string& prefix, const std::string& gw, PortId port) {
  Route r;
  r.prefix = IpPrefix::parse(prefix).value();
  if (!gw.empty()) r.next_hop = ip(gw);
  r.port = port;
  return r;
}

struct Spec {
  bool v6 = false;
  bool vlan = false;
  uint8_t ttl = 64;
  std::string src = "198.18.0.2";
  std::string dst = "198.18.2.7";
  size_t payload = 64;
  unsigned options_words = 0;  // IPv4 IHL - 5
};

struct Frame {
  std::vector<uint8_t> bytes;
  fp_xdp_meta meta{};
};

Frame build(const Spec& s, std::mt19937_64& rng) {
  Frame f;
  auto& b = f.bytes;
  const uint8_t dst_mac[6] = {0x02, 0, 0, 0, 0xa0, 1}, src_mac[6] = {0x02, 0, 0, 0, 0x55, 0x55};
  b.insert(b.end(), dst_mac, dst_mac + 6);
  b.insert(b.end(), src_mac, src_mac + 6);
  if (s.vlan) {
    const uint8_t tag[4] = {0x81, 0x00, 0x00, static_cast<uint8_t>(rng() % 4095 + 1)};
    b.insert(b.end(), tag, tag + 4);
  }
  const uint16_t et = htons(s.v6 ? 0x86dd : 0x0800);
  b.insert(b.end(), reinterpret_cast<const uint8_t*>(&et),
           reinterpret_cast<const uint8_t*>(&et) + 2);
  const size_t l3 = b.size();
  if (!s.v6) {
    const size_t ihl = 20 + 4 * s.options_words;
    b.resize(l3 + ihl + s.payload);
    uint8_t* h = &b[l3];
    for (size_t i = 0; i < ihl + s.payload; ++i) h[i] = static_cast<uint8_t>(rng());
    h[0] = static_cast<uint8_t>(0x40 | (ihl / 4));
    const uint16_t tot = htons(static_cast<uint16_t>(ihl + s.payload));
    std::memcpy(h + 2, &tot, 2);
    h[6] &= 0x40;  // DF maybe, never MF or an offset (the classifier punts fragments)
    h[7] = 0;
    h[8] = s.ttl;
    h[9] = 17;
    const uint32_t sa = ip(s.src).v4NetworkOrder(), da = ip(s.dst).v4NetworkOrder();
    std::memcpy(h + 12, &sa, 4);
    std::memcpy(h + 16, &da, 4);
    h[10] = h[11] = 0;
    const uint16_t c = ipv4HeaderChecksum(h, ihl);
    std::memcpy(h + 10, &c, 2);
    f.meta.l3_proto = FP_L3_IPV4;
    f.meta.reason = FP_REASON_DATA_IPV4;
  } else {
    b.resize(l3 + 40 + s.payload);
    uint8_t* h = &b[l3];
    for (size_t i = 0; i < 40 + s.payload; ++i) h[i] = static_cast<uint8_t>(rng());
    h[0] = static_cast<uint8_t>(0x60 | (h[0] & 0x0f));
    const uint16_t plen = htons(static_cast<uint16_t>(s.payload));
    std::memcpy(h + 4, &plen, 2);
    h[6] = 17;
    h[7] = s.ttl;
    std::memcpy(h + 8, ip(s.src).bytes.data(), 16);
    std::memcpy(h + 24, ip(s.dst).bytes.data(), 16);
    f.meta.l3_proto = FP_L3_IPV6;
    f.meta.reason = FP_REASON_DATA_IPV6;
  }
  f.meta.magic = FP_META_MAGIC;
  f.meta.verdict = FP_VERDICT_DATA;
  f.meta.l4_proto = 17;
  f.meta.l3_offset = static_cast<uint16_t>(l3);
  return f;
}

class ForwardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fib.setPorts({{0, mac(0xa0, 1), 1500, true},
                              {1, mac(0xa1, 1), 1500, true},
                              {2, mac(0xa2, 1), 1500, false},
                              {3, mac(0xa3, 1), 576, true}})
                    .ok());
    RouteBatch b;
    b.add = {route("198.18.2.0/24", "198.18.1.2", 1),
             route("2001:2:2::/48", "2001:2:1::2", 1),
             route("198.18.3.0/24", "198.18.1.3", 1),
             route("198.18.4.0/24", "198.18.4.2", 2),
             route("198.18.5.0/24", "198.18.5.2", 3),
             route("2001:2:5::/48", "2001:2:5::2", 3),
             route("198.18.0.0/24", "", 0)};
    ASSERT_TRUE(fib.applyRoutes(b).ok());
    ASSERT_TRUE(fib.addNeighbour({ip("198.18.1.2"), 1, mac(0xbb, 2)}).ok());
    ASSERT_TRUE(fib.addNeighbour({ip("2001:2:1::2"), 1, mac(0xbb, 6)}).ok());
    ASSERT_TRUE(fib.addNeighbour({ip("198.18.4.2"), 2, mac(0xbb, 4)}).ok());
    ASSERT_TRUE(fib.addNeighbour({ip("198.18.5.2"), 3, mac(0xbb, 5)}).ok());
    ASSERT_TRUE(fib.addNeighbour({ip("2001:2:5::2"), 3, mac(0xbb, 7)}).ok());
    ASSERT_TRUE(fib.setLocalAddresses({ip("198.18.0.1"), ip("2001:2:2::1")}).ok());
  }
  // Runs forwardFrame and, for punts, checks the frame was not touched.
  ForwardDecision run(Frame& f) {
    const std::vector<uint8_t> before = f.bytes;
    const ForwardDecision d =
        forwardFrame(f.bytes.data(), static_cast<uint32_t>(f.bytes.size()), f.meta, fib.view());
    if (d.result != ForwardResult::kForward) {
      EXPECT_EQ(before, f.bytes) << "punt modified the frame";
    }
    return d;
  }
  std::unique_ptr<FibManager> fib_owner = testing::createFib(1 << 12, 1 << 10);
  FibManager& fib = *fib_owner;
  std::mt19937_64 rng{1812};
};

TEST_F(ForwardTest, RandomHeadersRewriteExactly) {
  for (int i = 0; i < 100000; ++i) {
    Spec s;
    s.v6 = rng() & 1;
    s.vlan = (rng() % 4) == 0;
    s.ttl = static_cast<uint8_t>(2 + rng() % 254);
    s.payload = rng() % 400;
    char buf[64];
    if (s.v6) {
      std::snprintf(buf, sizeof buf, "2001:2:2:%x::%x", unsigned(rng() & 0xffff),
                    unsigned(2 + rng() % 0xfff0));
      s.dst = buf;
      std::snprintf(buf, sizeof buf, "2001:2:9::%x", unsigned(1 + rng() % 0xfff0));
      s.src = buf;
    } else {
      std::snprintf(buf, sizeof buf, "198.18.2.%u", unsigned(rng() % 256));
      s.dst = buf;
      std::snprintf(buf, sizeof buf, "198.19.%u.%u", unsigned(rng() % 256), unsigned(rng() % 256));
      s.src = buf;
      s.options_words = (rng() % 8 == 0) ? static_cast<unsigned>(1 + rng() % 10) : 0;
    }
    Frame f = build(s, rng);
    std::vector<uint8_t> want = f.bytes;
    const size_t l3 = f.meta.l3_offset;
    // Expected: MACs, TTL - 1, checksum recomputed from scratch.
    const uint8_t nh_mac[6] = {0x02, 0, 0, 0, 0xbb, static_cast<uint8_t>(s.v6 ? 6 : 2)};
    const uint8_t port_mac[6] = {0x02, 0, 0, 0, 0xa1, 1};
    std::memcpy(&want[0], nh_mac, 6);
    std::memcpy(&want[6], port_mac, 6);
    if (s.v6) {
      want[l3 + 7] = static_cast<uint8_t>(s.ttl - 1);
    } else {
      want[l3 + 8] = static_cast<uint8_t>(s.ttl - 1);
      want[l3 + 10] = want[l3 + 11] = 0;
      const uint16_t c = ipv4HeaderChecksum(&want[l3], 20 + 4 * s.options_words);
      std::memcpy(&want[l3 + 10], &c, 2);
    }
    const ForwardDecision d = run(f);
    ASSERT_EQ(d.result, ForwardResult::kForward) << forwardResultName(d.result) << " for " << s.dst;
    ASSERT_EQ(d.egress, 1u);
    ASSERT_EQ(f.bytes, want) << "frame " << i << " to " << s.dst;
  }
}

TEST_F(ForwardTest, TtlExpiredIsPuntedNotForwarded) {
  for (bool v6 : {false, true}) {
    for (uint8_t ttl : {0, 1}) {
      Spec s;
      s.v6 = v6;
      s.ttl = ttl;
      if (v6) {
        s.src = "2001:2:9::1";
        s.dst = "2001:2:2::7";
      }
      Frame f = build(s, rng);
      EXPECT_EQ(run(f).result, ForwardResult::kPuntTtlExpired)
          << "v6=" << v6 << " ttl=" << int(ttl);
    }
  }
  // TTL 2 leaves with 1: forwarded.
  Spec s;
  s.ttl = 2;
  Frame f = build(s, rng);
  EXPECT_EQ(run(f).result, ForwardResult::kForward);
}

TEST_F(ForwardTest, EveryPuntReason) {
  struct Case {
    Spec spec;
    ForwardResult want;
    const char* what;
  };
  auto v4 = [](const char* dst, size_t payload = 64, uint8_t ttl = 64) {
    Spec s;
    s.dst = dst;
    s.payload = payload;
    s.ttl = ttl;
    return s;
  };
  auto v6 = [](const char* dst, size_t payload = 64, const char* src = "2001:2:9::1") {
    Spec s;
    s.v6 = true;
    s.dst = dst;
    s.src = src;
    s.payload = payload;
    return s;
  };
  const std::vector<Case> cases = {
      {v4("203.0.113.1"), ForwardResult::kPuntNoRoute, "no route v4"},
      {v6("2001:db8::1"), ForwardResult::kPuntNoRoute, "no route v6"},
      {v4("198.18.3.9"), ForwardResult::kPuntNeighbourUnresolved, "gateway unresolved"},
      {v4("198.18.0.77"), ForwardResult::kPuntNeighbourUnresolved, "on-link glean"},
      {v4("198.18.0.1", 64, 1), ForwardResult::kPuntLocal, "local (even with TTL 1)"},
      {v6("2001:2:2::1"), ForwardResult::kPuntLocal, "local v6"},
      {v6("fe80::1"), ForwardResult::kPuntLocal, "link-local destination"},
      {v4("198.18.4.9"), ForwardResult::kDropPortDown, "port down"},
      {v4("198.18.5.9", 600), ForwardResult::kPuntMtuExceeded, "MTU v4"},
      {v6("2001:2:5::9", 600), ForwardResult::kPuntMtuExceeded, "MTU v6"},
      {v6("2001:2:2::7", 64, "fe80::2"), ForwardResult::kPuntBadHeader, "link-local source"},
      {v6("2001:2:2::7", 64, "ff02::1"), ForwardResult::kPuntBadHeader, "multicast source"},
  };
  for (const auto& c : cases) {
    Frame f = build(c.spec, rng);
    const ForwardDecision d = run(f);
    EXPECT_EQ(d.result, c.want) << c.what << ": got " << forwardResultName(d.result);
  }
  // Exactly at the MTU is fine.
  Frame ok = build(v4("198.18.5.9", 576 - 20), rng);
  EXPECT_EQ(run(ok).result, ForwardResult::kForward);
  // The unresolved decision tells the worker which neighbour to ask for.
  Frame g = build(v4("198.18.3.9"), rng);
  const ForwardDecision d = run(g);
  ASSERT_NE(d.entry, nullptr);
  EXPECT_EQ(0, std::memcmp(d.entry->next_hop, ip("198.18.1.3").bytes.data(), 4));
  Frame gl = build(v4("198.18.0.77"), rng);
  EXPECT_TRUE(run(gl).entry->flags & kFwdGlean);
}

TEST_F(ForwardTest, BadHeadersAndClassifierPunts) {
  Spec s;
  auto expectBad = [&](const char* what, auto mutate,
                       ForwardResult want = ForwardResult::kPuntBadHeader) {
    Frame f = build(s, rng);
    mutate(f);
    EXPECT_EQ(run(f).result, want) << what;
  };
  const size_t l3 = 14;
  expectBad("bad checksum", [&](Frame& f) { f.bytes[l3 + 10] ^= 0x10; });
  expectBad("version 5", [&](Frame& f) { f.bytes[l3] = 0x55; });
  expectBad("IHL 4", [&](Frame& f) { f.bytes[l3] = 0x44; });
  expectBad("total length beyond frame", [&](Frame& f) { f.bytes.resize(f.bytes.size() - 10); });
  expectBad("truncated header", [&](Frame& f) { f.bytes.resize(l3 + 12); });
  expectBad("total length < IHL", [&](Frame& f) {
    f.bytes[l3 + 2] = 0;
    f.bytes[l3 + 3] = 16;
    f.bytes[l3 + 10] = f.bytes[l3 + 11] = 0;
    const uint16_t c = ipv4HeaderChecksum(&f.bytes[l3], 20);
    std::memcpy(&f.bytes[l3 + 10], &c, 2);
  });
  for (const char* src : {"127.0.0.1", "0.1.2.3", "224.0.0.5", "240.0.0.1"}) {
    Spec m = s;
    m.src = src;
    Frame f = build(m, rng);
    EXPECT_EQ(run(f).result, ForwardResult::kPuntBadHeader) << "martian source " << src;
  }
  expectBad(
      "control verdict", [&](Frame& f) { f.meta.verdict = FP_VERDICT_CONTROL; },
      ForwardResult::kPuntClassifier);
  expectBad(
      "punt verdict", [&](Frame& f) { f.meta.verdict = FP_VERDICT_PUNT; },
      ForwardResult::kPuntClassifier);
  expectBad(
      "ARP", [&](Frame& f) { f.meta.l3_proto = FP_L3_ARP; }, ForwardResult::kPuntClassifier);
  expectBad("l3_offset past the end", [&](Frame& f) { f.meta.l3_offset = 4000; });
}

TEST(ForwardResultNames, AreDistinct) {
  std::set<std::string> names;
  for (int r = 0; r < static_cast<int>(ForwardResult::kMax); ++r) {
    const std::string n = forwardResultName(static_cast<ForwardResult>(r));
    EXPECT_NE(n, "unknown");
    names.insert(n);
  }
  EXPECT_EQ(names.size(), static_cast<size_t>(ForwardResult::kMax));
}

}  // namespace
}  // namespace fastpath
