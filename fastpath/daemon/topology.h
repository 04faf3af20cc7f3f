// SPDX-License-Identifier: GPL-2.0-only
// A topology file: the nodes of one fastpathd, their interface ports, the links between
// them, static routes and neighbours — for use without ns-3 and for tests
// (`fastpathd --topology FILE`). YAML (JSON is YAML too), read with yaml-cpp, validated
// whole before any interface is touched: every problem is reported with its line.
// Syntax and an example: docs/reference/topology.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "daemon/route_config.h"
#include "fastpath/control_backend.h"
#include "fastpath/result.h"

namespace fastpath {

struct TopologyNode {
  NodeSpec spec;                          ///< name, host
  std::vector<std::string> interfaces;    ///< interface ports (NIC or veth names)
  std::vector<RouteConfig> routes;        ///< `dev`: an interface or a link port of this node
  std::vector<NeighbourConfig> neighbours;
  int line = 0;  ///< where the node is defined (1-based; 0: not from a file)
};

struct TopologyLink {
  LinkSpec spec;  ///< with the emulation of each direction (`params`, `a_to_b`, `b_to_a`)
  int line = 0;
  /// 802.1Q VLAN id (`vlan:`) or VXLAN network identifier (`vni:`) of a link between two
  /// hosts; 0: chosen by planForHost.
  uint16_t vlan = 0;
  bool vni = false;  ///< given as `vni:`
};

/// How a wire carries the links between two hosts: one 802.1Q VLAN each on a shared
/// Ethernet segment (`encap: vlan`, the default), or one VXLAN network identifier each in
/// UDP between the hosts' underlay IPv4 addresses, routed (`encap: vxlan`).
struct WireEncap {
  enum Kind { kVlan, kVxlan } kind = kVlan;
  IpAddress underlay;       ///< VXLAN: this host's underlay address (on the interface)
  IpAddress peer_underlay;  ///< VXLAN: the peer host's
  uint16_t port = 4789;     ///< VXLAN: the UDP port (RFC 7348's)
};

/// A host's real interface to another host (`hosts[].wires[]`): links between the two are
/// carried there, one 802.1Q VLAN or one VNI per link.
struct TopologyWire {
  std::string peer;       ///< the other host
  std::string interface;  ///< this host's interface on the wire
  WireEncap encap;
  int line = 0;
};

/// A machine running a fastpathd of the scenario (`hosts:`); nodes name it in `host`.
struct TopologyHost {
  std::string name;
  std::vector<TopologyWire> wires;
  int line = 0;
};

/// A segment: a shared medium joining nodes (`segments:`), with a port in each.
struct TopologySegment {
  SegmentSpec spec;  ///< ports (node, port, mac, mtu), up, the medium's `params`
  int line = 0;
};

/// A radio medium (`media:`): an ad hoc Wi-Fi channel joining nodes, with static pairs.
struct TopologyMedium {
  MediumSpec spec;  ///< members (node, port, mac, mtu), up, `phy`, `pairs`
  int line = 0;
};

/// A learning bridge (`bridges:`) over segment ports of one node; checked when the daemon
/// creates it, after the segments.
struct TopologyBridge {
  BridgeSpec spec;  ///< name, node, ports (segment port names of `node`), ageing
  int line = 0;
};

struct Topology {
  std::vector<TopologyNode> nodes;
  std::vector<TopologyLink> links;
  std::vector<TopologySegment> segments;
  /// The daemons of a scenario spread over several machines (empty: one, "local").
  std::vector<TopologyHost> hosts;
  std::vector<TopologyMedium> media;
  std::vector<TopologyBridge> bridges;
};

/// Parses and validates (validateTopology) a topology document; `origin` names it in
/// messages ("topo.yaml"). Every error message starts with "origin:LINE: ".
Result<Topology> parseTopologyText(const std::string& text, const std::string& origin);
/// Reads and parses a file.
Result<Topology> parseTopologyFile(const std::string& path);
/// The checks that need no system access: names unique and well-formed, links between two
/// different known nodes, segments of 1 .. kMaxSegmentPorts known nodes (each once), port
/// names unique per node, MACs unique, an interface in one node only, route devices known
/// to their node, emulation parameters (validateLinkParams), at most kMaxNodes nodes and
/// kMaxLinks links and segments together. Returns all problems found, one per line.
Status validateTopology(const Topology& topology, const std::string& origin);
/// Every interface named exists in the current network namespace (a clear error naming
/// the interface, the node and the line otherwise). Touches nothing.
Status checkTopologyInterfaces(const Topology& topology, const std::string& origin);

}  // namespace fastpath
