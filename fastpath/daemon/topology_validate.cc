// SPDX-License-Identifier: GPL-2.0-only
// Validating a topology: every rule that needs no system access, checked over the whole
// topology so that every problem is reported at once, each with its line.
#include <net/if.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <map>

#include "daemon/topology.h"
#include "daemon/topology_internal.h"
#include "fastpath/names.h"

namespace fastpath {
namespace topology_detail {

Status Problems::status() {
  if (list_.empty()) return {};
  std::stable_sort(list_.begin(), list_.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::string msg;
  for (size_t i = 0; i < list_.size() && i < kMaxProblemsShown; ++i)
    msg += (i ? "\n" : "") + list_[i].second;
  if (list_.size() > kMaxProblemsShown)
    msg += "\n" + origin_ + ": " + std::to_string(list_.size() - kMaxProblemsShown) +
           " more problems not shown: fix the ones above first";
  return makeError(-EINVAL, msg);
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

namespace {

constexpr uint32_t kMinMtu = 68;  // RFC 791: every IPv4 host must take 68 bytes
constexpr uint32_t kMaxMtu = 65535;

/// One pass over a topology; the checks of each kind of entry in their own method, in the
/// order their names are needed (nodes, then ports, then what refers to ports).
class Validator {
 public:
  Validator(const Topology& t, const std::string& origin, const Lines* lines)
      : t_(t), lines_(lines), p_(origin) {}

  Status run() {
    limits();
    nodes();
    interfaces();
    links();
    segments();
    checkHosts(t_, &p_);
    for (size_t n = 0; n < t_.nodes.size(); ++n) {
      routes(n);
      neighbours(n);
    }
    return p_.status();
  }

 private:
  /// What holds a port of a node, and where.
  struct Holder {
    std::string what;  // "interface eth0", "link l1's port"
    int line;
  };

  /// Where a port on a link or segment is checked from.
  struct PortUse {
    std::string what;   // "link l1: a", "segment lan: port 0 (node r1)", for messages
    int line;           // of the end or port
    std::string owner;  // "link l1", "segment lan": the port holder is "OWNER's port"
    std::string name;   // the link's or segment's name (an invalid one was reported)
    const char* noun;   // "end" or "port": "give this NOUN another name"
    bool claim;         // check the port's name and claim it in its node
  };

  // Lines: those of a parsed file's entries, or the entry's own line.
  int ifLine(size_t n, size_t k) const {
    return lines_ && k < lines_->nodes[n].interfaces.size() ? lines_->nodes[n].interfaces[k]
                                                            : t_.nodes[n].line;
  }
  int routeLine(size_t n, size_t k) const {
    return lines_ && k < lines_->nodes[n].routes.size() ? lines_->nodes[n].routes[k]
                                                        : t_.nodes[n].line;
  }
  int neighLine(size_t n, size_t k) const {
    return lines_ && k < lines_->nodes[n].neighbours.size() ? lines_->nodes[n].neighbours[k]
                                                            : t_.nodes[n].line;
  }
  int endLine(size_t l, bool b) const {
    int line = lines_ ? (b ? lines_->links[l].b : lines_->links[l].a) : 0;
    return line ? line : t_.links[l].line;
  }
  int emulationLine(size_t l, bool b_to_a) const {
    int line = lines_ ? (b_to_a ? lines_->links[l].b_to_a : lines_->links[l].a_to_b) : 0;
    return line ? line : t_.links[l].line;
  }
  int segmentPortLine(size_t s, size_t k) const {
    return lines_ && s < lines_->segments.size() && k < lines_->segments[s].ports.size()
               ? lines_->segments[s].ports[k]
               : t_.segments[s].line;
  }
  int segmentParamsLine(size_t s) const {
    return lines_ && s < lines_->segments.size() && lines_->segments[s].params
               ? lines_->segments[s].params
               : t_.segments[s].line;
  }

  bool known(const std::string& node) const {
    return node_line_.count(node) || node == kDefaultNodeName;
  }

  /// Limits of one daemon. Node "default" always exists, declared or not.
  void limits() {
    bool default_declared = std::any_of(t_.nodes.begin(), t_.nodes.end(), [](const auto& n) {
      return n.spec.name == kDefaultNodeName;
    });
    size_t max_declared = kMaxNodes - (default_declared ? 0 : 1);
    if (t_.nodes.size() > max_declared)
      p_.add(t_.nodes[max_declared].line,
             std::to_string(t_.nodes.size()) + " nodes: a fastpathd holds at most " +
                 std::to_string(kMaxNodes) + " (node default included), this is the first one " +
                 "too many: remove " + std::to_string(t_.nodes.size() - max_declared) +
                 " node(s) or spread them over several fastpathd");
    if (t_.links.size() > kMaxLinks)
      p_.add(t_.links[kMaxLinks].line,
             std::to_string(t_.links.size()) + " links: a fastpathd holds at most " +
                 std::to_string(kMaxLinks) + ", this is the first one too many: remove " +
                 std::to_string(t_.links.size() - kMaxLinks) + " link(s)");
    else if (t_.links.size() + t_.segments.size() > kMaxLinks)
      p_.add(t_.segments[kMaxLinks - t_.links.size()].line,
             std::to_string(t_.links.size()) + " links and " + std::to_string(t_.segments.size()) +
                 " segments: a fastpathd holds at most " + std::to_string(kMaxLinks) +
                 " together, this is the first one too many: remove " +
                 std::to_string(t_.links.size() + t_.segments.size() - kMaxLinks) +
                 " segment(s)");
    size_t interfaces = 0;
    for (size_t n = 0; n < t_.nodes.size(); ++n)
      for (size_t k = 0; k < t_.nodes[n].interfaces.size(); ++k)
        if (++interfaces == kMaxInterfacePorts + 1)
          p_.add(ifLine(n, k), "interface " + t_.nodes[n].interfaces[k] + ": more than " +
                                   std::to_string(kMaxInterfacePorts) +
                                   " interfaces in all nodes (the most a fastpathd serves): "
                                   "remove some");
  }

  void nodes() {
    for (const auto& n : t_.nodes) {
      const std::string& name = n.spec.name;
      if (!validName(name)) p_.add(n.line, nameRule("node", name));
      auto [it, fresh] = node_line_.emplace(name, n.line);
      if (!fresh)
        p_.add(n.line, "node " + name + " is defined twice (first at line " +
                           std::to_string(it->second) + "): rename or merge one");
      if (n.spec.host.empty())
        p_.add(n.line, "node " + name + ": host is empty: leave it out for 'local'");
    }
  }

  /// The interface ports of every node: the first ports claimed.
  void interfaces() {
    std::map<std::string, std::pair<std::string, int>> interface_node;  // ifname -> node, line
    for (size_t n = 0; n < t_.nodes.size(); ++n) {
      const auto& node = t_.nodes[n];
      const std::string& nn = node.spec.name;
      for (size_t k = 0; k < node.interfaces.size(); ++k) {
        const std::string& ifname = node.interfaces[k];
        int line = ifLine(n, k);
        if (!validIfname(ifname)) p_.add(line, "node " + nn + ": " + ifnameRule(ifname));
        auto [it, fresh] = interface_node.emplace(ifname, std::make_pair(nn, line));
        if (!fresh) {
          if (it->second.first == nn)
            p_.add(line, "node " + nn + ": interface " + ifname +
                             " is listed twice (first at line " +
                             std::to_string(it->second.second) + "): list it once");
          else
            p_.add(line, "node " + nn + ": interface " + ifname + " already belongs to node " +
                             it->second.first + " (line " + std::to_string(it->second.second) +
                             "): an interface is in one node only: remove it from one of them");
          continue;
        }
        ports_[nn].emplace(ifname, Holder{"interface " + ifname, line});
      }
    }
  }

  /// The rule of a port on a link or segment: its node is known, its name is valid and not
  /// taken in its node, its MTU is in range, its MAC (when given) is unicast and unique.
  void port(const PortSpec& e, const PortUse& u) {
    if (!known(e.node)) {
      p_.add(u.line, u.what + ": node '" + e.node +
                         "' is not defined: add it under 'nodes:' or correct the name");
    } else if (u.claim) {
      if (!validName(e.port)) {
        if (e.port != u.name) p_.add(u.line, u.what + ": " + nameRule("port", e.port));
      } else {
        auto [it, fresh] = ports_[e.node].emplace(e.port, Holder{u.owner + "'s port", u.line});
        if (!fresh)
          p_.add(u.line, u.what + ": node " + e.node + " already has a port " + e.port + " (" +
                             it->second.what + ", line " + std::to_string(it->second.line) +
                             "): give this " + u.noun + " another name with 'port:'");
      }
    }
    if (e.mtu < kMinMtu || e.mtu > kMaxMtu)
      p_.add(u.line, u.what + ": mtu " + std::to_string(e.mtu) + " is out of range: use " +
                         std::to_string(kMinMtu) + ".." + std::to_string(kMaxMtu));
    if (!e.mac.isZero()) {
      if (e.mac.bytes[0] & 1)
        p_.add(u.line, u.what + ": mac " + e.mac.toString() +
                           " is multicast: use a unicast address such as 02:00:00:00:01:01");
      auto [it, fresh] = macs_.emplace(e.mac.bytes, Holder{u.what, u.line});
      if (!fresh)
        p_.add(u.line, u.what + ": mac " + e.mac.toString() + " is already used by " +
                           it->second.what + " (line " + std::to_string(it->second.line) +
                           "): give each " + u.noun +
                           " its own MAC, or leave 'mac' out to have one generated");
    }
  }

  void links() {
    for (size_t l = 0; l < t_.links.size(); ++l) {
      const auto& link = t_.links[l];
      const std::string& name = link.spec.name;
      const std::string what = "link " + name;
      if (!validName(name)) p_.add(link.line, nameRule("link", name));
      auto [it, fresh] = link_line_.emplace(name, link.line);
      if (!fresh)
        p_.add(link.line, what + " is defined twice (first at line " +
                              std::to_string(it->second) + "): rename one");
      // A file's parameters were checked as they were read; a Topology built in code is not.
      for (bool b_to_a : {false, true})
        if (auto st = validateLinkParams(b_to_a ? link.spec.b_to_a : link.spec.a_to_b); !st)
          p_.add(emulationLine(l, b_to_a),
                 what + ": " + (b_to_a ? "b_to_a" : "a_to_b") + ": " + st.error().message);
      bool self = link.spec.a.node == link.spec.b.node;
      if (self)
        p_.add(link.line, what + ": both ends are on node " + link.spec.a.node +
                              ": a link joins two different nodes: change a or b");
      for (bool is_b : {false, true})
        port(is_b ? link.spec.b : link.spec.a,
             PortUse{what + ": " + (is_b ? "b" : "a"), endLine(l, is_b), what, name, "end", !self});
    }
  }

  /// Segments: 1 .. kMaxSegmentPorts known nodes, each once, with ports as a link end's.
  void segments() {
    std::map<std::string, int> segment_line;
    for (size_t s = 0; s < t_.segments.size(); ++s) {
      const auto& seg = t_.segments[s];
      const std::string& name = seg.spec.name;
      const std::string what = "segment " + name;
      if (!validName(name)) p_.add(seg.line, nameRule("segment", name));
      if (auto lit = link_line_.find(name); lit != link_line_.end())
        p_.add(seg.line, what + ": link " + name + " (line " + std::to_string(lit->second) +
                             ") has that name: links and segments share names; rename one");
      auto [it, fresh] = segment_line.emplace(name, seg.line);
      if (!fresh)
        p_.add(seg.line, what + " is defined twice (first at line " + std::to_string(it->second) +
                             "): rename one");
      if (seg.spec.ports.empty() || seg.spec.ports.size() > kMaxSegmentPorts)
        p_.add(seg.line, what + ": " + std::to_string(seg.spec.ports.size()) +
                             " ports: a segment joins 1 to " + std::to_string(kMaxSegmentPorts) +
                             " nodes");
      if (auto st = validateLinkParams(seg.spec.params); !st)
        p_.add(segmentParamsLine(s), what + ": params: " + st.error().message);
      std::map<std::string, int> on_segment;  // node -> line
      for (size_t k = 0; k < seg.spec.ports.size(); ++k) {
        const PortSpec& e = seg.spec.ports[k];
        PortUse u{what + ": port " + std::to_string(k) + " (node " + e.node + ")",
                  segmentPortLine(s, k), what, name, "port", true};
        if (known(e.node)) {
          if (auto [nit, nfresh] = on_segment.emplace(e.node, u.line); !nfresh) {
            p_.add(u.line, u.what + ": node " + e.node + " is on the segment already (line " +
                               std::to_string(nit->second) + "): a node has one port on a segment");
            u.claim = false;
          }
        }
        port(e, u);
      }
    }
  }

  /// "use one of p1, p2", or how to give the node a port.
  std::string portList(const std::string& node) {
    std::vector<std::string> names;
    for (const auto& [port, holder] : ports_[node]) names.push_back(port);
    if (names.empty()) return "it has no port: add 'interfaces:', a link or a segment";
    if (names.size() > 8) names.resize(8), names.push_back("...");
    return "use one of " + joined(names);
  }

  /// The port of a route or neighbour: given, and a port of its node.
  void dev(const std::string& dev, const std::string& node, const std::string& what, int line) {
    if (dev.empty())
      p_.add(line, what + " has no dev: add 'dev: PORT' (" + portList(node) + ")");
    else if (!ports_[node].count(dev))
      p_.add(line, what + ": dev " + dev + " is not a port of node " + node + ": " +
                       portList(node));
  }

  /// Routes: on ports of their node, prefixes normalised and given once.
  void routes(size_t n) {
    const auto& node = t_.nodes[n];
    const std::string& nn = node.spec.name;
    std::map<std::string, int> prefixes;
    for (size_t k = 0; k < node.routes.size(); ++k) {
      const RouteConfig& r = node.routes[k];
      const std::string what = "node " + nn + ": route " + r.prefix.toString();
      int line = routeLine(n, k);
      dev(r.dev, nn, what, line);
      if (r.prefix.hostBitsSet())
        p_.add(line, what + ": host bits set: use " + r.prefix.normalised().toString());
      if (r.via.family != r.prefix.address.family)
        p_.add(line, what + ": via " + r.via.toString() +
                         " is not of the prefix's address family: use an " +
                         (r.prefix.address.family == Family::kIpv4 ? "IPv4" : "IPv6") +
                         " next hop");
      auto [it, fresh] = prefixes.emplace(r.prefix.toString(), line);
      if (!fresh)
        p_.add(line, what + " is given twice (first at line " + std::to_string(it->second) +
                         "): keep one");
    }
  }

  /// Neighbours: on ports of their node, a unicast MAC, one MAC per address and port.
  void neighbours(size_t n) {
    const auto& node = t_.nodes[n];
    const std::string& nn = node.spec.name;
    std::map<std::string, std::pair<MacAddress, int>> neighs;  // ip%dev -> mac, line
    for (size_t k = 0; k < node.neighbours.size(); ++k) {
      const NeighbourConfig& nb = node.neighbours[k];
      const std::string what = "node " + nn + ": neighbour " + nb.ip.toString();
      int line = neighLine(n, k);
      dev(nb.dev, nn, what, line);
      if (nb.mac.isZero())
        p_.add(line, what + ": mac 00:00:00:00:00:00 is not valid: give the neighbour's MAC");
      else if (nb.mac.bytes[0] & 1)
        p_.add(line, what + ": mac " + nb.mac.toString() + " is multicast: give a unicast MAC");
      auto [it, fresh] =
          neighs.emplace(nb.ip.toString() + "%" + nb.dev, std::make_pair(nb.mac, line));
      if (!fresh && it->second.first != nb.mac)
        p_.add(line, what + " on " + nb.dev + " is given with two MACs (" +
                         it->second.first.toString() + " at line " +
                         std::to_string(it->second.second) + ", " + nb.mac.toString() +
                         "): keep the right one");
    }
  }

  const Topology& t_;
  const Lines* lines_;
  Problems p_;
  std::map<std::string, int> node_line_;  // name -> line of its first definition
  std::map<std::string, int> link_line_;
  /// The ports of every node: interfaces, then link and segment ports.
  std::map<std::string, std::map<std::string, Holder>> ports_;
  std::map<std::array<uint8_t, 6>, Holder> macs_;  // -> the end or port that has it
};

}  // namespace

Status validate(const Topology& t, const std::string& origin, const Lines* lines) {
  return Validator(t, origin, lines).run();
}

}  // namespace topology_detail

Status validateTopology(const Topology& topology, const std::string& origin) {
  return topology_detail::validate(topology, origin, nullptr);
}

Status checkTopologyInterfaces(const Topology& topology, const std::string& origin) {
  topology_detail::Problems p(origin);
  for (const auto& node : topology.nodes)
    for (const auto& ifname : node.interfaces)
      if (if_nametoindex(ifname.c_str()) == 0)
        p.add(node.line, "node " + node.spec.name + ": interface " + ifname +
                             " does not exist in this network namespace: create it, correct the "
                             "name, or run fastpathd in the namespace that holds it");
  return p.status();
}

}  // namespace fastpath
