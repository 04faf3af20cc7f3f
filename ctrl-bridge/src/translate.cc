// SPDX-License-Identifier: GPL-2.0-only
#include "translate.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace fastpath::ctrl {

namespace {

bool fail(WireError* err, v1::ErrorCode code, const std::string& field, const std::string& msg) {
  err->code = code;
  err->field = field;
  err->message = field + ": " + msg;
  return false;
}

std::string idx(const std::string& field, const char* name, std::size_t i) {
  return field + "." + name + "[" + std::to_string(i) + "]";
}

unsigned maxLen(Family f) { return f == Family::kIpv4 ? 32 : 128; }

}  // namespace

// ------------------------------------------------------------------ ports

PortDirectory::PortDirectory(const std::vector<PortInfo>& ports) {
  for (const auto& p : ports) {
    ids_.insert(p.id);
    names_[p.ifname] = p.id;
  }
}

bool PortDirectory::resolve(const v1::PortRef& ref, const std::string& field, PortId* out,
                            WireError* err) const {
  switch (ref.ref_case()) {
    case v1::PortRef::kId:
      if (!ids_.count(ref.id()))
        return fail(err, v1::NOT_FOUND, field,
                    "no port with id " + std::to_string(ref.id()) + " (`fpctl ports` lists them)");
      *out = ref.id();
      return true;
    case v1::PortRef::kName: {
      auto it = names_.find(ref.name());
      if (it == names_.end())
        return fail(err, v1::NOT_FOUND, field,
                    "no port named '" + ref.name() + "' (`fpctl ports` lists them)");
      *out = it->second;
      return true;
    }
    default:
      return fail(err, v1::INVALID_ARGUMENT, field, "not set (give a port id or name)");
  }
}

// ------------------------------------------------------------------ wire -> domain

bool addressFromWire(const v1::IpAddress& in, const std::string& field, bool allow_empty,
                     IpAddress* out, WireError* err) {
  const std::string& b = in.bytes();
  if (b.empty() && allow_empty) {
    *out = IpAddress{};
    return true;
  }
  if (b.size() == 4) {
    IpAddress a;
    a.family = Family::kIpv4;
    std::memcpy(a.bytes.data(), b.data(), 4);
    *out = a;
    return true;
  }
  if (b.size() == 16) {
    IpAddress a;
    a.family = Family::kIpv6;
    std::memcpy(a.bytes.data(), b.data(), 16);
    *out = a;
    return true;
  }
  return fail(err, v1::INVALID_ARGUMENT, field,
              std::to_string(b.size()) + " address bytes, expected 4 (IPv4) or 16 (IPv6)");
}

bool prefixFromWire(const v1::Prefix& in, const std::string& field, IpPrefix* out,
                    WireError* err) {
  if (!in.has_address()) return fail(err, v1::INVALID_ARGUMENT, field + ".address", "not set");
  IpPrefix p;
  if (!addressFromWire(in.address(), field + ".address", false, &p.address, err)) return false;
  unsigned max = maxLen(p.address.family);
  if (in.length() > max)
    return fail(err, v1::INVALID_ARGUMENT, field + ".length",
                std::to_string(in.length()) + " > " + std::to_string(max) +
                    (max == 32 ? " (IPv4)" : " (IPv6)"));
  p.length = static_cast<uint8_t>(in.length());
  if (p.hostBitsSet())
    return fail(err, v1::INVALID_ARGUMENT, field,
                p.address.toString() + "/" + std::to_string(p.length) +
                    " has host bits set; send " + p.normalised().toString());
  *out = p;
  return true;
}

bool routeFromWire(const v1::Route& in, const std::string& field, const PortDirectory& ports,
                   Route* out, WireError* err) {
  Route r;
  if (!in.has_prefix()) return fail(err, v1::INVALID_ARGUMENT, field + ".prefix", "not set");
  if (!prefixFromWire(in.prefix(), field + ".prefix", &r.prefix, err)) return false;
  if (!addressFromWire(in.next_hop(), field + ".next_hop", true, &r.next_hop, err)) return false;
  if (in.next_hop().bytes().empty()) {
    r.next_hop.family = r.prefix.address.family;
  } else if (r.next_hop.family != r.prefix.address.family) {
    return fail(err, v1::INVALID_ARGUMENT, field + ".next_hop",
                r.next_hop.toString() + " is not the prefix's address family");
  }
  if (!ports.resolve(in.port(), field + ".port", &r.port, err)) return false;
  r.metric = in.metric();
  *out = r;
  return true;
}

bool neighbourFromWire(const v1::Neighbour& in, const std::string& field,
                       const PortDirectory& ports, Neighbour* out, WireError* err) {
  Neighbour n;
  if (!in.has_address()) return fail(err, v1::INVALID_ARGUMENT, field + ".address", "not set");
  if (!addressFromWire(in.address(), field + ".address", false, &n.ip, err)) return false;
  if (n.ip.isUnspecified())
    return fail(err, v1::INVALID_ARGUMENT, field + ".address", "unspecified address");
  if (!ports.resolve(in.port(), field + ".port", &n.port, err)) return false;
  if (in.mac().size() != 6)
    return fail(err, v1::INVALID_ARGUMENT, field + ".mac",
                std::to_string(in.mac().size()) + " bytes, expected 6");
  std::memcpy(n.mac.bytes.data(), in.mac().data(), 6);
  if (n.mac.isZero()) return fail(err, v1::INVALID_ARGUMENT, field + ".mac", "all-zero MAC");
  if (n.mac.bytes[0] & 1)
    return fail(err, v1::INVALID_ARGUMENT, field + ".mac",
                n.mac.toString() + " is a multicast/broadcast address");
  *out = n;
  return true;
}

bool controlRulesFromWire(const v1::SetControlRules& in, const std::string& field,
                          std::vector<ControlRule>* out, WireError* err) {
  std::vector<ControlRule> rules;
  rules.reserve(in.rules_size());
  for (int i = 0; i < in.rules_size(); ++i) {
    const auto& w = in.rules(i);
    std::string f = idx(field, "rules", i);
    ControlRule r;
    switch (w.action()) {
      case v1::ControlRule::ACTION_UNSPECIFIED:
      case v1::ControlRule::ACTION_CONTROL:
        r.pass_to_kernel = false;
        break;
      case v1::ControlRule::ACTION_PASS:
        r.pass_to_kernel = true;
        break;
      default:
        return fail(err, v1::INVALID_ARGUMENT, f + ".action",
                    "unknown value " + std::to_string(w.action()));
    }
    switch (w.kind()) {
      case v1::ControlRule::KIND_ETHERTYPE:
        r.kind = ControlRule::Kind::kEtherType;
        if (w.ethertype() < 0x0600 || w.ethertype() > 0xffff)
          return fail(err, v1::INVALID_ARGUMENT, f + ".ethertype",
                      std::to_string(w.ethertype()) + " is not an EtherType (0x0600..0xffff)");
        r.ethertype = static_cast<uint16_t>(w.ethertype());
        break;
      case v1::ControlRule::KIND_IP_PROTO:
        r.kind = ControlRule::Kind::kIpProto;
        if (w.ip_proto() > 255)
          return fail(err, v1::INVALID_ARGUMENT, f + ".ip_proto",
                      std::to_string(w.ip_proto()) + " > 255");
        r.ip_proto = static_cast<uint8_t>(w.ip_proto());
        break;
      case v1::ControlRule::KIND_L4_PORT:
        r.kind = ControlRule::Kind::kL4Port;
        if (w.ip_proto() != 6 && w.ip_proto() != 17)
          return fail(err, v1::INVALID_ARGUMENT, f + ".ip_proto",
                      std::to_string(w.ip_proto()) + ": must be 6 (TCP) or 17 (UDP)");
        if (w.port() > 65535)
          return fail(err, v1::INVALID_ARGUMENT, f + ".port", std::to_string(w.port()) + " > 65535");
        r.ip_proto = static_cast<uint8_t>(w.ip_proto());
        r.port = static_cast<uint16_t>(w.port());
        break;
      case v1::ControlRule::KIND_LOCAL_ADDRESS:
        r.kind = ControlRule::Kind::kLocalAddress;
        if (!addressFromWire(w.address(), f + ".address", false, &r.address, err)) return false;
        break;
      case v1::ControlRule::KIND_UNSPECIFIED:
        return fail(err, v1::INVALID_ARGUMENT, f + ".kind", "not set");
      default:
        return fail(err, v1::INVALID_ARGUMENT, f + ".kind",
                    "unknown value " + std::to_string(w.kind()));
    }
    rules.push_back(r);
  }
  *out = std::move(rules);
  return true;
}

bool subscriptionFromWire(const v1::Subscribe& in, const std::string& field,
                          std::vector<FastPathEvent::Kind>* out, WireError* err) {
  std::vector<FastPathEvent::Kind> kinds;
  if (in.kinds_size() == 0) {
    kinds = {FastPathEvent::Kind::kRouteMiss, FastPathEvent::Kind::kPortUp,
             FastPathEvent::Kind::kPortDown, FastPathEvent::Kind::kNeighbourNeeded};
  }
  for (int i = 0; i < in.kinds_size(); ++i) {
    switch (in.kinds(i)) {
      case v1::EVENT_KIND_ROUTE_MISS: kinds.push_back(FastPathEvent::Kind::kRouteMiss); break;
      case v1::EVENT_KIND_PORT_UP: kinds.push_back(FastPathEvent::Kind::kPortUp); break;
      case v1::EVENT_KIND_PORT_DOWN: kinds.push_back(FastPathEvent::Kind::kPortDown); break;
      case v1::EVENT_KIND_NEIGHBOUR_NEEDED:
        kinds.push_back(FastPathEvent::Kind::kNeighbourNeeded);
        break;
      default:
        return fail(err, v1::INVALID_ARGUMENT, idx(field, "kinds", i),
                    "unknown event kind " + std::to_string(in.kinds(i)));
    }
  }
  *out = std::move(kinds);
  return true;
}

// ------------------------------------------------------------------ batch builder

BatchBuilder::Key BatchBuilder::keyOf(const IpPrefix& p, std::size_t index) {
  Key k{};
  k.k[0] = static_cast<uint8_t>(p.address.family);
  k.k[1] = p.length;
  std::memcpy(k.k.data() + 2, p.address.bytes.data(), 16);
  k.index = static_cast<uint32_t>(index);
  return k;
}

BatchBuilder::BatchBuilder(PortDirectory ports, std::size_t max_routes, std::string field)
    : ports_(std::move(ports)), max_routes_(max_routes), field_(std::move(field)) {}

bool BatchBuilder::addChunk(const v1::RouteBatch& chunk, WireError* err) {
  if (first_) {
    batch_.replace_all = chunk.replace_all();
    batch_.ignore_missing = chunk.ignore_missing();
    first_ = false;
  }
  std::size_t incoming = static_cast<std::size_t>(chunk.add_size()) + chunk.remove_size();
  if (size() + incoming > max_routes_)
    return fail(err, v1::RESOURCE_EXHAUSTED, field_,
                "batch of " + std::to_string(size() + incoming) + " entries exceeds the limit of " +
                    std::to_string(max_routes_) + "; split it into several transactions");
  if (batch_.replace_all && chunk.remove_size() > 0)
    return fail(err, v1::INVALID_ARGUMENT, field_ + ".remove",
                "must be empty with replace_all (the new table is `add`)");
  batch_.add.reserve(batch_.add.size() + chunk.add_size());
  add_keys_.reserve(add_keys_.size() + chunk.add_size());
  for (int i = 0; i < chunk.add_size(); ++i) {
    std::size_t gi = batch_.add.size();
    Route r;
    if (!routeFromWire(chunk.add(i), idx(field_, "add", gi), ports_, &r, err)) return false;
    add_keys_.push_back(keyOf(r.prefix, gi));
    batch_.add.push_back(r);
  }
  for (int i = 0; i < chunk.remove_size(); ++i) {
    std::size_t gi = batch_.remove.size();
    IpPrefix p;
    if (!prefixFromWire(chunk.remove(i), idx(field_, "remove", gi), &p, err)) return false;
    remove_keys_.push_back(keyOf(p, gi));
    batch_.remove.push_back(p);
  }
  return true;
}

namespace {

template <typename K>
bool keyLess(const K& a, const K& b) {
  int c = std::memcmp(a.k.data(), b.k.data(), a.k.size());
  return c != 0 ? c < 0 : a.index < b.index;
}

template <typename K>
bool keyEq(const K& a, const K& b) {
  return std::memcmp(a.k.data(), b.k.data(), a.k.size()) == 0;
}

}  // namespace

bool BatchBuilder::finish(RouteBatch* out, WireError* err) {
  if (!batch_.replace_all && batch_.add.empty() && batch_.remove.empty())
    return fail(err, v1::INVALID_ARGUMENT, field_,
                "empty batch (nothing to add or remove; use replace_all to clear the table)");
  // Duplicates: sort by (prefix, index); report the smallest index that repeats an
  // earlier entry, naming that earlier entry.
  std::sort(add_keys_.begin(), add_keys_.end(), keyLess<Key>);
  std::sort(remove_keys_.begin(), remove_keys_.end(), keyLess<Key>);
  auto firstDuplicate = [](const std::vector<Key>& keys, uint32_t* dup, uint32_t* orig) {
    bool found = false;
    for (std::size_t i = 1; i < keys.size(); ++i) {
      if (!keyEq(keys[i], keys[i - 1])) continue;
      std::size_t first = i - 1;
      while (first > 0 && keyEq(keys[first - 1], keys[i])) --first;
      if (!found || keys[i].index < *dup) {
        *dup = keys[i].index;
        *orig = keys[first].index;
        found = true;
      }
    }
    return found;
  };
  uint32_t dup = 0, orig = 0;
  if (firstDuplicate(add_keys_, &dup, &orig))
    return fail(err, v1::INVALID_ARGUMENT, idx(field_, "add", dup) + ".prefix",
                batch_.add[dup].prefix.toString() + " duplicates " + idx(field_, "add", orig));
  if (firstDuplicate(remove_keys_, &dup, &orig))
    return fail(err, v1::INVALID_ARGUMENT, idx(field_, "remove", dup),
                "duplicate delete of " + batch_.remove[dup].toString() + " (also " +
                    idx(field_, "remove", orig) + ")");
  // A prefix both added and removed: ambiguous, refuse it.
  std::size_t a = 0, r = 0;
  bool both = false;
  uint32_t ai = 0, ri = 0;
  while (a < add_keys_.size() && r < remove_keys_.size()) {
    int c = std::memcmp(add_keys_[a].k.data(), remove_keys_[r].k.data(), 18);
    if (c < 0) {
      ++a;
    } else if (c > 0) {
      ++r;
    } else {
      if (!both || remove_keys_[r].index < ri) {
        ri = remove_keys_[r].index;
        ai = add_keys_[a].index;
        both = true;
      }
      ++a;
      ++r;
    }
  }
  if (both)
    return fail(err, v1::INVALID_ARGUMENT, idx(field_, "remove", ri),
                batch_.remove[ri].toString() + " is also added by " + idx(field_, "add", ai));
  *out = std::move(batch_);
  return true;
}

// ------------------------------------------------------------------ domain -> wire

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
  }
  out->set_port(in.port);
  if (!in.address.isUnspecified() || in.kind == FastPathEvent::Kind::kRouteMiss ||
      in.kind == FastPathEvent::Kind::kNeighbourNeeded)
    toWire(in.address, out->mutable_address());
}

// ------------------------------------------------------------------ lenient wire -> domain

IpAddress addressFromReply(const v1::IpAddress& in) {
  IpAddress a;
  WireError ignored;
  addressFromWire(in, "", true, &a, &ignored);
  return a;
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
  return p;
}

CounterSet counterSetFromReply(const v1::CounterSet& in) {
  CounterSet s;
  s.scope = in.scope();
  for (const auto& c : in.counters()) s.counters.emplace_back(c.name(), c.value());
  return s;
}

bool eventFromReply(const v1::Event& in, FastPathEvent* out) {
  switch (in.kind()) {
    case v1::EVENT_KIND_ROUTE_MISS: out->kind = FastPathEvent::Kind::kRouteMiss; break;
    case v1::EVENT_KIND_PORT_UP: out->kind = FastPathEvent::Kind::kPortUp; break;
    case v1::EVENT_KIND_PORT_DOWN: out->kind = FastPathEvent::Kind::kPortDown; break;
    case v1::EVENT_KIND_NEIGHBOUR_NEEDED: out->kind = FastPathEvent::Kind::kNeighbourNeeded; break;
    default: return false;  // a newer server's event kind: skip it
  }
  out->port = in.port();
  out->address = addressFromReply(in.address());
  return true;
}

// ------------------------------------------------------------------ error codes

int errnoForCode(v1::ErrorCode code) {
  switch (code) {
    case v1::OK: return 0;
    case v1::INVALID_ARGUMENT: return -EINVAL;
    case v1::NOT_FOUND: return -ENOENT;
    case v1::VERSION_MISMATCH: return -EPROTONOSUPPORT;
    case v1::FAILED_PRECONDITION: return -EBADE;
    case v1::PERMISSION_DENIED: return -EACCES;
    case v1::MESSAGE_TOO_LARGE: return -EMSGSIZE;
    case v1::MALFORMED: return -EBADMSG;
    case v1::ABORTED: return -ECANCELED;
    case v1::RESOURCE_EXHAUSTED: return -ENOSPC;
    case v1::UNIMPLEMENTED: return -ENOSYS;
    case v1::INTERNAL:
    default: return -EIO;
  }
}

v1::ErrorCode codeForErrno(int e) {
  switch (e) {
    case 0: return v1::OK;
    case -EINVAL: case -EEXIST: return v1::INVALID_ARGUMENT;
    case -ENOENT: case -ENODEV: case -ESRCH: return v1::NOT_FOUND;
    case -EPROTONOSUPPORT: return v1::VERSION_MISMATCH;
    case -EBADE: return v1::FAILED_PRECONDITION;
    case -EACCES: case -EPERM: return v1::PERMISSION_DENIED;
    case -EMSGSIZE: return v1::MESSAGE_TOO_LARGE;
    case -EBADMSG: return v1::MALFORMED;
    case -ECANCELED: return v1::ABORTED;
    case -ENOSPC: case -E2BIG: case -ENOMEM: return v1::RESOURCE_EXHAUSTED;
    case -ENOSYS: case -EOPNOTSUPP: return v1::UNIMPLEMENTED;
    default: return v1::INTERNAL;
  }
}

}  // namespace fastpath::ctrl
