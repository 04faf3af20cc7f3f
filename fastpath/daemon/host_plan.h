// SPDX-License-Identifier: GPL-2.0-only
// One scenario, several fastpathd: the part of a topology one host runs. A topology with
// `hosts:` places every node on a host; each daemon (--host-name) keeps its own nodes, the
// links and segments among them, and turns every link between its host and another into a
// cross-host link: a port on the wire to that host whose frames travel tagged with the
// link's 802.1Q VLAN (one per link), and whose egress emulates the link — the emulation
// runs at the sender. The port is one end of a veth pair the daemon makes; the other end
// faces the wire (wires.h). Pure functions over the parsed file: nothing is touched here.
// Syntax: docs/reference/topology.md; operation: docs/guides/multi-host.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "daemon/topology.h"
#include "fastpath/control_types.h"
#include "fastpath/link_params.h"
#include "fastpath/result.h"

namespace fastpath {

inline constexpr const char* kLocalHost = "local";
/// The run tag when none is given: every object a fastpathd makes carries it.
inline constexpr const char* kDefaultRunTag = "run";
/// 802.1Q: the tag adds 4 bytes to a frame; an Ethernet wire carries them in its 1522-byte
/// frames (IEEE 802.3ac), so a link's MTU may be as large as the wire's.
inline constexpr uint32_t kVlanOverhead = 4;
/// VXLAN: outer Ethernet, IPv4, UDP and VXLAN headers add 50 bytes; the outer IPv4 packet
/// (the link's MTU + 50) must fit the wire's MTU, as the underlay does not fragment it (DF).
inline constexpr uint32_t kVxlanOverhead = 50;

/// One link between this host and another, as this host makes it: the end as the topology
/// file or a control-socket request gives it (its spec, whose MACs this host fills in when
/// they are left zero), and where this host makes it.
struct CrossHostLink : CrossLinkSpec {
  CrossHostLink() = default;
  /// The end a control-socket request asks for: its wire and device are found by
  /// Wires::addLink.
  explicit CrossHostLink(const CrossLinkSpec& spec) : CrossLinkSpec(spec) {}

  std::string port;    ///< the local end's port name in the plan
  std::string wire;    ///< this host's interface towards peer_host
  std::string device;  ///< the node's port: a veth end made for it (wireDeviceName)
  WireEncap encap;     ///< the wire's: 802.1Q (vlan is the VLAN id) or VXLAN (vlan is the VNI)
  int line = 0;        ///< the link's line in the topology file (0: made over the socket)
};

/// What one host runs of a topology.
struct HostPlan {
  Topology local;  ///< its nodes, their links and segments; cross-host ports as interfaces
  std::vector<CrossHostLink> cross;
};

/// Run tags: 1..6 characters of a-z 0-9 (they go into interface names).
Status validateRunTag(const std::string& tag);
/// A cross-host link's port, "fpw<tag>-<vlan>", and the other end of its veth pair, which
/// faces the wire, "fpx<tag>-<vlan>" (at most 15 characters each).
std::string wireDeviceName(const std::string& tag, uint16_t vlan);
std::string wireLinkEndName(const std::string& tag, uint16_t vlan);
/// The MAC of a cross-host link end the plan leaves without one: locally administered, from
/// the link's name and end, so every host computes the same.
MacAddress crossLinkMac(const std::string& link, char end);

/// The part of `topology` host `host` runs. Without `hosts:` the whole topology is local
/// (host must be "local"); otherwise `host` must be one of them. VLANs not given in the
/// file are numbered per pair of hosts in the file's order from 2 (the same on every host).
Result<HostPlan> planForHost(const Topology& topology, const std::string& host,
                             const std::string& run_tag);

}  // namespace fastpath
