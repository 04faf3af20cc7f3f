// SPDX-License-Identifier: GPL-2.0-only
// The benchmark's BPF programs under BPF_PROG_TEST_RUN (katran style): the sink must count
// what the harness reports (packets, sequence gaps, reordering, latency), and the XDP
// baseline router must rewrite exactly like a router (MACs, TTL, checksum) or pass.
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <gtest/gtest.h>
#include <linux/if_ether.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/udp.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "bench_common.h"
#include "fp_bench.h"
#include "fp_bench_sink.skel.h"
#include "fp_bench_xdpfwd.skel.h"

namespace {

const uint8_t kDstMac[6] = {0x02, 0, 0, 0, 0, 0x01};
const uint8_t kSrcMac[6] = {0x02, 0, 0, 0, 0, 0x02};

uint16_t checksum(const uint8_t* p, size_t len) {
  uint32_t sum = 0;
  for (size_t i = 0; i + 1 < len; i += 2) sum += (uint32_t)p[i] << 8 | p[i + 1];
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return (uint16_t)~sum;
}

std::vector<uint8_t> udpFrame(uint16_t dport, uint32_t flow, uint64_t seq, uint64_t tx_ns,
                              uint32_t dst = htonl(0xc6120102), uint8_t ttl = 64) {
  std::vector<uint8_t> f(14 + 20 + 8 + 160, 0);
  std::memcpy(&f[0], kDstMac, 6);
  std::memcpy(&f[6], kSrcMac, 6);
  f[12] = 0x08;
  auto* ip = reinterpret_cast<iphdr*>(&f[14]);
  ip->version = 4;
  ip->ihl = 5;
  ip->tot_len = htons(20 + 8 + 160);
  ip->ttl = ttl;
  ip->protocol = IPPROTO_UDP;
  ip->saddr = htonl(0xc6120002);
  ip->daddr = dst;
  uint16_t c = checksum(&f[14], 20);
  f[24] = (uint8_t)(c >> 8);
  f[25] = (uint8_t)c;
  auto* udp = reinterpret_cast<udphdr*>(&f[34]);
  udp->source = htons(10000);
  udp->dest = htons(dport);
  udp->len = htons(8 + 160);
  fp_bench_payload p{FP_BENCH_MAGIC, flow, seq, tx_ns};
  std::memcpy(&f[42], &p, sizeof(p));
  return f;
}

const uint8_t kSrc6[16] = {0x20, 0x01, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};  // 2001:2::2
const uint8_t kDst6[16] = {0x20, 0x01, 0, 2, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1};  // 2001:2:0:2::1

// Ethernet + IPv6 + UDP + payload, as fp-trafgen --ipv6 builds it (checksum from its
// helpers). next_header != UDP puts 8 bytes of that header in front of the UDP header.
std::vector<uint8_t> udp6Frame(uint16_t dport, uint32_t flow, uint64_t seq, uint64_t tx_ns,
                               int payload = 160, uint8_t next_header = IPPROTO_UDP) {
  const size_t ext = next_header == IPPROTO_UDP ? 0 : 8;
  std::vector<uint8_t> f(14 + 40 + ext + 8 + (size_t)payload, 0);
  std::memcpy(&f[0], kDstMac, 6);
  std::memcpy(&f[6], kSrcMac, 6);
  f[12] = 0x86;
  f[13] = 0xdd;
  auto* ip6 = reinterpret_cast<ip6_hdr*>(&f[14]);
  ip6->ip6_flow = htonl(6u << 28);
  ip6->ip6_plen = htons((uint16_t)(ext + 8 + payload));
  ip6->ip6_nxt = next_header;
  ip6->ip6_hlim = 64;
  std::memcpy(&ip6->ip6_src, kSrc6, 16);
  std::memcpy(&ip6->ip6_dst, kDst6, 16);
  if (ext) f[54] = IPPROTO_UDP;  // the extension header's next header; length 0 = 8 bytes
  auto* udp = reinterpret_cast<udphdr*>(&f[54 + ext]);
  udp->source = htons((uint16_t)(10000 + flow));
  udp->dest = htons(dport);
  udp->len = htons((uint16_t)(8 + payload));
  fp_bench_payload p{FP_BENCH_MAGIC, flow, seq, tx_ns};
  std::memcpy(&f[62 + ext], &p, sizeof(p));
  uint32_t base = fastpath::bench::benchUdp6BaseSum(kSrc6, kDst6, udp->dest, payload);
  udp->check = fastpath::bench::benchUdp6Checksum(base, udp->source, &f[62 + ext]);
  return f;
}

// RFC 8200 8.1 reference, independent of bench_common: big-endian words over the
// pseudo-header and the UDP packet (checksum field included). 0xffff when it verifies.
uint16_t udp6Verify(const std::vector<uint8_t>& f) {
  std::vector<uint8_t> buf(&f[22], &f[54]);  // source and destination address
  const size_t udp_len = f.size() - 54;
  for (int sh : {24, 16, 8, 0}) buf.push_back((uint8_t)(udp_len >> sh));
  buf.insert(buf.end(), {0, 0, 0, IPPROTO_UDP});
  buf.insert(buf.end(), f.begin() + 54, f.end());
  if (buf.size() % 2) buf.push_back(0);
  return (uint16_t)~checksum(buf.data(), buf.size());  // the folded sum
}

int run(int prog_fd, std::vector<uint8_t>& frame) {
  std::vector<uint8_t> out(frame.size() + 256);
  LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame.data(), .data_out = out.data(),
              .data_size_in = (__u32)frame.size(), .data_size_out = (__u32)out.size(), .repeat = 1);
  int err = bpf_prog_test_run_opts(prog_fd, &opts);
  if (err) return -1;
  out.resize(opts.data_size_out);
  frame = out;
  return (int)opts.retval;
}

// The sink's per-flow record, its global counter `key`, and the frames at least 2^14 ns
// (16 us) old in its latency histogram (plus the histogram's total in `total`).
fp_bench_flow sinkFlow(const fp_bench_sink* skel, __u32 flow) {
  fp_bench_flow fl{};
  EXPECT_EQ(bpf_map_lookup_elem(bpf_map__fd(skel->maps.fp_bench_flows), &flow, &fl), 0);
  return fl;
}
__u64 sinkCounter(const fp_bench_sink* skel, __u32 key) {
  __u64 v = 0;
  bpf_map_lookup_elem(bpf_map__fd(skel->maps.fp_bench_global), &key, &v);
  return v;
}
uint64_t sinkAtLeast16us(const fp_bench_sink* skel, uint64_t* total = nullptr) {
  uint64_t old = 0, all = 0;
  for (__u32 b = 0; b < FP_BENCH_LAT_BUCKETS; b++) {
    __u64 n = 0;
    bpf_map_lookup_elem(bpf_map__fd(skel->maps.fp_bench_latency), &b, &n);
    all += n;
    if ((b >> FP_BENCH_LAT_SUB_BITS) >= 14) old += n;
  }
  if (total) *total = all;
  return old;
}

bool canLoadBpf(std::string* why) {
  if (geteuid() != 0) {
    *why = "needs root to load BPF programs";
    return false;
  }
  return true;
}

constexpr char kSinkName[] = "fp_bench_sink";
constexpr char kXdpFwdName[] = "fp_bench_xdpfwd";

// One test with a freshly loaded skeleton (skipped without root), destroyed after it.
template <typename Skel, Skel* (*kOpen)(), void (*kDestroy)(Skel*), const char* kName>
class SkeletonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!canLoadBpf(&why)) GTEST_SKIP() << why;
    skel = kOpen();
    ASSERT_NE(skel, nullptr) << "loading " << kName << " failed: " << strerror(errno);
  }
  void TearDown() override {
    if (skel) kDestroy(skel);
  }
  Skel* skel = nullptr;
};

class BenchSink : public SkeletonTest<fp_bench_sink, fp_bench_sink__open_and_load,
                                      fp_bench_sink__destroy, kSinkName> {
 protected:
  int sinkProg() const { return bpf_program__fd(skel->progs.xdp_fp_bench_sink); }
};

class BenchXdpFwd : public SkeletonTest<fp_bench_xdpfwd, fp_bench_xdpfwd__open_and_load,
                                        fp_bench_xdpfwd__destroy, kXdpFwdName> {
 protected:
  int fwdProg() const { return bpf_program__fd(skel->progs.xdp_fp_bench_fwd); }
};

TEST_F(BenchSink, CountsFlowsGapsReorderingAndLatency) {
  const int prog = sinkProg();
  uint64_t now = fastpath::bench::monoNs();
  // flow 3: seq 0, 5 (gap of 4), 2 (reordered); flow 7: seq 0.
  for (uint64_t seq : {0ull, 5ull, 2ull}) {
    auto f = udpFrame(FP_BENCH_UDP_PORT, 3, seq, now - 20000);  // sent 20 us ago
    EXPECT_EQ(run(prog, f), XDP_DROP);
  }
  auto f7 = udpFrame(FP_BENCH_UDP_PORT, 7, 0, now);
  EXPECT_EQ(run(prog, f7), XDP_DROP);
  // Not ours: other port, bad magic, ARP -> to the kernel.
  auto other = udpFrame(53, 3, 9, now);
  EXPECT_EQ(run(prog, other), XDP_PASS);
  auto bad = udpFrame(FP_BENCH_UDP_PORT, 3, 9, now);
  bad[42] ^= 0xff;
  EXPECT_EQ(run(prog, bad), XDP_PASS);
  std::vector<uint8_t> arp(60, 0);
  arp[12] = 0x08;
  arp[13] = 0x06;
  EXPECT_EQ(run(prog, arp), XDP_PASS);
  // Out-of-range flow id: counted as bad, dropped.
  auto big = udpFrame(FP_BENCH_UDP_PORT, FP_BENCH_MAX_FLOWS + 1, 0, now);
  EXPECT_EQ(run(prog, big), XDP_DROP);

  fp_bench_flow fl = sinkFlow(skel, 3);
  EXPECT_EQ(fl.packets, 3u);
  EXPECT_EQ(fl.bytes, 3u * 160);
  EXPECT_EQ(fl.next_seq, 6u);
  EXPECT_EQ(fl.next_seq - fl.packets, 3u);  // seq 1, 3, 4 never arrived
  EXPECT_EQ(fl.reordered, 1u);
  EXPECT_EQ(sinkFlow(skel, 7).packets, 1u);
  EXPECT_EQ(sinkCounter(skel, FP_BENCH_CNT_MATCHED), 4u);
  EXPECT_EQ(sinkCounter(skel, FP_BENCH_CNT_OTHER), 3u);
  EXPECT_EQ(sinkCounter(skel, FP_BENCH_CNT_BAD_FLOW), 1u);
  // The three flow-3 frames were >= 20 us old: their bucket is at or above 2^14 ns.
  uint64_t total = 0;
  EXPECT_GE(sinkAtLeast16us(skel, &total), 3u);
  EXPECT_EQ(total, 4u);
}

TEST_F(BenchSink, CountsIpv6FramesLikeIpv4) {
  const int prog = sinkProg();
  uint64_t now = fastpath::bench::monoNs();
  // flow 2: seq 0, 4 (gap of 3), 1 (reordered), sent 20 us ago; 1452 B (the IPv6 maximum).
  for (uint64_t seq : {0ull, 4ull, 1ull}) {
    auto f = udp6Frame(FP_BENCH_UDP_PORT, 2, seq, now - 20000, 1452);
    EXPECT_EQ(run(prog, f), XDP_DROP);
  }
  // An IPv4 frame of another flow in between: both families share the counters.
  auto f4 = udpFrame(FP_BENCH_UDP_PORT, 5, 0, now);
  EXPECT_EQ(run(prog, f4), XDP_DROP);
  // Not ours: other port, bad magic, an extension header before UDP, ICMPv6 -> kernel.
  auto other = udp6Frame(53, 2, 9, now);
  EXPECT_EQ(run(prog, other), XDP_PASS);
  auto bad = udp6Frame(FP_BENCH_UDP_PORT, 2, 9, now);
  bad[62] ^= 0xff;
  EXPECT_EQ(run(prog, bad), XDP_PASS);
  auto hbh = udp6Frame(FP_BENCH_UDP_PORT, 2, 9, now, 160, 0 /* hop-by-hop */);
  EXPECT_EQ(run(prog, hbh), XDP_PASS);
  auto icmp6 = udp6Frame(FP_BENCH_UDP_PORT, 2, 9, now);
  icmp6[20] = 58;
  EXPECT_EQ(run(prog, icmp6), XDP_PASS);
  auto shortf = udp6Frame(FP_BENCH_UDP_PORT, 2, 9, now);
  shortf.resize(14 + 40 + 8 + 10);  // payload cut before the end of fp_bench_payload
  EXPECT_EQ(run(prog, shortf), XDP_PASS);

  fp_bench_flow fl = sinkFlow(skel, 2);
  EXPECT_EQ(fl.packets, 3u);
  EXPECT_EQ(fl.bytes, 3u * 1452);
  EXPECT_EQ(fl.next_seq, 5u);
  EXPECT_EQ(fl.reordered, 1u);
  EXPECT_EQ(sinkFlow(skel, 5).packets, 1u);
  EXPECT_EQ(sinkCounter(skel, FP_BENCH_CNT_MATCHED), 4u);
  EXPECT_EQ(sinkCounter(skel, FP_BENCH_CNT_OTHER), 5u);
  EXPECT_GE(sinkAtLeast16us(skel), 3u);
}

// fp-trafgen --ipv6 sums the constant part once and adds the changing words per frame:
// the result must verify like a checksum computed over the whole packet, for any flow,
// sequence, time and payload length (odd ones too), and 0 must be sent as 0xffff.
TEST(BenchCommon, Ipv6UdpChecksumOfGeneratedFramesVerifies) {
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (int payload : {24, 25, 160, 161, 1452}) {
    for (int i = 0; i < 200; i++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      auto f = udp6Frame(FP_BENCH_UDP_PORT, (uint32_t)(x % 1024), x >> 3, x * 7, payload);
      EXPECT_EQ(udp6Verify(f), 0xffff) << "payload " << payload << " seq " << (x >> 3);
      EXPECT_NE(f[60] | f[61], 0) << "a UDP checksum of 0 means 'none': not allowed in IPv6";
    }
  }
  // A frame whose checksum folds to 0: found by varying tx_ns, sent as 0xffff.
  bool seen_zero = false;
  for (uint64_t t = 0; t < 200000 && !seen_zero; t++) {
    auto f = udp6Frame(FP_BENCH_UDP_PORT, 1, 0, t, 24);
    if (f[60] == 0xff && f[61] == 0xff) {
      seen_zero = true;
      EXPECT_EQ(udp6Verify(f), 0xffff);
    }
  }
  EXPECT_TRUE(seen_zero);
  // Changing a covered byte without recomputing must break verification (the check bites).
  auto f = udp6Frame(FP_BENCH_UDP_PORT, 3, 77, 1234);
  f[70] ^= 0x01;  // seq's low byte
  EXPECT_NE(udp6Verify(f), 0xffff);
}

TEST_F(BenchXdpFwd, RewritesLikeARouterOrPasses) {
  const int prog = fwdProg();
  struct {
    __u32 prefixlen, addr;
  } k{24, htonl(0xc6120100)};  // 198.18.1.0/24
  struct {
    __u32 port;
    __u8 src[6], dst[6];
  } nh{0, {0x02, 0xaa, 0, 0, 0, 1}, {0x02, 0xbb, 0, 0, 0, 2}};
  ASSERT_EQ(bpf_map_update_elem(bpf_map__fd(skel->maps.fp_xdpfwd_routes), &k, &nh, BPF_ANY), 0);

  auto f = udpFrame(FP_BENCH_UDP_PORT, 0, 0, 0, htonl(0xc6120102), 64);
  int verdict = run(prog, f);
  // Redirect into an empty devmap slot: the verdict says redirect (or aborted on kernels
  // that resolve the map in test_run); the rewrite happened either way.
  EXPECT_TRUE(verdict == XDP_REDIRECT || verdict == XDP_ABORTED) << verdict;
  EXPECT_EQ(std::memcmp(&f[0], nh.dst, 6), 0);
  EXPECT_EQ(std::memcmp(&f[6], nh.src, 6), 0);
  EXPECT_EQ(f[22], 63);                // TTL
  EXPECT_EQ(checksum(&f[14], 20), 0);  // header checksum still valid

  auto ttl1 = udpFrame(FP_BENCH_UDP_PORT, 0, 0, 0, htonl(0xc6120102), 1);
  EXPECT_EQ(run(prog, ttl1), XDP_PASS);
  EXPECT_EQ(ttl1[22], 1);
  auto noroute = udpFrame(FP_BENCH_UDP_PORT, 0, 0, 0, htonl(0xc6120902), 64);
  EXPECT_EQ(run(prog, noroute), XDP_PASS);
  EXPECT_EQ(noroute[22], 64);
}

TEST_F(BenchXdpFwd, Ipv6RewritesLikeARouterOrPasses) {
  const int prog = fwdProg();
  std::string err;
  auto r = fastpath::bench::parseRoute("2001:2:0:2::/64,fb1b,02:bb:00:00:00:02", &err);
  ASSERT_TRUE(r) << err;
  struct {
    __u32 prefixlen;
    __u8 addr[16];
  } k{(__u32)r->length, {}};
  std::memcpy(k.addr, r->prefix6, 16);
  struct {
    __u32 port;
    __u8 src[6], dst[6];
  } nh{1, {0x02, 0xaa, 0, 0, 0, 1}, {}};
  std::memcpy(nh.dst, r->next_hop_mac, 6);
  ASSERT_EQ(bpf_map_update_elem(bpf_map__fd(skel->maps.fp_xdpfwd_routes6), &k, &nh, BPF_ANY), 0);

  auto f = udp6Frame(FP_BENCH_UDP_PORT, 0, 0, 0);  // to 2001:2:0:2::1, hop limit 64
  const auto before = f;
  int verdict = run(prog, f);
  EXPECT_TRUE(verdict == XDP_REDIRECT || verdict == XDP_ABORTED) << verdict;
  EXPECT_EQ(std::memcmp(&f[0], nh.dst, 6), 0);
  EXPECT_EQ(std::memcmp(&f[6], nh.src, 6), 0);
  EXPECT_EQ(f[21], 63);  // hop limit
  // Nothing else changed: EtherType, version, flow, length, next header; addresses on.
  EXPECT_EQ(std::memcmp(&f[12], &before[12], 21 - 12), 0);
  EXPECT_EQ(std::memcmp(&f[22], &before[22], f.size() - 22), 0);
  EXPECT_EQ(udp6Verify(f), 0xffff);  // the UDP checksum does not cover the hop limit

  auto hop1 = udp6Frame(FP_BENCH_UDP_PORT, 0, 0, 0);
  hop1[21] = 1;
  EXPECT_EQ(run(prog, hop1), XDP_PASS);
  EXPECT_EQ(hop1[21], 1);
  auto noroute = udp6Frame(FP_BENCH_UDP_PORT, 0, 0, 0);
  noroute[45] = 3;  // 2001:2:0:3::1
  EXPECT_EQ(run(prog, noroute), XDP_PASS);
  EXPECT_EQ(noroute[21], 64);
  // An IPv4 frame to the same numbers is not routed by the IPv6 table.
  auto v4 = udpFrame(FP_BENCH_UDP_PORT, 0, 0, 0, htonl(0xc6120102), 64);
  EXPECT_EQ(run(prog, v4), XDP_PASS);
}

TEST(BenchCommon, RouteParsingAndTtlChecksum) {
  std::string err;
  auto r = fastpath::bench::parseRoute("198.18.1.7/24,fb1b,02:00:00:00:00:09", &err);
  ASSERT_TRUE(r) << err;
  EXPECT_EQ(r->prefix_be, htonl(0xc6120100));  // host bits cleared
  EXPECT_EQ(r->length, 24);
  EXPECT_EQ(r->ifname, "fb1b");
  EXPECT_FALSE(fastpath::bench::parseRoute("198.18.1.0/33,x,02:00:00:00:00:09", &err));
  EXPECT_FALSE(fastpath::bench::parseRoute("198.18.1.0/24,x,zz", &err));
  std::vector<fastpath::bench::StaticRoute> table{*r};
  auto def = fastpath::bench::parseRoute("0.0.0.0/0,fb1a,02:00:00:00:00:01", &err);
  table.push_back(*def);
  EXPECT_EQ(fastpath::bench::lookupRoute(table, htonl(0xc6120105))->ifname, "fb1b");
  EXPECT_EQ(fastpath::bench::lookupRoute(table, htonl(0x0a000001))->ifname, "fb1a");
  // IPv6 prefixes: host bits cleared, lengths to 128, never matched by the IPv4 lookup.
  auto r6 = fastpath::bench::parseRoute("2001:2:0:2:ffff::1/61,fb1b,02:00:00:00:00:09", &err);
  ASSERT_TRUE(r6) << err;
  EXPECT_EQ(r6->family, 6);
  const uint8_t want[16] = {0x20, 0x01, 0, 2, 0, 0, 0, 0};  // 2001:2:0:0::/61
  EXPECT_EQ(std::memcmp(r6->prefix6, want, 16), 0);
  EXPECT_TRUE(fastpath::bench::parseRoute("2001:2::1/128,x,02:00:00:00:00:09", &err));
  EXPECT_FALSE(fastpath::bench::parseRoute("2001:2::/129,x,02:00:00:00:00:09", &err));
  EXPECT_FALSE(fastpath::bench::parseRoute("2001:2::/,x,02:00:00:00:00:09", &err));
  EXPECT_FALSE(fastpath::bench::parseRoute("2001:2::zz/64,x,02:00:00:00:00:09", &err));
  auto any6 = fastpath::bench::parseRoute("::/0,fb1c,02:00:00:00:00:09", &err);
  ASSERT_TRUE(any6) << err;
  table.push_back(*any6);  // would win for every IPv4 destination if it were considered
  EXPECT_EQ(fastpath::bench::lookupRoute(table, htonl(0x0a000001))->ifname, "fb1a");
  for (uint8_t ttl : {64, 2, 255}) {
    auto f = udpFrame(FP_BENCH_UDP_PORT, 0, 0, 0, htonl(0xc6120102), ttl);
    fastpath::bench::decrementTtl(&f[14]);
    EXPECT_EQ(f[22], ttl - 1);
    EXPECT_EQ(checksum(&f[14], 20), 0) << "ttl " << (int)ttl;
  }
}

}  // namespace
