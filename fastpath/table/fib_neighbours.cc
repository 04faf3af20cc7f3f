// SPDX-License-Identifier: GPL-2.0-only
// FibManager's neighbours, and the host routes derived from them: a neighbour on an
// on-link subnet route of its port gets its own /32 or /128 rule pointing at a resolved
// next hop, so that the subnet's other addresses stay "glean" (resolved by ns-3).
#include <cerrno>

#include "table/fib_internal.h"

namespace fastpath {

const Route* FibManager::Impl::bestUserRoute(const IpAddress& a) const {
  const int f = a.family == Family::kIpv4 ? 0 : 1;
  for (int len = static_cast<int>(maxLen(a.family)); len >= 0; --len) {
    if (user_per_len[f][len] == 0) continue;
    auto it = user.find(masked(a, static_cast<unsigned>(len)));
    if (it != user.end()) return &it->second;
  }
  return nullptr;
}

bool FibManager::Impl::wantsHostRoute(const NeighbourKey& n) const {
  IpAddress a;
  a.family = n.family;
  a.bytes = n.ip;
  const Route* r = bestUserRoute(a);
  return r && r->next_hop.isUnspecified() && r->port == n.port &&
         r->prefix.length < maxLen(n.family);
}

Status FibManager::Impl::syncHostRoutes() {
  std::map<PrefixKey, PortId> want;
  for (const auto& [n, mac] : neighbours)
    if (wantsHostRoute(n))
      want.emplace(PrefixKey{n.family, static_cast<uint8_t>(maxLen(n.family)), n.ip}, n.port);
  std::vector<PrefixKey> changed;
  for (const auto& [p, port] : host_routes) {
    auto it = want.find(p);
    if (it == want.end() || it->second != port) changed.push_back(p);
  }
  for (const auto& [p, port] : want)
    if (!host_routes.count(p)) changed.push_back(p);
  host_routes.swap(want);
  for (const auto& p : changed)
    if (auto st = refresh(p); !st.ok()) return st;
  return {};
}

Status FibManager::Impl::syncHostRoutesIn(const std::vector<PrefixKey>& changed) {
  std::vector<const NeighbourKey*> hit;
  for (const PrefixKey& k : changed) {
    NeighbourKey lo{k.family, k.bytes, 0};
    NeighbourKey hi{k.family, k.bytes, ~PortId{0}};
    for (unsigned bit = k.length; bit < maxLen(k.family); ++bit)
      hi.ip[bit / 8] |= static_cast<uint8_t>(0x80u >> (bit % 8));
    for (auto it = neighbours.lower_bound(lo); it != neighbours.end() && !(hi < it->first); ++it)
      hit.push_back(&it->first);
  }
  for (const NeighbourKey* n : hit) {
    const PrefixKey hk{n->family, static_cast<uint8_t>(maxLen(n->family)), n->ip};
    const bool want = wantsHostRoute(*n);
    auto cur = host_routes.find(hk);
    if (want && (cur == host_routes.end() || cur->second != n->port)) {
      host_routes[hk] = n->port;
    } else if (!want && cur != host_routes.end() && cur->second == n->port) {
      host_routes.erase(cur);
    } else {
      continue;
    }
    if (auto st = refresh(hk); !st.ok()) return st;
  }
  return {};
}

Status FibManager::Impl::syncNeighbour(const NeighbourKey& n) {
  const PrefixKey hk{n.family, static_cast<uint8_t>(maxLen(n.family)), n.ip};
  const bool want = neighbours.count(n) && wantsHostRoute(n);
  auto cur = host_routes.find(hk);
  if (want) {
    host_routes[hk] = n.port;
  } else if (cur != host_routes.end() && cur->second == n.port) {
    host_routes.erase(cur);
  } else {
    return {};
  }
  return refresh(hk);
}

Status FibManager::Impl::neighbourChanged(const NeighbourKey& n) {
  // Next hops through it are republished (resolved or not) without touching the LPM.
  if (auto it = nh_index.find(NhKey{NhKind::kAddr, n.port, n.family, n.ip}); it != nh_index.end())
    republish(it->second);
  if (auto st = syncNeighbour(n); !st.ok()) return st;
  ++counters.neighbour_updates;
  ++counters.versions_published;
  reclaim();
  return {};
}

Status FibManager::addNeighbour(const Neighbour& n) {
  Impl& m = *impl_;
  if (n.ip.isUnspecified()) return makeError(-EINVAL, "neighbour.ip: unspecified address");
  if (!m.ports.count(n.port))
    return makeError(-EINVAL, "neighbour.port: unknown port " + std::to_string(n.port) +
                                  " (known: " + portList(m.ports) + ")");
  if (n.mac.isZero() || (n.mac.bytes[0] & 1))
    return makeError(-EINVAL, "neighbour.mac: " + n.mac.toString() + " is not a unicast MAC");
  const NeighbourKey key{n.ip.family, n.ip.bytes, n.port};
  const bool fresh = !m.neighbours.count(key);
  if (fresh && n.ip.family == Family::kIpv4 && m.lpm4->stats().groups_free == 0)
    return makeError(-ENOSPC, "neighbour: IPv4 LPM groups exhausted");
  m.neighbours[key] = n.mac;
  return m.neighbourChanged(key);
}

Status FibManager::deleteNeighbour(const IpAddress& ip, PortId port) {
  Impl& m = *impl_;
  const NeighbourKey key{ip.family, ip.bytes, port};
  if (!m.neighbours.erase(key))
    return makeError(
        -ENOENT, "neighbour: no neighbour " + ip.toString() + " on port " + std::to_string(port));
  return m.neighbourChanged(key);
}

std::vector<Neighbour> FibManager::neighbours() const {
  std::vector<Neighbour> out;
  for (const auto& [k, mac] : impl_->neighbours) {
    Neighbour n;
    n.ip.family = k.family;
    n.ip.bytes = k.ip;
    n.port = k.port;
    n.mac = mac;
    out.push_back(n);
  }
  return out;
}

}  // namespace fastpath
