// SPDX-License-Identifier: GPL-2.0-only
#include "route_lease.h"

#include <iterator>
#include <vector>

#include "fastpath/log.h"

namespace fastpath::ctrl {

std::string RouteLeases::prefixKey(const IpPrefix& p) {
  std::string k(18, '\0');
  k[0] = static_cast<char>(p.address.family);
  k[1] = static_cast<char>(p.length);
  for (std::size_t i = 0; i < 16; ++i) k[2 + i] = static_cast<char>(p.address.bytes[i]);
  return k;
}

std::size_t RouteLeases::PrefixHash::operator()(const IpPrefix& p) const noexcept {
  // FNV-1a over the significant bytes; prefixes of one table differ mostly in a few bytes.
  uint64_t h = 1469598103934665603ull ^
               (static_cast<uint64_t>(p.length) << 8 | static_cast<uint64_t>(p.address.family));
  std::size_t n = p.address.family == Family::kIpv4 ? 4 : 16;
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p.address.bytes[i]) * 1099511628211ull;
  return static_cast<std::size_t>(h ^ (h >> 32));
}

std::string RouteLeases::neighbourKey(const IpAddress& ip, PortId port) {
  std::string k = prefixKey(IpPrefix{ip, 0});
  k.append(reinterpret_cast<const char*>(&port), sizeof(port));
  return k;
}

namespace {

/// "ns3-A" for the default node (as before nodes existed), "ns3-A@r3" for another.
std::string ownerName(const std::string& node, const std::string& owner) {
  return node == kDefaultNodeName ? owner : owner + "@" + node;
}

}  // namespace

RouteLeases::Owners* RouteLeases::ownersOf(const std::string& node) {
  auto it = nodes_.find(node);
  return it == nodes_.end() || it->second.empty() ? nullptr : &it->second;
}

void RouteLeases::attach(const std::string& node, const std::string& owner, uint32_t grace_ms) {
  Owner& o = nodes_[node][owner];
  o.grace_ms = grace_ms;
  ++o.connections;
  if (o.pending) {
    o.pending = false;
    ++ctr_.cancelled;
    pr_info("ctrl: %s is back within its grace period; its %zu routes stay",
            ownerName(node, owner).c_str(), o.prefixes.size());
  }
}

void RouteLeases::detach(const std::string& node, const std::string& owner, Clock::time_point now) {
  Owners* owners = ownersOf(node);
  if (!owners) return;
  auto it = owners->find(owner);
  if (it == owners->end()) return;
  Owner& o = it->second;
  if (o.connections > 0) --o.connections;
  if (o.connections > 0) return;
  o.pending = true;
  o.deadline = now + std::chrono::milliseconds(o.grace_ms);
  pr_info("ctrl: %s disconnected; its %zu routes are withdrawn in %u ms unless it comes back",
          ownerName(node, owner).c_str(), o.prefixes.size(), o.grace_ms);
}

void RouteLeases::recordBatch(const std::string& node, const std::string& owner,
                              const RouteBatch& batch) {
  Owners* owners = ownersOf(node);
  if (!owners) return;  // nobody holds a lease in this node: nothing to track
  Owner* self = nullptr;
  if (!owner.empty()) {
    auto it = owners->find(owner);
    if (it != owners->end()) self = &it->second;
  }
  if (batch.replace_all) {
    for (auto& [name, o] : *owners) o.prefixes.clear();
    if (self) {
      self->prefixes.reserve(batch.add.size());
      for (const auto& r : batch.add) self->prefixes.insert(r.prefix);
    }
    return;
  }
  for (const auto& p : batch.remove)
    for (auto& [name, o] : *owners) o.prefixes.erase(p);
  for (const auto& r : batch.add) {
    for (auto& [name, o] : *owners)
      if (&o != self) o.prefixes.erase(r.prefix);
    if (self) self->prefixes.insert(r.prefix);
  }
}

void RouteLeases::recordNeighbourAdd(const std::string& node, const std::string& owner,
                                     const IpAddress& ip, PortId port) {
  Owners* owners = ownersOf(node);
  if (!owners) return;
  std::string k = neighbourKey(ip, port);
  for (auto& [name, o] : *owners) {
    if (name == owner)
      o.neighbours.emplace(k, std::make_pair(ip, port));
    else
      o.neighbours.erase(k);
  }
}

void RouteLeases::recordNeighbourDelete(const std::string& node, const IpAddress& ip, PortId port) {
  Owners* owners = ownersOf(node);
  if (!owners) return;
  std::string k = neighbourKey(ip, port);
  for (auto& [name, o] : *owners) o.neighbours.erase(k);
}

void RouteLeases::forgetNode(const std::string& node) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return;
  // Connections bound to the node keep their (now empty) lease until they close: keep
  // the owners with live connections, drop what they owned and any pending expiry.
  for (auto o = it->second.begin(); o != it->second.end();) {
    if (o->second.connections > 0) {
      o->second.prefixes.clear();
      o->second.neighbours.clear();
      o->second.pending = false;
      ++o;
    } else {
      o = it->second.erase(o);
    }
  }
  if (it->second.empty()) nodes_.erase(it);
}

void RouteLeases::withdraw(const std::string& node, const std::string& name, Owner& o) {
  const std::string who = ownerName(node, name);
  auto be = topology_.node(node);
  if (!be) {
    // The node is gone, and its routes with it.
    ++ctr_.expired;
    pr_info("ctrl: %s did not come back within %u ms; its node is gone: nothing to withdraw",
            who.c_str(), o.grace_ms);
    return;
  }
  NodeControl& backend = **be;
  RouteBatch b;
  b.ignore_missing = true;
  b.remove.reserve(o.prefixes.size());
  b.remove.assign(o.prefixes.begin(), o.prefixes.end());
  std::size_t routes = 0;
  if (!b.remove.empty()) {
    if (auto st = backend.applyRoutes(b); !st) {
      pr_warn(
          "ctrl: withdrawing the %zu routes of %s after its grace period failed: %s; "
          "they stay installed (remove them with fpctl)",
          b.remove.size(), who.c_str(), st.error().message.c_str());
    } else {
      routes = b.remove.size();
    }
  }
  std::size_t neighbours = 0;
  for (const auto& [k, n] : o.neighbours)
    if (backend.deleteNeighbour(n.first, n.second)) ++neighbours;
  ctr_.routes_withdrawn += routes;
  ctr_.neighbours_withdrawn += neighbours;
  ++ctr_.expired;
  pr_info("ctrl: %s did not come back within %u ms: withdrew its %zu routes and %zu neighbours",
          who.c_str(), o.grace_ms, routes, neighbours);
}

void RouteLeases::expire(Clock::time_point now) {
  for (auto n = nodes_.begin(); n != nodes_.end();) {
    for (auto it = n->second.begin(); it != n->second.end();) {
      Owner& o = it->second;
      if (o.pending && o.connections == 0 && o.deadline <= now) {
        withdraw(n->first, it->first, o);
        it = n->second.erase(it);
      } else {
        ++it;
      }
    }
    n = n->second.empty() ? nodes_.erase(n) : std::next(n);
  }
}

std::optional<RouteLeases::Clock::time_point> RouteLeases::nextDeadline() const {
  std::optional<Clock::time_point> best;
  for (const auto& [node, owners] : nodes_)
    for (const auto& [name, o] : owners)
      if (o.pending && (!best || o.deadline < *best)) best = o.deadline;
  return best;
}

std::size_t RouteLeases::ownedRoutes(const std::string& node, const std::string& owner) const {
  auto n = nodes_.find(node);
  if (n == nodes_.end()) return 0;
  auto it = n->second.find(owner);
  return it == n->second.end() ? 0 : it->second.prefixes.size();
}

}  // namespace fastpath::ctrl
