// SPDX-License-Identifier: GPL-2.0-only
// The forwarding information base: routes (LPM), next hops, neighbours and ports.
// FibManager is the control-thread side (it implements the routes/neighbours part of
// NodeControl's semantics); FibView is what workers read, lock-free, through epochs.
//
// Indirection: LPM rule -> next-hop index -> FwdEntry. A next hop is (port, gateway) for
// gateway routes, (port, destination) for host routes learnt from the neighbour table on
// on-link subnets, a per-port "glean" entry for the rest of an on-link subnet (always
// unresolved: the packet's own destination needs resolving), or the node itself (local).
// A neighbour change swaps the FwdEntry pointers of its next hops; the LPM is untouched.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "fastpath/net_types.h"
#include "fastpath/result.h"
#include "table/epoch.h"
#include "table/lpm.h"

namespace fastpath {

struct PortConfig {
  PortId id = 0;
  MacAddress mac;
  uint32_t mtu = 1500;
  bool up = true;
};

/// FwdEntry::flags
inline constexpr uint8_t kFwdResolved = 1u << 0;  ///< dst_mac is valid: forward
inline constexpr uint8_t kFwdLocal = 1u << 1;     ///< destination is the node itself
inline constexpr uint8_t kFwdGlean = 1u
                                     << 2;  ///< on-link: the packet's destination needs resolving
inline constexpr uint8_t kFwdPortDown = 1u << 3;  ///< egress port administratively down

/// What a worker needs for one egress, precomputed so the per-packet path is one lookup
/// and a copy. dst_mac and src_mac are laid out as an Ethernet header's first 12 bytes.
/// Immutable once published: a change publishes a new FwdEntry.
struct FwdEntry {
  uint8_t dst_mac[6];
  uint8_t src_mac[6];
  PortId port;
  uint16_t mtu;
  uint8_t flags;
  uint8_t family;        ///< 4 or 6: family of next_hop
  uint8_t next_hop[16];  ///< gateway or neighbour address (IPv4 in [0..3]); zero for glean/local
};
static_assert(sizeof(FwdEntry) == 36);

/// Worker-side, read-only view of the table. Lock-free and allocation-free; a returned
/// pointer stays valid until the calling worker's next EpochDomain::quiescent().
class FibView {
 public:
  /// Entry for an IPv4 destination in network byte order; nullptr = no route.
  const FwdEntry* lookup4(uint32_t dst_be) const noexcept { return route(nextHop4(dst_be)); }
  /// Entry for an IPv6 destination; nullptr = no route.
  const FwdEntry* lookup6(const uint8_t dst[16]) const noexcept {
    return route(v6_.load(std::memory_order_acquire)->lookup(dst));
  }
  /// Next-hop index for an IPv4 destination (network order) or kLpmNoRoute.
  uint32_t nextHop4(uint32_t dst_be) const noexcept {
    return v4_.load(std::memory_order_acquire)->lookup(__builtin_bswap32(dst_be));
  }
  /// Next-hop indexes of n IPv4 destinations (host byte order) with one bulk LPM call
  /// (its cache misses overlap); kLpmNoRoute where no prefix covers the address.
  void nextHops4(const uint32_t* dst_host, uint32_t* next_hops, size_t n) const noexcept {
    v4_.load(std::memory_order_acquire)->lookupBulk(dst_host, next_hops, n);
  }
  /// The entry of a next-hop index from nextHops4(); nullptr for kLpmNoRoute.
  const FwdEntry* route(uint32_t next_hop) const noexcept {
    return next_hop == kLpmNoRoute ? nullptr : __atomic_load_n(&nh_[next_hop], __ATOMIC_ACQUIRE);
  }

 private:
  friend class FibManager;
  std::atomic<const Lpm4*> v4_{nullptr};
  std::atomic<const Lpm6*> v6_{nullptr};
  // Next-hop slots: fixed capacity, never reallocated; reserved address space whose pages
  // are backed as slots are first used (an idle table costs nothing here).
  const FwdEntry* const* nh_ = nullptr;
};

/// Control-thread owner of the forwarding table. Not thread-safe: one control thread.
class FibManager {
 public:
  /// Reserves the tables (virtual memory) for up to max_v4_routes / max_v6_routes user
  /// routes. Error when the address space cannot be reserved.
  ///
  /// An empty table costs a few KiB of memory and one with a handful of routes a few more
  /// (the IPv4 LPM is a small trie until the table is large, see Lpm4Adaptive; next-hop
  /// slots and LPM groups are reserved address space, backed as they are used), so a
  /// daemon can hold thousands of them.
  ///
  /// `shared_epoch`: the epoch domain to use instead of one of the FibManager's own, so
  /// that a worker reading the tables of many FibManagers registers once (epoch() returns
  /// it; every synchronize() of this FibManager runs there). It must outlive the
  /// FibManager, and all FibManagers sharing it must be driven from one control thread
  /// (or their calls serialised), since EpochDomain::synchronize() and retire() are
  /// control-thread calls. A synchronize() waits for every reader of the domain, so
  /// workers should go quiescent once per batch as they do for one table.
  static Result<std::unique_ptr<FibManager>> create(size_t max_v4_routes = 1 << 20,
                                                    size_t max_v6_routes = 1 << 16,
                                                    EpochDomain* shared_epoch = nullptr);
  ~FibManager();
  FibManager(const FibManager&) = delete;
  FibManager& operator=(const FibManager&) = delete;

  /// Replaces the port table. Error when a port id repeats, a MAC is zero, an MTU is
  /// outside 68..65535, or a port some route or neighbour uses disappears.
  Status setPorts(const std::vector<PortConfig>& ports);
  std::vector<PortConfig> ports() const;
  /// The node's own addresses: destinations here get kFwdLocal (punted to the slow path).
  Status setLocalAddresses(const std::vector<IpAddress>& addresses);

  /// Validates the whole batch (prefix length, host bits, unknown port, gateway family,
  /// remove of a missing route unless ignore_missing, duplicates inside the batch,
  /// capacity), then applies it all-or-nothing. replace_all builds a fresh table and
  /// swaps it in. Returns once workers see the result and old memory is reclaimed
  /// (epoch synchronize; on a synchronize timeout reclamation is deferred, not skipped).
  Status applyRoutes(const RouteBatch& batch);
  /// User routes (not the internal host routes learnt from neighbours).
  std::vector<Route> routes() const;

  /// Adds or updates a neighbour (ip on port -> mac); every next hop through it becomes
  /// resolved without touching the LPM. Error on unknown port, zero MAC, unspecified IP.
  Status addNeighbour(const Neighbour& neighbour);
  /// Error when the neighbour does not exist.
  Status deleteNeighbour(const IpAddress& ip, PortId port);
  std::vector<Neighbour> neighbours() const;

  /// What workers read; the address is stable for the FibManager's lifetime.
  const FibView& view() const { return view_; }
  /// Workers register here and call quiescent() once per batch (the shared domain given
  /// to create(), if any).
  EpochDomain& epoch() { return *epoch_; }

  struct Counters {
    uint64_t batches_applied = 0;  ///< successful applyRoutes
    uint64_t batches_rejected = 0;
    uint64_t route_updates = 0;       ///< LPM rule adds/replaces/removes performed
    uint64_t versions_published = 0;  ///< table pointer swaps (replace-all) + entry swaps
    uint64_t neighbour_updates = 0;
    uint64_t sync_timeouts = 0;
    size_t routes_v4 = 0;
    size_t routes_v6 = 0;
    size_t next_hops = 0;
    size_t neighbours = 0;
    LpmStats lpm4;
    LpmStats lpm6;
  };
  Counters counters() const;

 private:
  struct Impl;  // fib_internal.h
  FibManager();
  std::unique_ptr<Impl> impl_;
  FibView view_;
  std::unique_ptr<EpochDomain> own_epoch_;  // null when a shared domain was given
  EpochDomain* epoch_ = nullptr;
};

}  // namespace fastpath
