// SPDX-License-Identifier: GPL-2.0-only
// IPv4 longest-prefix match for small tables: a multibit trie of strides 16-8-8 (a
// 2^16-entry root, then 256-entry nodes for bits 16-23 and 24-31) with DIR-24-8's
// controlled prefix expansion inside every level, and the default route kept beside the
// table rather than expanded into it. A lookup is one read for a prefix up to /16 (or the
// default route), two for up to /24, three for a longer one.
//
// Why this structure for small tables: its memory follows the routes, not the address
// space. DIR-24-8's 2^24-entry first level (64 MiB) is filled whole by a default route and
// largely by any short prefix; here the default route costs nothing, the root is reserved
// address space of which only the 4 KiB pages under a route are backed (one page spans a
// /6), a /24 takes at most one node (1 KiB) and a longer prefix at most two, shared with
// every prefix on the same path. A forwarding context with ten routes touches a few pages.
// A sorted range table would be as small but must be rebuilt on every update; DXR-like
// chunks need a direct table that a default route fills; a trie of 8-bit strides is
// smaller still but takes four reads where this takes up to three. Nodes of a small table
// stay in L1/L2, so lookups cost a few ns (fp_lpm_bench); Lpm4Adaptive hands large tables
// over to DIR-24-8.
#pragma once

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

/// IPv4 multibit trie (strides 16-8-8, default route aside). Same interface and threading
/// contract (lpm_common.h) as Lpm4Dir24_8. LpmConfig::max_groups counts its 256-entry
/// nodes (the root not included). Root and nodes are reserved address space, backed as
/// they are first written. Entries are Lpm4Entry (ext: the value is a child node).
class Lpm4Trie : public Lpm4Entry {
 public:
  static constexpr uint32_t kMaxNextHop = (1u << 24) - 1;

  /// Reserves the root and node memory (virtual). Fails with a message when it cannot be
  /// mapped.
  static Result<std::unique_ptr<Lpm4Trie>> create(const LpmConfig& config = {});
  ~Lpm4Trie();
  Lpm4Trie(const Lpm4Trie&) = delete;
  Lpm4Trie& operator=(const Lpm4Trie&) = delete;

  /// Adds `ip/depth` -> next_hop or replaces its next hop; host bits are ignored.
  /// Errors: depth > 32, next hop too large, rule or node capacity (nothing changed then).
  Status add(uint32_t ip, uint8_t depth, uint32_t next_hop);
  /// Removes `ip/depth`, restoring the longest remaining covering prefix.
  Status remove(uint32_t ip, uint8_t depth);
  std::optional<uint32_t> find(uint32_t ip, uint8_t depth) const;
  void forEachRule(const std::function<void(uint32_t, uint8_t, uint32_t)>& fn) const;
  /// See Lpm4Dir24_8::releaseRetired().
  void releaseRetired();
  /// Nodes that adding `ip/depth` would take now (0 when its path exists).
  uint32_t nodesNeeded(uint32_t ip, uint8_t depth) const;
  /// Free nodes (immediately usable).
  uint32_t nodesFree() const { return pool_.freeCount(); }
  /// groups_* count nodes (the root not included); memory_bytes is the reserved memory.
  LpmStats stats() const;
  void reserve(size_t rules) { rules_.reserve(rules); }
  /// Bytes of root pages written and nodes handed out since creation or the last clear():
  /// what the table can have added to the resident set.
  size_t touchedBytes() const;
  /// Empties the table and gives its node memory back. Only when no lookup can run on it
  /// (before it is published, or after an epoch synchronize() since it was unpublished).
  void clear();

  /// Worker side: next hop of the longest prefix covering `ip`, or kLpmNoRoute.
  uint32_t lookup(uint32_t ip) const noexcept {
    uint32_t e = __atomic_load_n(&root_[ip >> 16], __ATOMIC_ACQUIRE);
    if (e & kExt) {
      // Dependent on the link's value: ordered after it like DIR-24-8's tbl8 read.
      e = __atomic_load_n(&nodes_[((e & kValueMask) << 8) | ((ip >> 8) & 0xff)], __ATOMIC_RELAXED);
      if (e & kExt)
        e = __atomic_load_n(&nodes_[((e & kValueMask) << 8) | (ip & 0xff)], __ATOMIC_RELAXED);
    }
    // An invalid entry is covered by no prefix but the default route (if any).
    return (e & kValid) ? (e & kValueMask) : __atomic_load_n(&default_, __ATOMIC_ACQUIRE);
  }
  /// Worker side: n lookups, branch-free (see lpm4_trie.cc).
  void lookupBulk(const uint32_t* ips, uint32_t* next_hops, size_t n) const noexcept;

 private:
  explicit Lpm4Trie(const LpmConfig& config);
  uint32_t* table(int level, uint32_t node) const {
    return level == 0 ? root_ : nodes_ + size_t{node} * 256;
  }
  void store(int level, uint32_t* slot, uint32_t v);
  void fillNode(uint32_t node, uint8_t depth, uint32_t entry);
  void addAt(int level, uint32_t node, uint32_t ip, uint8_t depth, uint32_t entry);
  void removeAt(int level, uint32_t node, uint32_t ip, uint8_t depth, uint32_t replacement);
  void sweep(int level, uint32_t node, uint32_t first, uint32_t count, uint8_t own,
             uint32_t replacement);
  std::optional<uint32_t> collapsible(uint32_t node, int level) const;

  LpmConfig config_;
  uint32_t* root_ = nullptr;  // 2^16 entries, then max_groups nodes of 256: one mapping
  uint32_t* nodes_ = nullptr;
  size_t map_bytes_ = 0;
  uint32_t default_ = kLpmNoRoute;  // the /0 rule's next hop; read by workers
  uint64_t root_pages_ = 0;         // bit p: the root's 4 KiB page p was written
  LpmGroupPool pool_;
  LpmRuleStore<Lpm4Prefix> rules_;
};

}  // namespace fastpath
