// SPDX-License-Identifier: GPL-2.0-only
// Reading a topology file: yaml-cpp builds the document; this file maps it onto Topology
// with strict keys (a typo is an error, never ignored) and the line of every entry, then
// has the whole validated (topology_validate.cc). yaml-cpp throws; its exceptions stop here
// and become an Error.
#include <cmath>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "daemon/topology.h"
#include "daemon/topology_internal.h"
#include "daemon/yaml_documents.h"

namespace fastpath {
namespace topology_detail {
namespace {

int lineOf(const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  return m.is_null() ? 0 : m.line + 1;
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

  /// A value read by T::parse; `hint` follows its error message.
  template <typename T>
  bool parsed(const YAML::Node& v, const std::string& what, const char* hint, T* out) {
    std::string s;
    if (!scalar(v, what, &s)) return false;
    auto x = T::parse(s);
    if (!x) {
      p_->add(lineOf(v), what + ": " + x.error().message + hint);
      return false;
    }
    *out = *x;
    return true;
  }

  bool ip(const YAML::Node& v, const std::string& what, IpAddress* out) {
    return parsed(v, what, ": write e.g. 198.18.1.2 or 2001:2::2", out);
  }

  bool mac(const YAML::Node& v, const std::string& what, MacAddress* out) {
    return parsed(v, what, "; quote it: \"02:00:00:00:01:02\"", out);
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

  /// `{name: a, wires: [{peer: b, interface: eth1}]}`; a VXLAN wire adds `encap: vxlan,
  /// underlay: A, peer_underlay: B` and maybe `port: P`.
  void host(const YAML::Node& n) {
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

  void link(const YAML::Node& n) {
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
                     PortSpec e;
                     int line = 0;
                     end(p, what + ": port " + std::to_string(seg.spec.ports.size()), &e, &line);
                     seg.spec.ports.push_back(std::move(e));
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

  /// `{name: sw1, node: s1, ports: [lan1, lan2], ageing_s: 300}`: its ports are checked
  /// when the daemon creates it (Daemon::createBridge).
  void bridge(const YAML::Node& n) {
    TopologyBridge b;
    b.line = lineOf(n);
    const std::string what = label(n, "bridge", topology.bridges.size());
    forEachKey(n, what, {"name", "node", "ports", "ageing_s"}, {"name", "node", "ports"},
               [&](const std::string& key, const YAML::Node& v) {
                 uint64_t s = 0;
                 if (key == "name") scalar(v, what + ": name", &b.spec.name);
                 else if (key == "node") scalar(v, what + ": node", &b.spec.node);
                 else if (key == "ageing_s" && number(v, what + ": ageing_s", 1000000, &s))
                   b.spec.ageing_ns = s ? s * 1'000'000'000ull : b.spec.ageing_ns;
                 else if (key == "ports")
                   forEachItem(v, what + ": ports", [&](const YAML::Node& p) {
                     std::string port;
                     if (scalar(p, what + ": port", &port)) b.spec.ports.push_back(port);
                   });
               });
    topology.bridges.push_back(std::move(b));
  }

  /// `{name: air, ports: [r1, {node: r2, port: wlan0}], up: B, phy: {data_rate_kbps: 11000,
  /// ...}, pairs: [{from: r1, to: r2, rx_dbm: -60, symmetric: true}]}`; the members, PHY and
  /// pairs are checked when the daemon creates the medium (validateMediumPhy, ...Pair).
  void medium(const YAML::Node& n) {
    TopologyMedium med;
    med.line = lineOf(n);
    const std::string what = label(n, "medium", topology.media.size());
    forEachKey(n, what, {"name", "ports", "up", "phy", "pairs"}, {"name", "ports"},
               [&](const std::string& key, const YAML::Node& v) {
                 if (key == "name") {
                   scalar(v, what + ": name", &med.spec.name);
                 } else if (key == "ports") {
                   forEachItem(v, what + ": ports", [&](const YAML::Node& p) {
                     PortSpec e;
                     int line = 0;
                     end(p, what + ": port " + std::to_string(med.spec.ports.size()), &e, &line);
                     med.spec.ports.push_back(std::move(e));
                   });
                 } else if (key == "up") {
                   if (!v.IsScalar() || !YAML::convert<bool>::decode(v, med.spec.up))
                     p_->add(lineOf(v), what + ": up must be true or false");
                 } else if (key == "phy") {
                   mediumPhy(v, what + ": phy", &med.spec.phy);
                 } else {
                   forEachItem(v, what + ": pairs", [&](const YAML::Node& p) {
                     mediumPair(p, what + ": pair " + std::to_string(med.spec.pairs.size()),
                                &med.spec.pairs);
                   });
                 }
               });
    for (auto& p : med.spec.ports)
      if (p.port.empty()) p.port = med.spec.name;
    topology.media.push_back(std::move(med));
  }

  bool real(const YAML::Node& v, const std::string& what, double* out) {
    std::string s;
    if (!scalar(v, what, &s)) return false;
    char* endp = nullptr;
    const double x = std::strtod(s.c_str(), &endp);
    if (s.empty() || *endp || !std::isfinite(x)) {
      p_->add(lineOf(v), what + " must be a number, not '" + s + "'");
      return false;
    }
    *out = x;
    return true;
  }

  void mediumPhy(const YAML::Node& v, const std::string& what, MediumPhy* phy) {
    bool cs_given = false;
    forEachKey(v, what,
               {"data_rate_kbps", "basic_rate_kbps", "noise_figure_db", "rx_sensitivity_dbm",
                "cs_threshold_dbm", "capture_margin_db", "preamble_snr_db",
                "preamble_min_rssi_dbm", "retry_limit", "error_model", "seed", "rts_threshold",
                "long_retry_limit", "rts_rate_kbps", "cts_rate_kbps", "ack_rate_kbps",
                "rate_control", "arf_success_threshold", "arf_timer_threshold"},
               {}, [&](const std::string& key, const YAML::Node& x) {
                 const std::string w = what + ": " + key;
                 uint64_t u = 0;
                 if (key == "data_rate_kbps" && number(x, w, 54000, &u)) phy->data_rate_kbps = uint32_t(u);
                 if (key == "basic_rate_kbps" && number(x, w, 54000, &u)) phy->basic_rate_kbps = uint32_t(u);
                 if (key == "retry_limit" && number(x, w, 32, &u)) phy->retry_limit = uint32_t(u);
                 if (key == "seed" && number(x, w, UINT64_MAX, &u)) phy->seed = u;
                 if (key == "rts_threshold" && number(x, w, 65535, &u)) phy->rts_threshold = uint32_t(u);
                 if (key == "long_retry_limit" && number(x, w, 32, &u)) phy->long_retry_limit = uint32_t(u);
                 if (key == "rts_rate_kbps" && number(x, w, 54000, &u)) phy->rts_rate_kbps = uint32_t(u);
                 if (key == "cts_rate_kbps" && number(x, w, 54000, &u)) phy->cts_rate_kbps = uint32_t(u);
                 if (key == "ack_rate_kbps" && number(x, w, 54000, &u)) phy->ack_rate_kbps = uint32_t(u);
                 if (key == "arf_success_threshold" && number(x, w, 65535, &u))
                   phy->arf_success_threshold = uint32_t(u);
                 if (key == "arf_timer_threshold" && number(x, w, 65535, &u))
                   phy->arf_timer_threshold = uint32_t(u);
                 if (key == "noise_figure_db") real(x, w, &phy->noise_figure_db);
                 if (key == "rx_sensitivity_dbm") real(x, w, &phy->rx_sensitivity_dbm);
                 if (key == "cs_threshold_dbm") cs_given = real(x, w, &phy->cs_threshold_dbm);
                 if (key == "capture_margin_db") real(x, w, &phy->capture_margin_db);
                 if (key == "preamble_snr_db") real(x, w, &phy->preamble_snr_db);
                 if (key == "preamble_min_rssi_dbm") real(x, w, &phy->preamble_min_rssi_dbm);
                 if (key == "error_model") {
                   std::string m;
                   if (scalar(x, w, &m) && m != "nist" && m != "yans")
                     p_->add(lineOf(x), w + " must be nist or yans, not '" + m + "'");
                   phy->error_model = m == "yans" ? WifiErrorModel::kYans : WifiErrorModel::kNist;
                 }
                 if (key == "rate_control") {
                   std::string m;
                   if (scalar(x, w, &m) && m != "constant" && m != "arf")
                     p_->add(lineOf(x), w + " must be constant or arf, not '" + m + "'");
                   phy->rate_control = m == "arf" ? RateControl::kArf : RateControl::kConstant;
                 }
               });
    if (!cs_given) phy->cs_threshold_dbm = phy->rx_sensitivity_dbm;
    if (auto st = validateMediumPhy(*phy); !st) p_->add(lineOf(v), what + ": " + st.error().message);
  }

  void mediumPair(const YAML::Node& v, const std::string& what, std::vector<MediumPair>* out) {
    MediumPair p;
    bool symmetric = false;
    forEachKey(v, what, {"from", "to", "rx_dbm", "symmetric"}, {"from", "to", "rx_dbm"},
               [&](const std::string& key, const YAML::Node& x) {
                 if (key == "from") scalar(x, what + ": from", &p.from);
                 if (key == "to") scalar(x, what + ": to", &p.to);
                 if (key == "rx_dbm") real(x, what + ": rx_dbm", &p.rx_power_dbm);
                 if (key == "symmetric" &&
                     (!x.IsScalar() || !YAML::convert<bool>::decode(x, symmetric)))
                   p_->add(lineOf(x), what + ": symmetric must be true or false");
               });
    out->push_back(p);
    if (symmetric) out->push_back(MediumPair{p.to, p.from, p.rx_power_dbm, false});
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

  /// A link end or a segment port: `b: r2` (the node alone) or
  /// `a: {node: r1, port: p, mac: M, mtu: N}`.
  void end(const YAML::Node& v, const std::string& what, PortSpec* e, int* line) {
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

  Problems* p_;
};

}  // namespace
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
