// SPDX-License-Identifier: GPL-2.0-only
// IPv4 longest-prefix match whose structure follows the table's size: a small multibit
// trie (Lpm4Trie: memory in proportion to the routes, a few KiB for a node's handful) up
// to a threshold, DIR-24-8 (Lpm4Dir24_8: one or two reads, but a 64 MiB first level) above
// it. A daemon with thousands of forwarding contexts can afford the first for every one
// of them and keeps the second's speed for the few with large tables.
//
// The switch is a copy: the other structure is built from the rules while lookups go on
// in the current one, published with one release store, and the old one is retired like
// any other memory a lookup may still read (lpm_common.h): freed by the releaseRetired()
// the owner calls after its next epoch synchronize(). Up (to DIR-24-8) happens inside the
// add() that crosses the threshold (or in reserve() for a bulk load announced as large);
// down (to the trie) in releaseRetired() once the table fell below half the threshold, so
// a table that hovers around the threshold does not flip on every update.
//
// Capacity is DIR-24-8's whatever the structure: while the trie answers, the tbl8 groups
// DIR-24-8 would use are counted (one per /24 holding a longer prefix), so add() refuses,
// and stats()/groupsNeeded() report, exactly what DIR-24-8 would, and the switch up can
// never run out of groups.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "fastpath/result.h"
#include "table/lpm4_dir24_8.h"
#include "table/lpm4_trie.h"
#include "table/lpm_common.h"

namespace fastpath {

/// IPv4 table that is an Lpm4Trie while small and an Lpm4Dir24_8 while large. Same
/// interface, capacity and threading contract (lpm_common.h) as Lpm4Dir24_8.
class Lpm4Adaptive {
 public:
  static constexpr uint32_t kMaxNextHop = Lpm4Dir24_8::kMaxNextHop;
  /// Rules up to which the trie answers (see the measurement in lpm4_adaptive.cc).
  static constexpr uint32_t kDefaultSmallMaxRules = 1u << 13;

  /// Creates an empty table (a trie: nothing is touched until routes arrive; the DIR-24-8
  /// tables are only mapped when the table grows past `small_max_rules`). Fails with a
  /// message when the memory cannot be reserved.
  static Result<std::unique_ptr<Lpm4Adaptive>> create(
      const LpmConfig& config = {}, uint32_t small_max_rules = kDefaultSmallMaxRules);
  ~Lpm4Adaptive();
  Lpm4Adaptive(const Lpm4Adaptive&) = delete;
  Lpm4Adaptive& operator=(const Lpm4Adaptive&) = delete;

  /// Adds `ip/depth` -> next_hop or replaces its next hop (see Lpm4Dir24_8::add()). May
  /// switch to DIR-24-8 (then also fails when its tables cannot be mapped).
  Status add(uint32_t ip, uint8_t depth, uint32_t next_hop);
  /// Removes `ip/depth` (see Lpm4Dir24_8::remove()).
  Status remove(uint32_t ip, uint8_t depth);
  std::optional<uint32_t> find(uint32_t ip, uint8_t depth) const;
  void forEachRule(const std::function<void(uint32_t, uint8_t, uint32_t)>& fn) const;
  /// Frees what an earlier switch unpublished, makes retired memory reusable, and switches
  /// down to the trie when the table became small. Call only after an epoch synchronize()
  /// that started after the add()/remove()/reserve() calls (and the previous
  /// releaseRetired()).
  void releaseRetired();
  /// Upper bound of tbl8 groups that adding these prefixes could take (DIR-24-8's count).
  uint32_t groupsNeeded(const std::vector<std::pair<uint32_t, uint8_t>>& prefixes) const;
  /// Rules and tbl8 groups as DIR-24-8 counts them; memory_bytes: what is reserved now.
  LpmStats stats() const;
  /// Pre-sizes the rule store for a bulk load; more than the threshold switches to
  /// DIR-24-8 at once (instead of building the trie first).
  void reserve(size_t rules);

  /// True while DIR-24-8 answers lookups (control thread; tests, counters).
  bool largeActive() const noexcept { return large_ != nullptr; }
  /// True when a switch left a structure that only the next releaseRetired() (after an
  /// epoch) frees: an owner that wants the memory back at once synchronizes once more.
  bool retiredPending() const noexcept { return trie_stale_ || !retired_large_.empty(); }
  /// Bytes of lookup memory touched now (trie nodes, or DIR-24-8's reserve when it is in
  /// use): an upper bound of what the table adds to the resident set.
  size_t touchedBytes() const;
  uint32_t smallMaxRules() const { return small_max_rules_; }

  /// Worker side: next hop of the longest prefix covering `ip`, or kLpmNoRoute.
  uint32_t lookup(uint32_t ip) const noexcept {
    const Lpm4Dir24_8* large = __atomic_load_n(&large_, __ATOMIC_ACQUIRE);
    if (large) return large->lookup(ip);
    return trie_->lookup(ip);
  }
  /// Worker side: n lookups in the structure in use (one choice for the whole call).
  void lookupBulk(const uint32_t* ips, uint32_t* next_hops, size_t n) const noexcept {
    const Lpm4Dir24_8* large = __atomic_load_n(&large_, __ATOMIC_ACQUIRE);
    if (large)
      large->lookupBulk(ips, next_hops, n);
    else
      trie_->lookupBulk(ips, next_hops, n);
  }

 private:
  Lpm4Adaptive(const LpmConfig& config, uint32_t small_max_rules, std::unique_ptr<Lpm4Trie> trie);
  /// Builds a DIR-24-8 from the trie's rules and publishes it (the trie is cleared by the
  /// next releaseRetired()).
  Status toLarge(size_t reserve_rules);
  /// Builds the (empty) trie from the DIR-24-8's rules and publishes it; false when it
  /// does not fit (the DIR-24-8 stays).
  bool toSmall();
  uint32_t groupsFree() const {
    const size_t taken = long24_.size() + groups_retired_;
    return taken >= config_.max_groups ? 0 : static_cast<uint32_t>(config_.max_groups - taken);
  }

  LpmConfig config_;
  uint32_t small_max_rules_;
  std::unique_ptr<Lpm4Trie> trie_;      // always there; empty while DIR-24-8 answers
  const Lpm4Dir24_8* large_ = nullptr;  // read by workers; null: the trie answers
  std::unique_ptr<Lpm4Dir24_8> large_owner_;
  std::vector<std::unique_ptr<Lpm4Dir24_8>> retired_large_;  // unpublished, not yet freed
  bool trie_stale_ = false;  // unpublished by a switch up: cleared by releaseRetired()
  // DIR-24-8's tbl8 groups while the trie answers: /24 -> rules longer than /24 in it
  // (each such /24 is one group), and groups freed since the last releaseRetired().
  std::unordered_map<uint32_t, uint32_t> long24_;
  uint32_t groups_retired_ = 0;
};

}  // namespace fastpath
