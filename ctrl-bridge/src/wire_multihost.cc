// SPDX-License-Identifier: GPL-2.0-only
#include "wire_multihost.h"

#include <cstring>
#include <set>

#include "fastpath/names.h"
#include "reply_decode.h"
#include "wire_encode.h"
#include "wire_validate.h"

namespace fastpath::ctrl {

namespace {

constexpr int kMaxWires = 64;

std::string macBytes(const MacAddress& m) {
  return std::string(reinterpret_cast<const char*>(m.bytes.data()), 6);
}

MacAddress macOf(const std::string& b) {
  MacAddress m;
  if (b.size() == 6) std::memcpy(m.bytes.data(), b.data(), 6);
  return m;
}

/// A VXLAN wire's underlay: two distinct IPv4 unicast addresses and a port whose probe
/// port (port + 1) exists.
WireResult<WireVxlan> vxlanFromWire(const v1::MultiHostVxlan& in, const std::string& field) {
  WireVxlan v;
  auto mine = addressFromWire(in.underlay(), field + ".underlay", false);
  if (!mine) return mine.error();
  auto peer = addressFromWire(in.peer_underlay(), field + ".peer_underlay", false);
  if (!peer) return peer.error();
  for (const auto& [a, f] : {std::pair{*mine, ".underlay"}, std::pair{*peer, ".peer_underlay"}})
    if (!validUnderlayAddress(a))
      return wireError(v1::INVALID_ARGUMENT, field + f,
                       a.toString() + " is no unicast IPv4 address: a VXLAN wire's underlay is "
                       "IPv4 (an address of the wire's interface, and the peer host's)");
  if (*mine == *peer)
    return wireError(v1::INVALID_ARGUMENT, field + ".peer_underlay",
                     "is this host's own underlay address (" + mine->toString() +
                         "): give the peer host's");
  if (in.port() > kMaxVxlanPort)
    return wireError(v1::INVALID_ARGUMENT, field + ".port",
                     std::to_string(in.port()) + " is outside 1.." +
                         std::to_string(kMaxVxlanPort) + " (the probes use port + 1; 0: 4789)");
  v.underlay = *mine;
  v.peer_underlay = *peer;
  v.port = in.port() ? uint16_t(in.port()) : uint16_t(4789);
  return v;
}

void vxlanToWire(const WireVxlan& in, v1::MultiHostVxlan* out) {
  toWire(in.underlay, out->mutable_underlay());
  toWire(in.peer_underlay, out->mutable_peer_underlay());
  out->set_port(in.port);
}

WireVxlan vxlanFromReply(const v1::MultiHostVxlan& in) {
  WireVxlan v;
  auto a = addressFromWire(in.underlay(), "", true);
  auto b = addressFromWire(in.peer_underlay(), "", true);
  if (a) v.underlay = *a;
  if (b) v.peer_underlay = *b;
  v.port = uint16_t(in.port());
  return v;
}

WireStatus hostNameFromWire(const std::string& name, const std::string& field) {
  if (!validName(name)) return wireError(v1::INVALID_ARGUMENT, field, nameRule("host", name));
  return {};
}

}  // namespace

WireResult<MultiHostDeclaration> multiHostDeclarationFromWire(const v1::MultiHostDeclare& in,
                                                              const std::string& field) {
  MultiHostDeclaration d;
  if (auto st = hostNameFromWire(in.host(), field + ".host"); !st) return st.error();
  d.host = in.host();
  d.run_tag = in.run_tag();
  bool tag_ok = d.run_tag.size() <= 6;
  for (char c : d.run_tag) tag_ok &= (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  if (!tag_ok)
    return wireError(v1::INVALID_ARGUMENT, field + ".run_tag",
                     "'" + d.run_tag + "' is no run tag: 1 to 6 of a-z 0-9 (empty: \"run\")");
  if (in.wires_size() == 0 || in.wires_size() > kMaxWires)
    return wireError(v1::INVALID_ARGUMENT, field + ".wires",
                     std::to_string(in.wires_size()) + " wires: give 1 to " +
                         std::to_string(kMaxWires) + " (a peer host and this host's interface "
                         "to it each)");
  std::set<std::string> peers;
  for (int i = 0; i < in.wires_size(); ++i) {
    const auto& w = in.wires(i);
    const std::string f = field + ".wires[" + std::to_string(i) + "]";
    if (auto st = hostNameFromWire(w.peer_host(), f + ".peer_host"); !st) return st.error();
    if (w.peer_host() == d.host)
      return wireError(v1::INVALID_ARGUMENT, f + ".peer_host",
                       "is this host (" + d.host + "): a wire joins two different hosts");
    if (!peers.insert(w.peer_host()).second)
      return wireError(v1::INVALID_ARGUMENT, f + ".peer_host",
                       "a second wire to host " + w.peer_host() + ": one wire per peer host");
    if (!validIfname(w.ifname()))
      return wireError(v1::INVALID_ARGUMENT, f + ".ifname", ifnameRule(w.ifname()));
    d.wires.push_back({w.peer_host(), w.ifname()});
    if (w.has_vxlan()) {
      auto v = vxlanFromWire(w.vxlan(), f + ".vxlan");
      if (!v) return v.error();
      d.vxlan[w.ifname()] = *v;
    }
  }
  if (in.wait_ms() > 600000)
    return wireError(v1::INVALID_ARGUMENT, field + ".wait_ms",
                     std::to_string(in.wait_ms()) + " ms is more than 600000 (10 minutes)");
  d.wait_ms = in.wait_ms();
  return d;
}

WireResult<CrossLinkSpec> crossLinkSpecFromWire(const v1::MultiHostCreateLink& in,
                                                const std::string& field) {
  CrossLinkSpec s;
  if (auto st = nameFromWire(in.name(), field + ".name", "link"); !st) return st.error();
  if (auto st = nameFromWire(in.node(), field + ".node", "node"); !st) return st.error();
  if (auto st = hostNameFromWire(in.peer_host(), field + ".peer_host"); !st) return st.error();
  s.name = in.name();
  s.node = in.node();
  s.peer_host = in.peer_host();
  if (in.end() != "a" && in.end() != "b")
    return wireError(v1::INVALID_ARGUMENT, field + ".end",
                     "'" + in.end() + "': which end of the link this is, \"a\" or \"b\"");
  s.end = in.end()[0];
  auto mac = portMacFromWire(in.mac(), field + ".mac", true);
  if (!mac) return mac.error();
  s.mac = *mac;
  auto peer = portMacFromWire(in.peer_mac(), field + ".peer_mac", true);
  if (!peer) return peer.error();
  s.peer_mac = *peer;
  if (in.vlan() < 2 || in.vlan() > 4094)
    return wireError(v1::INVALID_ARGUMENT, field + ".vlan",
                     std::to_string(in.vlan()) + " is outside 2..4094 (802.1Q; the same on "
                     "both hosts, one per link on a wire)");
  s.vlan = uint16_t(in.vlan());
  s.mtu = in.mtu() ? in.mtu() : 1500;
  if (s.mtu < 68 || s.mtu > 65535)
    return wireError(v1::INVALID_ARGUMENT, field + ".mtu",
                     std::to_string(s.mtu) + " is outside 68..65535");
  if (in.has_egress()) {
    auto p = linkParamsFromWire(in.egress(), field + ".egress");
    if (!p) return p.error();
    s.egress = *p;
  }
  return s;
}

void toWire(const MultiHostDeclaration& in, v1::MultiHostDeclare* out) {
  out->set_host(in.host);
  out->set_run_tag(in.run_tag);
  for (const auto& [peer, ifname] : in.wires) {
    auto* w = out->add_wires();
    w->set_peer_host(peer);
    w->set_ifname(ifname);
    if (auto v = in.vxlan.find(ifname); v != in.vxlan.end())
      vxlanToWire(v->second, w->mutable_vxlan());
  }
  out->set_wait_ms(in.wait_ms);
}

void toWire(const CrossLinkSpec& in, v1::MultiHostCreateLink* out) {
  out->set_name(in.name);
  out->set_node(in.node);
  out->set_end(std::string(1, in.end));
  if (!in.mac.isZero()) out->set_mac(macBytes(in.mac));
  if (!in.peer_mac.isZero()) out->set_peer_mac(macBytes(in.peer_mac));
  out->set_mtu(in.mtu);
  out->set_vlan(in.vlan);
  out->set_peer_host(in.peer_host);
  toWire(in.egress, out->mutable_egress());
}

void toWire(const MultiHostInfo& in, v1::MultiHostState* out) {
  out->set_host(in.host);
  out->set_run_tag(in.run_tag);
  for (const auto& w : in.wires) {
    auto* o = out->add_wires();
    o->set_peer_host(w.peer_host);
    o->set_ifname(w.ifname);
    o->set_mtu(w.mtu);
    o->set_latency_ns(w.latency_ns);
    o->set_latency_min_ns(w.latency_min_ns);
    o->set_jitter_ns(w.jitter_ns);
    o->set_probes(w.probes);
    if (w.vxlan) vxlanToWire(*w.vxlan, o->mutable_vxlan());
  }
  for (const auto& l : in.links) {
    auto* o = out->add_links();
    o->set_name(l.spec.name);
    o->set_node(l.spec.node);
    o->set_port(l.port);
    o->set_port_id(l.port_id);
    o->set_mac(macBytes(l.spec.mac));
    o->set_peer_mac(macBytes(l.spec.peer_mac));
    o->set_mtu(l.spec.mtu);
    o->set_vlan(l.spec.vlan);
    o->set_peer_host(l.spec.peer_host);
    o->set_wire(l.wire);
    toWire(l.spec.egress, o->mutable_egress());
    toWire(l.applied, o->mutable_applied());
    o->set_from_topology(l.from_topology);
    o->set_down(!l.up);
  }
  out->set_clock_known(in.clock_known);
  out->set_clock_offset_ns(in.clock_offset_ns);
  out->set_clock_source(in.clock_source);
}

MultiHostInfo multiHostFromReply(const v1::MultiHostState& in) {
  MultiHostInfo out;
  out.host = in.host();
  out.run_tag = in.run_tag();
  for (const auto& w : in.wires()) {
    out.wires.push_back({w.peer_host(), w.ifname(), w.mtu(), w.latency_ns(), w.latency_min_ns(),
                         w.jitter_ns(), w.probes(), std::nullopt});
    if (w.has_vxlan()) out.wires.back().vxlan = vxlanFromReply(w.vxlan());
  }
  for (const auto& l : in.links()) {
    CrossLinkInfo i;
    i.spec.name = l.name();
    i.spec.node = l.node();
    i.spec.mac = macOf(l.mac());
    i.spec.peer_mac = macOf(l.peer_mac());
    i.spec.mtu = l.mtu();
    i.spec.vlan = uint16_t(l.vlan());
    i.spec.peer_host = l.peer_host();
    i.spec.egress = linkParamsFromReply(l.egress());
    i.port = l.port();
    i.port_id = l.port_id();
    i.wire = l.wire();
    i.applied = linkParamsFromReply(l.applied());
    i.from_topology = l.from_topology();
    i.up = !l.down();
    out.links.push_back(std::move(i));
  }
  out.clock_known = in.clock_known();
  out.clock_offset_ns = in.clock_offset_ns();
  out.clock_source = in.clock_source();
  return out;
}

}  // namespace fastpath::ctrl
