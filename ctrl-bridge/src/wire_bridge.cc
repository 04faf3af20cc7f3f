// SPDX-License-Identifier: GPL-2.0-only
#include "wire_bridge.h"

#include <algorithm>
#include <set>

#include "wire_validate.h"

namespace fastpath::ctrl {

namespace {

MacAddress macOf(const std::string& bytes) {
  MacAddress m;
  if (bytes.size() == 6) std::copy(bytes.begin(), bytes.end(), m.bytes.begin());
  return m;
}

std::string bytesOf(const MacAddress& m) { return std::string(m.bytes.begin(), m.bytes.end()); }

}  // namespace

WireResult<BridgeSpec> bridgeSpecFromWire(const v1::CreateBridge& in, const std::string& field) {
  BridgeSpec spec;
  if (auto st = nameFromWire(in.name(), field + ".name", "bridge"); !st) return st.error();
  if (auto st = nameFromWire(in.node(), field + ".node", "node"); !st) return st.error();
  spec.name = in.name();
  spec.node = in.node();
  if (in.ports_size() == 0 || size_t(in.ports_size()) > kMaxBridgePorts)
    return wireError(v1::INVALID_ARGUMENT, field + ".ports",
                     std::to_string(in.ports_size()) + " ports; a bridge has 1 to " +
                         std::to_string(kMaxBridgePorts));
  std::set<std::string> seen;
  for (int i = 0; i < in.ports_size(); ++i) {
    const std::string f = field + ".ports[" + std::to_string(i) + "]";
    if (auto st = nameFromWire(in.ports(i), f, "port"); !st) return st.error();
    if (!seen.insert(in.ports(i)).second)
      return wireError(v1::INVALID_ARGUMENT, f, "port " + in.ports(i) + " is listed twice");
    spec.ports.push_back(in.ports(i));
  }
  spec.ageing_ns = in.ageing_ns() ? in.ageing_ns() : kDefaultBridgeAgeingNs;
  return spec;
}

void toWire(const BridgeSpec& in, v1::CreateBridge* out) {
  out->set_name(in.name);
  out->set_node(in.node);
  for (const auto& p : in.ports) out->add_ports(p);
  out->set_ageing_ns(in.ageing_ns == kDefaultBridgeAgeingNs ? 0 : in.ageing_ns);
}

void toWire(const BridgeInfo& in, v1::Bridge* out) {
  out->set_name(in.name);
  out->set_node(in.node);
  out->set_ageing_ns(in.ageing_ns);
  for (const auto& p : in.ports) {
    auto* o = out->add_ports();
    o->set_port(p.port);
    o->set_segment(p.segment);
    o->set_id(p.id);
    o->set_mac(bytesOf(p.mac));
    o->set_rx_packets(p.rx_packets);
    o->set_tx_packets(p.tx_packets);
  }
  for (const auto& l : in.learned) {
    auto* o = out->add_learned();
    o->set_mac(bytesOf(l.mac));
    o->set_port(l.port);
    o->set_expires_in_ns(l.expires_in_ns);
  }
  out->set_received(in.received);
  out->set_forwarded(in.forwarded);
  out->set_flooded(in.flooded);
  out->set_local_drops(in.local);
  out->set_no_frame_drops(in.no_frame);
  out->set_loop_drops(in.loop_drops);
  out->set_learn_full(in.learn_full);
}

BridgeInfo bridgeFromReply(const v1::Bridge& in) {
  BridgeInfo b;
  b.name = in.name();
  b.node = in.node();
  b.ageing_ns = in.ageing_ns();
  for (const auto& p : in.ports()) {
    BridgeInfo::Port o;
    o.port = p.port();
    o.segment = p.segment();
    o.id = PortId(p.id());
    o.mac = macOf(p.mac());
    o.rx_packets = p.rx_packets();
    o.tx_packets = p.tx_packets();
    b.ports.push_back(std::move(o));
  }
  for (const auto& l : in.learned()) {
    BridgeInfo::Learned o;
    o.mac = macOf(l.mac());
    o.port = l.port();
    o.expires_in_ns = l.expires_in_ns();
    b.learned.push_back(o);
  }
  b.received = in.received();
  b.forwarded = in.forwarded();
  b.flooded = in.flooded();
  b.local = in.local_drops();
  b.no_frame = in.no_frame_drops();
  b.loop_drops = in.loop_drops();
  b.learn_full = in.learn_full();
  return b;
}

}  // namespace fastpath::ctrl
