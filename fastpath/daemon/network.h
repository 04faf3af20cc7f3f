// SPDX-License-Identifier: GPL-2.0-only
// The daemon's network: the container of its nodes, their interface ports, the link and
// segment ports, the links and segments joining them, and the hosts attached to them. It
// owns them and answers what they are (lookups, free ids and MACs); what it takes to make
// or remove one (classifiers, sockets, workers, the epoch) is the Daemon's.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "daemon/bridge.h"
#include "daemon/hosts.h"
#include "daemon/interface_port.h"
#include "daemon/link.h"
#include "daemon/link_port.h"
#include "daemon/node.h"
#include "daemon/medium.h"
#include "daemon/segment.h"
#include "fastpath/result.h"

namespace fastpath {

/// A host: a network namespace and a veth pair whose outer end is an interface port.
struct Host {
  HostInfo info;
  HostRecord record;
};

struct Network {
  std::map<std::string, std::unique_ptr<Node>> nodes;
  Node* default_node = nullptr;
  uint32_t next_node_id = 0;
  /// Interface ports, index = PortId; null: a free id (detached).
  std::vector<std::unique_ptr<InterfacePort>> ports;
  /// Link and segment ports, ids from kFirstLinkPort.
  std::map<PortId, LinkPort> link_ports;
  std::map<std::string, Link> links;
  std::map<std::string, Segment> segments;
  std::map<std::string, Medium> media;
  std::map<std::string, Bridge> bridges;
  std::vector<PortId> free_link_ports;  ///< reusable ids (highest first)
  uint32_t next_link_mac = 1;
  std::map<std::string, Host> hosts;

  /// "" is the default node; nullptr when there is no such node.
  Node* findNode(const std::string& name) const;
  bool portAttached(PortId port) const { return port < ports.size() && ports[port]; }
  /// The node of an interface or link port ("" when there is no such port).
  std::string portNodeName(PortId port) const;
  bool linkMacInUse(const MacAddress& mac) const;
  /// The bridge that has `port` among its ports (nullptr: none).
  Bridge* bridgeOf(PortId port);
  /// A generated link port MAC (02:66:70 + a counter) no port uses.
  MacAddress nextLinkMac(const std::vector<MacAddress>& also_taken);
  /// A free link port id, or an error when every id is in use.
  Result<PortId> takeLinkPortId(const std::vector<PortId>& also_taken = {});
  /// Everything forgotten (the daemon stops); nodes last.
  void clear();
};

}  // namespace fastpath
