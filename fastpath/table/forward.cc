// SPDX-License-Identifier: GPL-2.0-only
#include "table/forward.h"

#include <cstring>

#include "table/checksum.h"

namespace fastpath {

namespace {

constexpr uint32_t kIpv4MinHeader = 20;
constexpr uint32_t kIpv6Header = 40;

inline ForwardDecision punt(ForwardResult r, const FwdEntry* e = nullptr) {
  return ForwardDecision{r, e ? e->port : 0, e};
}

// The checks after the lookup, shared by both families: local delivery first (a packet
// for the node is delivered whatever its TTL), then TTL, port, neighbour, MTU.
inline ForwardResult egressVerdict(const FwdEntry& e, unsigned ttl, uint32_t ip_len) {
  if (e.flags & kFwdLocal) return ForwardResult::kPuntLocal;
  // RFC 1812 5.3.1: "If the TTL is reduced to zero (or less), the packet MUST be
  // discarded" (and an ICMP Time Exceeded sent: the slow path does that). A packet that
  // arrives with TTL 0 or 1 would leave with 0, so it is not forwarded here.
  if (ttl <= 1) return ForwardResult::kPuntTtlExpired;
  if (e.flags & kFwdPortDown) return ForwardResult::kDropPortDown;
  if (!(e.flags & kFwdResolved)) return ForwardResult::kPuntNeighbourUnresolved;
  // RFC 1812 4.2.2.7 / 5.2.3: a datagram larger than the next hop's MTU is fragmented or
  // answered with ICMP (DF, IPv6 Packet Too Big): both are slow-path work.
  if (ip_len > e.mtu) return ForwardResult::kPuntMtuExceeded;
  return ForwardResult::kForward;
}

// `e`: the route lookupRoute found for this frame (looked up ahead, before the checks).
ForwardDecision forwardIpv4(uint8_t* frame, uint32_t len, uint32_t l3, const FwdEntry* e) {
  uint8_t* ip = frame + l3;
  const uint32_t avail = len - l3;
  // RFC 1812 5.2.2 IP Header Validation:
  // "(1) The packet length reported by the Link Layer must be large enough to hold the
  //      minimum length legal IP datagram (20 bytes)."
  if (len < l3 || avail < kIpv4MinHeader) return punt(ForwardResult::kPuntBadHeader);
  const uint32_t ihl = (ip[0] & 0x0fu) * 4;
  uint16_t tot_be;
  std::memcpy(&tot_be, ip + 2, 2);
  const uint32_t tot_len = __builtin_bswap16(tot_be);
  // "(3) The IP version number must be 4."
  // "(4) The IP header length field must be large enough to hold the minimum length legal
  //      IP datagram (20 bytes = 5 words)."
  // "(5) The IP total length field must be large enough to hold the IP datagram header,
  //      whose length is specified in the IP header length field."
  // and the datagram must fit in what the link delivered (truncation).
  if ((ip[0] >> 4) != 4 || ihl < kIpv4MinHeader || tot_len < ihl || tot_len > avail)
    return punt(ForwardResult::kPuntBadHeader);
  // "(2) The IP checksum must be correct." (4.2.2.5: "a router MUST verify the IP
  // checksum of any packet that is received, and MUST discard messages containing invalid
  // checksums.")  The slow path decides what to do with it; it is not forwarded.
  if (!ipv4HeaderChecksumOk(ip, ihl)) return punt(ForwardResult::kPuntBadHeader);

  uint32_t src_be, dst_be;
  std::memcpy(&src_be, ip + 12, 4);
  std::memcpy(&dst_be, ip + 16, 4);
  // RFC 1812 5.3.7 Martian Address Filtering: "A router SHOULD NOT forward any packet
  // that has an invalid IP source address or a source address on network 0", nor (except
  // over a loopback interface) one with a source on network 127; multicast and class E
  // sources are invalid; 0/8 and 127/8 destinations are never forwarded.
  const uint8_t s0 = static_cast<uint8_t>(src_be), d0 = static_cast<uint8_t>(dst_be);
  if (s0 == 0 || s0 == 127 || s0 >= 224 || d0 == 0 || d0 == 127)
    return punt(ForwardResult::kPuntBadHeader);

  if (!e) return punt(ForwardResult::kPuntNoRoute);
  const ForwardResult r = egressVerdict(*e, ip[8], tot_len);
  if (r != ForwardResult::kForward) return punt(r, e);

  // RFC 1812 5.3.1: "When a router forwards a packet, it MUST reduce the TTL by at least
  // one"; the checksum follows incrementally (RFC 1624 eqn. 3, RFC 1812 5.2.2's "the
  // checksum MUST be updated" for any header change).
  ipv4DecrementTtl(ip);
  std::memcpy(frame, e->dst_mac, 12);  // dst_mac | src_mac: the Ethernet header's first 12 bytes
  return ForwardDecision{ForwardResult::kForward, e->port, e};
}

ForwardDecision forwardIpv6(uint8_t* frame, uint32_t len, uint32_t l3, const FwdEntry* e) {
  uint8_t* ip = frame + l3;
  if (len < l3 || len - l3 < kIpv6Header || (ip[0] >> 4) != 6)
    return punt(ForwardResult::kPuntBadHeader);
  uint16_t plen_be;
  std::memcpy(&plen_be, ip + 4, 2);
  const uint32_t ip_len = kIpv6Header + __builtin_bswap16(plen_be);
  // (A jumbogram, RFC 2675, carries a hop-by-hop header: the classifier punts those.)
  if (ip_len > len - l3) return punt(ForwardResult::kPuntBadHeader);
  const uint8_t* src = ip + 8;
  const uint8_t* dst = ip + 24;
  // RFC 4291 2.7: multicast addresses "MUST NOT be used as source addresses"; 2.5.6:
  // "Routers must not forward any packets with Link-Local source or destination
  // addresses to other links." Unspecified (::) and loopback sources are invalid (2.5.2,
  // 2.5.3). A link-local destination is for this link: local delivery.
  if (src[0] == 0xff || (src[0] == 0xfe && (src[1] & 0xc0) == 0x80))
    return punt(ForwardResult::kPuntBadHeader);
  if (dst[0] == 0xfe && (dst[1] & 0xc0) == 0x80) return punt(ForwardResult::kPuntLocal);
  uint64_t s_hi, s_lo;
  std::memcpy(&s_hi, src, 8);
  std::memcpy(&s_lo, src + 8, 8);
  if (s_hi == 0 && (s_lo == 0 || s_lo == __builtin_bswap64(1)))
    return punt(ForwardResult::kPuntBadHeader);

  if (!e) return punt(ForwardResult::kPuntNoRoute);
  // RFC 8200 3: hop limit "Decremented by 1 by each node that forwards the packet. ...
  // discarded if Hop Limit was zero when received or is decremented to zero."
  const ForwardResult r = egressVerdict(*e, ip[7], ip_len);
  if (r != ForwardResult::kForward) return punt(r, e);
  ip[7] = static_cast<uint8_t>(ip[7] - 1);  // no header checksum in IPv6
  std::memcpy(frame, e->dst_mac, 12);
  return ForwardDecision{ForwardResult::kForward, e->port, e};
}

}  // namespace

const char* forwardResultName(ForwardResult result) {
  switch (result) {
    case ForwardResult::kForward: return "forward";
    case ForwardResult::kPuntNoRoute: return "punt_no_route";
    case ForwardResult::kPuntTtlExpired: return "punt_ttl_expired";
    case ForwardResult::kPuntNeighbourUnresolved: return "punt_neighbour_unresolved";
    case ForwardResult::kPuntLocal: return "punt_local";
    case ForwardResult::kPuntMtuExceeded: return "punt_mtu_exceeded";
    case ForwardResult::kPuntBadHeader: return "punt_bad_header";
    case ForwardResult::kPuntClassifier: return "punt_classifier";
    case ForwardResult::kDropPortDown: return "drop_port_down";
    case ForwardResult::kMax: break;
  }
  return "unknown";
}

ForwardDecision forwardFrame(uint8_t* frame, uint32_t len, const fp_xdp_meta& meta,
                             const FibView& fib) noexcept {
  // Only frames the classifier marked DATA are ours to decide; it already walked VLAN
  // tags and set l3_offset.
  return forwardFrameRouted(frame, len, meta, lookupRoute(frame, len, meta, fib));
}

const FwdEntry* lookupRoute(const uint8_t* frame, uint32_t len, const fp_xdp_meta& meta,
                            const FibView& fib) noexcept {
  // The destination's route, for every frame long enough to carry a destination; the
  // checks come after (forwardIpv4/6): a bad frame is punted whatever its route.
  if (meta.verdict != FP_VERDICT_DATA) return nullptr;
  const uint32_t l3 = meta.l3_offset;
  if (uint32_t dst; routeDestination4(frame, len, meta, &dst))
    return fib.lookup4(__builtin_bswap32(dst));
  if (meta.l3_proto == FP_L3_IPV6 && len >= l3 && len - l3 >= kIpv6Header)
    return fib.lookup6(frame + l3 + 24);
  return nullptr;
}

ForwardDecision forwardFrameRouted(uint8_t* frame, uint32_t len, const fp_xdp_meta& meta,
                                   const FwdEntry* route) noexcept {
  if (meta.verdict != FP_VERDICT_DATA) return punt(ForwardResult::kPuntClassifier);
  if (meta.l3_proto == FP_L3_IPV4) return forwardIpv4(frame, len, meta.l3_offset, route);
  if (meta.l3_proto == FP_L3_IPV6) return forwardIpv6(frame, len, meta.l3_offset, route);
  return punt(ForwardResult::kPuntClassifier);
}

}  // namespace fastpath
