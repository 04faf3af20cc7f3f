// SPDX-License-Identifier: GPL-2.0-only
// FibManager: user routes, local addresses and neighbours compiled into LPM rules that
// point at next-hop slots; workers read through FibView. Single control thread.
//
// What the LPM holds for a prefix P (priority order):
//   1. P is a host prefix of a local address          -> the "local" next hop
//   2. P is a user route                              -> its next hop
//   3. P is a host prefix of a neighbour that sits on an on-link user route of the same
//      port (so each neighbour on a connected subnet gets its own resolved entry)
// refresh(P) recomputes that and updates the LPM (only when it changed).
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <new>
#include <set>
#include <string>
#include <tuple>
#include <unordered_set>

#include "table/fib_manager.h"
#include "fastpath/log.h"

namespace fastpath {

namespace {

constexpr uint32_t kMaxNextHops = 1u << 20;
constexpr size_t kInternalHostRoutes = 1u << 16;  // room for local/neighbour host routes

unsigned maxLen(Family f) { return f == Family::kIpv4 ? 32 : 128; }

struct PrefixKey {
  Family family;
  uint8_t length;
  std::array<uint8_t, 16> bytes;
  bool operator==(const PrefixKey& o) const {
    return family == o.family && length == o.length && bytes == o.bytes;
  }
  bool operator<(const PrefixKey& o) const {
    return std::tie(family, bytes, length) < std::tie(o.family, o.bytes, o.length);
  }
  IpPrefix prefix() const {
    IpPrefix p;
    p.address.family = family;
    p.address.bytes = bytes;
    p.length = length;
    return p;
  }
};

struct PrefixKeyHash {
  size_t operator()(const PrefixKey& k) const noexcept {
    uint64_t x, y;
    std::memcpy(&x, k.bytes.data(), 8);
    std::memcpy(&y, k.bytes.data() + 8, 8);
    uint64_t h = x ^ (y * 0x9e3779b97f4a7c15ull) ^ (uint64_t{k.length} << 56) ^
                 (uint64_t{static_cast<uint8_t>(k.family)} << 48);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return static_cast<size_t>(h);
  }
};

PrefixKey keyOf(const IpPrefix& p) { return PrefixKey{p.address.family, p.length, p.address.bytes}; }

PrefixKey masked(const IpAddress& a, unsigned len) {
  IpPrefix p{a, static_cast<uint8_t>(len)};
  return keyOf(p.normalised());
}

// A next hop: what a rule points at. kAddr: neighbour `ip` on `port` (a gateway, or the
// destination of a host route); kGlean: the rest of an on-link subnet on `port`.
enum class NhKind : uint8_t { kAddr, kGlean, kLocal };

struct NhKey {
  NhKind kind = NhKind::kLocal;
  PortId port = 0;
  Family family = Family::kIpv4;
  std::array<uint8_t, 16> ip{};
  bool operator<(const NhKey& o) const {
    return std::tie(kind, port, family, ip) < std::tie(o.kind, o.port, o.family, o.ip);
  }
};

struct NhRecord {
  NhKey key;
  uint64_t refs = 0;
  const FwdEntry* entry = nullptr;
};

struct NeighbourKey {
  Family family;
  std::array<uint8_t, 16> ip;
  PortId port;
  bool operator<(const NeighbourKey& o) const {
    return std::tie(family, ip, port) < std::tie(o.family, o.ip, o.port);
  }
};

std::string portList(const std::map<PortId, PortConfig>& ports) {
  std::string s;
  for (const auto& [id, p] : ports) s += (s.empty() ? "" : ",") + std::to_string(id);
  return s.empty() ? "none" : s;
}

}  // namespace

struct FibManager::Impl {
  Impl(FibManager& owner, size_t max_v4, size_t max_v6) : self(owner), max_v4_routes(max_v4), max_v6_routes(max_v6) {
    slots.reset(new std::atomic<const FwdEntry*>[kMaxNextHops]());
    nh.reserve(1024);
    auto t4 = newLpm4();
    auto t6 = newLpm6();
    if (!t4.ok() || !t6.ok()) {
      pr_err("fib: %s", (!t4.ok() ? t4.error() : t6.error()).message.c_str());
      throw std::bad_alloc();
    }
    lpm4 = std::move(t4).value();
    lpm6 = std::move(t6).value();
  }

  Result<std::unique_ptr<Lpm4>> newLpm4() const {
    return Lpm4::create(LpmConfig{static_cast<uint32_t>(max_v4_routes + kInternalHostRoutes),
                                  static_cast<uint32_t>(std::max<size_t>(1024, max_v4_routes / 4))});
  }
  Result<std::unique_ptr<Lpm6>> newLpm6() const {
    return Lpm6::create(LpmConfig{static_cast<uint32_t>(max_v6_routes + kInternalHostRoutes),
                                  static_cast<uint32_t>(std::max<size_t>(4096, max_v6_routes * 4))});
  }

  FibManager& self;
  size_t max_v4_routes;
  size_t max_v6_routes;
  std::unique_ptr<Lpm4> lpm4;
  std::unique_ptr<Lpm6> lpm6;
  std::unique_ptr<std::atomic<const FwdEntry*>[]> slots;

  std::map<PortId, PortConfig> ports;
  std::set<std::array<uint8_t, 17>> local;  // family byte + address
  std::map<NeighbourKey, MacAddress> neighbours;
  std::unordered_map<PrefixKey, Route, PrefixKeyHash> user;
  size_t user_v4 = 0, user_v6 = 0;
  uint32_t user_per_len[2][129] = {};
  std::map<PrefixKey, PortId> host_routes;  // neighbour host routes wanted (rule 3)

  std::vector<NhRecord> nh;
  std::map<NhKey, uint32_t> nh_index;
  std::vector<uint32_t> free_nh;
  std::vector<uint32_t> retired_nh;
  std::vector<const FwdEntry*> retired_entries;
  std::vector<std::unique_ptr<Lpm4>> retired_lpm4;
  std::vector<std::unique_ptr<Lpm6>> retired_lpm6;
  Counters counters;

  // ------------------------------------------------------------------ next hops
  bool isLocal(const IpAddress& a) const {
    std::array<uint8_t, 17> k;
    k[0] = static_cast<uint8_t>(a.family);
    std::copy(a.bytes.begin(), a.bytes.end(), k.begin() + 1);
    return local.count(k) > 0;
  }

  FwdEntry* buildEntry(const NhKey& k) const {
    auto* e = new FwdEntry{};
    e->family = static_cast<uint8_t>(k.family);
    if (k.kind == NhKind::kLocal) {
      e->flags = kFwdLocal;
      return e;
    }
    e->port = k.port;
    auto pit = ports.find(k.port);
    if (pit != ports.end()) {
      std::memcpy(e->src_mac, pit->second.mac.bytes.data(), 6);
      e->mtu = static_cast<uint16_t>(std::min<uint32_t>(pit->second.mtu, 0xffff));
      if (!pit->second.up) e->flags |= kFwdPortDown;
    }
    if (k.kind == NhKind::kGlean) {
      e->flags |= kFwdGlean;
      return e;
    }
    std::memcpy(e->next_hop, k.ip.data(), 16);
    auto nit = neighbours.find(NeighbourKey{k.family, k.ip, k.port});
    if (nit != neighbours.end()) {
      std::memcpy(e->dst_mac, nit->second.bytes.data(), 6);
      e->flags |= kFwdResolved;
    }
    return e;
  }

  // Publishes a fresh FwdEntry for slot `idx`; the old one is freed after synchronize.
  void republish(uint32_t idx) {
    NhRecord& r = nh[idx];
    const FwdEntry* old = r.entry;
    r.entry = buildEntry(r.key);
    slots[idx].store(r.entry, std::memory_order_release);
    if (old) retired_entries.push_back(old);
  }

  std::optional<uint32_t> nhIndex(const NhKey& k) {
    auto it = nh_index.find(k);
    if (it != nh_index.end()) return it->second;
    uint32_t idx;
    if (!free_nh.empty()) {
      idx = free_nh.back();
      free_nh.pop_back();
    } else if (nh.size() < kMaxNextHops) {
      idx = static_cast<uint32_t>(nh.size());
      nh.emplace_back();
    } else {
      return std::nullopt;
    }
    nh[idx] = NhRecord{k, 0, nullptr};
    nh_index.emplace(k, idx);
    republish(idx);
    return idx;
  }

  void ref(uint32_t idx) { ++nh[idx].refs; }
  void unref(uint32_t idx) {
    if (--nh[idx].refs > 0) return;
    // Readers may still hold the index from an LPM entry: the slot stays valid until an
    // epoch has passed; only then is the index reused.
    nh_index.erase(nh[idx].key);
    retired_nh.push_back(idx);
  }

  NhKey keyForRoute(const Route& r) const {
    NhKey k;
    k.port = r.port;
    k.family = r.prefix.address.family;
    if (!r.next_hop.isUnspecified()) {
      k.kind = NhKind::kAddr;
      k.ip = r.next_hop.bytes;
    } else if (r.prefix.length == maxLen(k.family)) {
      k.kind = NhKind::kAddr;  // on-link host route: the destination is the neighbour
      k.ip = r.prefix.address.bytes;
    } else {
      k.kind = NhKind::kGlean;
    }
    return k;
  }

  // ------------------------------------------------------------------ LPM rules
  std::optional<uint32_t> installed(const PrefixKey& p) const {
    return p.family == Family::kIpv4 ? lpm4->find(__builtin_bswap32(v4(p.bytes)), p.length)
                                     : lpm6->find(p.bytes.data(), p.length);
  }
  static uint32_t v4(const std::array<uint8_t, 16>& b) {
    uint32_t x;
    std::memcpy(&x, b.data(), 4);
    return x;
  }

  // The next-hop key rule P should have now, if any (priority order in the file header).
  std::optional<NhKey> desired(const PrefixKey& p) const {
    if (p.length == maxLen(p.family) && isLocal(p.prefix().address)) return NhKey{};
    if (auto it = user.find(p); it != user.end()) return keyForRoute(it->second);
    if (auto it = host_routes.find(p); it != host_routes.end())
      return NhKey{NhKind::kAddr, it->second, p.family, p.bytes};
    return std::nullopt;
  }

  Status lpmAdd(const PrefixKey& p, uint32_t idx) {
    return p.family == Family::kIpv4 ? lpm4->add(__builtin_bswap32(v4(p.bytes)), p.length, idx)
                                     : lpm6->add(p.bytes.data(), p.length, idx);
  }
  Status lpmRemove(const PrefixKey& p) {
    return p.family == Family::kIpv4 ? lpm4->remove(__builtin_bswap32(v4(p.bytes)), p.length)
                                     : lpm6->remove(p.bytes.data(), p.length);
  }

  Status refresh(const PrefixKey& p) {
    const auto want = desired(p);
    const auto have = installed(p);
    if (!want) {
      if (!have) return {};
      if (auto st = lpmRemove(p); !st.ok()) return st;
      unref(*have);
      ++counters.route_updates;
      return {};
    }
    auto idx = nhIndex(*want);
    if (!idx)
      return makeError(-ENOSPC, "fib: next-hop table full (" + std::to_string(kMaxNextHops) +
                                    " next hops) adding " + p.prefix().toString());
    if (have && *have == *idx) return {};
    ref(*idx);  // before unref(have): keeps a shared slot alive
    if (auto st = lpmAdd(p, *idx); !st.ok()) {
      unref(*idx);
      return st;
    }
    if (have) unref(*have);
    ++counters.route_updates;
    return {};
  }

  // Longest user route covering `a` (control-side, probes lengths in use).
  const Route* bestUserRoute(const IpAddress& a) const {
    const int f = a.family == Family::kIpv4 ? 0 : 1;
    for (int len = static_cast<int>(maxLen(a.family)); len >= 0; --len) {
      if (user_per_len[f][len] == 0) continue;
      auto it = user.find(masked(a, static_cast<unsigned>(len)));
      if (it != user.end()) return &it->second;
    }
    return nullptr;
  }

  // Rule 3: a neighbour gets a host route when the best user route for its address is an
  // on-link subnet route on the neighbour's port.
  bool wantsHostRoute(const NeighbourKey& n) const {
    IpAddress a;
    a.family = n.family;
    a.bytes = n.ip;
    const Route* r = bestUserRoute(a);
    return r && r->next_hop.isUnspecified() && r->port == n.port &&
           r->prefix.length < maxLen(n.family);
  }

  // Recomputes rule-3 host routes; refreshes the prefixes whose wish changed.
  Status syncHostRoutes() {
    std::map<PrefixKey, PortId> want;
    for (const auto& [n, mac] : neighbours)
      if (wantsHostRoute(n)) want.emplace(PrefixKey{n.family, static_cast<uint8_t>(maxLen(n.family)), n.ip}, n.port);
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

  // Same, limited to the neighbours inside the given prefixes (the ones a batch changed):
  // neighbours are sorted by address, so each prefix is one range scan.
  Status syncHostRoutesIn(const std::vector<PrefixKey>& changed) {
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

  // One neighbour added or removed: its host route follows.
  Status syncNeighbour(const NeighbourKey& n) {
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

  void userInsert(const Route& r) {
    const PrefixKey k = keyOf(r.prefix);
    auto [it, inserted] = user.insert_or_assign(k, r);
    (void)it;
    if (!inserted) return;
    const int f = k.family == Family::kIpv4 ? 0 : 1;
    ++user_per_len[f][k.length];
    (f == 0 ? user_v4 : user_v6) += 1;
  }
  void userErase(const PrefixKey& k) {
    if (user.erase(k) == 0) return;
    const int f = k.family == Family::kIpv4 ? 0 : 1;
    --user_per_len[f][k.length];
    (f == 0 ? user_v4 : user_v6) -= 1;
  }

  // ------------------------------------------------------------------ publication
  // Waits until no worker can hold anything retired so far, then frees/reuses it.
  void reclaim() {
    if (!self.epoch_.synchronize()) {
      ++counters.sync_timeouts;
      return;
    }
    lpm4->releaseRetired();
    lpm6->releaseRetired();
    for (uint32_t idx : retired_nh) {
      if (nh[idx].refs != 0) continue;  // revived before reclamation (same key re-added)
      slots[idx].store(nullptr, std::memory_order_relaxed);
      retired_entries.push_back(nh[idx].entry);
      nh[idx] = NhRecord{};
      free_nh.push_back(idx);
    }
    retired_nh.clear();
    // Entries unlinked above are unreachable from the LPM since the epoch passed.
    for (const FwdEntry* e : retired_entries) {
      // Poison before freeing: a reader that (wrongly) still held it would read garbage,
      // not a plausible stale entry; the concurrency test relies on this.
      std::memset(const_cast<FwdEntry*>(e), 0xff, sizeof *e);
      delete e;
    }
    retired_entries.clear();
    retired_lpm4.clear();
    retired_lpm6.clear();
  }
};

// ---------------------------------------------------------------------- FibManager

FibManager::FibManager(size_t max_v4_routes, size_t max_v6_routes)
    : impl_(std::make_unique<Impl>(*this, max_v4_routes, max_v6_routes)) {
  view_.v4_.store(impl_->lpm4.get(), std::memory_order_release);
  view_.v6_.store(impl_->lpm6.get(), std::memory_order_release);
  view_.nh_ = impl_->slots.get();
}

FibManager::~FibManager() {
  for (auto& r : impl_->nh) delete r.entry;
  for (const FwdEntry* e : impl_->retired_entries) delete e;
}

Status FibManager::setPorts(const std::vector<PortConfig>& ports) {
  Impl& m = *impl_;
  std::map<PortId, PortConfig> next;
  for (size_t i = 0; i < ports.size(); ++i) {
    const PortConfig& p = ports[i];
    const std::string field = "ports[" + std::to_string(i) + "]";
    if (!next.emplace(p.id, p).second)
      return makeError(-EINVAL, field + ".id: port " + std::to_string(p.id) + " listed twice");
    if (p.mac.isZero() || (p.mac.bytes[0] & 1))
      return makeError(-EINVAL, field + ".mac: " + p.mac.toString() +
                                    " is not a unicast MAC; give the interface's address");
    if (p.mtu < 68 || p.mtu > 65535)
      return makeError(-EINVAL, field + ".mtu: " + std::to_string(p.mtu) +
                                    " outside 68..65535");
  }
  for (const auto& [k, r] : m.user)
    if (!next.count(r.port))
      return makeError(-EBUSY, "ports: port " + std::to_string(r.port) + " is used by route " +
                                   r.prefix.toString() + "; remove the route first");
  for (const auto& [n, mac] : m.neighbours)
    if (!next.count(n.port))
      return makeError(-EBUSY, "ports: port " + std::to_string(n.port) +
                                   " has neighbours; delete them first");
  m.ports.swap(next);
  for (uint32_t idx = 0; idx < m.nh.size(); ++idx)
    if (m.nh[idx].entry && m.nh[idx].refs > 0) m.republish(idx);
  ++m.counters.versions_published;
  m.reclaim();
  return {};
}

std::vector<PortConfig> FibManager::ports() const {
  std::vector<PortConfig> out;
  for (const auto& [id, p] : impl_->ports) out.push_back(p);
  return out;
}

Status FibManager::setLocalAddresses(const std::vector<IpAddress>& addresses) {
  Impl& m = *impl_;
  std::set<std::array<uint8_t, 17>> next;
  for (size_t i = 0; i < addresses.size(); ++i) {
    const IpAddress& a = addresses[i];
    if (a.isUnspecified())
      return makeError(-EINVAL, "addresses[" + std::to_string(i) + "]: unspecified address");
    std::array<uint8_t, 17> k;
    k[0] = static_cast<uint8_t>(a.family);
    std::copy(a.bytes.begin(), a.bytes.end(), k.begin() + 1);
    next.insert(k);
  }
  std::set<std::array<uint8_t, 17>> changed;
  std::set_symmetric_difference(m.local.begin(), m.local.end(), next.begin(), next.end(),
                                std::inserter(changed, changed.end()));
  m.local.swap(next);
  for (const auto& k : changed) {
    PrefixKey p;
    p.family = static_cast<Family>(k[0]);
    p.length = static_cast<uint8_t>(maxLen(p.family));
    std::copy(k.begin() + 1, k.end(), p.bytes.begin());
    if (auto st = m.refresh(p); !st.ok()) return st;
  }
  ++m.counters.versions_published;
  m.reclaim();
  return {};
}

Status FibManager::applyRoutes(const RouteBatch& batch) {
  Impl& m = *impl_;
  auto reject = [&](const std::string& msg, int code = -EINVAL) -> Status {
    ++m.counters.batches_rejected;
    return makeError(code, msg);
  };
  // ---- 1. validate everything before touching anything
  std::unordered_map<PrefixKey, size_t, PrefixKeyHash> in_add;
  in_add.reserve(batch.add.size());
  auto checkPrefix = [&](const IpPrefix& p, const std::string& field) -> std::string {
    const unsigned max = maxLen(p.address.family);
    if (p.length > max)
      return field + ": prefix length " + std::to_string(p.length) + " exceeds " +
             std::to_string(max) + " for " + (max == 32 ? "IPv4" : "IPv6");
    if (p.hostBitsSet())
      return field + ": " + p.toString() + " has host bits set (did you mean " +
             p.normalised().toString() + "?)";
    return {};
  };
  size_t new_v4 = 0, new_v6 = 0;
  for (size_t i = 0; i < batch.add.size(); ++i) {
    const Route& r = batch.add[i];
    const std::string f = "add[" + std::to_string(i) + "]";
    if (auto e = checkPrefix(r.prefix, f + ".prefix"); !e.empty()) return reject(e);
    if (!m.ports.count(r.port))
      return reject(f + ".port: unknown port " + std::to_string(r.port) + " (known: " +
                    portList(m.ports) + ")");
    if (!r.next_hop.isUnspecified() && r.next_hop.family != r.prefix.address.family)
      return reject(f + ".next_hop: " + r.next_hop.toString() + " is not in the family of " +
                    r.prefix.toString());
    if (!r.next_hop.isUnspecified() && m.isLocal(r.next_hop))
      return reject(f + ".next_hop: " + r.next_hop.toString() +
                    " is one of this node's own addresses");
    auto [it, fresh] = in_add.emplace(keyOf(r.prefix), i);
    if (!fresh)
      return reject(f + ".prefix: " + r.prefix.toString() + " duplicates add[" +
                    std::to_string(it->second) + "]");
    if (batch.replace_all || !m.user.count(keyOf(r.prefix)))
      (r.prefix.address.family == Family::kIpv4 ? new_v4 : new_v6) += 1;
  }
  if (batch.replace_all && !batch.remove.empty())
    return reject("remove: must be empty with replace_all (add is the whole new table)");
  std::unordered_set<PrefixKey, PrefixKeyHash> in_remove;
  size_t gone_v4 = 0, gone_v6 = 0;
  for (size_t i = 0; i < batch.remove.size(); ++i) {
    const IpPrefix& p = batch.remove[i];
    const std::string f = "remove[" + std::to_string(i) + "]";
    if (auto e = checkPrefix(p, f); !e.empty()) return reject(e);
    const PrefixKey k = keyOf(p);
    if (in_add.count(k))
      return reject(f + ": " + p.toString() + " is also in add[" +
                    std::to_string(in_add[k]) + "]; one batch cannot add and remove a prefix");
    if (!in_remove.insert(k).second)
      return reject(f + ": " + p.toString() + " listed twice");
    if (!m.user.count(k)) {
      if (batch.ignore_missing) continue;
      return reject(f + ": no route " + p.toString() + " (set ignore_missing to skip)", -ENOENT);
    }
    (p.address.family == Family::kIpv4 ? gone_v4 : gone_v6) += 1;
  }
  // Capacity, so that applying cannot fail half-way.
  const size_t base_v4 = batch.replace_all ? 0 : m.user_v4 - gone_v4;
  const size_t base_v6 = batch.replace_all ? 0 : m.user_v6 - gone_v6;
  if (base_v4 + new_v4 > m.max_v4_routes)
    return reject("add: " + std::to_string(base_v4 + new_v4) + " IPv4 routes exceed the table size " +
                  std::to_string(m.max_v4_routes) + "; raise max_v4_routes");
  if (base_v6 + new_v6 > m.max_v6_routes)
    return reject("add: " + std::to_string(base_v6 + new_v6) + " IPv6 routes exceed the table size " +
                  std::to_string(m.max_v6_routes) + "; raise max_v6_routes");
  if (!batch.replace_all) {
    std::vector<std::pair<uint32_t, uint8_t>> p4;
    std::vector<std::pair<Lpm6::Address, uint8_t>> p6;
    auto want = [&](const PrefixKey& k) {
      if (k.family == Family::kIpv4)
        p4.emplace_back(__builtin_bswap32(Impl::v4(k.bytes)), k.length);
      else
        p6.emplace_back(k.bytes, k.length);
    };
    for (const Route& r : batch.add) want(keyOf(r.prefix));
    for (const auto& [n, mac] : m.neighbours) want(PrefixKey{n.family, static_cast<uint8_t>(maxLen(n.family)), n.ip});
    const LpmStats s4 = m.lpm4->stats(), s6 = m.lpm6->stats();
    const uint32_t need4 = m.lpm4->groupsNeeded(p4), need6 = m.lpm6->groupsNeeded(p6);
    if (need4 > s4.groups_free || need6 > s6.groups_free)
      return reject("add: the batch may need " + std::to_string(need4) + " IPv4 / " +
                    std::to_string(need6) + " IPv6 LPM groups but only " +
                    std::to_string(s4.groups_free) + " / " + std::to_string(s6.groups_free) +
                    " are free; split the batch or use replace_all");
    // Next hops the batch may create: its distinct new keys, plus one per neighbour (a
    // host route it may gain).
    std::set<NhKey> fresh_nh;
    for (const Route& r : batch.add) {
      const NhKey k = m.keyForRoute(r);
      if (!m.nh_index.count(k)) fresh_nh.insert(k);
    }
    const size_t room = m.free_nh.size() + (kMaxNextHops - m.nh.size());
    if (room < fresh_nh.size() + m.neighbours.size())
      return reject("add: the batch may need " + std::to_string(fresh_nh.size() + m.neighbours.size()) +
                    " new next hops but only " + std::to_string(room) + " of " +
                    std::to_string(kMaxNextHops) + " are free; split the batch");
  }

  // ---- 2. apply
  if (batch.replace_all) {
    if (auto st = replaceAll(batch.add); !st.ok()) {
      ++m.counters.batches_rejected;
      return st;
    }
  } else {
    std::vector<PrefixKey> changed;
    changed.reserve(batch.add.size() + batch.remove.size());
    for (const IpPrefix& p : batch.remove) {
      const PrefixKey k = keyOf(p);
      if (!m.user.count(k)) continue;  // ignore_missing
      m.userErase(k);
      changed.push_back(k);
      if (auto st = m.refresh(k); !st.ok()) return st;
    }
    for (const Route& r : batch.add) {
      m.userInsert(r);
      changed.push_back(keyOf(r.prefix));
      if (auto st = m.refresh(changed.back()); !st.ok()) {
        pr_err("fib: applying a validated batch failed: %s", st.error().message.c_str());
        return st;  // capacity was checked: not expected
      }
    }
    // Neighbours under a changed prefix may gain or lose their host route.
    if (!m.neighbours.empty())
      if (auto st = m.syncHostRoutesIn(changed); !st.ok()) return st;
  }
  ++m.counters.batches_applied;
  ++m.counters.versions_published;
  m.reclaim();
  return {};
}

// Builds complete new LPM tables next to the live ones, then swaps the pointers workers
// read. The live tables are untouched until the swap, so a failure changes nothing.
Status FibManager::replaceAll(const std::vector<Route>& routes) {
  Impl& m = *impl_;
  auto t4 = m.newLpm4();
  if (!t4.ok()) return t4.error();
  auto t6 = m.newLpm6();
  if (!t6.ok()) return t6.error();
  std::unique_ptr<Lpm4> old4 = std::move(m.lpm4);
  std::unique_ptr<Lpm6> old6 = std::move(m.lpm6);
  auto old_user = std::move(m.user);
  auto old_host = std::move(m.host_routes);
  const size_t old_v4 = m.user_v4, old_v6 = m.user_v6;
  uint32_t old_per_len[2][129];
  std::memcpy(old_per_len, m.user_per_len, sizeof old_per_len);

  m.lpm4 = std::move(t4).value();
  m.lpm6 = std::move(t6).value();
  m.user.clear();
  m.host_routes.clear();
  m.user_v4 = m.user_v6 = 0;
  std::memset(m.user_per_len, 0, sizeof m.user_per_len);
  m.user.reserve(routes.size());
  m.lpm4->reserve(routes.size() + m.neighbours.size() + m.local.size());
  m.lpm6->reserve(std::min<size_t>(routes.size(), m.max_v6_routes) + m.neighbours.size());

  auto unrefAll = [&m](const Lpm4& a, const Lpm6& b) {
    a.forEachRule([&](uint32_t, uint8_t, uint32_t nh) { m.unref(nh); });
    b.forEachRule([&](const Lpm6::Address&, uint8_t, uint32_t nh) { m.unref(nh); });
  };
  Status st;
  for (const Route& r : routes) m.userInsert(r);
  for (const auto& [k, r] : m.user) {
    st = m.refresh(k);
    if (!st.ok()) break;
  }
  if (st.ok()) {
    for (const auto& k : m.local) {
      PrefixKey p;
      p.family = static_cast<Family>(k[0]);
      p.length = static_cast<uint8_t>(maxLen(p.family));
      std::copy(k.begin() + 1, k.end(), p.bytes.begin());
      st = m.refresh(p);
      if (!st.ok()) break;
    }
  }
  if (st.ok()) st = m.syncHostRoutes();
  if (!st.ok()) {
    // Roll back: drop the half-built tables (never published), restore the old state.
    unrefAll(*m.lpm4, *m.lpm6);
    m.lpm4 = std::move(old4);
    m.lpm6 = std::move(old6);
    m.user = std::move(old_user);
    m.host_routes = std::move(old_host);
    m.user_v4 = old_v4;
    m.user_v6 = old_v6;
    std::memcpy(m.user_per_len, old_per_len, sizeof old_per_len);
    return st;
  }
  view_.v4_.store(m.lpm4.get(), std::memory_order_release);
  view_.v6_.store(m.lpm6.get(), std::memory_order_release);
  unrefAll(*old4, *old6);
  m.retired_lpm4.push_back(std::move(old4));
  m.retired_lpm6.push_back(std::move(old6));
  return {};
}

std::vector<Route> FibManager::routes() const {
  std::vector<Route> out;
  out.reserve(impl_->user.size());
  for (const auto& [k, r] : impl_->user) out.push_back(r);
  // Stable, readable order for fpctl and tests: family, address, length.
  std::sort(out.begin(), out.end(), [](const Route& a, const Route& b) {
    return keyOf(a.prefix) < keyOf(b.prefix);
  });
  return out;
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
  if (auto it = m.nh_index.find(NhKey{NhKind::kAddr, n.port, n.ip.family, n.ip.bytes});
      it != m.nh_index.end())
    m.republish(it->second);
  if (auto st = m.syncNeighbour(key); !st.ok()) return st;
  ++m.counters.neighbour_updates;
  ++m.counters.versions_published;
  m.reclaim();
  return {};
}

Status FibManager::deleteNeighbour(const IpAddress& ip, PortId port) {
  Impl& m = *impl_;
  const NeighbourKey key{ip.family, ip.bytes, port};
  if (!m.neighbours.erase(key))
    return makeError(-ENOENT, "neighbour: no neighbour " + ip.toString() + " on port " +
                                  std::to_string(port));
  if (auto it = m.nh_index.find(NhKey{NhKind::kAddr, port, ip.family, ip.bytes});
      it != m.nh_index.end())
    m.republish(it->second);
  if (auto st = m.syncNeighbour(key); !st.ok()) return st;
  ++m.counters.neighbour_updates;
  ++m.counters.versions_published;
  m.reclaim();
  return {};
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

FibManager::Counters FibManager::counters() const {
  Counters c = impl_->counters;
  c.routes_v4 = impl_->user_v4;
  c.routes_v6 = impl_->user_v6;
  c.next_hops = impl_->nh_index.size();
  c.neighbours = impl_->neighbours.size();
  c.lpm4 = impl_->lpm4->stats();
  c.lpm6 = impl_->lpm6->stats();
  return c;
}

}  // namespace fastpath
