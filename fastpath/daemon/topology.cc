// SPDX-License-Identifier: GPL-2.0-only
// The topology file: yaml-cpp builds the document; this file maps it onto Topology with
// strict keys (a typo is an error, never ignored) and the line of every entry, then
// validates the whole. yaml-cpp throws; its exceptions stop here and become an Error.
#include "daemon/topology.h"

#include "daemon/yaml_documents.h"

#include <net/if.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

namespace fastpath {
namespace {

constexpr size_t kMaxNameLength = 31;      // node, link and link port names
constexpr size_t kMaxIfnameLength = 15;    // IFNAMSIZ - 1
constexpr size_t kMaxProblemsShown = 100;  // a broken generated file must not flood stderr
constexpr uint32_t kMinMtu = 68;           // RFC 791: every IPv4 host must take 68 bytes
constexpr uint32_t kMaxMtu = 65535;
constexpr const char* kGuide = "docs/fastpathd.md, \"Topology files\"";

/// Where the entries of a node or link were written (1-based lines), so that a message
/// points at the entry itself. Only a parsed file has them; a Topology built in code has
/// the node's or link's own line at most.
struct NodeLines {
  std::vector<int> interfaces, routes, neighbours;
};
struct LinkLines {
  int a = 0, b = 0;
  int a_to_b = 0, b_to_a = 0;  ///< where each direction's emulation was given
};
struct SegmentLines {
  std::vector<int> ports;
  int params = 0;
};
struct Lines {
  std::vector<NodeLines> nodes;
  std::vector<LinkLines> links;
  std::vector<SegmentLines> segments;
};

/// The problems found so far, each one line "origin:LINE: what: what to do", reported in
/// the order of the file's lines like a compiler's.
class Problems {
 public:
  explicit Problems(std::string origin) : origin_(std::move(origin)) {}

  void add(int line, const std::string& what) {
    list_.emplace_back(line, origin_ + (line > 0 ? ":" + std::to_string(line) : "") + ": " + what);
  }
  bool empty() const { return list_.empty(); }

  Status status() {
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

 private:
  std::string origin_;
  std::vector<std::pair<int, std::string>> list_;  // line, message
};

int lineOf(const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  return m.is_null() ? 0 : m.line + 1;
}

/// A node, link or link port name: the IPC's rule too (ctrl-bridge/src/wire_validate.h).
bool validName(const std::string& s) {
  if (s.empty() || s.size() > kMaxNameLength) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
  });
}
const char* const kNameRule = "1-31 characters of A-Z a-z 0-9 _ . -";

/// What the kernel accepts as an interface name (dev_valid_name).
bool validIfname(const std::string& s) {
  if (s.empty() || s.size() > kMaxIfnameLength || s == "." || s == "..") return false;
  return std::none_of(s.begin(), s.end(), [](char c) {
    return c == '/' || c == ':' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
  });
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// ---- Reading: the YAML document onto Topology, syntax only ----

class Reader {
 public:
  explicit Reader(Problems* problems) : p_(problems) {}

  void document(const YAML::Node& root) {
    if (root.IsNull()) {
      p_->add(1, "the document is empty: write a 'nodes:' list (see " + std::string(kGuide) + ")");
      return;
    }
    bool any = false;
    forEachKey(root, "the document", {"nodes", "links", "segments"}, {},
               [&](const std::string& key, const YAML::Node& v) {
                 any = true;
                 if (key == "nodes")
                   forEachItem(v, "nodes", [&](const YAML::Node& n) { node(n); });
                 else if (key == "links")
                   forEachItem(v, "links", [&](const YAML::Node& n) { link(n); });
                 else
                   forEachItem(v, "segments", [&](const YAML::Node& n) { segment(n); });
               });
    if (root.IsMap() && !any)
      p_->add(
          std::max(1, lineOf(root)),
          "the document defines nothing: write a 'nodes:' list (see " + std::string(kGuide) + ")");
  }

  Topology topology;
  Lines lines;

 private:
  /// Calls f(key, value) for every entry of a mapping. Reports a value that is not a
  /// mapping, keys that are not plain words, keys not in `allowed` (typos), keys given
  /// twice and `required` keys that are missing.
  template <typename F>
  void forEachKey(const YAML::Node& map, const std::string& what,
                  std::initializer_list<const char*> allowed,
                  std::initializer_list<const char*> required, F f) {
    if (!map.IsMap()) {
      p_->add(lineOf(map), what + " must be a mapping of 'key: value' entries");
      return;
    }
    std::vector<std::string> allowed_list(allowed.begin(), allowed.end());
    std::set<std::string> seen;
    for (const auto& kv : map) {
      const YAML::Node& k = kv.first;
      if (!k.IsScalar()) {
        p_->add(lineOf(k),
                what + ": a key must be a plain word (one of " + joined(allowed_list) + ")");
        continue;
      }
      const std::string& key = k.Scalar();
      if (std::find(allowed_list.begin(), allowed_list.end(), key) == allowed_list.end()) {
        p_->add(lineOf(k), what + ": unknown key '" + key + "': use one of " +
                               joined(allowed_list) + " (check the spelling)");
        continue;
      }
      if (!seen.insert(key).second) {
        p_->add(lineOf(k), what + ": '" + key + "' is given twice: keep one");
        continue;
      }
      f(key, kv.second);
    }
    for (const char* r : required)
      if (!seen.count(r)) p_->add(lineOf(map), what + " has no '" + r + "': add '" + r + ": ...'");
  }

  /// Calls f(item) for every item of a list; an empty value is an empty list.
  template <typename F>
  void forEachItem(const YAML::Node& seq, const std::string& what, F f) {
    if (seq.IsNull()) return;
    if (!seq.IsSequence()) {
      p_->add(lineOf(seq), what + " must be a list ('- item' lines or [a, b])");
      return;
    }
    for (const auto& item : seq) f(item);
  }

  bool scalar(const YAML::Node& v, const std::string& what, std::string* out) {
    if (v.IsNull()) {
      p_->add(lineOf(v), what + " is empty: give a value");
      return false;
    }
    if (!v.IsScalar()) {
      p_->add(lineOf(v), what +
                             " must be a single value (a word, a number or a quoted "
                             "string), not a list or a mapping");
      return false;
    }
    *out = v.Scalar();
    return true;
  }

  bool number(const YAML::Node& v, const std::string& what, uint64_t max, uint64_t* out) {
    std::string s;
    if (!scalar(v, what, &s)) return false;
    bool digits =
        !s.empty() && s.size() <= 20 && s.find_first_not_of("0123456789") == std::string::npos;
    errno = 0;
    unsigned long long x = digits ? std::strtoull(s.c_str(), nullptr, 10) : 0;
    if (!digits || errno || x > max) {
      p_->add(lineOf(v),
              what + " must be an integer 0.." + std::to_string(max) + ", not '" + s + "'");
      return false;
    }
    *out = x;
    return true;
  }

  bool ip(const YAML::Node& v, const std::string& what, IpAddress* out) {
    std::string s;
    if (!scalar(v, what, &s)) return false;
    auto a = IpAddress::parse(s);
    if (!a) {
      p_->add(lineOf(v), what + ": " + a.error().message + ": write e.g. 198.18.1.2 or 2001:2::2");
      return false;
    }
    *out = *a;
    return true;
  }

  bool mac(const YAML::Node& v, const std::string& what, MacAddress* out) {
    std::string s;
    if (!scalar(v, what, &s)) return false;
    auto m = MacAddress::parse(s);
    if (!m) {
      p_->add(lineOf(v), what + ": " + m.error().message + "; quote it: \"02:00:00:00:01:02\"");
      return false;
    }
    *out = *m;
    return true;
  }

  /// "node r1" when the mapping has a usable name, "node N" (its position) otherwise.
  static std::string label(const YAML::Node& n, const char* kind, size_t index) {
    if (n.IsMap())
      for (const auto& kv : n)
        if (kv.first.IsScalar() && kv.first.Scalar() == "name" && kv.second.IsScalar())
          return std::string(kind) + " " + kv.second.Scalar();
    return std::string(kind) + " #" + std::to_string(index + 1);
  }

  void node(const YAML::Node& n) {
    TopologyNode node;
    NodeLines nl;
    node.line = lineOf(n);
    const std::string what = label(n, "node", topology.nodes.size());
    forEachKey(n, what, {"name", "host", "interfaces", "routes", "neighbours"}, {"name"},
               [&](const std::string& key, const YAML::Node& v) {
                 if (key == "name") {
                   scalar(v, what + ": name", &node.spec.name);
                 } else if (key == "host") {
                   scalar(v, what + ": host", &node.spec.host);
                 } else if (key == "interfaces") {
                   forEachItem(v, what + ": interfaces", [&](const YAML::Node& item) {
                     std::string ifname;
                     if (!scalar(item, what + ": interface", &ifname)) return;
                     node.interfaces.push_back(ifname);
                     nl.interfaces.push_back(lineOf(item));
                   });
                 } else if (key == "routes") {
                   forEachItem(v, what + ": routes", [&](const YAML::Node& item) {
                     RouteConfig r;
                     if (!route(item, what, &r)) return;
                     node.routes.push_back(r);
                     nl.routes.push_back(lineOf(item));
                   });
                 } else {
                   forEachItem(v, what + ": neighbours", [&](const YAML::Node& item) {
                     NeighbourConfig nb;
                     if (!neighbour(item, what, &nb)) return;
                     node.neighbours.push_back(nb);
                     nl.neighbours.push_back(lineOf(item));
                   });
                 }
               });
    topology.nodes.push_back(std::move(node));
    lines.nodes.push_back(std::move(nl));
  }

  bool route(const YAML::Node& n, const std::string& node_what, RouteConfig* r) {
    bool ok = true, have_via = false;
    const std::string what = node_what + ": route";
    forEachKey(n, what, {"prefix", "via", "dev", "metric"}, {"prefix", "dev"},
               [&](const std::string& key, const YAML::Node& v) {
                 if (key == "prefix") {
                   std::string s;
                   if (!scalar(v, what + " prefix", &s)) {
                     ok = false;
                     return;
                   }
                   auto prefix = IpPrefix::parse(s);
                   if (!prefix) {
                     p_->add(lineOf(v), what + ": " + prefix.error().message +
                                            ": write ADDRESS/LENGTH, e.g. 198.18.2.0/24");
                     ok = false;
                     return;
                   }
                   r->prefix = *prefix;
                 } else if (key == "via") {
                   ok = ip(v, what + " via", &r->via) && ok;
                   have_via = true;
                 } else if (key == "dev") {
                   ok = scalar(v, what + " dev", &r->dev) && ok;
                 } else {
                   uint64_t m = 0;
                   ok = number(v, what + " metric", UINT32_MAX, &m) && ok;
                   r->metric = uint32_t(m);
                 }
               });
    // No via: on-link, an unspecified address of the prefix's family (as --route does).
    if (!have_via) r->via = IpAddress{r->prefix.address.family, {}};
    return ok;
  }

  bool neighbour(const YAML::Node& n, const std::string& node_what, NeighbourConfig* nb) {
    bool ok = true;
    const std::string what = node_what + ": neighbour";
    forEachKey(n, what, {"ip", "mac", "dev"}, {"ip", "mac", "dev"},
               [&](const std::string& key, const YAML::Node& v) {
                 if (key == "ip")
                   ok = ip(v, what + " ip", &nb->ip) && ok;
                 else if (key == "mac")
                   ok = mac(v, what + " mac", &nb->mac) && ok;
                 else
                   ok = scalar(v, what + " dev", &nb->dev) && ok;
               });
    return ok;
  }

  void link(const YAML::Node& n) {
    TopologyLink link;
    LinkLines ll;
    link.line = lineOf(n);
    const std::string what = label(n, "link", topology.links.size());
    // Emulation: `params` for both directions, then `a_to_b`/`b_to_a` on top of it.
    std::optional<YAML::Node> emulation[3];  // params, a_to_b, b_to_a
    forEachKey(n, what, {"name", "a", "b", "up", "params", "a_to_b", "b_to_a"}, {"name", "a", "b"},
               [&](const std::string& key, const YAML::Node& v) {
                 if (key == "name") {
                   scalar(v, what + ": name", &link.spec.name);
                 } else if (key == "a") {
                   end(v, what + ": a", &link.spec.a, &ll.a);
                 } else if (key == "b") {
                   end(v, what + ": b", &link.spec.b, &ll.b);
                 } else if (key == "up") {
                   if (!v.IsScalar() || !YAML::convert<bool>::decode(v, link.spec.up))
                     p_->add(lineOf(v), what + ": up must be true or false");
                 } else {
                   emulation[key == "params" ? 0 : key == "a_to_b" ? 1 : 2] = v;
                 }
               });
    if (emulation[0]) {
      ll.a_to_b = ll.b_to_a = lineOf(*emulation[0]);
      if (linkParams(*emulation[0], what + ": params", &link.spec.a_to_b))
        link.spec.b_to_a = link.spec.a_to_b;
    }
    if (emulation[1]) {
      ll.a_to_b = lineOf(*emulation[1]);
      linkParams(*emulation[1], what + ": a_to_b", &link.spec.a_to_b);
    }
    if (emulation[2]) {
      ll.b_to_a = lineOf(*emulation[2]);
      linkParams(*emulation[2], what + ": b_to_a", &link.spec.b_to_a);
    }
    // A link port is named after its link unless the end says otherwise.
    if (link.spec.a.port.empty()) link.spec.a.port = link.spec.name;
    if (link.spec.b.port.empty()) link.spec.b.port = link.spec.name;
    topology.links.push_back(std::move(link));
    lines.links.push_back(ll);
  }

  /// `{name: lan, ports: [r1, {node: r2, port: eth1, mac: M, mtu: N}], up: B, params: P}`
  void segment(const YAML::Node& n) {
    TopologySegment seg;
    SegmentLines sl;
    seg.line = lineOf(n);
    const std::string what = label(n, "segment", topology.segments.size());
    forEachKey(n, what, {"name", "ports", "up", "params"}, {"name", "ports"},
               [&](const std::string& key, const YAML::Node& v) {
                 if (key == "name") {
                   scalar(v, what + ": name", &seg.spec.name);
                 } else if (key == "ports") {
                   forEachItem(v, what + ": ports", [&](const YAML::Node& p) {
                     LinkEndSpec e;
                     int line = 0;
                     end(p, what + ": port " + std::to_string(seg.spec.ports.size()), &e, &line);
                     seg.spec.ports.push_back(SegmentPortSpec{e.node, e.port, e.mac, e.mtu});
                     sl.ports.push_back(line);
                   });
                 } else if (key == "up") {
                   if (!v.IsScalar() || !YAML::convert<bool>::decode(v, seg.spec.up))
                     p_->add(lineOf(v), what + ": up must be true or false");
                 } else {
                   sl.params = lineOf(v);
                   linkParams(v, what + ": params", &seg.spec.params);
                 }
               });
    // A segment port is named after its segment unless the entry says otherwise.
    for (auto& p : seg.spec.ports)
      if (p.port.empty()) p.port = seg.spec.name;
    topology.segments.push_back(std::move(seg));
    lines.segments.push_back(sl);
  }

  /// "rate 10mbit delay 5ms loss 1%": fpctl's words (applyLinkParamWords), applied on top
  /// of `p`; on error `p` is left as it was.
  bool linkParams(const YAML::Node& v, const std::string& what, LinkParams* p) {
    std::string text;
    if (!scalar(v, what, &text)) return false;
    std::vector<std::string> words;
    std::istringstream in(text);
    for (std::string w; in >> w;) words.push_back(w);
    if (words.empty()) {
      p_->add(lineOf(v), what +
                             " is empty: give the emulation, e.g. \"rate 10mbit delay 5ms "
                             "loss 1%\", or leave it out");
      return false;
    }
    if (auto st = applyLinkParamWords(words, p); !st) {
      p_->add(lineOf(v), what + ": " + st.error().message + " (the words of `fpctl link set`, " +
                             "see " + kGuide + ")");
      return false;
    }
    return true;
  }

  /// `b: r2` (the node alone) or `a: {node: r1, port: p, mac: M, mtu: N}`.
  void end(const YAML::Node& v, const std::string& what, LinkEndSpec* e, int* line) {
    *line = lineOf(v);
    if (v.IsScalar()) {
      e->node = v.Scalar();
      return;
    }
    if (!v.IsMap()) {
      p_->add(lineOf(v), what +
                             " must be a node name or {node: NODE, port: PORT, mac: MAC, "
                             "mtu: N}");
      return;
    }
    forEachKey(v, what, {"node", "port", "mac", "mtu"}, {"node"},
               [&](const std::string& key, const YAML::Node& x) {
                 if (key == "node") {
                   scalar(x, what + " node", &e->node);
                 } else if (key == "port") {
                   if (scalar(x, what + " port", &e->port) && e->port.empty())
                     p_->add(lineOf(x), what +
                                            ": port is empty: name it or leave 'port' out "
                                            "(the link's name is used)");
                 } else if (key == "mac") {
                   mac(x, what + " mac", &e->mac);
                 } else {
                   uint64_t mtu = 0;
                   if (number(x, what + " mtu", UINT32_MAX, &mtu)) e->mtu = uint32_t(mtu);
                 }
               });
  }

  Problems* p_;
};

// ---- Validation: the whole topology, every problem ----

Status validate(const Topology& t, const std::string& origin, const Lines* lines) {
  Problems p(origin);
  auto ifLine = [&](size_t n, size_t k) {
    return lines && k < lines->nodes[n].interfaces.size() ? lines->nodes[n].interfaces[k]
                                                          : t.nodes[n].line;
  };
  auto routeLine = [&](size_t n, size_t k) {
    return lines && k < lines->nodes[n].routes.size() ? lines->nodes[n].routes[k] : t.nodes[n].line;
  };
  auto neighLine = [&](size_t n, size_t k) {
    return lines && k < lines->nodes[n].neighbours.size() ? lines->nodes[n].neighbours[k]
                                                          : t.nodes[n].line;
  };
  auto endLine = [&](size_t l, bool b) {
    int line = lines ? (b ? lines->links[l].b : lines->links[l].a) : 0;
    return line ? line : t.links[l].line;
  };
  auto emulationLine = [&](size_t l, bool b_to_a) {
    int line = lines ? (b_to_a ? lines->links[l].b_to_a : lines->links[l].a_to_b) : 0;
    return line ? line : t.links[l].line;
  };

  // Limits of one daemon. Node "default" always exists, declared or not.
  bool default_declared = std::any_of(t.nodes.begin(), t.nodes.end(), [](const auto& n) {
    return n.spec.name == kDefaultNodeName;
  });
  size_t max_declared = kMaxNodes - (default_declared ? 0 : 1);
  if (t.nodes.size() > max_declared)
    p.add(t.nodes[max_declared].line,
          std::to_string(t.nodes.size()) + " nodes: a fastpathd holds at most " +
              std::to_string(kMaxNodes) + " (node default included), this is the first one " +
              "too many: remove " + std::to_string(t.nodes.size() - max_declared) +
              " node(s) or spread them over several fastpathd");
  if (t.links.size() > kMaxLinks)
    p.add(t.links[kMaxLinks].line,
          std::to_string(t.links.size()) + " links: a fastpathd holds at most " +
              std::to_string(kMaxLinks) + ", this is the first one too many: remove " +
              std::to_string(t.links.size() - kMaxLinks) + " link(s)");
  else if (t.links.size() + t.segments.size() > kMaxLinks)
    p.add(t.segments[kMaxLinks - t.links.size()].line,
          std::to_string(t.links.size()) + " links and " + std::to_string(t.segments.size()) +
              " segments: a fastpathd holds at most " + std::to_string(kMaxLinks) +
              " together, this is the first one too many: remove " +
              std::to_string(t.links.size() + t.segments.size() - kMaxLinks) + " segment(s)");
  size_t interfaces = 0;
  for (size_t n = 0; n < t.nodes.size(); ++n)
    for (size_t k = 0; k < t.nodes[n].interfaces.size(); ++k)
      if (++interfaces == kMaxInterfacePorts + 1)
        p.add(ifLine(n, k), "interface " + t.nodes[n].interfaces[k] + ": more than " +
                                std::to_string(kMaxInterfacePorts) +
                                " interfaces in all nodes (the most a fastpathd serves): "
                                "remove some");

  // Node names.
  std::map<std::string, int> node_line;  // name -> line of its first definition
  for (const auto& n : t.nodes) {
    const std::string& name = n.spec.name;
    if (!validName(name)) p.add(n.line, "node name '" + name + "' is not valid: use " + kNameRule);
    auto [it, fresh] = node_line.emplace(name, n.line);
    if (!fresh)
      p.add(n.line, "node " + name + " is defined twice (first at line " +
                        std::to_string(it->second) + "): rename or merge one");
    if (n.spec.host.empty())
      p.add(n.line, "node " + name + ": host is empty: leave it out for 'local'");
  }
  auto known = [&](const std::string& node) {
    return node_line.count(node) || node == kDefaultNodeName;
  };

  // The ports of every node: interfaces, then link ports. Value: what holds it, its line.
  std::map<std::string, std::map<std::string, std::pair<std::string, int>>> ports;
  std::map<std::string, std::pair<std::string, int>> interface_node;  // ifname -> node, line
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    const auto& node = t.nodes[n];
    for (size_t k = 0; k < node.interfaces.size(); ++k) {
      const std::string& ifname = node.interfaces[k];
      int line = ifLine(n, k);
      if (!validIfname(ifname))
        p.add(line, "node " + node.spec.name + ": interface name '" + ifname +
                        "' is not valid: 1-15 characters without '/', ':' or spaces");
      auto [it, fresh] = interface_node.emplace(ifname, std::make_pair(node.spec.name, line));
      if (!fresh) {
        if (it->second.first == node.spec.name)
          p.add(line, "node " + node.spec.name + ": interface " + ifname +
                          " is listed twice (first at line " + std::to_string(it->second.second) +
                          "): list it once");
        else
          p.add(line, "node " + node.spec.name + ": interface " + ifname +
                          " already belongs to node " + it->second.first + " (line " +
                          std::to_string(it->second.second) +
                          "): an interface is in one node only: remove it from one of them");
        continue;
      }
      ports[node.spec.name].emplace(ifname, std::make_pair("interface " + ifname, line));
    }
  }

  // Links.
  std::map<std::string, int> link_line;
  std::map<std::array<uint8_t, 6>, std::pair<std::string, int>> macs;  // -> end, line
  for (size_t l = 0; l < t.links.size(); ++l) {
    const auto& link = t.links[l];
    const std::string& name = link.spec.name;
    const std::string what = "link " + name;
    if (!validName(name))
      p.add(link.line, "link name '" + name + "' is not valid: use " + kNameRule);
    auto [it, fresh] = link_line.emplace(name, link.line);
    if (!fresh)
      p.add(link.line, what + " is defined twice (first at line " + std::to_string(it->second) +
                           "): rename one");
    // A file's parameters were checked as they were read; a Topology built in code is not.
    for (bool b_to_a : {false, true})
      if (auto st = validateLinkParams(b_to_a ? link.spec.b_to_a : link.spec.a_to_b); !st)
        p.add(emulationLine(l, b_to_a),
              what + ": " + (b_to_a ? "b_to_a" : "a_to_b") + ": " + st.error().message);
    bool self = link.spec.a.node == link.spec.b.node;
    if (self)
      p.add(link.line, what + ": both ends are on node " + link.spec.a.node +
                           ": a link joins two different nodes: change a or b");
    for (bool is_b : {false, true}) {
      const LinkEndSpec& e = is_b ? link.spec.b : link.spec.a;
      const std::string end_what = what + ": " + (is_b ? "b" : "a");
      int line = endLine(l, is_b);
      if (!known(e.node)) {
        p.add(line, end_what + ": node '" + e.node +
                        "' is not defined: add it under 'nodes:' or correct the name");
      } else if (!self) {
        if (!validName(e.port)) {
          if (e.port != name)  // an invalid link name was reported above
            p.add(line, end_what + ": port name '" + e.port + "' is not valid: use " + kNameRule);
        } else {
          auto [pit, pfresh] =
              ports[e.node].emplace(e.port, std::make_pair("link " + name + "'s port", line));
          if (!pfresh)
            p.add(line, end_what + ": node " + e.node + " already has a port " + e.port + " (" +
                            pit->second.first + ", line " + std::to_string(pit->second.second) +
                            "): give this end another name with 'port:'");
        }
      }
      if (e.mtu < kMinMtu || e.mtu > kMaxMtu)
        p.add(line, end_what + ": mtu " + std::to_string(e.mtu) + " is out of range: use " +
                        std::to_string(kMinMtu) + ".." + std::to_string(kMaxMtu));
      if (!e.mac.isZero()) {
        if (e.mac.bytes[0] & 1)
          p.add(line, end_what + ": mac " + e.mac.toString() +
                          " is multicast: use a unicast address such as 02:00:00:00:01:01");
        auto [mit, mfresh] = macs.emplace(e.mac.bytes, std::make_pair(end_what, line));
        if (!mfresh)
          p.add(line, end_what + ": mac " + e.mac.toString() + " is already used by " +
                          mit->second.first + " (line " + std::to_string(mit->second.second) +
                          "): give each end its own MAC, or leave 'mac' out to have one generated");
      }
    }
  }

  // Segments: 1 .. kMaxSegmentPorts known nodes, each once, with ports as a link end's.
  std::map<std::string, int> segment_line;
  for (size_t s = 0; s < t.segments.size(); ++s) {
    const auto& seg = t.segments[s];
    const std::string& name = seg.spec.name;
    const std::string what = "segment " + name;
    if (!validName(name))
      p.add(seg.line, "segment name '" + name + "' is not valid: use " + kNameRule);
    if (auto lit = link_line.find(name); lit != link_line.end())
      p.add(seg.line, what + ": link " + name + " (line " + std::to_string(lit->second) +
                          ") has that name: links and segments share names; rename one");
    auto [it, fresh] = segment_line.emplace(name, seg.line);
    if (!fresh)
      p.add(seg.line, what + " is defined twice (first at line " + std::to_string(it->second) +
                          "): rename one");
    if (seg.spec.ports.empty() || seg.spec.ports.size() > kMaxSegmentPorts)
      p.add(seg.line, what + ": " + std::to_string(seg.spec.ports.size()) +
                          " ports: a segment joins 1 to " + std::to_string(kMaxSegmentPorts) +
                          " nodes");
    if (auto st = validateLinkParams(seg.spec.params); !st) {
      int line = lines && s < lines->segments.size() && lines->segments[s].params
                     ? lines->segments[s].params
                     : seg.line;
      p.add(line, what + ": params: " + st.error().message);
    }
    std::map<std::string, int> on_segment;  // node -> line
    for (size_t k = 0; k < seg.spec.ports.size(); ++k) {
      const SegmentPortSpec& e = seg.spec.ports[k];
      const std::string port_what = what + ": port " + std::to_string(k) + " (node " + e.node + ")";
      int line = lines && s < lines->segments.size() && k < lines->segments[s].ports.size()
                     ? lines->segments[s].ports[k]
                     : seg.line;
      if (!known(e.node)) {
        p.add(line, port_what + ": node '" + e.node +
                        "' is not defined: add it under 'nodes:' or correct the name");
      } else if (auto [nit, nfresh] = on_segment.emplace(e.node, line); !nfresh) {
        p.add(line, port_what + ": node " + e.node + " is on the segment already (line " +
                        std::to_string(nit->second) + "): a node has one port on a segment");
      } else if (!validName(e.port)) {
        if (e.port != name)
          p.add(line, port_what + ": port name '" + e.port + "' is not valid: use " + kNameRule);
      } else {
        auto [pit, pfresh] =
            ports[e.node].emplace(e.port, std::make_pair("segment " + name + "'s port", line));
        if (!pfresh)
          p.add(line, port_what + ": node " + e.node + " already has a port " + e.port + " (" +
                          pit->second.first + ", line " + std::to_string(pit->second.second) +
                          "): give this port another name with 'port:'");
      }
      if (e.mtu < kMinMtu || e.mtu > kMaxMtu)
        p.add(line, port_what + ": mtu " + std::to_string(e.mtu) + " is out of range: use " +
                        std::to_string(kMinMtu) + ".." + std::to_string(kMaxMtu));
      if (!e.mac.isZero()) {
        if (e.mac.bytes[0] & 1)
          p.add(line, port_what + ": mac " + e.mac.toString() +
                          " is multicast: use a unicast address such as 02:00:00:00:01:01");
        auto [mit, mfresh] = macs.emplace(e.mac.bytes, std::make_pair(port_what, line));
        if (!mfresh)
          p.add(line, port_what + ": mac " + e.mac.toString() + " is already used by " +
                          mit->second.first + " (line " + std::to_string(mit->second.second) +
                          "): give each port its own MAC, or leave 'mac' out to have one "
                          "generated");
      }
    }
  }

  // Routes and neighbours: on ports of their node.
  auto portList = [&](const std::string& node) {
    std::vector<std::string> names;
    for (const auto& [port, holder] : ports[node]) names.push_back(port);
    if (names.empty())
      return std::string("it has no port: add 'interfaces:', a link or a segment");
    if (names.size() > 8) names.resize(8), names.push_back("...");
    return "use one of " + joined(names);
  };
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    const auto& node = t.nodes[n];
    const std::string& nn = node.spec.name;
    std::map<std::string, int> prefixes;
    for (size_t k = 0; k < node.routes.size(); ++k) {
      const RouteConfig& r = node.routes[k];
      const std::string what = "node " + nn + ": route " + r.prefix.toString();
      int line = routeLine(n, k);
      if (r.dev.empty())
        p.add(line, what + " has no dev: add 'dev: PORT' (" + portList(nn) + ")");
      else if (!ports[nn].count(r.dev))
        p.add(line, what + ": dev " + r.dev + " is not a port of node " + nn + ": " + portList(nn));
      if (r.prefix.hostBitsSet())
        p.add(line, what + ": host bits set: use " + r.prefix.normalised().toString());
      if (r.via.family != r.prefix.address.family)
        p.add(line, what + ": via " + r.via.toString() +
                        " is not of the prefix's address family: use an " +
                        (r.prefix.address.family == Family::kIpv4 ? "IPv4" : "IPv6") + " next hop");
      auto [it, fresh] = prefixes.emplace(r.prefix.toString(), line);
      if (!fresh)
        p.add(line, what + " is given twice (first at line " + std::to_string(it->second) +
                        "): keep one");
    }
    std::map<std::string, std::pair<MacAddress, int>> neighs;  // ip%dev -> mac, line
    for (size_t k = 0; k < node.neighbours.size(); ++k) {
      const NeighbourConfig& nb = node.neighbours[k];
      const std::string what = "node " + nn + ": neighbour " + nb.ip.toString();
      int line = neighLine(n, k);
      if (nb.dev.empty())
        p.add(line, what + " has no dev: add 'dev: PORT' (" + portList(nn) + ")");
      else if (!ports[nn].count(nb.dev))
        p.add(line,
              what + ": dev " + nb.dev + " is not a port of node " + nn + ": " + portList(nn));
      if (nb.mac.isZero())
        p.add(line, what + ": mac 00:00:00:00:00:00 is not valid: give the neighbour's MAC");
      else if (nb.mac.bytes[0] & 1)
        p.add(line, what + ": mac " + nb.mac.toString() + " is multicast: give a unicast MAC");
      auto [it, fresh] =
          neighs.emplace(nb.ip.toString() + "%" + nb.dev, std::make_pair(nb.mac, line));
      if (!fresh && it->second.first != nb.mac)
        p.add(line, what + " on " + nb.dev + " is given with two MACs (" +
                        it->second.first.toString() + " at line " +
                        std::to_string(it->second.second) + ", " + nb.mac.toString() +
                        "): keep the right one");
    }
  }
  return p.status();
}

}  // namespace

Result<Topology> parseTopologyText(const std::string& text, const std::string& origin) {
  Problems p(origin);
  Reader reader(&p);
  try {
    // Not YAML::LoadAll: it can run out of memory on a few hundred bytes (yaml_documents.h).
    const std::vector<int> docs = yamlDocumentLines(text, 2);
    reader.document(docs.empty() ? YAML::Node() : YAML::Load(text));
    if (docs.size() > 1)
      p.add(docs[1], "a second YAML document ('---'): put the whole topology in one");
  } catch (const YAML::Exception& e) {
    // Syntax errors (bad indentation, unclosed brackets...): yaml-cpp stops at the first.
    Problems syntax(origin);  // the document is unusable: no other problem is reported
    syntax.add(e.mark.is_null() ? 0 : e.mark.line + 1,
               "YAML syntax error at column " + std::to_string(e.mark.column + 1) + ": " + e.msg +
                   " (check indentation, quotes and brackets on this line and the one before)");
    return syntax.status().error();
  }
  if (!p.empty()) return p.status().error();
  auto st = validate(reader.topology, origin, &reader.lines);
  if (!st) return st.error();
  return std::move(reader.topology);
}

Result<Topology> parseTopologyFile(const std::string& path) {
  std::ifstream f(path);
  if (!f) {
    int err = errno;
    return makeError(-(err ? err : ENOENT), path + ": cannot open the topology file (" +
                                                errnoText(err ? err : ENOENT) +
                                                "): check the path");
  }
  std::stringstream ss;
  ss << f.rdbuf();
  return parseTopologyText(ss.str(), path);
}

Status validateTopology(const Topology& topology, const std::string& origin) {
  return validate(topology, origin, nullptr);
}

Status checkTopologyInterfaces(const Topology& topology, const std::string& origin) {
  Problems p(origin);
  for (const auto& node : topology.nodes)
    for (const auto& ifname : node.interfaces)
      if (if_nametoindex(ifname.c_str()) == 0)
        p.add(node.line, "node " + node.spec.name + ": interface " + ifname +
                             " does not exist in this network namespace: create it, correct the "
                             "name, or run fastpathd in the namespace that holds it");
  return p.status();
}

}  // namespace fastpath
