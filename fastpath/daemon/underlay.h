// SPDX-License-Identifier: GPL-2.0-only
// A VXLAN wire's underlay as the kernel of this host sees it: where a frame to the peer's
// underlay address goes first (the next hop: the peer itself on one subnet, else the
// route's gateway) and that next hop's MAC, read from the kernel's route and neighbour
// tables of the wire's interface when the wire is declared (its probes have just made the
// kernel resolve it) and again whenever they change (underlay_watch.h). A link end's outer
// Ethernet header is built from it. Not a public header.
#pragma once

#include <cstdint>
#include <string>

#include "fastpath/net_types.h"
#include "fastpath/result.h"

namespace fastpath {

struct UnderlayHop {
  IpAddress next_hop;  ///< the gateway, or the peer's address itself
  MacAddress mac;      ///< the next hop's MAC (the kernel's neighbour entry)
};

/// The next hop from this host to `peer` (IPv4) and its MAC; refused (with what to do) when
/// the kernel routes `peer` through another interface than `ifname`, or has no reachable
/// neighbour entry for the next hop (then `unresolved`, if given, is that next hop).
Result<UnderlayHop> underlayNextHop(const std::string& ifname, const IpAddress& peer,
                                    IpAddress* unresolved = nullptr);

/// This interface's MAC.
Result<MacAddress> interfaceMacOf(const std::string& ifname);

}  // namespace fastpath
