// SPDX-License-Identifier: GPL-2.0-only
// Per-packet forwarding decision and rewrite: pure functions on a frame buffer, used by
// the AF_XDP workers and unit-testable without sockets. No allocation, no lock, no
// syscall; the frame is only written when the result is kForward.
#pragma once

#include <cstdint>

#include "fp_abi.h"
#include "table/fib_manager.h"

namespace fastpath {

enum class ForwardResult : uint8_t {
  kForward,                  ///< rewritten in place; transmit on `egress`
  kPuntNoRoute,              ///< no LPM match (slow path: ICMP unreachable, resolve-on-miss)
  kPuntTtlExpired,           ///< TTL / hop limit 0 or 1 (slow path: ICMP time exceeded)
  kPuntNeighbourUnresolved,  ///< next hop has no MAC yet (raise "neighbour needed")
  kPuntLocal,                ///< addressed to the node itself (or link-local)
  kPuntMtuExceeded,          ///< larger than the egress MTU (fragment / packet too big)
  kPuntBadHeader,            ///< fails RFC 1812 5.2.2 / 5.3.7 checks or truncated
  kPuntClassifier,           ///< the classifier did not mark it DATA (control, punt, ...)
  kDropPortDown,             ///< egress port is down
  kMax,
};

/// Stable lower-case name for counters and logs ("forward", "punt_no_route", ...).
const char* forwardResultName(ForwardResult result);

struct ForwardDecision {
  ForwardResult result = ForwardResult::kPuntBadHeader;
  PortId egress = 0;
  /// The entry used (nullptr when no route matched): its next_hop/flags tell the worker
  /// which neighbour is needed (kFwdGlean: the packet's destination). Valid until the
  /// worker's next quiescent().
  const FwdEntry* entry = nullptr;
};

/// Decides and, on kForward, rewrites the frame in place: destination MAC = next hop,
/// source MAC = egress port, TTL / hop limit - 1 with the RFC 1624 incremental IPv4
/// checksum update. `frame` points at the Ethernet header, `len` is the frame length,
/// `meta` the classifier's metadata (l3_offset after VLAN tags, l3_proto).
ForwardDecision forwardFrame(uint8_t* frame, uint32_t len, const fp_xdp_meta& meta,
                             const FibView& fib) noexcept;

/// The IPv4 destination (host byte order) lookupRoute looks up for this frame: true for a
/// DATA IPv4 frame long enough to carry a destination. The worker gathers these for a
/// whole batch and looks them up with one FibView::nextHops4() call; lookupRoute gives
/// every other frame's route (IPv6, or nullptr).
inline bool routeDestination4(const uint8_t* frame, uint32_t len, const fp_xdp_meta& meta,
                              uint32_t* dst_host) noexcept {
  const uint32_t l3 = meta.l3_offset;
  if (meta.verdict != FP_VERDICT_DATA || meta.l3_proto != FP_L3_IPV4 || len < l3 || len - l3 < 20)
    return false;
  uint32_t dst_be;
  __builtin_memcpy(&dst_be, frame + l3 + 16, 4);
  *dst_host = __builtin_bswap32(dst_be);
  return true;
}

/// The route forwardFrame looks up for this frame: the FIB entry for its destination, or
/// nullptr (no route, or not a DATA IPv4/IPv6 frame long enough to carry a destination).
/// The worker looks up a whole batch before deciding any frame (IPv4 destinations in one
/// bulk call, see routeDestination4(); this for the rest): the lookups are independent, so
/// the cache misses of a large table overlap instead of stalling each frame in turn.
const FwdEntry* lookupRoute(const uint8_t* frame, uint32_t len, const fp_xdp_meta& meta,
                            const FibView& fib) noexcept;

/// forwardFrame with the route already looked up by lookupRoute, or by the bulk lookup of
/// routeDestination4's address (same frame, same epoch read-side section): the same
/// checks, decision and rewrite.
ForwardDecision forwardFrameRouted(uint8_t* frame, uint32_t len, const fp_xdp_meta& meta,
                                   const FwdEntry* route) noexcept;

}  // namespace fastpath
