// SPDX-License-Identifier: GPL-2.0-only
// Reading a topology file: yaml-cpp builds the document; this file maps it onto Topology
// with strict keys (a typo is an error, never ignored) and the line of every entry, then
// has the whole validated (topology_validate.cc). yaml-cpp throws; its exceptions stop here
// and become an Error.
// The class and its other sections: topology_reader.h.
#include <algorithm>
#include <cerrno>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>

#include "daemon/topology.h"
#include "daemon/topology_reader.h"
#include "daemon/yaml_documents.h"

namespace fastpath {
namespace topology_detail {

void Reader::document(const YAML::Node& root) {
  if (root.IsNull()) {
    p_->add(1, "the document is empty: write a 'nodes:' list (see " + std::string(kGuide) + ")");
    return;
  }
  bool any = false;
  forEachKey(root, "the document", {"nodes", "links", "segments", "hosts", "media", "bridges"}, {},
             [&](const std::string& key, const YAML::Node& v) {
               any = true;
               if (key == "nodes")
                 forEachItem(v, "nodes", [&](const YAML::Node& n) { node(n); });
               else if (key == "links")
                 forEachItem(v, "links", [&](const YAML::Node& n) { link(n); });
               else if (key == "hosts")
                 forEachItem(v, "hosts", [&](const YAML::Node& n) { host(n); });
               else if (key == "segments")
                 forEachItem(v, "segments", [&](const YAML::Node& n) { segment(n); });
               else if (key == "bridges")
                 forEachItem(v, "bridges", [&](const YAML::Node& n) { bridge(n); });
               else
                 forEachItem(v, "media", [&](const YAML::Node& n) { medium(n); });
             });
  if (root.IsMap() && !any)
    p_->add(
        std::max(1, lineOf(root)),
        "the document defines nothing: write a 'nodes:' list (see " + std::string(kGuide) + ")");
}

void Reader::node(const YAML::Node& n) {
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

bool Reader::route(const YAML::Node& n, const std::string& node_what, RouteConfig* r) {
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

bool Reader::neighbour(const YAML::Node& n, const std::string& node_what, NeighbourConfig* nb) {
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

void Reader::link(const YAML::Node& n) {
  TopologyLink link;
  LinkLines ll;
  link.line = lineOf(n);
  const std::string what = label(n, "link", topology.links.size());
  // Emulation: `params` for both directions, then `a_to_b`/`b_to_a` on top of it.
  std::optional<YAML::Node> emulation[3];  // params, a_to_b, b_to_a
  forEachKey(n, what, {"name", "a", "b", "up", "params", "a_to_b", "b_to_a", "vlan", "vni"},
             {"name", "a", "b"}, [&](const std::string& key, const YAML::Node& v) {
               if (key == "name") {
                 scalar(v, what + ": name", &link.spec.name);
               } else if (key == "vlan" || key == "vni") {
                 // A VNI names the link's interfaces as a VLAN id does: the same range.
                 uint64_t vid = 0;
                 if (link.vlan) p_->add(lineOf(v), what + ": vlan and vni: give one");
                 if (number(v, what + ": " + key, 4094, &vid)) link.vlan = uint16_t(vid);
                 if (vid == 0) p_->add(lineOf(v), what + ": " + key + " must be 1..4094");
                 link.vni = key == "vni";
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

/// "rate 10mbit delay 5ms loss 1%": fpctl's words (applyLinkParamWords), applied on top
/// of `p`; on error `p` is left as it was.
bool Reader::linkParams(const YAML::Node& v, const std::string& what, LinkParams* p) {
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

/// A link end or a segment port: `b: r2` (the node alone) or
/// `a: {node: r1, port: p, mac: M, mtu: N}`.
void Reader::end(const YAML::Node& v, const std::string& what, PortSpec* e, int* line) {
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
                                          "(the link's or segment's name is used)");
               } else if (key == "mac") {
                 mac(x, what + " mac", &e->mac);
               } else {
                 uint64_t mtu = 0;
                 if (number(x, what + " mtu", UINT32_MAX, &mtu)) e->mtu = uint32_t(mtu);
               }
             });
}

}  // namespace topology_detail

Result<Topology> parseTopologyText(const std::string& text, const std::string& origin) {
  using topology_detail::lineOf;
  using topology_detail::Problems;
  Problems p(origin);
  topology_detail::Reader reader(&p);
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
  auto st = topology_detail::validate(reader.topology, origin, &reader.lines);
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

}  // namespace fastpath
