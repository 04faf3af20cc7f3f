// SPDX-License-Identifier: GPL-2.0-only
#include "route_lease.h"

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

void RouteLeases::attach(const std::string& owner, uint32_t grace_ms) {
  Owner& o = owners_[owner];
  o.grace_ms = grace_ms;
  ++o.connections;
  if (o.pending) {
    o.pending = false;
    ++ctr_.cancelled;
    pr_info("ctrl: %s is back within its grace period; its %zu routes stay", owner.c_str(),
            o.prefixes.size());
  }
}

void RouteLeases::detach(const std::string& owner, Clock::time_point now) {
  auto it = owners_.find(owner);
  if (it == owners_.end()) return;
  Owner& o = it->second;
  if (o.connections > 0) --o.connections;
  if (o.connections > 0) return;
  o.pending = true;
  o.deadline = now + std::chrono::milliseconds(o.grace_ms);
  pr_info("ctrl: %s disconnected; its %zu routes are withdrawn in %u ms unless it comes back",
          owner.c_str(), o.prefixes.size(), o.grace_ms);
}

void RouteLeases::recordBatch(const std::string& owner, const RouteBatch& batch) {
  if (owners_.empty()) return;  // nobody holds a lease: nothing to track
  Owner* self = nullptr;
  if (!owner.empty()) {
    auto it = owners_.find(owner);
    if (it != owners_.end()) self = &it->second;
  }
  if (batch.replace_all) {
    for (auto& [name, o] : owners_) o.prefixes.clear();
    if (self) {
      self->prefixes.reserve(batch.add.size());
      for (const auto& r : batch.add) self->prefixes.insert(r.prefix);
    }
    return;
  }
  for (const auto& p : batch.remove)
    for (auto& [name, o] : owners_) o.prefixes.erase(p);
  for (const auto& r : batch.add) {
    for (auto& [name, o] : owners_)
      if (&o != self) o.prefixes.erase(r.prefix);
    if (self) self->prefixes.insert(r.prefix);
  }
}

void RouteLeases::recordNeighbourAdd(const std::string& owner, const IpAddress& ip, PortId port) {
  if (owners_.empty()) return;
  std::string k = neighbourKey(ip, port);
  for (auto& [name, o] : owners_) {
    if (name == owner)
      o.neighbours.emplace(k, std::make_pair(ip, port));
    else
      o.neighbours.erase(k);
  }
}

void RouteLeases::recordNeighbourDelete(const IpAddress& ip, PortId port) {
  if (owners_.empty()) return;
  std::string k = neighbourKey(ip, port);
  for (auto& [name, o] : owners_) o.neighbours.erase(k);
}

void RouteLeases::withdraw(const std::string& name, Owner& o) {
  RouteBatch b;
  b.ignore_missing = true;
  b.remove.reserve(o.prefixes.size());
  b.remove.assign(o.prefixes.begin(), o.prefixes.end());
  std::size_t routes = 0;
  if (!b.remove.empty()) {
    if (auto st = backend_.applyRoutes(b); !st) {
      pr_warn(
          "ctrl: withdrawing the %zu routes of %s after its grace period failed: %s; "
          "they stay installed (remove them with fpctl)",
          b.remove.size(), name.c_str(), st.error().message.c_str());
    } else {
      routes = b.remove.size();
    }
  }
  std::size_t neighbours = 0;
  for (const auto& [k, n] : o.neighbours)
    if (backend_.deleteNeighbour(n.first, n.second)) ++neighbours;
  ctr_.routes_withdrawn += routes;
  ctr_.neighbours_withdrawn += neighbours;
  ++ctr_.expired;
  pr_info("ctrl: %s did not come back within %u ms: withdrew its %zu routes and %zu neighbours",
          name.c_str(), o.grace_ms, routes, neighbours);
}

void RouteLeases::expire(Clock::time_point now) {
  for (auto it = owners_.begin(); it != owners_.end();) {
    Owner& o = it->second;
    if (o.pending && o.connections == 0 && o.deadline <= now) {
      withdraw(it->first, o);
      it = owners_.erase(it);
    } else {
      ++it;
    }
  }
}

std::optional<RouteLeases::Clock::time_point> RouteLeases::nextDeadline() const {
  std::optional<Clock::time_point> best;
  for (const auto& [name, o] : owners_)
    if (o.pending && (!best || o.deadline < *best)) best = o.deadline;
  return best;
}

std::size_t RouteLeases::ownedRoutes(const std::string& owner) const {
  auto it = owners_.find(owner);
  return it == owners_.end() ? 0 : it->second.prefixes.size();
}

}  // namespace fastpath::ctrl
