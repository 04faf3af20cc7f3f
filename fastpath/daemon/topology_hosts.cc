// SPDX-License-Identifier: GPL-2.0-only
// A topology over several hosts: the checks of `hosts:` and the nodes' `host`, and the part
// of the topology one host runs (host_plan.h).
#include <algorithm>
#include <cerrno>
#include <map>
#include <set>

#include "daemon/host_plan.h"
#include "daemon/topology_internal.h"
#include "fastpath/names.h"

namespace fastpath {
namespace topology_detail {
namespace {

std::vector<std::string> hostNames(const Topology& t) {
  std::vector<std::string> v;
  for (const auto& h : t.hosts) v.push_back(h.name);
  return v;
}

const TopologyWire* wireTo(const TopologyHost& h, const std::string& peer) {
  for (const auto& w : h.wires)
    if (w.peer == peer) return &w;
  return nullptr;
}

/// A wire's encapsulation: complete, and the same seen from both ends.
void checkEncap(const TopologyHost& h, const TopologyWire& w,
                const std::map<std::string, const TopologyHost*>& hosts, Problems* p) {
  const std::string what = "host " + h.name + ": wire to " + w.peer;
  const WireEncap& e = w.encap;
  if (e.kind == WireEncap::kVlan) {
    if (e.underlay != IpAddress{} || e.peer_underlay != IpAddress{} || e.port != 4789)
      p->add(w.line, what + ": underlay, peer_underlay and port are for 'encap: vxlan'");
    return;
  }
  for (const auto& [key, a] : {std::pair{"underlay", e.underlay}, {"peer_underlay", e.peer_underlay}})
    if (!validUnderlayAddress(a))
      p->add(w.line, what + ": VXLAN needs " + key + ", a unicast IPv4 address (" +
                         (a == IpAddress{} ? "none given" : a.toString()) + ")" +
                         (std::string(key) == "underlay" ? ": this host's on " + w.interface
                                                         : ": host " + w.peer + "'s"));
  if (e.underlay == e.peer_underlay && e.underlay != IpAddress{})
    p->add(w.line, what + ": underlay and peer_underlay are both " + e.underlay.toString() +
                       ": each host has its own");
  auto peer = hosts.find(w.peer);
  if (peer == hosts.end()) return;
  const TopologyWire* back = wireTo(*peer->second, h.name);
  if (!back) return;
  const WireEncap& b = back->encap;
  if (b.kind != e.kind)
    p->add(w.line, what + " is VXLAN, host " + w.peer + "'s wire to " + h.name +
                       " is 802.1Q: give both ends the same encap");
  else if (b.underlay != e.peer_underlay || b.peer_underlay != e.underlay || b.port != e.port)
    p->add(w.line, what + ": underlay " + e.underlay.toString() + ", peer_underlay " +
                       e.peer_underlay.toString() + ", port " + std::to_string(e.port) +
                       " do not match host " + w.peer + "'s wire (underlay " +
                       b.underlay.toString() + ", peer_underlay " + b.peer_underlay.toString() +
                       ", port " + std::to_string(b.port) + "): each end's underlay is the "
                       "other's peer_underlay, and the port is the same");
}

}  // namespace

void checkHosts(const Topology& t, Problems* p) {
  std::map<std::string, const TopologyHost*> hosts;
  for (const auto& h : t.hosts) {
    if (!validName(h.name)) p->add(h.line, nameRule("host", h.name));
    if (h.name == kLocalHost)
      p->add(h.line, "host local: 'local' means one host; name the hosts of a scenario");
    if (!hosts.emplace(h.name, &h).second)
      p->add(h.line, "host " + h.name + " is declared twice: keep one");
  }
  const std::string declared = joined(hostNames(t));
  for (const auto& h : t.hosts) {
    std::set<std::string> peers;
    for (const auto& w : h.wires) {
      const std::string what = "host " + h.name + ": wire to " + w.peer;
      if (!validIfname(w.interface)) p->add(w.line, what + ": " + ifnameRule(w.interface));
      if (w.peer == h.name) p->add(w.line, what + ": a wire joins two different hosts");
      else if (!hosts.count(w.peer))
        p->add(w.line, what + ": host " + w.peer + " is not declared (hosts: " + declared + ")");
      else if (!wireTo(*hosts[w.peer], h.name))
        p->add(w.line, what + ": host " + w.peer + " declares no wire to " + h.name +
                           ": give both ends of the wire");
      if (!peers.insert(w.peer).second)
        p->add(w.line, what + " is given twice: one wire per pair of hosts");
      checkEncap(h, w, hosts, p);
    }
  }
  std::map<std::string, std::string> node_host;
  for (const auto& n : t.nodes) {
    node_host[n.spec.name] = n.spec.host;
    if (n.spec.host == kLocalHost) {
      if (!t.hosts.empty())
        p->add(n.line, "node " + n.spec.name + " has no host: with 'hosts:' every node names " +
                           "its host (one of " + declared + ")");
    } else if (!n.spec.host.empty() && !hosts.count(n.spec.host)) {
      p->add(n.line, "node " + n.spec.name + ": host '" + n.spec.host +
                         "' is not declared under 'hosts:'" +
                         (t.hosts.empty() ? "" : " (declared: " + declared + ")") +
                         ": add it or correct the name");
    }
  }
  // Links between hosts need a wire; their VLANs are unique per wire.
  std::map<std::pair<std::string, std::string>, std::map<uint16_t, std::string>> vlans;
  for (const auto& l : t.links) {
    const std::string ha = node_host[l.spec.a.node], hb = node_host[l.spec.b.node];
    if (ha == hb || !hosts.count(ha) || !hosts.count(hb)) {
      if (l.vlan && ha == hb)
        p->add(l.line, "link " + l.spec.name + ": vlan is for links between two hosts; both "
                       "ends are on " + ha + ": leave it out");
      continue;
    }
    if (!wireTo(*hosts[ha], hb) || !wireTo(*hosts[hb], ha)) {
      p->add(l.line, "link " + l.spec.name + " joins hosts " + ha + " and " + hb +
                         ", which have no wire: add 'wires: [{peer: " + hb +
                         ", interface: ...}]' to host " + ha + " and the reverse to " + hb);
      continue;
    }
    const bool vxlan = wireTo(*hosts[ha], hb)->encap.kind == WireEncap::kVxlan;
    if (l.vlan && l.vni != vxlan)
      p->add(l.line, "link " + l.spec.name + ": " + (l.vni ? "vni" : "vlan") +
                         " on the wire " + ha + " - " + hb + ", which is " +
                         (vxlan ? "VXLAN: write vni" : "802.1Q: write vlan"));
    if (!l.vlan) continue;
    auto& used = vlans[std::minmax(ha, hb)];
    if (auto [it, fresh] = used.emplace(l.vlan, l.spec.name); !fresh)
      p->add(l.line, "link " + l.spec.name + ": " + (vxlan ? "vni " : "vlan ") + std::to_string(l.vlan) +
                         " is link " + it->second + "'s on the wire " + ha + " - " + hb +
                         ": one " + (vxlan ? "VNI" : "VLAN") + " per link");
  }
  for (const auto& s : t.segments) {
    std::set<std::string> on;
    for (const auto& port : s.spec.ports) on.insert(node_host[port.node]);
    if (on.size() > 1)
      p->add(s.line, "segment " + s.spec.name + " has ports on hosts " +
                         joined({on.begin(), on.end()}) +
                         ": a segment is emulated by one host; keep its nodes on one");
  }
}

}  // namespace topology_detail

Status validateRunTag(const std::string& tag) {
  if (tag.empty() || tag.size() > 6 ||
      tag.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789") != std::string::npos)
    return makeError(-EINVAL, "run tag '" + tag + "': use 1..6 characters of a-z 0-9");
  return {};
}

std::string wireDeviceName(const std::string& tag, uint16_t vlan) {
  return "fpw" + tag + "-" + std::to_string(vlan);
}

std::string wireLinkEndName(const std::string& tag, uint16_t vlan) {
  return "fpx" + tag + "-" + std::to_string(vlan);
}

MacAddress crossLinkMac(const std::string& link, char end) {
  // FNV-1a over "link/end": stable across hosts and builds.
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : link + "/" + end) h = (h ^ uint8_t(c)) * 0x100000001b3ULL;
  MacAddress m;
  m.bytes[0] = 0x06;  // locally administered, unicast
  for (int i = 1; i < 6; ++i) m.bytes[size_t(i)] = uint8_t(h >> (8 * i));
  return m;
}

Result<HostPlan> planForHost(const Topology& t, const std::string& host,
                             const std::string& run_tag) {
  HostPlan plan;
  if (t.hosts.empty()) {
    if (host != kLocalHost)
      return makeError(-EINVAL, "--host-name " + host + ": the topology declares no 'hosts:'; "
                                "leave --host-name out or declare the hosts");
    plan.local = t;
    return plan;
  }
  const TopologyHost* self = nullptr;
  for (const auto& h : t.hosts)
    if (h.name == host) self = &h;
  if (!self)
    return makeError(-EINVAL, "--host-name " + host + " is not one of the topology's hosts (" +
                                  topology_detail::joined(topology_detail::hostNames(t)) + ")");
  std::map<std::string, std::string> node_host;
  for (const auto& n : t.nodes) node_host[n.spec.name] = n.spec.host;
  plan.local.hosts = t.hosts;
  // VLANs first, over every link in the file's order, so that all hosts agree.
  std::map<std::pair<std::string, std::string>, std::set<uint16_t>> used;
  for (const auto& l : t.links)
    if (l.vlan) used[std::minmax(node_host[l.spec.a.node], node_host[l.spec.b.node])].insert(l.vlan);
  std::map<std::string, TopologyNode*> local_nodes;
  for (const auto& n : t.nodes)
    if (n.spec.host == host) plan.local.nodes.push_back(n);
  for (auto& n : plan.local.nodes) local_nodes[n.spec.name] = &n;
  for (const auto& l : t.links) {
    const std::string ha = node_host[l.spec.a.node], hb = node_host[l.spec.b.node];
    uint16_t vlan = l.vlan;
    if (ha != hb && !vlan) {
      auto& u = used[std::minmax(ha, hb)];
      for (vlan = 2; u.count(vlan); ++vlan) {
      }
      if (vlan > 4094)
        return makeError(-ENOSPC, "link " + l.spec.name + ": more than 4093 links between " +
                                      ha + " and " + hb + ": no VLAN or VNI left");
      u.insert(vlan);
    }
    if (ha == host && hb == host) plan.local.links.push_back(l);
    if ((ha == host) == (hb == host)) continue;
    const bool a_here = ha == host;
    const LinkEndSpec& mine = a_here ? l.spec.a : l.spec.b;
    const LinkEndSpec& theirs = a_here ? l.spec.b : l.spec.a;
    CrossHostLink x;
    x.name = l.spec.name;
    x.end = a_here ? 'a' : 'b';
    x.node = mine.node;
    x.port = mine.port;
    x.mac = mine.mac.isZero() ? crossLinkMac(l.spec.name, a_here ? 'a' : 'b') : mine.mac;
    x.peer_mac = theirs.mac.isZero() ? crossLinkMac(l.spec.name, a_here ? 'b' : 'a') : theirs.mac;
    x.mtu = mine.mtu;
    x.vlan = vlan;
    x.peer_host = a_here ? hb : ha;
    x.wire = topology_detail::wireTo(*self, x.peer_host)->interface;
    x.encap = topology_detail::wireTo(*self, x.peer_host)->encap;
    x.device = wireDeviceName(run_tag, vlan);
    x.egress = a_here ? l.spec.a_to_b : l.spec.b_to_a;
    x.line = l.line;
    // The node's port is the VLAN device: its routes and neighbours follow the port.
    TopologyNode* n = local_nodes[x.node];
    n->interfaces.push_back(x.device);
    for (auto& r : n->routes)
      if (r.dev == x.port) r.dev = x.device;
    for (auto& nb : n->neighbours)
      if (nb.dev == x.port) nb.dev = x.device;
    plan.cross.push_back(std::move(x));
  }
  for (const auto& s : t.segments)
    if (!s.spec.ports.empty() && node_host[s.spec.ports.front().node] == host)
      plan.local.segments.push_back(s);
  return plan;
}

}  // namespace fastpath
