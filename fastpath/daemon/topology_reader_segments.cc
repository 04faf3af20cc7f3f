// SPDX-License-Identifier: GPL-2.0-only
// Reading a topology file's `segments:` and `bridges:` sections.
#include <utility>

#include "daemon/topology_reader.h"

namespace fastpath {
namespace topology_detail {

/// `{name: lan, ports: [r1, {node: r2, port: eth1, mac: M, mtu: N}], up: B, params: P}`
void Reader::segment(const YAML::Node& n) {
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
void Reader::bridge(const YAML::Node& n) {
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

}  // namespace topology_detail
}  // namespace fastpath
