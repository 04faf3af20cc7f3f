// SPDX-License-Identifier: GPL-2.0-only
// IPv6 longest-prefix match: a multibit trie with a 2^24-entry first level (the top 24
// address bits) and 256-entry groups for each further 8-bit stride (rte_lpm6 layout with
// DIR-24-8's controlled prefix expansion at every level). A /48 is found in at most 4
// reads, a /64 in at most 6, a /128 in at most 14.
//
// Small tables cost what their routes touch: both levels are reserved address space in
// 4 KiB pages (transparent huge pages are requested only once the table holds
// kHugePagesFromRules rules; before that one route would back 2 MiB), and the default
// route (::/0) is kept beside the table instead of being expanded over the 64 MiB first
// level (an invalid leaf means "the default route, if any").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "fastpath/result.h"
#include "table/lpm_common.h"
#include "table/lpm_entry.h"
#include "table/lpm_group_pool.h"
#include "table/lpm_rule_store.h"

namespace fastpath {

/// IPv6 multibit trie. See lpm_common.h for the threading contract. Addresses are 16
/// bytes in network order; next hops must be <= kMaxNextHop. Entries are Lpm6Entry.
class Lpm6Trie : public Lpm6Entry {
 public:
  static constexpr uint32_t kMaxNextHop = (1u << 22) - 1;
  /// From this many rules on the tables ask for transparent huge pages (lookups in a large
  /// table are TLB-bound).
  static constexpr size_t kHugePagesFromRules = 1u << 13;
  using Address = Lpm6Prefix::Address;

  static Result<std::unique_ptr<Lpm6Trie>> create(const LpmConfig& config = {});
  ~Lpm6Trie();
  Lpm6Trie(const Lpm6Trie&) = delete;
  Lpm6Trie& operator=(const Lpm6Trie&) = delete;

  /// Adds `ip/depth` -> next_hop or replaces an existing rule's next hop; host bits are
  /// ignored. Errors: depth > 128, next hop too large, rule or group capacity.
  Status add(const uint8_t* ip, uint8_t depth, uint32_t next_hop);
  /// Removes `ip/depth`, restoring the longest remaining covering prefix.
  Status remove(const uint8_t* ip, uint8_t depth);
  std::optional<uint32_t> find(const uint8_t* ip, uint8_t depth) const;
  void forEachRule(const std::function<void(const Address&, uint8_t, uint32_t)>& fn) const;
  /// See Lpm4Dir24_8::releaseRetired().
  void releaseRetired();
  /// Upper bound of groups that adding these prefixes could take.
  uint32_t groupsNeeded(const std::vector<std::pair<Address, uint8_t>>& prefixes) const;
  LpmStats stats() const;
  /// Pre-sizes the control-side rule store (bulk loads: avoids rehashing).
  void reserve(size_t rules) { rules_.reserve(rules); }

  /// Worker side: next hop of the longest prefix covering `ip`, or kLpmNoRoute.
  uint32_t lookup(const uint8_t* ip) const noexcept {
    uint32_t e = __atomic_load_n(&tbl24_[(uint32_t{ip[0]} << 16) | (uint32_t{ip[1]} << 8) | ip[2]],
                                 __ATOMIC_ACQUIRE);
    unsigned byte = 3;
    while (__builtin_expect(e & kExt, 0))
      e = __atomic_load_n(&groups_[((e & kValueMask) << 8) | ip[byte++]], __ATOMIC_ACQUIRE);
    return (e & kValid) ? (e & kValueMask) : __atomic_load_n(&default_, __ATOMIC_ACQUIRE);
  }

  /// Worker side: n lookups walked level by level in lockstep, each level's reads
  /// prefetched for the whole group first, so the cache misses of different addresses
  /// overlap instead of forming one dependent chain per address.
  void lookupBulk(const uint8_t* const* ips, uint32_t* next_hops, size_t n) const noexcept;

 private:
  explicit Lpm6Trie(const LpmConfig& config);
  uint32_t* table(int level, uint32_t group) const;
  bool addAt(uint32_t* tbl, int level, const Address& ip, uint8_t depth, uint32_t entry);
  void fillGroup(uint32_t group, uint8_t depth, uint32_t entry);
  void removeAt(uint32_t* tbl, int level, const Address& ip, uint8_t depth, uint32_t replacement);
  std::optional<uint32_t> collapsible(uint32_t group, int level) const;

  LpmConfig config_;
  uint32_t* tbl24_ = nullptr;
  uint32_t* groups_ = nullptr;
  size_t tbl24_bytes_ = 0;
  size_t groups_bytes_ = 0;
  uint32_t default_ = kLpmNoRoute;  // the ::/0 rule's next hop; read by workers
  bool huge_pages_ = false;         // THP requested (kHugePagesFromRules reached)
  LpmGroupPool pool_;
  LpmRuleStore<Lpm6Prefix> rules_;
};

}  // namespace fastpath
