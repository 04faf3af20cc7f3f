// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/network.h"

#include <algorithm>
#include <cerrno>

namespace fastpath {

Node* Network::findNode(const std::string& name) const {
  auto it = nodes.find(name.empty() ? std::string(kDefaultNodeName) : name);
  return it == nodes.end() ? nullptr : it->second.get();
}

std::string Network::portNodeName(PortId port) const {
  if (port < ports.size()) return ports[port] ? ports[port]->node->name() : std::string();
  auto it = link_ports.find(port);
  return it == link_ports.end() ? std::string() : it->second.info.node;
}

bool Network::linkMacInUse(const MacAddress& m) const {
  for (const auto& [id, lp] : link_ports)
    if (lp.info.mac == m) return true;
  return false;
}

MacAddress Network::nextLinkMac(const std::vector<MacAddress>& also_taken) {
  // Locally administered, unicast, unique in the daemon: 02:66:70 ("fp") + a counter.
  MacAddress m;
  for (;;) {
    const uint32_t c = next_link_mac++;
    m.bytes = {0x02, 0x66, 0x70, uint8_t(c >> 16), uint8_t(c >> 8), uint8_t(c)};
    if (!linkMacInUse(m) &&
        std::find(also_taken.begin(), also_taken.end(), m) == also_taken.end())
      return m;
  }
}

Result<PortId> Network::takeLinkPortId(const std::vector<PortId>& also_taken) {
  if (!free_link_ports.empty()) {
    const PortId id = free_link_ports.back();
    free_link_ports.pop_back();
    return id;
  }
  for (PortId id = kFirstLinkPort + PortId(link_ports.size()); id < kMaxPorts; ++id)
    if (!link_ports.count(id) &&
        std::find(also_taken.begin(), also_taken.end(), id) == also_taken.end())
      return id;
  return makeError(-ENOSPC, "every link port id is in use (fastpathd holds at most " +
                                std::to_string(kMaxPorts - kFirstLinkPort) +
                                " link and segment ports); delete links or segments first");
}

void Network::clear() {
  ports.clear();
  link_ports.clear();
  links.clear();
  segments.clear();
  media.clear();
  free_link_ports.clear();
  default_node = nullptr;
  nodes.clear();
}

Bridge* Network::bridgeOf(PortId port) {
  for (auto& [name, b] : bridges)
    if (std::find(b.ports.begin(), b.ports.end(), port) != b.ports.end()) return &b;
  return nullptr;
}

}  // namespace fastpath
