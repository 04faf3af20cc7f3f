// SPDX-License-Identifier: GPL-2.0-only
// Mirrors classifier/bpf/fp_classify.bpf.c and fp_classify_parse.h step by step; each
// function is named after the BPF one it follows. Change both together (the differential
// test fails otherwise).
#include "fastpath/userspace_classifier.h"

#include <cerrno>
#include <cstring>

namespace fastpath {

namespace {

constexpr uint32_t kOffMask = 0x3fff;  // FP_OFF_MASK
constexpr uint32_t kAfInet = 2, kAfInet6 = 10;
constexpr uint16_t kIpMf = 0x2000, kIpOffset = 0x1fff, kIp6FragOffset = 0xfff8;
constexpr uint16_t kEthIp = 0x0800, kEthIpv6 = 0x86dd, kEthArp = 0x0806, kEth8021q = 0x8100,
                   kEth8021ad = 0x88a8;
constexpr uint8_t kHopOpts = 0, kTcp = 6, kUdp = 17, kRouting = 43, kFragment = 44, kIcmp = 1,
                  kIcmp6 = 58, kAh = 51, kDstOpts = 60;

uint16_t be16(const uint8_t* p) { return static_cast<uint16_t>((p[0] << 8) | p[1]); }

bool ipv6IsExt(uint8_t nh) {  // fp_ipv6_is_ext
  switch (nh) {
    case kHopOpts:
    case kRouting:
    case kFragment:
    case kAh:
    case kDstOpts:
    case 135:  // mobility
    case 139:  // HIP
    case 140:  // shim6
      return true;
  }
  return false;
}

bool ipv4ChecksumOk(const uint8_t* h) {  // ipv4_csum_ok
  uint32_t s = 0;
  for (int i = 0; i < 20; i += 2) s += static_cast<uint32_t>(h[i] | (h[i + 1] << 8));
  s = (s & 0xffff) + (s >> 16);
  s = (s & 0xffff) + (s >> 16);
  return s == 0xffff;
}

}  // namespace

struct UserspaceClassifier::Frame {  // struct fp_frame
  const uint8_t* data;
  uint32_t len;
  bool l2_bcast = false;
  bool l2_mcast = false;
  /// fp_at: `size` bytes at `off` (masked as the program masks it), or nullptr.
  const uint8_t* at(uint32_t off, uint32_t size) const {
    off &= kOffMask;
    return off + size <= len ? data + off : nullptr;
  }
};

struct UserspaceClassifier::Cls {  // struct fp_cls
  uint8_t verdict = 0, reason = 0, l3 = FP_L3_OTHER, l4_proto = 0;
  uint16_t l3_off = 0, l4_off = 0;
  bool set(uint8_t v, uint8_t r) {
    verdict = v;
    reason = r;
    return true;
  }
  bool punt(uint8_t r) { return set(FP_VERDICT_PUNT, r); }
  bool drop(uint8_t r) { return set(FP_VERDICT_DROP, r); }
  bool apply(uint32_t action, uint8_t r) {  // fp_apply
    if (action == FP_ACTION_CONTROL) return set(FP_VERDICT_CONTROL, r);
    if (action == FP_ACTION_PASS) return set(FP_VERDICT_PASS, FP_REASON_PASS_RULE);
    return false;
  }
};

Status UserspaceClassifier::setRules(const std::vector<ControlRule>& rules) {
  decltype(ethertypes_) eth;
  decltype(l4_ports_) ports;
  decltype(local_) local;
  std::array<uint32_t, 256> protos{};
  for (const ControlRule& r : rules) {
    const uint32_t action = r.pass_to_kernel ? FP_ACTION_PASS : FP_ACTION_CONTROL;
    switch (r.kind) {
      case ControlRule::Kind::kEtherType: eth[r.ethertype] = action; break;
      case ControlRule::Kind::kIpProto: protos[r.ip_proto] = action; break;
      case ControlRule::Kind::kL4Port:
        if (r.ip_proto != kUdp && r.ip_proto != kTcp)
          return makeError(-EINVAL, "classifier: port rules are for UDP or TCP only");
        ports[(uint32_t{r.ip_proto} << 16) | r.port] = action;
        break;
      case ControlRule::Kind::kLocalAddress: {
        std::array<uint8_t, 17> k{};
        k[0] = r.address.family == Family::kIpv4 ? kAfInet : kAfInet6;
        std::memcpy(k.data() + 1, r.address.bytes.data(),
                    r.address.family == Family::kIpv4 ? 4 : 16);
        local[k] = action;
        break;
      }
    }
  }
  ethertypes_.swap(eth);
  l4_ports_.swap(ports);
  local_.swap(local);
  ip_protos_ = protos;
  return {};
}

bool UserspaceClassifier::localAddress(Cls& c, uint32_t family, const uint8_t* addr,
                                       uint32_t len) const {  // addr_rule
  std::array<uint8_t, 17> k{};
  k[0] = static_cast<uint8_t>(family);
  std::memcpy(k.data() + 1, addr, len);
  auto it = local_.find(k);
  return it != local_.end() && c.apply(it->second, FP_REASON_CTRL_LOCAL_ADDR);
}

bool UserspaceClassifier::castRules(Cls& c, bool bcast, bool mcast) const {  // cast_rules
  if (bcast && c.apply(cfg_.broadcast_action, FP_REASON_CTRL_BROADCAST)) return true;
  if (mcast && c.apply(cfg_.multicast_action, FP_REASON_CTRL_MULTICAST)) return true;
  return false;
}

bool UserspaceClassifier::l4(const Frame& f, Cls& c, uint8_t proto, uint32_t l4_off,
                             uint32_t ip_end) const {  // fp_l4
  uint32_t need;
  switch (proto) {
    case kUdp: need = 8; break;
    case kTcp: need = 20; break;
    case kIcmp: need = 8; break;
    case kIcmp6: need = 4; break;
    default: return false;
  }
  if (l4_off + need > ip_end) return c.drop(FP_REASON_DROP_TRUNCATED);
  if (proto != kUdp && proto != kTcp) return false;
  const uint8_t* p;
  if (proto == kTcp) {
    p = f.at(l4_off, 20);
    if (!p) return c.drop(FP_REASON_DROP_TRUNCATED);
    const uint32_t doff = (p[12] >> 4) * 4u;
    if (doff < 20) return c.drop(FP_REASON_DROP_BAD_HEADER);
    if (l4_off + doff > ip_end) return c.drop(FP_REASON_DROP_TRUNCATED);
  } else {
    p = f.at(l4_off, 8);
    if (!p) return c.drop(FP_REASON_DROP_TRUNCATED);
  }
  auto it = l4_ports_.find((uint32_t{proto} << 16) | be16(p + 2));
  return it != l4_ports_.end() && c.apply(it->second, FP_REASON_CTRL_L4_PORT);
}

bool UserspaceClassifier::classifyIpv4(const Frame& f, Cls& c, uint32_t off) const {
  const uint8_t* iph = f.at(off, 20);
  c.l3 = FP_L3_IPV4;
  if (!iph) return c.drop(FP_REASON_DROP_TRUNCATED);
  const uint8_t version = iph[0] >> 4, ihl = iph[0] & 0xf;
  if (version != 4 || ihl < 5) return c.drop(FP_REASON_DROP_BAD_HEADER);
  const uint32_t hlen = ihl * 4u, tot = be16(iph + 2);
  if (tot < hlen) return c.drop(FP_REASON_DROP_BAD_HEADER);
  const uint32_t ip_end = off + tot;  // Ethernet padding may follow
  if (ip_end > f.len) return c.drop(FP_REASON_DROP_TRUNCATED);
  if (hlen == 20 && !ipv4ChecksumOk(iph)) return c.drop(FP_REASON_DROP_BAD_CHECKSUM);
  c.l4_proto = iph[9];
  const uint8_t* dst = iph + 16;
  if (localAddress(c, kAfInet, dst, 4)) return true;
  const bool bcast_ip = dst[0] == 0xff && dst[1] == 0xff && dst[2] == 0xff && dst[3] == 0xff;
  const bool mcast_ip = (dst[0] & 0xf0) == 0xe0;
  if (castRules(c, f.l2_bcast || bcast_ip, f.l2_mcast || mcast_ip)) return true;
  if (c.apply(ip_protos_[iph[9]], FP_REASON_CTRL_IP_PROTO)) return true;
  const uint32_t l4_off = off + hlen;
  const uint16_t frag = be16(iph + 6);
  if (frag & (kIpMf | kIpOffset)) {
    // Only the first fragment carries the transport header.
    if (!(frag & kIpOffset)) c.l4_off = static_cast<uint16_t>(l4_off);
    return c.punt(FP_REASON_PUNT_IPV4_FRAGMENT);
  }
  c.l4_off = static_cast<uint16_t>(l4_off);
  if (l4(f, c, iph[9], l4_off, ip_end)) return true;
  if (hlen > 20) return c.punt(FP_REASON_PUNT_IPV4_OPTIONS);
  if (iph[8] <= 1) return c.punt(FP_REASON_PUNT_TTL_EXPIRED);
  return c.set(FP_VERDICT_DATA, FP_REASON_DATA_IPV4);
}

bool UserspaceClassifier::classifyIpv6(const Frame& f, Cls& c, uint32_t off) const {
  const uint8_t* ip6 = f.at(off, 40);
  c.l3 = FP_L3_IPV6;
  if (!ip6) return c.drop(FP_REASON_DROP_TRUNCATED);
  if ((ip6[0] >> 4) != 6) return c.drop(FP_REASON_DROP_BAD_HEADER);
  const uint32_t ip_end = off + 40 + be16(ip6 + 4);
  if (ip_end > f.len) return c.drop(FP_REASON_DROP_TRUNCATED);
  bool frag = false, frag_later = false, too_deep = false;
  uint8_t nh = ip6[6];
  uint32_t pos = off + 40;
  for (int i = 0; i < FP_IPV6_MAX_EXT_HDRS; i++) {
    if (!ipv6IsExt(nh)) break;
    if (pos + 8 > ip_end) return c.drop(FP_REASON_DROP_TRUNCATED);
    const uint8_t* h = f.at(pos, 8);
    if (!h) return c.drop(FP_REASON_DROP_TRUNCATED);
    if (nh == kFragment) {
      frag = true;
      nh = h[0];
      pos += 8;
      if (be16(h + 2) & kIp6FragOffset) {
        frag_later = true;  // no transport header in this fragment
        break;
      }
      continue;
    }
    // AH counts its length in 4-octet units (RFC 4302), the others in 8.
    pos += nh == kAh ? (h[1] + 2) * 4u : (h[1] + 1) * 8u;
    nh = h[0];
  }
  if (!frag_later && ipv6IsExt(nh)) too_deep = true;
  if (pos > ip_end) return c.drop(FP_REASON_DROP_TRUNCATED);
  if (!too_deep && !frag_later) {
    c.l4_proto = nh;
    c.l4_off = static_cast<uint16_t>(pos);
  }
  // Neighbour discovery (RFC 4861: RS, RA, NS, NA, redirect) is always control.
  if (c.l4_off && nh == kIcmp6) {
    if (pos + 4 > ip_end) return c.drop(FP_REASON_DROP_TRUNCATED);
    const uint8_t* icmp6 = f.at(pos, 4);
    if (!icmp6) return c.drop(FP_REASON_DROP_TRUNCATED);
    if (icmp6[0] >= 133 && icmp6[0] <= 137)
      return c.set(FP_VERDICT_CONTROL, FP_REASON_CTRL_ICMPV6_ND);
  }
  if (localAddress(c, kAfInet6, ip6 + 24, 16)) return true;
  if (castRules(c, f.l2_bcast, f.l2_mcast || ip6[24] == 0xff)) return true;
  if (c.l4_off && c.apply(ip_protos_[nh], FP_REASON_CTRL_IP_PROTO)) return true;
  if (frag) return c.punt(FP_REASON_PUNT_IPV6_FRAGMENT);
  if (too_deep) return c.punt(FP_REASON_PUNT_IPV6_EXT_DEPTH);
  if (l4(f, c, nh, pos, ip_end)) return true;
  if (ip6[7] <= 1) return c.punt(FP_REASON_PUNT_TTL_EXPIRED);
  return c.set(FP_VERDICT_DATA, FP_REASON_DATA_IPV6);
}

bool UserspaceClassifier::classifyWire(const Frame& f, Cls& c) const {  // classify_wire
  const uint8_t* eth = f.at(0, 14);
  if (!eth) return c.drop(FP_REASON_DROP_TRUNCATED);
  const uint16_t proto = be16(eth + 12);
  if (proto == FP_ETH_P_WIRE_PROBE) return c.set(FP_VERDICT_PASS, FP_REASON_PASS_WIRE_PROBE);
  if (proto == kEth8021ad) return c.drop(FP_REASON_DROP_WIRE_FOREIGN_TAG);
  if (proto != kEth8021q) return c.drop(FP_REASON_DROP_WIRE_UNTAGGED);
  const uint8_t* tci = f.at(14, 4);  // the tag and the inner EtherType
  if (!tci) return c.drop(FP_REASON_DROP_TRUNCATED);
  auto it = wire_tags_.find(static_cast<uint16_t>(((tci[0] & 0x0f) << 8) | tci[1]));
  if (it == wire_tags_.end()) return c.drop(FP_REASON_DROP_WIRE_FOREIGN_TAG);
  if (std::memcmp(eth + 6, it->second.bytes.data(), 6))
    return c.drop(FP_REASON_DROP_WIRE_FOREIGN_HOST);
  return c.set(FP_VERDICT_PASS, FP_REASON_PASS_WIRE_LINK);
}

bool UserspaceClassifier::classifyVxlanWire(const Frame& f, Cls& c) const {
  // classify_vxlan_wire
  const uint8_t* eth = f.at(0, 14);
  if (!eth) return c.drop(FP_REASON_DROP_TRUNCATED);
  const uint8_t* iph = f.at(14, 20);
  uint32_t dst = 0;
  if (iph) std::memcpy(&dst, iph + 16, 4);
  // Not IPv4 to us, or not a first piece of UDP: the kernel judges it.
  if (be16(eth + 12) != kEthIp || !iph || (iph[0] >> 4) != 4 || (iph[0] & 0xf) < 5 ||
      iph[9] != kUdp || dst != cfg_.underlay_addr || (be16(iph + 6) & (kIpMf | kIpOffset)))
    return c.set(FP_VERDICT_PASS, FP_REASON_PASS_WIRE_UNDERLAY);
  const uint32_t l4 = 14 + (iph[0] & 0xf) * 4u;
  const uint8_t* udp = f.at(l4, 8);
  if (!udp || be16(udp + 2) != cfg_.vxlan_port)
    return c.set(FP_VERDICT_PASS, FP_REASON_PASS_WIRE_UNDERLAY);
  // VXLAN to us: the header and an inner Ethernet header must be there.
  const uint32_t ip_end = 14 + be16(iph + 2);
  const uint8_t* vx = f.at(l4 + 8, 8);
  if (!vx || ip_end > f.len || l4 + 8 + 8 + 14 > ip_end || !f.at(l4 + 16, 14))
    return c.drop(FP_REASON_DROP_TRUNCATED);
  if (!(vx[0] & FP_VXLAN_FLAG_I)) return c.drop(FP_REASON_DROP_WIRE_BAD_FLAGS);
  const uint32_t vni = uint32_t(vx[4]) << 16 | uint32_t(vx[5]) << 8 | vx[6];
  auto it = wire_vnis_.find(vni);
  if (it == wire_vnis_.end()) return c.drop(FP_REASON_DROP_WIRE_UNKNOWN_VNI);
  if (std::memcmp(iph + 12, &it->second, 4)) return c.drop(FP_REASON_DROP_WIRE_FOREIGN_HOST);
  return c.set(FP_VERDICT_PASS, FP_REASON_PASS_WIRE_LINK);
}

fp_xdp_meta UserspaceClassifier::classify(const uint8_t* data, uint32_t len) const {
  Frame f{data, len};
  Cls c;
  const uint8_t* eth = f.at(0, 14);
  if (eth) {  // xdp_fp_classify
    const uint8_t* d = eth;
    f.l2_bcast = (d[0] & d[1] & d[2] & d[3] & d[4] & d[5]) == 0xff;
    f.l2_mcast = !f.l2_bcast && (d[0] & 1);
  }
  [&] {  // classify
    if (cfg_.wire == FP_WIRE_PORT)
      return cfg_.encap == FP_ENCAP_VXLAN ? classifyVxlanWire(f, c) : classifyWire(f, c);
    if (!eth) return c.drop(FP_REASON_DROP_TRUNCATED);
    if (cfg_.port_mac) {
      const uint8_t* m = cfg_.port_mac->bytes.data();
      if (!std::memcmp(eth + 6, m, 6)) return c.drop(FP_REASON_DROP_OWN_SOURCE);
      if (!f.l2_bcast && !f.l2_mcast && std::memcmp(eth, m, 6))
        return c.drop(FP_REASON_DROP_OTHER_HOST);
    }
    const uint16_t proto = be16(eth + 12);
    const uint32_t off = 14;
    if (proto == kEth8021q || proto == kEth8021ad) return c.drop(FP_REASON_DROP_VLAN);
    c.l3_off = off;
    if (proto == kEthArp) {
      c.l3 = FP_L3_ARP;
      if (!f.at(off, 8)) return c.drop(FP_REASON_DROP_TRUNCATED);
      return c.set(FP_VERDICT_CONTROL, FP_REASON_CTRL_ARP);
    }
    if (auto it = ethertypes_.find(proto);
        it != ethertypes_.end() && c.apply(it->second, FP_REASON_CTRL_ETHERTYPE)) {
      if (proto == kEthIp) c.l3 = FP_L3_IPV4;
      if (proto == kEthIpv6) c.l3 = FP_L3_IPV6;
      return true;
    }
    if (proto == kEthIp) return classifyIpv4(f, c, off);
    if (proto == kEthIpv6) return classifyIpv6(f, c, off);
    if (castRules(c, f.l2_bcast, f.l2_mcast)) return true;
    return c.punt(FP_REASON_PUNT_UNKNOWN_L3);
  }();
  fp_xdp_meta m{};
  m.magic = FP_META_MAGIC;
  m.verdict = c.verdict;
  m.reason = c.reason;
  m.l3_proto = c.l3;
  m.l4_proto = c.l4_proto;
  m.l3_offset = c.l3_off;
  m.l4_offset = c.l4_off;
  // rx_ns stays 0: a frame on an internal link carries its model arrival time instead.
  return m;
}

}  // namespace fastpath
