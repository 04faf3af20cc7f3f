// SPDX-License-Identifier: GPL-2.0-only
// FibManager's internals, shared by its source files (private to fastpath/table):
//   fib_manager.cc      the object, ports, local addresses, LPM rules of a prefix
//   fib_next_hops.cc    next-hop slots: interning, reference counts, FwdEntry publication,
//                       reclamation once an epoch has passed
//   fib_neighbours.cc   neighbours and the host routes derived from them
//   fib_apply_routes.cc route batches: validation, incremental apply, replace-all
//
// What the LPM holds for a prefix P (priority order):
//   1. P is a host prefix of a local address          -> the "local" next hop
//   2. P is a user route                              -> its next hop
//   3. P is a host prefix of a neighbour that sits on an on-link user route of the same
//      port (so each neighbour on a connected subnet gets its own resolved entry)
// Impl::refresh(P) recomputes that and updates the LPM (only when it changed).
#pragma once

#include <array>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "table/fib_manager.h"

namespace fastpath {

inline constexpr uint32_t kMaxNextHops = 1u << 20;
inline constexpr size_t kInternalHostRoutes = 1u << 16;  // room for local/neighbour host routes

inline unsigned maxLen(Family f) { return f == Family::kIpv4 ? 32 : 128; }

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

inline PrefixKey keyOf(const IpPrefix& p) {
  return PrefixKey{p.address.family, p.length, p.address.bytes};
}

inline PrefixKey masked(const IpAddress& a, unsigned len) {
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

inline std::string portList(const std::map<PortId, PortConfig>& ports) {
  std::string s;
  for (const auto& [id, p] : ports) s += (s.empty() ? "" : ",") + std::to_string(id);
  return s.empty() ? "none" : s;
}

/// The control-thread state behind FibManager. Single thread; see the file header.
struct FibManager::Impl {
  Impl(FibManager& owner, size_t max_v4, size_t max_v6)
      : self(owner), max_v4_routes(max_v4), max_v6_routes(max_v6) {}

  Result<std::unique_ptr<Lpm4>> newLpm4() const;
  Result<std::unique_ptr<Lpm6>> newLpm6() const;

  FibManager& self;
  size_t max_v4_routes;
  size_t max_v6_routes;
  std::unique_ptr<Lpm4> lpm4;
  std::unique_ptr<Lpm6> lpm6;
  // kMaxNextHops slots (FibView::nh_), mmap'd: only the pages of slots in use are backed.
  // Written with atomic stores, read by workers with atomic loads.
  struct SlotsUnmap {
    void operator()(const FwdEntry** p) const;
  };
  std::unique_ptr<const FwdEntry*[], SlotsUnmap> slots;

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

  // Next hops (fib_next_hops.cc).
  bool isLocal(const IpAddress& a) const;
  FwdEntry* buildEntry(const NhKey& k) const;
  /// Publishes a fresh FwdEntry for slot `idx`; the old one is freed after synchronize.
  void republish(uint32_t idx);
  /// The slot of `k`, allocated (and published) when new; nullopt when the table is full.
  std::optional<uint32_t> nhIndex(const NhKey& k);
  void ref(uint32_t idx) { ++nh[idx].refs; }
  void unref(uint32_t idx);
  NhKey keyForRoute(const Route& r) const;
  /// Waits until no worker can hold anything retired so far, then frees/reuses it.
  void reclaim();

  // LPM rules of a prefix (fib_manager.cc).
  std::optional<uint32_t> installed(const PrefixKey& p) const;
  static uint32_t v4(const std::array<uint8_t, 16>& b) {
    uint32_t x;
    std::memcpy(&x, b.data(), 4);
    return x;
  }
  /// The next-hop key rule P should have now, if any (priority order in the file header).
  std::optional<NhKey> desired(const PrefixKey& p) const;
  Status lpmAdd(const PrefixKey& p, uint32_t idx);
  Status lpmRemove(const PrefixKey& p);
  Status refresh(const PrefixKey& p);
  void userInsert(const Route& r);
  void userErase(const PrefixKey& k);

  // Host routes from neighbours (fib_neighbours.cc).
  /// Longest user route covering `a` (control-side, probes lengths in use).
  const Route* bestUserRoute(const IpAddress& a) const;
  /// Rule 3: a neighbour gets a host route when the best user route for its address is
  /// an on-link subnet route on the neighbour's port.
  bool wantsHostRoute(const NeighbourKey& n) const;
  /// Recomputes rule-3 host routes; refreshes the prefixes whose wish changed.
  Status syncHostRoutes();
  /// Same, limited to the neighbours inside the given prefixes (the ones a batch changed).
  Status syncHostRoutesIn(const std::vector<PrefixKey>& changed);
  /// One neighbour added or removed: its host route follows.
  Status syncNeighbour(const NeighbourKey& n);
  /// After a neighbour was added, changed or removed: its next hops, its host route,
  /// publication and reclamation.
  Status neighbourChanged(const NeighbourKey& n);

  // Route batches (fib_apply_routes.cc).
  /// Everything that can be refused is refused here, before anything changes.
  Status validateBatch(const RouteBatch& batch) const;
  /// An incremental batch would fit (LPM groups, next-hop slots): applying cannot fail.
  Status checkRoom(const RouteBatch& batch) const;
  Status applyIncremental(const RouteBatch& batch);
  Status replaceAll(const std::vector<Route>& routes);
};

}  // namespace fastpath
