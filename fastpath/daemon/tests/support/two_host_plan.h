// SPDX-License-Identifier: GPL-2.0-only
// The topology file the multi-host tests share, and the pieces to write one: hosts a and b
// joined by one wire (a's interface wa, b's wb); router r1 on a facing its end network
// 198.18.1.0/24 on fa0, router r2 on b facing 198.18.2.0/24 on fb0; link r1-r2 between
// them (r1's end 198.18.100.1, MAC 02:00:00:00:01:01; r2's 198.18.100.2, ...:02), each
// router with a static route to the other's network over it. A test adds its own routes,
// neighbours, nodes, links and parameters to these pieces.
#pragma once

#include <string>
#include <vector>

namespace fastpath::testing {

/// A node of a topology file; `routes` and `neighbours` are YAML flow maps
/// ("{prefix: ..., dev: ...}").
struct PlanNode {
  std::string name;
  std::string host;  ///< "": no host: line
  std::vector<std::string> interfaces;
  std::vector<std::string> routes;
  std::vector<std::string> neighbours;
};

/// One end of a link: its node, MAC and MTU (0: no mtu: key).
struct PlanLinkEnd {
  std::string node;
  std::string mac;
  int mtu = 0;
};

/// A link of a topology file; empty strings and 0 leave their keys out.
struct PlanLink {
  std::string name;
  int vlan = 0;
  PlanLinkEnd a, b;
  std::string params;
  std::string b_to_a;
};

/// The `hosts:` section: a and b, each with a wire to the other (wa on a, wb on b).
inline std::string twoHostsYaml() {
  return "hosts:\n"
         "  - name: a\n"
         "    wires: [{peer: b, interface: wa}]\n"
         "  - name: b\n"
         "    wires: [{peer: a, interface: wb}]\n";
}

/// `node` as an item of `nodes:`, one key a line.
inline std::string yaml(const PlanNode& node) {
  std::string out = "  - name: " + node.name + "\n";
  if (!node.host.empty()) out += "    host: " + node.host + "\n";
  if (!node.interfaces.empty()) {
    out += "    interfaces: [";
    for (size_t i = 0; i < node.interfaces.size(); ++i)
      out += (i ? ", " : "") + node.interfaces[i];
    out += "]\n";
  }
  for (const auto& [key, items] : {std::pair{"routes", &node.routes},
                                   std::pair{"neighbours", &node.neighbours}}) {
    if (items->empty()) continue;
    out += std::string("    ") + key + ":\n";
    for (const auto& item : *items) out += "      - " + item + "\n";
  }
  return out;
}

/// `link` as an item of `links:`, one key a line.
inline std::string yaml(const PlanLink& link) {
  auto end = [](const PlanLinkEnd& e) {
    return "{node: " + e.node + ", mac: \"" + e.mac + "\"" +
           (e.mtu ? ", mtu: " + std::to_string(e.mtu) : std::string()) + "}";
  };
  std::string out = "  - name: " + link.name + "\n";
  if (link.vlan) out += "    vlan: " + std::to_string(link.vlan) + "\n";
  out += "    a: " + end(link.a) + "\n";
  out += "    b: " + end(link.b) + "\n";
  if (!link.params.empty()) out += "    params: \"" + link.params + "\"\n";
  if (!link.b_to_a.empty()) out += "    b_to_a: \"" + link.b_to_a + "\"\n";
  return out;
}

/// r1 on host a: interface fa0, the route to r2's network over r1-r2, r2's end as neighbour.
inline PlanNode r1OnHostA() {
  return {"r1", "a", {"fa0"},
          {"{prefix: 198.18.2.0/24, via: 198.18.100.2, dev: r1-r2}"},
          {"{ip: 198.18.100.2, mac: \"02:00:00:00:01:02\", dev: r1-r2}"}};
}

/// r2 on host b: interface fb0, the route to r1's network over r1-r2, r1's end as neighbour.
inline PlanNode r2OnHostB() {
  return {"r2", "b", {"fb0"},
          {"{prefix: 198.18.1.0/24, via: 198.18.100.1, dev: r1-r2}"},
          {"{ip: 198.18.100.1, mac: \"02:00:00:00:01:01\", dev: r1-r2}"}};
}

/// Link r1-r2 with the MACs r1OnHostA and r2OnHostB name as neighbours.
inline PlanLink r1r2Link() {
  return {"r1-r2", 0, {"r1", "02:00:00:00:01:01"}, {"r2", "02:00:00:00:01:02"}, "", ""};
}

}  // namespace fastpath::testing
