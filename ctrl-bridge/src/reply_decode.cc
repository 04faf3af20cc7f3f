// SPDX-License-Identifier: GPL-2.0-only
#include "reply_decode.h"

#include <algorithm>
#include <cstring>

#include "wire_fq_codel.h"
#include "wire_red.h"
#include "wire_validate.h"

namespace fastpath::ctrl {

IpAddress addressFromReply(const v1::IpAddress& in) {
  // What is neither 4 nor 16 bytes reads as the unspecified address.
  auto a = addressFromWire(in, "", true);
  return a ? *a : IpAddress{};
}

IpPrefix prefixFromReply(const v1::Prefix& in) {
  IpPrefix p;
  p.address = addressFromReply(in.address());
  p.length = static_cast<uint8_t>(std::min<uint32_t>(in.length(), 128));
  return p;
}

Route routeFromReply(const v1::Route& in) {
  Route r;
  r.prefix = prefixFromReply(in.prefix());
  r.next_hop = addressFromReply(in.next_hop());
  if (in.next_hop().bytes().empty()) r.next_hop.family = r.prefix.address.family;
  r.port = in.port().id();
  r.metric = in.metric();
  return r;
}

Neighbour neighbourFromReply(const v1::Neighbour& in) {
  Neighbour n;
  n.ip = addressFromReply(in.address());
  n.port = in.port().id();
  if (in.mac().size() == 6) std::memcpy(n.mac.bytes.data(), in.mac().data(), 6);
  return n;
}

ControlRule controlRuleFromReply(const v1::ControlRule& in) {
  ControlRule r;
  r.pass_to_kernel = in.action() == v1::ControlRule::ACTION_PASS;
  switch (in.kind()) {
    case v1::ControlRule::KIND_IP_PROTO: r.kind = ControlRule::Kind::kIpProto; break;
    case v1::ControlRule::KIND_L4_PORT: r.kind = ControlRule::Kind::kL4Port; break;
    case v1::ControlRule::KIND_LOCAL_ADDRESS: r.kind = ControlRule::Kind::kLocalAddress; break;
    default: r.kind = ControlRule::Kind::kEtherType; break;
  }
  r.ethertype = static_cast<uint16_t>(in.ethertype());
  r.ip_proto = static_cast<uint8_t>(in.ip_proto());
  r.port = static_cast<uint16_t>(in.port());
  if (in.has_address()) r.address = addressFromReply(in.address());
  return r;
}

PortInfo portFromReply(const v1::Port& in) {
  PortInfo p;
  p.id = in.id();
  p.ifname = in.ifname();
  p.ifindex = in.ifindex();
  if (in.mac().size() == 6) std::memcpy(p.mac.bytes.data(), in.mac().data(), 6);
  p.mtu = in.mtu();
  p.up = in.up();
  p.queues = in.queues();
  p.xdp_mode = in.xdp_mode();
  p.xsk_mode = in.xsk_mode();
  p.node = in.node();
  p.link = in.link();
  return p;
}

CounterSet counterSetFromReply(const v1::CounterSet& in) {
  CounterSet s;
  s.scope = in.scope();
  for (const auto& c : in.counters()) s.counters.emplace_back(c.name(), c.value());
  return s;
}

std::optional<FastPathEvent> eventFromReply(const v1::Event& in) {
  FastPathEvent out;
  switch (in.kind()) {
    case v1::EVENT_KIND_ROUTE_MISS: out.kind = FastPathEvent::Kind::kRouteMiss; break;
    case v1::EVENT_KIND_PORT_UP: out.kind = FastPathEvent::Kind::kPortUp; break;
    case v1::EVENT_KIND_PORT_DOWN: out.kind = FastPathEvent::Kind::kPortDown; break;
    case v1::EVENT_KIND_NEIGHBOUR_NEEDED: out.kind = FastPathEvent::Kind::kNeighbourNeeded; break;
    case v1::EVENT_KIND_MEDIUM_RETRY_LIMIT:
      out.kind = FastPathEvent::Kind::kMediumRetryLimit;
      if (in.mac().size() == 6) std::memcpy(out.mac.bytes.data(), in.mac().data(), 6);
      break;
    case v1::EVENT_KIND_EVENTS_DROPPED:
      out.kind = FastPathEvent::Kind::kEventsDropped;
      out.dropped = in.dropped();
      return out;
    default: return std::nullopt;  // a newer server's event kind: skip it
  }
  out.port = in.port();
  out.address = addressFromReply(in.address());
  out.node = in.node();
  return out;
}

NodeInfo nodeFromReply(const v1::Node& in) {
  NodeInfo n;
  n.name = in.name();
  n.host = in.host();
  n.id = in.id();
  n.worker = in.worker();
  n.ports.assign(in.ports().begin(), in.ports().end());
  n.routes = static_cast<std::size_t>(in.routes());
  n.neighbours = static_cast<std::size_t>(in.neighbours());
  return n;
}

namespace {

LinkInfo::End endFromReply(const v1::LinkEnd& in) {
  LinkInfo::End e;
  e.node = in.node();
  e.port = in.port();
  e.id = in.id();
  if (in.mac().size() == 6) std::memcpy(e.mac.bytes.data(), in.mac().data(), 6);
  e.mtu = in.mtu();
  e.down = in.down();
  return e;
}

}  // namespace

LinkParams linkParamsFromReply(const v1::LinkParams& in) {
  LinkParams p;
  p.rate_bps = in.rate_bps();
  p.overhead_bytes = in.overhead_bytes();
  p.mpu_bytes = in.mpu_bytes();
  p.delay_ns = in.delay_ns();
  p.jitter_ns = in.jitter_ns();
  switch (in.jitter_distribution()) {
    case v1::LinkParams::JITTER_NORMAL: p.jitter_dist = LinkParams::Jitter::kNormal; break;
    case v1::LinkParams::JITTER_PARETONORMAL:
      p.jitter_dist = LinkParams::Jitter::kParetoNormal;
      break;
    default: p.jitter_dist = LinkParams::Jitter::kUniform; break;
  }
  p.reorder = in.reorder();
  if (in.limit_packets()) p.limit_packets = in.limit_packets();
  p.limit_bytes = in.limit_bytes();
  p.loss = in.loss();
  if (in.has_gilbert_elliott()) {
    const auto& ge = in.gilbert_elliott();
    p.gilbert_elliott = true;
    p.ge_p = ge.p();
    p.ge_r = ge.has_r() ? ge.r() : 1;
    p.ge_loss_bad = ge.has_loss_bad() ? ge.loss_bad() : 1;
    p.ge_loss_good = ge.loss_good();
    p.loss = 0;  // the model replaces Bernoulli loss
  }
  p.duplicate = in.duplicate();
  p.corrupt = in.corrupt();
  p.seed = in.seed();
  linkAqmFromWire(in, &p);
  return p;
}

bool linkAqmFromWire(const v1::LinkParams& in, LinkParams* p) {
  if (!in.has_aqm()) {
    p->aqm = LinkParams::Aqm::kNone;
    return true;
  }
  const v1::LinkAqm& a = in.aqm();
  switch (a.kind()) {
    case v1::LinkAqm::AQM_NONE: p->aqm = LinkParams::Aqm::kNone; return true;
    case v1::LinkAqm::AQM_CODEL: p->aqm = LinkParams::Aqm::kCoDel; break;
    case v1::LinkAqm::AQM_COBALT: p->aqm = LinkParams::Aqm::kCobalt; break;
    case v1::LinkAqm::AQM_RED:
      p->aqm = LinkParams::Aqm::kRed;
      p->red = a.has_red() ? redFromWire(a.red()) : LinkParams::Red{};
      break;
    case v1::LinkAqm::AQM_FQ_CODEL: p->aqm = LinkParams::Aqm::kFqCoDel; break;
    default: return false;
  }
  p->aqm_limit_packets = a.limit_packets();
  p->aqm_limit_bytes = a.limit_bytes();
  p->aqm_target_ns = a.target_ns();
  p->aqm_interval_ns = a.interval_ns();
  p->aqm_min_bytes = a.min_bytes();
  p->aqm_ecn = a.ecn();
  p->aqm_ce_threshold_ns = a.ce_threshold_ns();
  const LinkParams d;
  p->aqm_blue_increment = a.has_blue_increment() ? a.blue_increment() : d.aqm_blue_increment;
  p->aqm_blue_decrement = a.has_blue_decrement() ? a.blue_decrement() : d.aqm_blue_decrement;
  p->aqm_blue_threshold_ns =
      a.has_blue_threshold_ns() ? a.blue_threshold_ns() : d.aqm_blue_threshold_ns;
  fqCoDelFromWire(a, p);
  return true;
}

LinkDirectionStats linkStatsFromReply(const v1::LinkDirectionStats& in) {
  LinkDirectionStats s;
  s.tx_packets = in.tx_packets();
  s.tx_bytes = in.tx_bytes();
  s.enqueued = in.enqueued();
  s.delivered = in.delivered();
  s.queue_drops = in.queue_drops();
  s.loss_drops = in.loss_drops();
  s.full_drops = in.full_drops();
  s.aqm_drops = in.aqm_drops();
  s.aqm_marks = in.aqm_marks();
  s.aqm_forced_drops = in.aqm_forced_drops();
  s.aqm_forced_marks = in.aqm_forced_marks();
  s.aqm_drop_bytes = in.aqm_drop_bytes();
  s.aqm_forced_drop_bytes = in.aqm_forced_drop_bytes();
  s.backoff_drops = in.backoff_drops();
  s.fq_packets = in.fq_packets();
  s.fq_bytes = in.fq_bytes();
  s.duplicated = in.duplicated();
  s.corrupted = in.corrupted();
  s.link_down_drops = in.link_down_drops();
  s.depth_packets = in.depth_packets();
  s.depth_bytes = in.depth_bytes();
  s.in_flight = in.in_flight();
  s.sojourn_p50_ns = in.sojourn_p50_ns();
  s.sojourn_p99_ns = in.sojourn_p99_ns();
  s.sojourn_max_ns = in.sojourn_max_ns();
  s.lateness_p50_ns = in.lateness_p50_ns();
  s.lateness_p99_ns = in.lateness_p99_ns();
  s.lateness_max_ns = in.lateness_max_ns();
  return s;
}

LinkInfo linkFromReply(const v1::Link& in) {
  LinkInfo l;
  l.name = in.name();
  l.up = in.up();
  l.a = endFromReply(in.a());
  l.b = endFromReply(in.b());
  l.a_to_b = linkParamsFromReply(in.a_to_b());
  l.b_to_a = linkParamsFromReply(in.b_to_a());
  l.a_to_b_stats = linkStatsFromReply(in.a_to_b_stats());
  l.b_to_a_stats = linkStatsFromReply(in.b_to_a_stats());
  return l;
}

SegmentInfo segmentFromReply(const v1::Segment& in) {
  SegmentInfo s;
  s.name = in.name();
  s.up = in.up();
  for (const auto& w : in.ports()) {
    SegmentInfo::Port p;
    memberPortFromReply(w, &p);
    p.unknown_dst_drops = w.unknown_dst_drops();
    p.no_frame_drops = w.no_frame_drops();
    p.queue_full_drops = w.queue_full_drops();
    p.down_drops = w.down_drops();
    p.up = w.up();
    s.ports.push_back(std::move(p));
  }
  s.params = linkParamsFromReply(in.params());
  s.stats = linkStatsFromReply(in.stats());
  return s;
}

HostInfo hostFromReply(const v1::Host& h) {
  HostInfo out;
  out.spec.name = h.name();
  out.spec.node = h.node();
  out.spec.mtu = h.mtu();
  for (const auto& a : h.addresses())
    out.spec.addresses.push_back(IpPrefix{addressFromReply(a.address()), uint8_t(a.length())});
  for (const auto& g : h.gateways()) out.spec.gateways.push_back(addressFromReply(g));
  out.netns = h.netns();
  out.port = h.port();
  out.port_id = h.port_id();
  if (h.mac().size() == 6) std::memcpy(out.mac.bytes.data(), h.mac().data(), 6);
  return out;
}

}  // namespace fastpath::ctrl
