// SPDX-License-Identifier: GPL-2.0-only
// Hosts and segment membership from the wire (server side): checked against what the
// daemon has now (its hosts, the node's own addresses, the segment's nodes), so that a
// refusal names the field before the daemon makes anything.
#include <cerrno>

#include "fastpath/host_rules.h"
#include "wire_validate.h"

namespace fastpath::ctrl {

WireResult<HostSpec> hostSpecFromWire(const v1::CreateHost& in, const std::string& field,
                                      const std::vector<HostInfo>& hosts,
                                      const std::vector<ControlRule>& node_rules) {
  HostSpec spec;
  if (auto st = nameFromWire(in.name(), field + ".name", "host"); !st) return st.error();
  if (auto st = nameFromWire(in.node(), field + ".node", "node"); !st) return st.error();
  spec.name = in.name();
  spec.node = in.node();
  // The daemon bounds it further by its frame size; nothing beyond an IP MTU gets there.
  if (in.mtu() != 0 && (in.mtu() < 68 || in.mtu() > 65535))
    return wireError(v1::INVALID_ARGUMENT, field + ".mtu",
                     std::to_string(in.mtu()) + " is outside 68..65535 (0 = 1500)");
  spec.mtu = in.mtu() ? in.mtu() : 1500;
  for (int i = 0; i < in.addresses_size(); ++i) {
    const std::string f = elementField(field, "addresses", i);
    auto a = addressFromWire(in.addresses(i).address(), f + ".address", false);
    if (!a) return a.error();
    if (a->isUnspecified())
      return wireError(v1::INVALID_ARGUMENT, f + ".address", "unspecified address");
    const uint32_t max = a->family == Family::kIpv4 ? 32 : 128;
    if (in.addresses(i).length() > max || in.addresses(i).length() == 0)
      return wireError(v1::INVALID_ARGUMENT, f + ".length",
                       std::to_string(in.addresses(i).length()) + " is outside 1.." +
                           std::to_string(max));
    spec.addresses.push_back(IpPrefix{*a, uint8_t(in.addresses(i).length())});
  }
  int per_family[2] = {0, 0};
  for (int i = 0; i < in.gateways_size(); ++i) {
    const std::string f = elementField(field, "gateways", i);
    auto g = addressFromWire(in.gateways(i), f, false);
    if (!g) return g.error();
    if (g->isUnspecified()) return wireError(v1::INVALID_ARGUMENT, f, "unspecified address");
    if (++per_family[g->family == Family::kIpv4 ? 0 : 1] > 1)
      return wireError(v1::INVALID_ARGUMENT, f,
                       "a second " + std::string(g->family == Family::kIpv4 ? "IPv4" : "IPv6") +
                           " gateway; at most one IPv4 and one IPv6");
    spec.gateways.push_back(*g);
  }
  std::size_t bad = 0;
  if (auto st = checkHostAddresses(spec, hosts, node_rules, &bad); !st)
    return wireError(v1::INVALID_ARGUMENT, elementField(field, "addresses", bad) + ".address",
                     st.error().message);
  return spec;
}

WireStatus segmentNodeFromWire(const std::string& segment, const std::string& node,
                               const std::string& field,
                               const std::vector<SegmentInfo>& segments) {
  if (auto st = nameFromWire(node, field, "node"); !st) return st.error();
  for (const auto& seg : segments) {
    if (seg.name != segment) continue;
    std::string members;
    for (const auto& p : seg.ports) {
      if (canonicalNode(p.node) == canonicalNode(node)) return {};
      members += (members.empty() ? "" : ", ") + p.node;
    }
    return wireError(v1::NOT_FOUND, field,
                     "node " + node + " is not on segment " + segment + " (its nodes: " +
                         members + ")");
  }
  return {};  // no such segment: the backend says so, as for every other segment request
}

}  // namespace fastpath::ctrl
