// SPDX-License-Identifier: GPL-2.0-only
#include "wire_encode.h"
#include "wire_red.h"

#include "wire_fq_codel.h"

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
    case FastPathEvent::Kind::kMediumRetryLimit:
      out->set_kind(v1::EVENT_KIND_MEDIUM_RETRY_LIMIT);
      out->set_mac(reinterpret_cast<const char*>(in.mac.bytes.data()), 6);
      break;
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
  out->set_down(in.down);
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

void toWire(const LinkParams& in, v1::LinkParams* out) {
  out->set_rate_bps(in.rate_bps);
  out->set_overhead_bytes(in.overhead_bytes);
  out->set_mpu_bytes(in.mpu_bytes);
  out->set_delay_ns(in.delay_ns);
  out->set_jitter_ns(in.jitter_ns);
  switch (in.jitter_dist) {
    case LinkParams::Jitter::kUniform:
      out->set_jitter_distribution(v1::LinkParams::JITTER_UNIFORM);
      break;
    case LinkParams::Jitter::kNormal:
      out->set_jitter_distribution(v1::LinkParams::JITTER_NORMAL);
      break;
    case LinkParams::Jitter::kParetoNormal:
      out->set_jitter_distribution(v1::LinkParams::JITTER_PARETONORMAL);
      break;
  }
  out->set_reorder(in.reorder);
  out->set_limit_packets(in.limit_packets);
  out->set_limit_bytes(in.limit_bytes);
  if (in.gilbert_elliott) {
    auto* ge = out->mutable_gilbert_elliott();
    ge->set_p(in.ge_p);
    ge->set_r(in.ge_r);
    ge->set_loss_bad(in.ge_loss_bad);
    ge->set_loss_good(in.ge_loss_good);
    out->set_loss(0);  // the model replaces Bernoulli loss
  } else {
    out->clear_gilbert_elliott();
    out->set_loss(in.loss);
  }
  out->set_duplicate(in.duplicate);
  out->set_corrupt(in.corrupt);
  out->set_seed(in.seed);
  if (in.aqm == LinkParams::Aqm::kNone) {
    out->clear_aqm();
  } else {
    auto* a = out->mutable_aqm();
    a->Clear();  // no field of another discipline left from an earlier use of `out`
    a->set_kind(in.aqm == LinkParams::Aqm::kCobalt    ? v1::LinkAqm::AQM_COBALT
                : in.aqm == LinkParams::Aqm::kRed     ? v1::LinkAqm::AQM_RED
                : in.aqm == LinkParams::Aqm::kFqCoDel ? v1::LinkAqm::AQM_FQ_CODEL
                                                      : v1::LinkAqm::AQM_CODEL);
    if (in.aqm == LinkParams::Aqm::kRed) redToWire(in.red, a->mutable_red());
    a->set_limit_packets(in.aqm_limit_packets);
    a->set_limit_bytes(in.aqm_limit_bytes);
    a->set_target_ns(in.aqm_target_ns);
    a->set_interval_ns(in.aqm_interval_ns);
    a->set_min_bytes(in.aqm_min_bytes);
    a->set_ecn(in.aqm_ecn);
    a->set_ce_threshold_ns(in.aqm_ce_threshold_ns);
    if (in.aqm == LinkParams::Aqm::kCobalt) {
      a->set_blue_increment(in.aqm_blue_increment);
      a->set_blue_decrement(in.aqm_blue_decrement);
      a->set_blue_threshold_ns(in.aqm_blue_threshold_ns);
    } else {
      a->clear_blue_increment();
      a->clear_blue_decrement();
      a->clear_blue_threshold_ns();
    }
    if (in.aqm == LinkParams::Aqm::kFqCoDel) fqCoDelToWire(in, a);
  }
}

void toWire(const LinkDirectionStats& in, v1::LinkDirectionStats* out) {
  out->set_tx_packets(in.tx_packets);
  out->set_tx_bytes(in.tx_bytes);
  out->set_enqueued(in.enqueued);
  out->set_delivered(in.delivered);
  out->set_queue_drops(in.queue_drops);
  out->set_loss_drops(in.loss_drops);
  out->set_full_drops(in.full_drops);
  out->set_aqm_drops(in.aqm_drops);
  out->set_aqm_marks(in.aqm_marks);
  out->set_aqm_forced_drops(in.aqm_forced_drops);
  out->set_aqm_forced_marks(in.aqm_forced_marks);
  out->set_aqm_drop_bytes(in.aqm_drop_bytes);
  out->set_aqm_forced_drop_bytes(in.aqm_forced_drop_bytes);
  out->set_backoff_drops(in.backoff_drops);
  out->set_fq_packets(in.fq_packets);
  out->set_fq_bytes(in.fq_bytes);
  out->set_duplicated(in.duplicated);
  out->set_corrupted(in.corrupted);
  out->set_link_down_drops(in.link_down_drops);
  out->set_depth_packets(in.depth_packets);
  out->set_depth_bytes(in.depth_bytes);
  out->set_in_flight(in.in_flight);
  out->set_sojourn_p50_ns(in.sojourn_p50_ns);
  out->set_sojourn_p99_ns(in.sojourn_p99_ns);
  out->set_sojourn_max_ns(in.sojourn_max_ns);
  out->set_lateness_p50_ns(in.lateness_p50_ns);
  out->set_lateness_p99_ns(in.lateness_p99_ns);
  out->set_lateness_max_ns(in.lateness_max_ns);
}

v1::LinkDirection toWire(LinkDirection in) {
  switch (in) {
    case LinkDirection::kAToB: return v1::LINK_DIRECTION_A_TO_B;
    case LinkDirection::kBToA: return v1::LINK_DIRECTION_B_TO_A;
    case LinkDirection::kBoth: break;
  }
  return v1::LINK_DIRECTION_BOTH;
}

void toWire(const LinkInfo& in, v1::Link* out) {
  out->set_name(in.name);
  out->set_up(in.up);
  endToWire(in.a, out->mutable_a());
  endToWire(in.b, out->mutable_b());
  toWire(in.a_to_b, out->mutable_a_to_b());
  toWire(in.b_to_a, out->mutable_b_to_a());
  toWire(in.a_to_b_stats, out->mutable_a_to_b_stats());
  toWire(in.b_to_a_stats, out->mutable_b_to_a_stats());
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
  // Only what is emulated: a link without emulation is the request a 1.3 server knows.
  if (!(in.a_to_b == LinkParams{})) toWire(in.a_to_b, out->mutable_a_to_b());
  if (!(in.b_to_a == LinkParams{})) toWire(in.b_to_a, out->mutable_b_to_a());
}

void toWire(const SegmentInfo& in, v1::Segment* out) {
  out->set_name(in.name);
  out->set_up(in.up);
  for (const auto& p : in.ports) {
    v1::SegmentPort* w = out->add_ports();
    w->set_node(p.node);
    w->set_port(p.port);
    w->set_id(p.id);
    w->set_mac(reinterpret_cast<const char*>(p.mac.bytes.data()), 6);
    w->set_mtu(p.mtu);
    w->set_tx_packets(p.tx_packets);
    w->set_tx_bytes(p.tx_bytes);
    w->set_rx_packets(p.rx_packets);
    w->set_rx_bytes(p.rx_bytes);
    w->set_unknown_dst_drops(p.unknown_dst_drops);
    w->set_no_frame_drops(p.no_frame_drops);
    w->set_queue_full_drops(p.queue_full_drops);
    w->set_down_drops(p.down_drops);
    w->set_up(p.up);
  }
  toWire(in.params, out->mutable_params());
  toWire(in.stats, out->mutable_stats());
}

void toWire(const SegmentSpec& in, v1::CreateSegment* out) {
  out->set_name(in.name);
  for (const auto& p : in.ports) {
    v1::SegmentPort* w = out->add_ports();
    w->set_node(p.node);
    w->set_port(p.port);
    if (!p.mac.isZero()) w->set_mac(reinterpret_cast<const char*>(p.mac.bytes.data()), 6);
    w->set_mtu(p.mtu);
  }
  out->set_up(in.up);
  if (!(in.params == LinkParams{})) toWire(in.params, out->mutable_params());
}

void toWire(const HostSpec& in, v1::CreateHost* out) {
  out->set_name(in.name);
  out->set_node(in.node);
  out->set_mtu(in.mtu);
  for (const auto& a : in.addresses) {
    auto* w = out->add_addresses();
    toWire(a.address, w->mutable_address());
    w->set_length(a.length);
  }
  for (const auto& g : in.gateways) toWire(g, out->add_gateways());
}

}  // namespace fastpath::ctrl
