// SPDX-License-Identifier: GPL-2.0-only
// IPv4 longest-prefix match, DIR-24-8 (Gupta/Lin/McKeown; DPDK rte_lpm layout): a 2^24-entry
// first-level table indexed by the top 24 address bits and 256-entry second-level groups
// (tbl8) for prefixes longer than /24. Every lookup is one or two memory reads.
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

/// IPv4 DIR-24-8 table. See lpm_common.h for the threading contract. Addresses are host
/// byte order; next hops must be <= kMaxNextHop. Entries (tbl24 and tbl8) are Lpm4Entry:
/// in tbl24, ext means the value is a tbl8 group.
class Lpm4Dir24_8 : public Lpm4Entry {
 public:
  static constexpr uint32_t kMaxNextHop = (1u << 24) - 1;

  /// Reserves the tables (virtual memory; pages are touched as prefixes are added).
  /// Fails with a message when the memory cannot be mapped.
  static Result<std::unique_ptr<Lpm4Dir24_8>> create(const LpmConfig& config = {});
  ~Lpm4Dir24_8();
  Lpm4Dir24_8(const Lpm4Dir24_8&) = delete;
  Lpm4Dir24_8& operator=(const Lpm4Dir24_8&) = delete;

  /// Adds `ip/depth` -> next_hop, or replaces the next hop of an existing rule. Host bits
  /// of `ip` are ignored. Errors: depth > 32, next hop too large, rule or tbl8 capacity.
  Status add(uint32_t ip, uint8_t depth, uint32_t next_hop);
  /// Removes `ip/depth`; addresses it covered fall back to the longest remaining covering
  /// prefix (or no route). Error when the rule does not exist.
  Status remove(uint32_t ip, uint8_t depth);
  /// The next hop of exactly the rule `ip/depth`, if present (control thread).
  std::optional<uint32_t> find(uint32_t ip, uint8_t depth) const;
  /// Calls fn(ip, depth, next_hop) for every rule, in no particular order.
  void forEachRule(const std::function<void(uint32_t, uint8_t, uint32_t)>& fn) const;
  /// Makes the tbl8 groups retired by remove() reusable. Call only after an epoch
  /// synchronize() that started after those remove() calls.
  void releaseRetired();
  /// Upper bound of tbl8 groups that adding these prefixes could take (capacity checks).
  uint32_t groupsNeeded(const std::vector<std::pair<uint32_t, uint8_t>>& prefixes) const;
  LpmStats stats() const;
  /// Pre-sizes the control-side rule store (bulk loads: avoids rehashing).
  void reserve(size_t rules) { rules_.reserve(rules); }

  /// Worker side: next hop of the longest prefix covering `ip`, or kLpmNoRoute.
  uint32_t lookup(uint32_t ip) const noexcept {
    uint32_t e = __atomic_load_n(&tbl24_[ip >> 8], __ATOMIC_ACQUIRE);
    if (__builtin_expect(e & kExt, 0))
      e = __atomic_load_n(&tbl8_[((e & kValueMask) << 8) | (ip & 0xff)], __ATOMIC_RELAXED);
    return (e & kValid) ? (e & kValueMask) : kLpmNoRoute;
  }
  /// Worker side: n lookups, with the first-level reads issued ahead (prefetch).
  void lookupBulk(const uint32_t* ips, uint32_t* next_hops, size_t n) const noexcept;

 private:
  explicit Lpm4Dir24_8(const LpmConfig& config);
  void addSmall(uint32_t ip, uint8_t depth, uint32_t entry);
  bool addBig(uint32_t ip, uint8_t depth, uint32_t entry);
  void removeSmall(uint32_t ip, uint8_t depth, uint32_t replacement);
  void removeBig(uint32_t ip, uint8_t depth, uint32_t replacement);

  LpmConfig config_;
  uint32_t* tbl24_ = nullptr;  // 2^24 entries, mmap'd
  uint32_t* tbl8_ = nullptr;   // max_groups * 256 entries, mmap'd
  size_t tbl24_bytes_ = 0;
  size_t tbl8_bytes_ = 0;
  LpmGroupPool groups_;
  LpmRuleStore<Lpm4Prefix> rules_;
};

}  // namespace fastpath
