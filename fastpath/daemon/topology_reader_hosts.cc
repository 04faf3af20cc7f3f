// SPDX-License-Identifier: GPL-2.0-only
// Reading a topology file's `hosts:` section: each host and its wires (the checks are in
// topology_hosts.cc).
#include "daemon/topology_reader.h"

namespace fastpath {
namespace topology_detail {

/// `{name: a, wires: [{peer: b, interface: eth1}]}`; a VXLAN wire adds `encap: vxlan,
/// underlay: A, peer_underlay: B` and maybe `port: P`.
void Reader::host(const YAML::Node& n) {
  TopologyHost h;
  h.line = lineOf(n);
  const std::string what = label(n, "host", topology.hosts.size());
  forEachKey(n, what, {"name", "wires"}, {"name"}, [&](const std::string& key, const YAML::Node& v) {
    if (key == "name") {
      scalar(v, what + ": name", &h.name);
      return;
    }
    forEachItem(v, what + ": wires", [&](const YAML::Node& item) {
      TopologyWire w;
      w.line = lineOf(item);
      forEachKey(item, what + ": wire",
                 {"peer", "interface", "encap", "underlay", "peer_underlay", "port"},
                 {"peer", "interface"}, [&](const std::string& k, const YAML::Node& x) {
                   const std::string wk = what + ": wire " + k;
                   if (k == "peer" || k == "interface") {
                     scalar(x, wk, k == "peer" ? &w.peer : &w.interface);
                   } else if (k == "encap") {
                     std::string e;
                     if (!scalar(x, wk, &e)) return;
                     if (e == "vxlan") w.encap.kind = WireEncap::kVxlan;
                     else if (e != "vlan")
                       p_->add(lineOf(x), wk + " '" + e + "': use vlan (802.1Q on a shared "
                                          "segment) or vxlan (UDP over a routed underlay)");
                   } else if (k == "port") {
                     uint64_t port = 0;
                     const bool ok = number(x, wk, kMaxVxlanPort, &port);
                     if (ok) w.encap.port = uint16_t(port);
                     if (ok && port == 0)
                       p_->add(lineOf(x), wk + " must be 1.." + std::to_string(kMaxVxlanPort) +
                                              " (the wire's probes use port + 1)");
                   } else {
                     ip(x, wk, k == "underlay" ? &w.encap.underlay : &w.encap.peer_underlay);
                   }
                 });
      h.wires.push_back(std::move(w));
    });
  });
  topology.hosts.push_back(std::move(h));
}

}  // namespace topology_detail
}  // namespace fastpath
