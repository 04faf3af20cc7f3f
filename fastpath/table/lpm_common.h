// SPDX-License-Identifier: GPL-2.0-only
// Types shared by the longest-prefix-match algorithms: the one LPM interface of the forwarding
// table (DPDK l3fwd style: one interface, one file per algorithm). Lookups return a next-hop index;
// the index means whatever the owner (FibManager) decides, here a slot of the next-hop table.
//
// Concurrency contract shared by every algorithm:
//  - add()/remove()/releaseRetired() run on ONE control thread;
//  - lookup() may run concurrently on any number of worker threads: it never allocates,
//    locks or blocks, and sees either the old or the new entry of every slot (entries are
//    written with single atomic 32-bit stores, subtables are filled before they are
//    linked in);
//  - memory a lookup may still be reading (a collapsed subtable) is only *retired* by
//    remove(); it becomes reusable after the owner ran an epoch synchronize()
//    (fastpath/epoch.h) and then called releaseRetired().
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>

namespace fastpath {

/// lookup() result when no prefix covers the address.
inline constexpr uint32_t kLpmNoRoute = 0xffffffffu;

/// Sizes of an LPM table, fixed at creation (subtables are never reallocated, so lookups
/// can run while the table grows).
struct LpmConfig {
  uint32_t max_rules = 1u << 20;   ///< prefixes the table accepts
  uint32_t max_groups = 1u << 16;  ///< 256-entry subtables (tbl8 groups)
};

/// Occupancy, for counters and capacity checks.
struct LpmStats {
  size_t rules = 0;
  uint32_t groups_used = 0;
  uint32_t groups_free = 0;     ///< immediately reusable
  uint32_t groups_retired = 0;  ///< waiting for releaseRetired()
  size_t memory_bytes = 0;      ///< reserved (virtual) size of the lookup tables
};

/// What every IPv4 LPM algorithm provides. Addresses are host byte order integers.
template <typename T>
concept Lpm4Table = requires(T& t, const T& ct, uint32_t ip, uint8_t depth, uint32_t nh,
                             const uint32_t* ips, uint32_t* nhs, size_t n) {
  { ct.lookup(ip) } -> std::same_as<uint32_t>;
  { ct.lookupBulk(ips, nhs, n) } -> std::same_as<void>;
  {t.add(ip, depth, nh)};
  {t.remove(ip, depth)};
  { t.releaseRetired() } -> std::same_as<void>;
  { ct.stats() } -> std::same_as<LpmStats>;
};

/// What every IPv6 LPM algorithm provides. Addresses are 16 bytes, network order.
template <typename T>
concept Lpm6Table = requires(T& t, const T& ct, const uint8_t* ip, uint8_t depth, uint32_t nh) {
  { ct.lookup(ip) } -> std::same_as<uint32_t>;
  {t.add(ip, depth, nh)};
  {t.remove(ip, depth)};
  { t.releaseRetired() } -> std::same_as<void>;
  { ct.stats() } -> std::same_as<LpmStats>;
};

}  // namespace fastpath
