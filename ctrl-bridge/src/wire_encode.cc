// SPDX-License-Identifier: GPL-2.0-only
#include "wire_encode.h"

namespace fastpath::ctrl {

void toWire(const IpAddress& in, v1::IpAddress* out) {
  out->set_bytes(reinterpret_cast<const char*>(in.bytes.data()),
                 in.family == Family::kIpv4 ? 4 : 16);
}

void toWire(const IpPrefix& in, v1::Prefix* out) {
  toWire(in.address, out->mutable_address());
  out->set_length(in.length);
}

void toWire(const Route& in, v1::Route* out) {
  toWire(in.prefix, out->mutable_prefix());
  if (!in.next_hop.isUnspecified()) toWire(in.next_hop, out->mutable_next_hop());
  out->mutable_port()->set_id(in.port);
  out->set_metric(in.metric);
}

void toWire(const Neighbour& in, v1::Neighbour* out) {
  toWire(in.ip, out->mutable_address());
  out->mutable_port()->set_id(in.port);
  out->set_mac(reinterpret_cast<const char*>(in.mac.bytes.data()), 6);
}

void toWire(const ControlRule& in, v1::ControlRule* out) {
  out->set_action(in.pass_to_kernel ? v1::ControlRule::ACTION_PASS
                                    : v1::ControlRule::ACTION_CONTROL);
  switch (in.kind) {
    case ControlRule::Kind::kEtherType:
      out->set_kind(v1::ControlRule::KIND_ETHERTYPE);
      out->set_ethertype(in.ethertype);
      break;
    case ControlRule::Kind::kIpProto:
      out->set_kind(v1::ControlRule::KIND_IP_PROTO);
      out->set_ip_proto(in.ip_proto);
      break;
    case ControlRule::Kind::kL4Port:
      out->set_kind(v1::ControlRule::KIND_L4_PORT);
      out->set_ip_proto(in.ip_proto);
      out->set_port(in.port);
      break;
    case ControlRule::Kind::kLocalAddress:
      out->set_kind(v1::ControlRule::KIND_LOCAL_ADDRESS);
      toWire(in.address, out->mutable_address());
      break;
  }
}

void toWire(const PortInfo& in, v1::Port* out) {
  out->set_id(in.id);
  out->set_ifname(in.ifname);
  out->set_ifindex(in.ifindex);
  out->set_mac(reinterpret_cast<const char*>(in.mac.bytes.data()), 6);
  out->set_mtu(in.mtu);
  out->set_up(in.up);
  out->set_queues(in.queues);
  out->set_xdp_mode(in.xdp_mode);
  out->set_xsk_mode(in.xsk_mode);
  out->set_node(in.node);
  out->set_link(in.link);
}

void toWire(const CounterSet& in, v1::CounterSet* out) {
  out->set_scope(in.scope);
  for (const auto& [name, value] : in.counters) {
    auto* c = out->add_counters();
    c->set_name(name);
    c->set_value(value);
  }
}

void toWire(const FastPathEvent& in, v1::Event* out) {
  switch (in.kind) {
    case FastPathEvent::Kind::kRouteMiss: out->set_kind(v1::EVENT_KIND_ROUTE_MISS); break;
    case FastPathEvent::Kind::kPortUp: out->set_kind(v1::EVENT_KIND_PORT_UP); break;
    case FastPathEvent::Kind::kPortDown: out->set_kind(v1::EVENT_KIND_PORT_DOWN); break;
    case FastPathEvent::Kind::kNeighbourNeeded:
      out->set_kind(v1::EVENT_KIND_NEIGHBOUR_NEEDED);
      break;
    case FastPathEvent::Kind::kEventsDropped:
      out->set_kind(v1::EVENT_KIND_EVENTS_DROPPED);
      out->set_dropped(in.dropped);
      return;
  }
  out->set_node(in.node.empty() ? std::string(kDefaultNodeName) : in.node);
  out->set_port(in.port);
  if (!in.address.isUnspecified() || in.kind == FastPathEvent::Kind::kRouteMiss ||
      in.kind == FastPathEvent::Kind::kNeighbourNeeded)
    toWire(in.address, out->mutable_address());
}

}  // namespace fastpath::ctrl

namespace fastpath::ctrl {

namespace {

void endToWire(const LinkInfo::End& in, v1::LinkEnd* out) {
  out->set_node(in.node);
  out->set_port(in.port);
  out->set_id(in.id);
  out->set_mac(reinterpret_cast<const char*>(in.mac.bytes.data()), 6);
  out->set_mtu(in.mtu);
}

void endToWire(const LinkEndSpec& in, v1::LinkEnd* out) {
  out->set_node(in.node);
  out->set_port(in.port);
  if (!in.mac.isZero()) out->set_mac(reinterpret_cast<const char*>(in.mac.bytes.data()), 6);
  out->set_mtu(in.mtu);
}

}  // namespace

void toWire(const NodeInfo& in, v1::Node* out) {
  out->set_name(in.name);
  out->set_host(in.host);
  out->set_id(in.id);
  out->set_worker(in.worker);
  for (PortId p : in.ports) out->add_ports(p);
  out->set_routes(in.routes);
  out->set_neighbours(in.neighbours);
}

void toWire(const LinkInfo& in, v1::Link* out) {
  out->set_name(in.name);
  out->set_up(in.up);
  endToWire(in.a, out->mutable_a());
  endToWire(in.b, out->mutable_b());
}

void toWire(const NodeSpec& in, v1::CreateNode* out) {
  out->set_name(in.name);
  out->set_host(in.host);
}

void toWire(const LinkSpec& in, v1::CreateLink* out) {
  out->set_name(in.name);
  endToWire(in.a, out->mutable_a());
  endToWire(in.b, out->mutable_b());
  out->set_up(in.up);
}

}  // namespace fastpath::ctrl
