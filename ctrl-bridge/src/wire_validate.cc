// SPDX-License-Identifier: GPL-2.0-only
#include "wire_validate.h"

#include "reply_decode.h"

#include <cctype>
#include <cstdio>
#include <cstring>

namespace fastpath::ctrl {

namespace {

unsigned maxLen(Family f) { return f == Family::kIpv4 ? 32 : 128; }

}  // namespace

std::string elementField(const std::string& field, const char* name, std::size_t i) {
  return field + "." + name + "[" + std::to_string(i) + "]";
}

PortDirectory::PortDirectory(const std::vector<PortInfo>& ports, const std::string& node)
    : node_(canonicalNode(node)) {
  for (const auto& p : ports) {
    // A backend scoped to one node lists only its ports; a port that says it belongs to
    // another node is never accepted for this one.
    if (!p.node.empty() && canonicalNode(p.node) != node_) continue;
    ids_.insert(p.id);
    names_[p.ifname] = p.id;
  }
}

std::string PortDirectory::where() const {
  if (node_ == kDefaultNodeName) return " (`fpctl ports` lists them)";
  return " in node " + node_ + " (`fpctl --node " + node_ + " ports` lists them)";
}

WireResult<PortId> PortDirectory::resolve(const v1::PortRef& ref, const std::string& field) const {
  switch (ref.ref_case()) {
    case v1::PortRef::kId:
      if (!ids_.count(ref.id()))
        return wireError(v1::NOT_FOUND, field,
                         "no port with id " + std::to_string(ref.id()) + where());
      return PortId(ref.id());
    case v1::PortRef::kName: {
      auto it = names_.find(ref.name());
      if (it == names_.end())
        return wireError(v1::NOT_FOUND, field, "no port named '" + ref.name() + "'" + where());
      return it->second;
    }
    default: return wireError(v1::INVALID_ARGUMENT, field, "not set (give a port id or name)");
  }
}

WireResult<IpAddress> addressFromWire(const v1::IpAddress& in, const std::string& field,
                                      bool allow_empty) {
  const std::string& b = in.bytes();
  if (b.empty() && allow_empty) return IpAddress{};
  if (b.size() == 4) {
    IpAddress a;
    a.family = Family::kIpv4;
    std::memcpy(a.bytes.data(), b.data(), 4);
    return a;
  }
  if (b.size() == 16) {
    IpAddress a;
    a.family = Family::kIpv6;
    std::memcpy(a.bytes.data(), b.data(), 16);
    return a;
  }
  return wireError(v1::INVALID_ARGUMENT, field,
                   std::to_string(b.size()) + " address bytes, expected 4 (IPv4) or 16 (IPv6)");
}

WireResult<IpPrefix> prefixFromWire(const v1::Prefix& in, const std::string& field) {
  if (!in.has_address()) return wireError(v1::INVALID_ARGUMENT, field + ".address", "not set");
  auto address = addressFromWire(in.address(), field + ".address", false);
  if (!address) return address.error();
  IpPrefix p;
  p.address = *address;
  unsigned max = maxLen(p.address.family);
  if (in.length() > max)
    return wireError(v1::INVALID_ARGUMENT, field + ".length",
                     std::to_string(in.length()) + " > " + std::to_string(max) +
                         (max == 32 ? " (IPv4)" : " (IPv6)"));
  p.length = static_cast<uint8_t>(in.length());
  if (p.hostBitsSet())
    return wireError(v1::INVALID_ARGUMENT, field,
                     p.address.toString() + "/" + std::to_string(p.length) +
                         " has host bits set; send " + p.normalised().toString());
  return p;
}

WireResult<Route> routeFromWire(const v1::Route& in, const std::string& field,
                                const PortDirectory& ports) {
  Route r;
  if (!in.has_prefix()) return wireError(v1::INVALID_ARGUMENT, field + ".prefix", "not set");
  auto prefix = prefixFromWire(in.prefix(), field + ".prefix");
  if (!prefix) return prefix.error();
  r.prefix = *prefix;
  auto next_hop = addressFromWire(in.next_hop(), field + ".next_hop", true);
  if (!next_hop) return next_hop.error();
  r.next_hop = *next_hop;
  if (in.next_hop().bytes().empty()) {
    r.next_hop.family = r.prefix.address.family;
  } else if (r.next_hop.family != r.prefix.address.family) {
    return wireError(v1::INVALID_ARGUMENT, field + ".next_hop",
                     r.next_hop.toString() + " is not the prefix's address family");
  }
  auto port = ports.resolve(in.port(), field + ".port");
  if (!port) return port.error();
  r.port = *port;
  r.metric = in.metric();
  return r;
}

WireResult<Neighbour> neighbourFromWire(const v1::Neighbour& in, const std::string& field,
                                        const PortDirectory& ports) {
  Neighbour n;
  if (!in.has_address()) return wireError(v1::INVALID_ARGUMENT, field + ".address", "not set");
  auto ip = addressFromWire(in.address(), field + ".address", false);
  if (!ip) return ip.error();
  n.ip = *ip;
  if (n.ip.isUnspecified())
    return wireError(v1::INVALID_ARGUMENT, field + ".address", "unspecified address");
  auto port = ports.resolve(in.port(), field + ".port");
  if (!port) return port.error();
  n.port = *port;
  if (in.mac().size() != 6)
    return wireError(v1::INVALID_ARGUMENT, field + ".mac",
                     std::to_string(in.mac().size()) + " bytes, expected 6");
  std::memcpy(n.mac.bytes.data(), in.mac().data(), 6);
  if (n.mac.isZero()) return wireError(v1::INVALID_ARGUMENT, field + ".mac", "all-zero MAC");
  if (n.mac.bytes[0] & 1)
    return wireError(v1::INVALID_ARGUMENT, field + ".mac",
                     n.mac.toString() + " is a multicast/broadcast address");
  return n;
}

WireResult<std::vector<ControlRule>> controlRulesFromWire(const v1::SetControlRules& in,
                                                          const std::string& field) {
  std::vector<ControlRule> rules;
  rules.reserve(in.rules_size());
  for (int i = 0; i < in.rules_size(); ++i) {
    const auto& w = in.rules(i);
    std::string f = elementField(field, "rules", i);
    ControlRule r;
    switch (w.action()) {
      case v1::ControlRule::ACTION_UNSPECIFIED:
      case v1::ControlRule::ACTION_CONTROL: r.pass_to_kernel = false; break;
      case v1::ControlRule::ACTION_PASS: r.pass_to_kernel = true; break;
      default:
        return wireError(v1::INVALID_ARGUMENT, f + ".action",
                         "unknown value " + std::to_string(w.action()));
    }
    switch (w.kind()) {
      case v1::ControlRule::KIND_ETHERTYPE:
        r.kind = ControlRule::Kind::kEtherType;
        if (w.ethertype() < 0x0600 || w.ethertype() > 0xffff)
          return wireError(v1::INVALID_ARGUMENT, f + ".ethertype",
                           std::to_string(w.ethertype()) + " is not an EtherType (0x0600..0xffff)");
        r.ethertype = static_cast<uint16_t>(w.ethertype());
        break;
      case v1::ControlRule::KIND_IP_PROTO:
        r.kind = ControlRule::Kind::kIpProto;
        if (w.ip_proto() > 255)
          return wireError(v1::INVALID_ARGUMENT, f + ".ip_proto",
                           std::to_string(w.ip_proto()) + " > 255");
        r.ip_proto = static_cast<uint8_t>(w.ip_proto());
        break;
      case v1::ControlRule::KIND_L4_PORT:
        r.kind = ControlRule::Kind::kL4Port;
        if (w.ip_proto() != 6 && w.ip_proto() != 17)
          return wireError(v1::INVALID_ARGUMENT, f + ".ip_proto",
                           std::to_string(w.ip_proto()) + ": must be 6 (TCP) or 17 (UDP)");
        if (w.port() > 65535)
          return wireError(v1::INVALID_ARGUMENT, f + ".port",
                           std::to_string(w.port()) + " > 65535");
        r.ip_proto = static_cast<uint8_t>(w.ip_proto());
        r.port = static_cast<uint16_t>(w.port());
        break;
      case v1::ControlRule::KIND_LOCAL_ADDRESS:
        r.kind = ControlRule::Kind::kLocalAddress;
        if (auto a = addressFromWire(w.address(), f + ".address", false); a)
          r.address = *a;
        else
          return a.error();
        break;
      case v1::ControlRule::KIND_UNSPECIFIED:
        return wireError(v1::INVALID_ARGUMENT, f + ".kind", "not set");
      default:
        return wireError(v1::INVALID_ARGUMENT, f + ".kind",
                         "unknown value " + std::to_string(w.kind()));
    }
    rules.push_back(r);
  }
  return rules;
}

std::string canonicalNode(const std::string& name) {
  return name.empty() ? std::string(kDefaultNodeName) : name;
}

WireStatus nameFromWire(const std::string& name, const std::string& field, const char* what) {
  if (name.empty())
    return wireError(v1::INVALID_ARGUMENT, field, std::string("empty ") + what + " name");
  if (name.size() > kMaxNodeNameLength)
    return wireError(v1::INVALID_ARGUMENT, field,
                     std::string(what) + " name of " + std::to_string(name.size()) +
                         " characters; at most " + std::to_string(kMaxNodeNameLength));
  for (std::size_t i = 0; i < name.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    if (std::isalnum(c) || c == '_' || c == '.' || c == '-') continue;
    char shown[8];
    if (std::isprint(c))
      std::snprintf(shown, sizeof(shown), "'%c'", c);
    else
      std::snprintf(shown, sizeof(shown), "0x%02x", c);
    return wireError(v1::INVALID_ARGUMENT, field,
                     std::string(what) + " name has " + shown + " at offset " + std::to_string(i) +
                         "; use letters, digits, '_', '.' and '-'");
  }
  return {};
}

WireStatus optionalNodeFromWire(const std::string& name, const std::string& field) {
  if (name.empty()) return {};
  return nameFromWire(name, field, "node");
}

WireResult<MacAddress> portMacFromWire(const std::string& bytes, const std::string& field,
                                       bool allow_generated) {
  MacAddress mac;
  if (bytes.empty() && allow_generated) return mac;
  if (bytes.size() != 6)
    return wireError(v1::INVALID_ARGUMENT, field,
                     std::to_string(bytes.size()) + " bytes, expected 6" +
                         (allow_generated ? " (or none: fastpathd generates one)" : ""));
  std::memcpy(mac.bytes.data(), bytes.data(), 6);
  if (mac.isZero() && !allow_generated)
    return wireError(v1::INVALID_ARGUMENT, field, "all-zero MAC");
  if (mac.bytes[0] & 1)
    return wireError(v1::INVALID_ARGUMENT, field,
                     mac.toString() + " is a multicast/broadcast address");
  return mac;
}

WireResult<NodeSpec> nodeSpecFromWire(const v1::CreateNode& in, const std::string& field) {
  if (auto st = nameFromWire(in.name(), field + ".name", "node"); !st) return st.error();
  if (canonicalNode(in.name()) == kDefaultNodeName)
    return wireError(v1::INVALID_ARGUMENT, field + ".name",
                     "\"" + std::string(kDefaultNodeName) + "\" exists in every fastpathd");
  NodeSpec spec;
  spec.name = in.name();
  if (!in.host().empty()) {
    // A host name or address: no spaces or control characters, at most 253 characters.
    if (in.host().size() > 253)
      return wireError(v1::INVALID_ARGUMENT, field + ".host",
                       std::to_string(in.host().size()) + " characters; at most 253");
    for (unsigned char c : in.host())
      if (!std::isalnum(c) && c != '-' && c != '.' && c != '_' && c != ':')
        return wireError(v1::INVALID_ARGUMENT, field + ".host",
                         "'" + in.host() + "' is not a host name or address");
    spec.host = in.host();
  }
  return spec;
}

WireResult<LinkEndSpec> linkEndFromWire(const v1::LinkEnd& in, const std::string& field,
                                        const std::string& link_name) {
  LinkEndSpec end;
  if (auto st = nameFromWire(in.node(), field + ".node", "node"); !st) return st.error();
  end.node = in.node();
  end.port = in.port().empty() ? link_name : in.port();
  if (auto st = nameFromWire(end.port, field + ".port", "port"); !st) return st.error();
  auto mac = portMacFromWire(in.mac(), field + ".mac", true);
  if (!mac) return mac.error();
  end.mac = *mac;
  if (in.mtu() != 0 && (in.mtu() < 68 || in.mtu() > 65535))
    return wireError(v1::INVALID_ARGUMENT, field + ".mtu",
                     std::to_string(in.mtu()) + " is outside 68..65535 (0 = 1500)");
  end.mtu = in.mtu() ? in.mtu() : 1500;
  return end;
}

WireResult<LinkSpec> linkSpecFromWire(const v1::CreateLink& in, const std::string& field) {
  if (auto st = nameFromWire(in.name(), field + ".name", "link"); !st) return st.error();
  LinkSpec spec;
  spec.name = in.name();
  if (!in.has_a()) return wireError(v1::INVALID_ARGUMENT, field + ".a", "not set");
  if (!in.has_b()) return wireError(v1::INVALID_ARGUMENT, field + ".b", "not set");
  auto a = linkEndFromWire(in.a(), field + ".a", in.name());
  if (!a) return a.error();
  auto b = linkEndFromWire(in.b(), field + ".b", in.name());
  if (!b) return b.error();
  if (canonicalNode(a->node) == canonicalNode(b->node))
    return wireError(v1::INVALID_ARGUMENT, field + ".b.node",
                     "same node as a ('" + a->node + "'); a link joins two different nodes");
  if (!a->mac.isZero() && a->mac == b->mac)
    return wireError(v1::INVALID_ARGUMENT, field + ".b.mac",
                     b->mac.toString() + " is a's MAC too; the ends need different MACs");
  spec.a = *a;
  spec.b = *b;
  spec.up = in.has_up() ? in.up() : true;
  if (in.has_a_to_b()) {
    auto p = linkParamsFromWire(in.a_to_b(), field + ".a_to_b");
    if (!p) return p.error();
    spec.a_to_b = *p;
  }
  if (in.has_b_to_a()) {
    auto p = linkParamsFromWire(in.b_to_a(), field + ".b_to_a");
    if (!p) return p.error();
    spec.b_to_a = *p;
  }
  return spec;
}

WireResult<SegmentSpec> segmentSpecFromWire(const v1::CreateSegment& in,
                                            const std::string& field) {
  if (auto st = nameFromWire(in.name(), field + ".name", "segment"); !st) return st.error();
  SegmentSpec spec;
  spec.name = in.name();
  if (in.ports_size() == 0 || size_t(in.ports_size()) > kMaxSegmentPorts)
    return wireError(v1::INVALID_ARGUMENT, field + ".ports",
                     std::to_string(in.ports_size()) + " ports; a segment has 1 to " +
                         std::to_string(kMaxSegmentPorts));
  for (int i = 0; i < in.ports_size(); ++i) {
    const auto& w = in.ports(i);
    const std::string f = field + ".ports[" + std::to_string(i) + "]";
    v1::LinkEnd end;
    end.set_node(w.node());
    end.set_port(w.port());
    end.set_mac(w.mac());
    end.set_mtu(w.mtu());
    auto e = linkEndFromWire(end, f, in.name());
    if (!e) return e.error();
    for (const auto& other : spec.ports) {
      if (canonicalNode(other.node) == canonicalNode(e->node))
        return wireError(v1::INVALID_ARGUMENT, f + ".node",
                         "node '" + e->node + "' is on the segment already; one port per node");
      if (!e->mac.isZero() && other.mac == e->mac)
        return wireError(v1::INVALID_ARGUMENT, f + ".mac",
                         e->mac.toString() + " is another port's MAC too");
    }
    spec.ports.push_back(SegmentPortSpec{e->node, e->port, e->mac, e->mtu});
  }
  spec.up = in.has_up() ? in.up() : true;
  if (in.has_params()) {
    auto p = linkParamsFromWire(in.params(), field + ".params");
    if (!p) return p.error();
    spec.params = *p;
  }
  return spec;
}

namespace {

// One value checked by validateLinkParams on its own (every other field at its default),
// so that the refusal names the wire field: validateLinkParams says "loss 150% is outside
// 0% .. 100%", the client reads "<field>: 150% is outside 0% .. 100%".
WireStatus checkLinkValue(const LinkParams& probe, const std::string& field,
                          const std::string& domain_name, const std::string& shown) {
  auto st = validateLinkParams(probe);
  if (st) return {};
  std::string m = st.error().message;
  if (m.rfind(domain_name + " ", 0) == 0) m.erase(0, domain_name.size() + 1);
  if (m.rfind("is ", 0) == 0) m = shown + " " + m;  // "limit-bytes is more than 1gb"
  return wireError(v1::INVALID_ARGUMENT, field, m);
}

}  // namespace

WireResult<LinkParams> linkParamsFromWire(const v1::LinkParams& in, const std::string& field) {
  LinkParams p;
  auto check = [&](const char* wire_name, const char* domain_name, const std::string& shown,
                   auto set) -> WireStatus {
    LinkParams probe;
    set(probe);
    return checkLinkValue(probe, field + "." + wire_name, domain_name, shown);
  };
  using std::to_string;
  const uint32_t limit = in.limit_packets() ? in.limit_packets() : LinkParams{}.limit_packets;
  WireStatus checks[] = {
      check("rate_bps", "rate", to_string(in.rate_bps()) + " bit/s",
            [&](LinkParams& x) { x.rate_bps = in.rate_bps(); }),
      check("overhead_bytes", "overhead", to_string(in.overhead_bytes()),
            [&](LinkParams& x) { x.overhead_bytes = in.overhead_bytes(); }),
      check("mpu_bytes", "mpu", to_string(in.mpu_bytes()),
            [&](LinkParams& x) { x.mpu_bytes = in.mpu_bytes(); }),
      check("delay_ns", "delay", to_string(in.delay_ns()) + " ns",
            [&](LinkParams& x) { x.delay_ns = in.delay_ns(); }),
      check("jitter_ns", "jitter", to_string(in.jitter_ns()) + " ns",
            [&](LinkParams& x) { x.jitter_ns = in.jitter_ns(); }),
      check("limit_packets", "limit", to_string(limit),
            [&](LinkParams& x) { x.limit_packets = limit; }),
      check("limit_bytes", "limit-bytes", to_string(in.limit_bytes()) + " bytes",
            [&](LinkParams& x) { x.limit_bytes = in.limit_bytes(); }),
      check("loss", "loss", "", [&](LinkParams& x) { x.loss = in.loss(); }),
      check("duplicate", "duplicate", "", [&](LinkParams& x) { x.duplicate = in.duplicate(); }),
      check("corrupt", "corrupt", "", [&](LinkParams& x) { x.corrupt = in.corrupt(); }),
      check("seed", "seed", "", [&](LinkParams& x) { x.seed = in.seed(); }),
  };
  for (auto& st : checks)
    if (!st) return st.error();
  p.rate_bps = in.rate_bps();
  p.overhead_bytes = in.overhead_bytes();
  p.mpu_bytes = in.mpu_bytes();
  p.delay_ns = in.delay_ns();
  p.jitter_ns = in.jitter_ns();
  switch (in.jitter_distribution()) {
    case v1::LinkParams::JITTER_UNIFORM: p.jitter_dist = LinkParams::Jitter::kUniform; break;
    case v1::LinkParams::JITTER_NORMAL: p.jitter_dist = LinkParams::Jitter::kNormal; break;
    case v1::LinkParams::JITTER_PARETONORMAL:
      p.jitter_dist = LinkParams::Jitter::kParetoNormal;
      break;
    default:
      return wireError(v1::INVALID_ARGUMENT, field + ".jitter_distribution",
                       "unknown value " + to_string(in.jitter_distribution()) +
                           " (JITTER_UNIFORM, JITTER_NORMAL or JITTER_PARETONORMAL)");
  }
  p.reorder = in.reorder();
  p.limit_packets = limit;
  p.limit_bytes = in.limit_bytes();
  p.loss = in.loss();
  p.duplicate = in.duplicate();
  p.corrupt = in.corrupt();
  p.seed = in.seed();
  if (in.has_gilbert_elliott()) {
    const auto& ge = in.gilbert_elliott();
    const std::string gf = field + ".gilbert_elliott";
    p.gilbert_elliott = true;
    p.loss = 0;  // the model replaces Bernoulli loss
    p.ge_p = ge.p();
    p.ge_r = ge.has_r() ? ge.r() : 1;
    p.ge_loss_bad = ge.has_loss_bad() ? ge.loss_bad() : 1;
    p.ge_loss_good = ge.loss_good();
    auto geCheck = [&](const char* wire_name, const char* domain_name, auto set) -> WireStatus {
      LinkParams probe;
      probe.gilbert_elliott = true;
      set(probe);
      return checkLinkValue(probe, gf + "." + wire_name, domain_name, "");
    };
    WireStatus ge_checks[] = {
        geCheck("p", "gemodel p", [&](LinkParams& x) { x.ge_p = p.ge_p; }),
        geCheck("r", "gemodel r", [&](LinkParams& x) { x.ge_r = p.ge_r; }),
        geCheck("loss_bad", "gemodel 1-h", [&](LinkParams& x) { x.ge_loss_bad = p.ge_loss_bad; }),
        geCheck("loss_good", "gemodel 1-k",
                [&](LinkParams& x) { x.ge_loss_good = p.ge_loss_good; }),
    };
    for (auto& st : ge_checks)
      if (!st) return st.error();
  }
  if (!linkAqmFromWire(in, &p))
    return wireError(v1::INVALID_ARGUMENT, field + ".aqm.kind",
                     "unknown value " + to_string(in.aqm().kind()) +
                          " (AQM_NONE, AQM_CODEL, AQM_COBALT, AQM_RED, AQM_FQ_CODEL)");
  if (p.aqm != LinkParams::Aqm::kNone)
    if (auto st = validateLinkParams(p); !st)
      return wireError(v1::INVALID_ARGUMENT, field + ".aqm", st.error().message);
  // The whole, in case a rule ever spans fields.
  if (auto st = validateLinkParams(p); !st)
    return wireError(v1::INVALID_ARGUMENT, field, st.error().message);
  return p;
}

WireResult<LinkDirection> linkDirectionFromWire(int direction, const std::string& field) {
  switch (direction) {
    case v1::LINK_DIRECTION_BOTH: return LinkDirection::kBoth;
    case v1::LINK_DIRECTION_A_TO_B: return LinkDirection::kAToB;
    case v1::LINK_DIRECTION_B_TO_A: return LinkDirection::kBToA;
    default:
      return wireError(v1::INVALID_ARGUMENT, field,
                       "unknown value " + std::to_string(direction) +
                           " (LINK_DIRECTION_BOTH, LINK_DIRECTION_A_TO_B or "
                           "LINK_DIRECTION_B_TO_A)");
  }
}

WireResult<std::vector<FastPathEvent::Kind>> subscriptionFromWire(const v1::Subscribe& in,
                                                                  const std::string& field) {
  std::vector<FastPathEvent::Kind> kinds;
  if (in.kinds_size() == 0) {
    kinds = {FastPathEvent::Kind::kRouteMiss, FastPathEvent::Kind::kPortUp,
             FastPathEvent::Kind::kPortDown, FastPathEvent::Kind::kNeighbourNeeded,
             FastPathEvent::Kind::kMediumRetryLimit};
  }
  for (int i = 0; i < in.kinds_size(); ++i) {
    switch (in.kinds(i)) {
      case v1::EVENT_KIND_ROUTE_MISS: kinds.push_back(FastPathEvent::Kind::kRouteMiss); break;
      case v1::EVENT_KIND_PORT_UP: kinds.push_back(FastPathEvent::Kind::kPortUp); break;
      case v1::EVENT_KIND_PORT_DOWN: kinds.push_back(FastPathEvent::Kind::kPortDown); break;
      case v1::EVENT_KIND_NEIGHBOUR_NEEDED:
        kinds.push_back(FastPathEvent::Kind::kNeighbourNeeded);
        break;
      case v1::EVENT_KIND_MEDIUM_RETRY_LIMIT:
        kinds.push_back(FastPathEvent::Kind::kMediumRetryLimit);
        break;
      default:
        return wireError(v1::INVALID_ARGUMENT, elementField(field, "kinds", i),
                         "unknown event kind " + std::to_string(in.kinds(i)));
    }
  }
  return kinds;
}

}  // namespace fastpath::ctrl
