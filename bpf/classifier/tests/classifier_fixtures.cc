// SPDX-License-Identifier: GPL-2.0-only
#include "classifier_fixtures.h"
#include <cstring>

namespace fastpath::testing {
namespace {

constexpr uint8_t kUdp = 17, kTcp = 6, kIcmp = 1, kIcmp6 = 58, kOspf = 89;
constexpr std::array<uint8_t, 4> kLocal4 = {198, 18, 0, 254};
constexpr std::array<uint8_t, 16> kLocal6 = {0x20, 0x01, 0x00, 0x02, 0, 0, 0, 0,
                                             0,    0,    0,    0,    0, 0, 0, 0xfe};
constexpr std::array<uint8_t, 16> kSolicitedNode = {0xff, 0x02, 0, 0, 0,    0, 0, 0,
                                                    0,    0,    0, 1, 0xff, 0, 0, 1};
constexpr std::array<uint8_t, 16> kAllRouters6 = {0xff, 0x02, 0, 0, 0, 0, 0, 0,
                                                  0,    0,    0, 0, 0, 0, 0, 2};

ControlRule port(uint8_t proto, uint16_t p, bool pass = false) {
  ControlRule r;
  r.kind = ControlRule::Kind::kL4Port;
  r.ip_proto = proto;
  r.port = p;
  r.pass_to_kernel = pass;
  return r;
}

}  // namespace

std::vector<ControlRule> fixtureRules() {
  std::vector<ControlRule> rules = {port(kUdp, 698), port(kUdp, 520), port(kUdp, 654),
                                    port(kTcp, 179), port(kTcp, 22, true)};
  ControlRule r;
  r.kind = ControlRule::Kind::kIpProto;
  r.ip_proto = kOspf;
  rules.push_back(r);
  r = {};
  r.kind = ControlRule::Kind::kEtherType;
  r.ethertype = 0x88cc;  // LLDP
  rules.push_back(r);
  r.ethertype = 0x88b5;  // local experimental: to the kernel
  r.pass_to_kernel = true;
  rules.push_back(r);
  r = {};
  r.kind = ControlRule::Kind::kLocalAddress;
  r.address = IpAddress::v4((uint32_t{kLocal4[3]} << 24) | (uint32_t{kLocal4[2]} << 16) |
                            (uint32_t{kLocal4[1]} << 8) | kLocal4[0]);
  rules.push_back(r);
  r.address = IpAddress::v6(kLocal6);
  rules.push_back(r);
  return rules;
}

std::vector<Fixture> fixtures() {
  const L2 plain{};
  const L2 dot1q{kDstMac, kSrcMac, {0x8100}};
  const L2 qinq{kDstMac, kSrcMac, {0x88a8, 0x8100}};
  const L2 triple{kDstMac, kSrcMac, {0x88a8, 0x8100, 0x8100}};
  const uint16_t v4l4 = 14 + 20, v6l4 = 14 + 40;
  std::vector<Fixture> f;
  auto add = [&](std::string d, Bytes frame, uint8_t v, uint8_t r, uint8_t l3, uint8_t l4,
                 uint16_t l3o, uint16_t l4o) {
    f.push_back(Fixture{std::move(d), std::move(frame), v, r, l3, l4, l3o, l4o});
  };
  constexpr uint8_t D = FP_VERDICT_DATA, C = FP_VERDICT_CONTROL, P = FP_VERDICT_PUNT,
                    K = FP_VERDICT_PASS, X = FP_VERDICT_DROP;
  constexpr uint8_t O = FP_L3_OTHER;
  constexpr uint8_t V4 = FP_L3_IPV4, V6 = FP_L3_IPV6;

  // --- data ---
  add("ipv4 udp data", ipv4(plain, {}, udp(1000, 2000)), D, FP_REASON_DATA_IPV4, V4, kUdp, 14,
      v4l4);
  add("ipv4 tcp data", ipv4(plain, {.proto = kTcp}, tcp(1000, 80)), D, FP_REASON_DATA_IPV4, V4,
      kTcp, 14, v4l4);
  add("ipv4 icmp data", ipv4(plain, {.proto = kIcmp}, icmp(8)), D, FP_REASON_DATA_IPV4, V4, kIcmp,
      14, v4l4);
  add("ipv4 gre data (no transport parse)", ipv4(plain, {.proto = 47}, Bytes(24, 0)), D,
      FP_REASON_DATA_IPV4, V4, 47, 14, v4l4);
  add("ipv4 ttl 2 data", ipv4(plain, {.ttl = 2}, udp(1, 2)), D, FP_REASON_DATA_IPV4, V4, kUdp, 14,
      v4l4);
  add("ipv4 DF set is not a fragment", ipv4(plain, {.frag_off = 0x4000}, udp(1, 2)), D,
      FP_REASON_DATA_IPV4, V4, kUdp, 14, v4l4);

  add("ipv6 udp data", ipv6(plain, {}, udp(1000, 2000)), D, FP_REASON_DATA_IPV6, V6, kUdp, 14,
      v6l4);
  add("ipv6 tcp data", ipv6(plain, {.proto = kTcp}, tcp(1000, 443)), D, FP_REASON_DATA_IPV6, V6,
      kTcp, 14, v6l4);
  add("ipv6 icmpv6 echo data", ipv6(plain, {.proto = kIcmp6}, icmp(128)), D, FP_REASON_DATA_IPV6,
      V6, kIcmp6, 14, v6l4);

  add("ipv6 hop-by-hop + dest opts data", ipv6(plain, {.ext = {{0, 8}, {60, 16}}}, udp(1, 2)), D,
      FP_REASON_DATA_IPV6, V6, kUdp, 14, v6l4 + 24);
  add("ipv6 4 ext headers (max depth) data",
      ipv6(plain, {.ext = {{0, 8}, {60, 8}, {43, 24}, {51, 16}}}, udp(1, 2)), D,
      FP_REASON_DATA_IPV6, V6, kUdp, 14, v6l4 + 56);
  add("ipv6 hop limit 2 data", ipv6(plain, {.hop_limit = 2}, udp(1, 2)), D, FP_REASON_DATA_IPV6, V6,
      kUdp, 14, v6l4);

  // --- control ---
  add("arp request (broadcast)", arp(), C, FP_REASON_CTRL_ARP, FP_L3_ARP, 0, 14, 0);
  add("arp reply (unicast)", arp(plain), C, FP_REASON_CTRL_ARP, FP_L3_ARP, 0, 14, 0);

  add("ethertype rule LLDP",
      ethernet({{0x01, 0x80, 0xc2, 0, 0, 0x0e}, kSrcMac, {}}, 0x88cc, Bytes(40, 1)), C,
      FP_REASON_CTRL_ETHERTYPE, FP_L3_OTHER, 0, 14, 0);
  add("ip proto rule OSPF 89", ipv4(plain, {.proto = kOspf}, Bytes(24, 0)), C,
      FP_REASON_CTRL_IP_PROTO, V4, kOspf, 14, 0);
  add("udp port rule OLSR 698", ipv4(plain, {}, udp(698, 698)), C, FP_REASON_CTRL_L4_PORT, V4, kUdp,
      14, v4l4);
  add("udp port rule RIP 520 ttl 1", ipv4(plain, {.ttl = 1}, udp(520, 520)), C,
      FP_REASON_CTRL_L4_PORT, V4, kUdp, 14, v4l4);

  add("tcp port rule BGP 179", ipv4(plain, {.proto = kTcp}, tcp(40000, 179)), C,
      FP_REASON_CTRL_L4_PORT, V4, kTcp, 14, v4l4);
  add("ipv6 udp port rule 698", ipv6(plain, {}, udp(698, 698)), C, FP_REASON_CTRL_L4_PORT, V6, kUdp,
      14, v6l4);
  add("ipv4 to local address", ipv4(plain, {.dst = kLocal4, .ttl = 1}, udp(1, 2)), C,
      FP_REASON_CTRL_LOCAL_ADDR, V4, kUdp, 14, 0);
  add("ipv6 to local address", ipv6(plain, {.dst = kLocal6}, udp(1, 2)), C,
      FP_REASON_CTRL_LOCAL_ADDR, V6, kUdp, 14, v6l4);
  add("ipv4 limited broadcast",
      ipv4({kBroadcastMac, kSrcMac, {}}, {.dst = {255, 255, 255, 255}}, udp(1, 2)), C,
      FP_REASON_CTRL_BROADCAST, V4, kUdp, 14, 0);
  add("ipv4 unicast ip in broadcast mac", ipv4({kBroadcastMac, kSrcMac, {}}, {}, udp(1, 2)), C,
      FP_REASON_CTRL_BROADCAST, V4, kUdp, 14, 0);
  add("ipv4 multicast 224.0.0.9",
      ipv4({kMulticastMac, kSrcMac, {}}, {.dst = {224, 0, 0, 9}, .ttl = 1}, udp(520, 520)), C,
      FP_REASON_CTRL_MULTICAST, V4, kUdp, 14, 0);
  add("ipv6 multicast ff02::2",
      ipv6({{0x33, 0x33, 0, 0, 0, 2}, kSrcMac, {}}, {.dst = kAllRouters6}, udp(1, 2)), C,
      FP_REASON_CTRL_MULTICAST, V6, kUdp, 14, v6l4);
  add("non-ip broadcast", ethernet({kBroadcastMac, kSrcMac, {}}, 0x9000, Bytes(46, 0)), C,
      FP_REASON_CTRL_BROADCAST, FP_L3_OTHER, 0, 14, 0);
  add("icmpv6 neighbour solicitation",
      ipv6({{0x33, 0x33, 0xff, 0, 0, 1}, kSrcMac, {}},
           {.dst = kSolicitedNode, .hop_limit = 255, .proto = kIcmp6}, icmp(135, 20)),
      C, FP_REASON_CTRL_ICMPV6_ND, V6, kIcmp6, 14, v6l4);
  add("icmpv6 neighbour advertisement (unicast)",
      ipv6(plain, {.hop_limit = 255, .proto = kIcmp6}, icmp(136, 20)), C, FP_REASON_CTRL_ICMPV6_ND,
      V6, kIcmp6, 14, v6l4);
  add("icmpv6 router solicitation",
      ipv6(plain, {.dst = kAllRouters6, .hop_limit = 255, .proto = kIcmp6}, icmp(133, 4)), C,
      FP_REASON_CTRL_ICMPV6_ND, V6, kIcmp6, 14, v6l4);
  add("icmpv6 RA behind hop-by-hop",
      ipv6(plain, {.hop_limit = 255, .proto = kIcmp6, .ext = {{0, 8}}}, icmp(134, 12)), C,
      FP_REASON_CTRL_ICMPV6_ND, V6, kIcmp6, 14, v6l4 + 8);

  // --- punt ---
  add("ipv4 options", ipv4(plain, {.ihl = 6}, udp(1, 2)), P, FP_REASON_PUNT_IPV4_OPTIONS, V4, kUdp,
      14, v4l4 + 4);
  add("ipv4 options ihl 15", ipv4(plain, {.ihl = 15}, udp(1, 2)), P, FP_REASON_PUNT_IPV4_OPTIONS,
      V4, kUdp, 14, 14 + 60);
  add("ipv4 first fragment (MF)", ipv4(plain, {.frag_off = 0x2000}, udp(1, 2)), P,
      FP_REASON_PUNT_IPV4_FRAGMENT, V4, kUdp, 14, v4l4);
  add("ipv4 later fragment (offset)", ipv4(plain, {.frag_off = 0x0010}, Bytes(16, 0)), P,
      FP_REASON_PUNT_IPV4_FRAGMENT, V4, kUdp, 14, 0);
  add("ipv4 middle fragment (MF+offset)", ipv4(plain, {.frag_off = 0x2010}, Bytes(16, 0)), P,
      FP_REASON_PUNT_IPV4_FRAGMENT, V4, kUdp, 14, 0);
  add("ipv4 ttl 1", ipv4(plain, {.ttl = 1}, udp(1, 2)), P, FP_REASON_PUNT_TTL_EXPIRED, V4, kUdp, 14,
      v4l4);
  add("ipv4 ttl 0", ipv4(plain, {.ttl = 0}, udp(1, 2)), P, FP_REASON_PUNT_TTL_EXPIRED, V4, kUdp, 14,
      v4l4);
  // --- dropped in XDP: malformed, or not for this router (no metadata: never delivered) ---
  add("ipv4 bad ihl 4", ipv4(plain, {.ihl = 4}, udp(1, 2)), X, FP_REASON_DROP_BAD_HEADER, O, 0, 0,
      0);
  add("ipv4 bad version 5", ipv4(plain, {.version = 5}, udp(1, 2)), X, FP_REASON_DROP_BAD_HEADER, O,
      0, 0, 0);
  add("ipv4 total length < header", ipv4(plain, {}, udp(1, 2)), X, FP_REASON_DROP_BAD_HEADER, O, 0,
      0, 0);
  f.back().frame[16] = 0, f.back().frame[17] = 19;
  add("ipv4 total length > frame", ipv4(plain, {.tot_len_delta = 100}, udp(1, 2)), X,
      FP_REASON_DROP_TRUNCATED, O, 0, 0, 0);
  add("ipv4 udp header cut by total length", ipv4(plain, {.tot_len_delta = -24}, udp(1, 2, 20)), X,
      FP_REASON_DROP_TRUNCATED, O, 0, 0, 0);
  add("ipv4 bad header checksum", ipv4(plain, {}, udp(1, 2)), X, FP_REASON_DROP_BAD_CHECKSUM, O, 0,
      0, 0);
  f.back().frame[14 + 10] ^= 0xff;
  add("ipv4 tcp data offset < 5", ipv4(plain, {.proto = kTcp}, tcp(1, 80)), X,
      FP_REASON_DROP_BAD_HEADER, O, 0, 0, 0);
  f.back().frame[v4l4 + 12] = 4 << 4;
  add("ipv6 hop limit 1", ipv6(plain, {.hop_limit = 1}, udp(1, 2)), P, FP_REASON_PUNT_TTL_EXPIRED,
      V6, kUdp, 14, v6l4);
  add("ipv6 hop limit 0", ipv6(plain, {.hop_limit = 0}, udp(1, 2)), P, FP_REASON_PUNT_TTL_EXPIRED,
      V6, kUdp, 14, v6l4);
  add("ipv6 5 ext headers (beyond depth)",
      ipv6(plain, {.ext = {{0, 8}, {60, 8}, {43, 8}, {60, 8}, {60, 8}}}, udp(1, 2)), P,
      FP_REASON_PUNT_IPV6_EXT_DEPTH, V6, 0, 14, 0);
  add("ipv6 first fragment", ipv6(plain, {.ext = {{44, 8, 0x0001}}}, udp(1, 2)), P,
      FP_REASON_PUNT_IPV6_FRAGMENT, V6, kUdp, 14, v6l4 + 8);
  add("ipv6 later fragment", ipv6(plain, {.ext = {{44, 8, 0x0100}}}, Bytes(16, 0)), P,
      FP_REASON_PUNT_IPV6_FRAGMENT, V6, 0, 14, 0);
  add("ipv6 bad version", ipv6(plain, {.version = 4}, udp(1, 2)), X, FP_REASON_DROP_BAD_HEADER, O,
      0, 0, 0);
  add("ipv6 payload length > frame", ipv6(plain, {}, udp(1, 2)), X, FP_REASON_DROP_TRUNCATED, O, 0,
      0, 0);
  f.back().frame[18] = 0x10;
  add("ipv6 ext header longer than packet", ipv6(plain, {.ext = {{60, 8}}}, udp(1, 2)), X,
      FP_REASON_DROP_TRUNCATED, O, 0, 0, 0);
  f.back().frame[v6l4 + 1] = 200;
  add("unknown ethertype", ethernet(plain, 0x9000, Bytes(46, 0)), P, FP_REASON_PUNT_UNKNOWN_L3,
      FP_L3_OTHER, 0, 14, 0);
  // The port serves no VLAN: tagged frames would be routed out untagged (VLAN hopping).
  add("802.1Q ipv4", ipv4(dot1q, {}, udp(1, 2)), X, FP_REASON_DROP_VLAN, O, 0, 0, 0);
  add("802.1ad+802.1Q ipv4", ipv4(qinq, {}, udp(1, 2)), X, FP_REASON_DROP_VLAN, O, 0, 0, 0);
  add("802.1Q ipv6", ipv6(dot1q, {}, udp(1, 2)), X, FP_REASON_DROP_VLAN, O, 0, 0, 0);
  add("802.1Q arp", arp(dot1q), X, FP_REASON_DROP_VLAN, O, 0, 0, 0);
  add("802.1Q udp port rule AODV 654", ipv4(dot1q, {}, udp(654, 654)), X, FP_REASON_DROP_VLAN, O, 0,
      0, 0);
  add("three vlan tags", ipv4(triple, {}, udp(1, 2)), X, FP_REASON_DROP_VLAN, O, 0, 0, 0);
  // Only frames addressed to the port (kDstMac in the test environment) are routed.
  add("ipv4 to another host's MAC", ipv4({kOtherHostMac, kSrcMac, {}}, {}, udp(1, 2)), X,
      FP_REASON_DROP_OTHER_HOST, O, 0, 0, 0);
  add("arp reply to another host's MAC", arp({kOtherHostMac, kSrcMac, {}}), X,
      FP_REASON_DROP_OTHER_HOST, O, 0, 0, 0);
  add("ipv4 from the port's own MAC", ipv4({kDstMac, kDstMac, {}}, {}, udp(1, 2)), X,
      FP_REASON_DROP_OWN_SOURCE, O, 0, 0, 0);
  add("broadcast arp from the port's own MAC", arp({kBroadcastMac, kDstMac, {}}), X,
      FP_REASON_DROP_OWN_SOURCE, O, 0, 0, 0);

  // --- pass by rule ---
  add("tcp port rule PASS (ssh 22)", ipv4(plain, {.proto = kTcp}, tcp(40000, 22)), K,
      FP_REASON_PASS_RULE, V4, kTcp, 14, v4l4);
  add("ethertype rule PASS", ethernet(plain, 0x88b5, Bytes(46, 0)), K, FP_REASON_PASS_RULE,
      FP_L3_OTHER, 0, 14, 0);
  return f;
}

void mutatedFrame(std::mt19937_64& rng, const std::vector<Fixture>& fx, Bytes* out) {
  constexpr std::array<uint16_t, 6> kTypes = {0x0800, 0x86dd, 0x8100, 0x88a8, 0x0806, 0x88cc};
  Bytes& frame = *out;
  uint64_t pick = rng();
  if (pick % 4 < 3) {  // mutate a fixture: 1-4 bytes, mostly in the headers, maybe cut
    frame = fx[(pick >> 8) % fx.size()].frame;
    int flips = 1 + static_cast<int>((pick >> 32) % 4);
    for (int k = 0; k < flips; ++k) {
      uint64_t x = rng();
      size_t span = (x & 1) ? std::min<size_t>(frame.size(), 100) : frame.size();
      frame[(x >> 8) % span] = static_cast<uint8_t>(x >> 40);
    }
    if ((pick >> 40) % 4 == 0) frame.resize(14 + (rng() % (frame.size() - 13)));
  } else {  // random bytes behind a plausible (or random) EtherType
    frame.resize(14 + rng() % 300);
    for (uint8_t& b : frame) b = static_cast<uint8_t>(rng());
    if ((pick >> 8) % 2) {
      uint16_t t = kTypes[(pick >> 16) % kTypes.size()];
      frame[12] = static_cast<uint8_t>(t >> 8);
      frame[13] = static_cast<uint8_t>(t);
      if (t == 0x0800) frame[14] = 0x45;
      if (t == 0x86dd) frame[14] = 0x60;
    }
  }
}

std::map<uint16_t, MacAddress> wireTags() {
  return {{100, MacAddress{kSrcMac}}, {101, MacAddress{kOtherHostMac}}};
}

std::vector<Fixture> wireFixtures() {
  constexpr uint8_t K = FP_VERDICT_PASS, X = FP_VERDICT_DROP;
  const L2 link{kDstMac, kSrcMac, {0x8100}};  // VLAN 100 (classifier_frames.cc)
  const L2 broadcast{kBroadcastMac, kSrcMac, {0x8100}};
  const L2 foreign_host{kDstMac, kOtherHostMac, {0x8100}};
  const L2 qinq{kDstMac, kSrcMac, {0x88a8, 0x8100}};
  Bytes other_vlan = ipv4(link, {}, udp(1000, 2000));
  other_vlan[15] = 102;
  Bytes vlan_zero = ipv4(link, {}, udp(1000, 2000));
  vlan_zero[15] = 0;
  Bytes high_bits = ipv4(link, {}, udp(1000, 2000));
  high_bits[14] = 0xe0;  // priority 7, VLAN 100: the priority is not part of the id
  Bytes cut_tag(kDstMac.begin(), kDstMac.end());
  cut_tag.insert(cut_tag.end(), kSrcMac.begin(), kSrcMac.end());
  cut_tag.insert(cut_tag.end(), {0x81, 0x00, 0x00, 0x64, 0x08});  // inner EtherType cut
  std::vector<Fixture> f;
  auto add = [&](std::string d, Bytes frame, uint8_t v, uint8_t r) {
    f.push_back(Fixture{"wire: " + std::move(d), std::move(frame), v, r});
  };
  add("a link's frame from its peer end", ipv4(link, {}, udp(1000, 2000)), K,
      FP_REASON_PASS_WIRE_LINK);
  add("a link's ARP broadcast", arp(broadcast), K, FP_REASON_PASS_WIRE_LINK);
  add("priority bits set", high_bits, K, FP_REASON_PASS_WIRE_LINK);
  add("the probe", ethernet({kBroadcastMac, kOtherHostMac, {}}, FP_ETH_P_WIRE_PROBE, Bytes(64, 0)),
      K, FP_REASON_PASS_WIRE_PROBE);
  add("a VLAN no link has", other_vlan, X, FP_REASON_DROP_WIRE_FOREIGN_TAG);
  add("VLAN 0 (priority tag)", vlan_zero, X, FP_REASON_DROP_WIRE_FOREIGN_TAG);
  add("802.1ad", ipv4(qinq, {}, udp(1000, 2000)), X, FP_REASON_DROP_WIRE_FOREIGN_TAG);
  add("a link's VLAN from a foreign host", ipv4(foreign_host, {}, udp(1000, 2000)), X,
      FP_REASON_DROP_WIRE_FOREIGN_HOST);
  add("untagged ipv4", ipv4(L2{}, {}, udp(1000, 2000)), X, FP_REASON_DROP_WIRE_UNTAGGED);
  add("untagged arp", arp(), X, FP_REASON_DROP_WIRE_UNTAGGED);
  add("truncated tag", cut_tag, X, FP_REASON_DROP_TRUNCATED);
  return f;
}

uint32_t underlayAddr(const std::array<uint8_t, 4>& a) {
  uint32_t v;
  std::memcpy(&v, a.data(), 4);
  return v;
}

std::map<uint32_t, uint32_t> wireVnis() {
  return {{100, underlayAddr(V4{}.src)}, {101, underlayAddr({198, 18, 0, 9})}};
}

Bytes vxlanFrame(const Bytes& inner, uint32_t vni, V4 outer, uint16_t port, uint8_t flags) {
  Bytes u;
  const size_t len = 16 + inner.size();
  for (uint16_t v : {uint16_t(50000), port, uint16_t(len), uint16_t(0)}) {
    u.push_back(uint8_t(v >> 8));
    u.push_back(uint8_t(v));
  }
  u.insert(u.end(), {flags, 0, 0, 0, uint8_t(vni >> 16), uint8_t(vni >> 8), uint8_t(vni), 0});
  u.insert(u.end(), inner.begin(), inner.end());
  outer.proto = 17;
  return ipv4(L2{}, outer, u);
}

std::vector<Fixture> vxlanFixtures() {
  constexpr uint8_t K = FP_VERDICT_PASS, X = FP_VERDICT_DROP;
  const Bytes inner = ipv4(L2{kOtherHostMac, kMulticastMac, {}}, {}, udp(1000, 2000));
  V4 foreign;
  foreign.src = {198, 18, 0, 9};
  V4 elsewhere;
  elsewhere.dst = {198, 18, 1, 2};
  V4 fragment;
  fragment.frag_off = 0x2000;
  Bytes cut_vxlan = vxlanFrame(inner, 100);
  cut_vxlan.resize(14 + 20 + 8 + 5);
  Bytes cut_ip = vxlanFrame(inner, 100);  // the IPv4 total length beyond the frame
  cut_ip.resize(cut_ip.size() - 10);
  Bytes no_inner = vxlanFrame(Bytes(10, 0), 100);  // a cut inner Ethernet header
  std::vector<Fixture> f;
  auto add = [&](std::string d, Bytes frame, uint8_t v, uint8_t r) {
    f.push_back(Fixture{"vxlan wire: " + std::move(d), std::move(frame), v, r});
  };
  add("a link's frame from its peer", vxlanFrame(inner, 100), K, FP_REASON_PASS_WIRE_LINK);
  add("a link's ARP", vxlanFrame(arp(), 101, foreign), K, FP_REASON_PASS_WIRE_LINK);
  add("reserved flags set (ignored)", vxlanFrame(inner, 100, {}, 4789, 0xff), K,
      FP_REASON_PASS_WIRE_LINK);
  add("underlay ARP", arp(), K, FP_REASON_PASS_WIRE_UNDERLAY);
  add("underlay ipv6", ipv6(L2{}, {}, udp(4789, 4789)), K, FP_REASON_PASS_WIRE_UNDERLAY);
  add("UDP to another port (a probe)", ipv4(L2{}, {}, udp(4790, 4790)), K,
      FP_REASON_PASS_WIRE_UNDERLAY);
  add("TCP to the VXLAN port", ipv4(L2{}, V4{.proto = 6}, tcp(4789, 4789)), K,
      FP_REASON_PASS_WIRE_UNDERLAY);
  add("VXLAN to another address", vxlanFrame(inner, 100, elsewhere), K,
      FP_REASON_PASS_WIRE_UNDERLAY);
  add("VXLAN in a fragment", vxlanFrame(inner, 100, fragment), K, FP_REASON_PASS_WIRE_UNDERLAY);
  add("an 802.1Q frame", ipv4(L2{kDstMac, kSrcMac, {0x8100}}, {}, udp(1000, 2000)), K,
      FP_REASON_PASS_WIRE_UNDERLAY);
  add("a VNI no link has", vxlanFrame(inner, 102), X, FP_REASON_DROP_WIRE_UNKNOWN_VNI);
  add("VNI 0", vxlanFrame(inner, 0), X, FP_REASON_DROP_WIRE_UNKNOWN_VNI);
  add("a link's VNI from a foreign source", vxlanFrame(inner, 100, foreign), X,
      FP_REASON_DROP_WIRE_FOREIGN_HOST);
  add("the I flag clear", vxlanFrame(inner, 100, {}, 4789, 0x00), X,
      FP_REASON_DROP_WIRE_BAD_FLAGS);
  add("truncated VXLAN header", cut_vxlan, X, FP_REASON_DROP_TRUNCATED);
  add("IPv4 length beyond the frame", cut_ip, X, FP_REASON_DROP_TRUNCATED);
  add("inner Ethernet header cut", no_inner, X, FP_REASON_DROP_TRUNCATED);
  return f;
}

std::string ClassifierEnv::open(bool bind_xsk, uint32_t no_xsk_policy, uint32_t wire,
                                uint32_t encap) {
  ClassifierOptions o;
  o.no_xsk_policy = no_xsk_policy;
  o.port_mac = MacAddress{kDstMac};
  o.wire = wire;
  o.wire_vlan = 100;
  o.wire_ifindex = 1;
  o.encap = encap;
  o.underlay_addr = underlayAddr(V4{}.dst);
  o.vxlan_hdr = vxlanOuterHeader(MacAddress{kSrcMac}, MacAddress{kDstMac}, underlayAddr(V4{}.dst),
                                 underlayAddr(V4{}.src), 4789, 100);
  auto c = Classifier::openForTest(o);
  if (!c) return c.error().message;
  cls = std::move(c.value());
  if (Status s = cls->setRules(fixtureRules()); !s) return s.error().message;
  std::map<uint16_t, Classifier::WireTag> tags;
  for (const auto& [vid, mac] : wireTags()) tags[vid] = {mac, 0};
  if (Status s = cls->setWireTags(tags); !s) return s.error().message;
  std::map<uint32_t, Classifier::WireVni> vnis;
  for (const auto& [vni, addr] : wireVnis()) vnis[vni] = {addr, 0};
  if (Status s = cls->setWireVnis(vnis); !s) return s.error().message;
  if (!bind_xsk) return "";
  topo = std::make_unique<Topology>("cls");
  std::string ns = topo->addNamespace("xsk");
  topo->addVeth(ns, "xa", ns, "xb");
  NetnsGuard guard(ns);
  if (!guard.ok()) return "cannot enter namespace " + ns;
  std::string err;
  xsk = TestXsk::create("xa", 0, cls->xsksMapFd(), &err);
  return xsk ? "" : err;
}

ClassifierEnv::~ClassifierEnv() {
  xsk.reset();
  cls.reset();
  topo.reset();
}

}  // namespace fastpath::testing
