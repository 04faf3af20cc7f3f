// SPDX-License-Identifier: GPL-2.0-only
// IPv4 LPM that is a trie while small and DIR-24-8 while large (see the header).
//
// The threshold, kDefaultSmallMaxRules = 8192 rules, from fp_lpm_bench's
// BM_Lpm4SmallCrossover (bulk 64, random destinations in "bgpDepth" tables; M lookups/s,
// trie / DIR-24-8): 1k 314 / 773, 4k 279 / 390, 8k 251 / 312, 16k 150 / 253, 64k 57 / 183.
// Up to 8k rules the trie keeps 80 % or more of DIR-24-8's rate in a few MiB (7.6 MiB
// touched at 8k, where DIR-24-8 backs most of its 64 MiB first level); beyond, its nodes
// leave the L2 cache and its dependent reads fall behind. A node-sized table (15 rules) is
// faster in the trie than in DIR-24-8 (BM_Lpm4NodeTable). docs/design/lpm.md has the table.
#include <algorithm>
#include <cerrno>
#include <string>
#include <unordered_set>

#include "table/lpm4_adaptive.h"

namespace fastpath {

namespace {

constexpr const char* kWho = "lpm4";  // as Lpm4Dir24_8 words its errors
using Errors = LpmErrors<Lpm4Prefix>;

// Trie nodes for `rules` rules: at most two per rule (a /25-/32 alone in its /16), so the
// trie does not run out below the threshold (it would switch up if retired nodes made it).
uint32_t trieNodes(uint32_t rules) {
  return static_cast<uint32_t>(std::min<uint64_t>(uint64_t{rules} * 2, Lpm4Trie::kValueMask + 1));
}

}  // namespace

Lpm4Adaptive::Lpm4Adaptive(const LpmConfig& config, uint32_t small_max_rules,
                           std::unique_ptr<Lpm4Trie> trie)
    : config_(config), small_max_rules_(small_max_rules), trie_(std::move(trie)) {}

Lpm4Adaptive::~Lpm4Adaptive() = default;

Result<std::unique_ptr<Lpm4Adaptive>> Lpm4Adaptive::create(const LpmConfig& config,
                                                           uint32_t small_max_rules) {
  if (config.max_groups == 0 || config.max_groups > Lpm4Dir24_8::kValueMask + 1)
    return makeError(-EINVAL, "lpm4: max_groups " + std::to_string(config.max_groups) +
                                  " out of range 1.." +
                                  std::to_string(Lpm4Dir24_8::kValueMask + 1));
  small_max_rules = std::min(small_max_rules, config.max_rules);
  auto trie = Lpm4Trie::create(LpmConfig{config.max_rules, trieNodes(small_max_rules)});
  if (!trie.ok()) return trie.error();
  return std::unique_ptr<Lpm4Adaptive>(
      new Lpm4Adaptive(config, small_max_rules, std::move(trie).value()));
}

Status Lpm4Adaptive::toLarge(size_t reserve_rules) {
  auto created = Lpm4Dir24_8::create(config_);
  if (!created.ok()) return created.error();
  std::unique_ptr<Lpm4Dir24_8> dir = std::move(created).value();
  dir->reserve(std::max(reserve_rules, trie_->stats().rules));
  Status st;
  trie_->forEachRule([&](uint32_t ip, uint8_t depth, uint32_t nh) {
    if (st.ok()) st = dir->add(ip, depth, nh);
  });
  if (!st.ok()) return st;  // not expected: same rule and group limits
  __atomic_store_n(&large_, dir.get(), __ATOMIC_RELEASE);
  large_owner_ = std::move(dir);
  trie_stale_ = true;
  long24_ = {};
  groups_retired_ = 0;
  return {};
}

bool Lpm4Adaptive::toSmall() {
  bool ok = true;
  large_owner_->forEachRule([&](uint32_t ip, uint8_t depth, uint32_t nh) {
    if (ok) ok = trie_->add(ip, depth, nh).ok();
    if (ok && depth > 24) ++long24_[ip >> 8];
  });
  if (!ok) {  // never published: nothing can be reading it
    trie_->clear();
    long24_ = {};
    return false;
  }
  groups_retired_ = 0;
  __atomic_store_n(&large_, static_cast<const Lpm4Dir24_8*>(nullptr), __ATOMIC_RELEASE);
  retired_large_.push_back(std::move(large_owner_));
  return true;
}

Status Lpm4Adaptive::add(uint32_t ip, uint8_t depth, uint32_t next_hop) {
  if (large_owner_) return large_owner_->add(ip, depth, next_hop);
  if (auto st = Errors::checkAdd(kWho, depth, next_hop, kMaxNextHop); !st.ok()) return st;
  ip = Lpm4Prefix::masked(ip, depth);
  const bool fresh = !trie_->find(ip, depth).has_value();
  if (fresh) {
    const size_t rules = trie_->stats().rules;
    if (rules >= config_.max_rules) return Errors::tableFull(kWho, ip, depth, config_.max_rules);
    if (depth > 24 && !long24_.count(ip >> 8) && groupsFree() == 0)
      return makeError(-ENOSPC, "lpm4: cannot add " + Lpm4Prefix::text(ip, depth) + ": all " +
                                    std::to_string(config_.max_groups) +
                                    " tbl8 groups in use; raise max_groups");
    if (rules >= small_max_rules_ || trie_->nodesNeeded(ip, depth) > trie_->nodesFree()) {
      if (auto st = toLarge(rules + 1); !st.ok()) return st;
      return large_owner_->add(ip, depth, next_hop);
    }
  }
  if (auto st = trie_->add(ip, depth, next_hop); !st.ok()) return st;
  if (fresh && depth > 24) ++long24_[ip >> 8];
  return {};
}

Status Lpm4Adaptive::remove(uint32_t ip, uint8_t depth) {
  if (large_owner_) return large_owner_->remove(ip, depth);
  if (auto st = Errors::checkDepth(kWho, depth); !st.ok()) return st;
  ip = Lpm4Prefix::masked(ip, depth);
  if (!trie_->find(ip, depth)) return Errors::noSuchRule(kWho, ip, depth);
  if (auto st = trie_->remove(ip, depth); !st.ok()) return st;
  if (depth > 24) {
    auto it = long24_.find(ip >> 8);
    if (it != long24_.end() && --it->second == 0) {
      long24_.erase(it);
      ++groups_retired_;  // DIR-24-8 folds the group back and retires it
    }
  }
  return {};
}

std::optional<uint32_t> Lpm4Adaptive::find(uint32_t ip, uint8_t depth) const {
  return large_owner_ ? large_owner_->find(ip, depth) : trie_->find(ip, depth);
}

void Lpm4Adaptive::forEachRule(const std::function<void(uint32_t, uint8_t, uint32_t)>& fn) const {
  if (large_owner_)
    large_owner_->forEachRule(fn);
  else
    trie_->forEachRule(fn);
}

void Lpm4Adaptive::releaseRetired() {
  // An epoch passed since these were unpublished: nothing reads them any more.
  retired_large_.clear();
  if (trie_stale_) {
    trie_->clear();
    trie_stale_ = false;
  }
  if (large_owner_) {
    large_owner_->releaseRetired();
    if (large_owner_->stats().rules < small_max_rules_ / 2) toSmall();
  } else {
    trie_->releaseRetired();
    groups_retired_ = 0;
  }
}

uint32_t Lpm4Adaptive::groupsNeeded(
    const std::vector<std::pair<uint32_t, uint8_t>>& prefixes) const {
  if (large_owner_) return large_owner_->groupsNeeded(prefixes);
  std::unordered_set<uint32_t> fresh;
  for (const auto& [ip, depth] : prefixes)
    if (depth > 24 && depth <= 32 && !long24_.count(ip >> 8)) fresh.insert(ip >> 8);
  return static_cast<uint32_t>(fresh.size());
}

LpmStats Lpm4Adaptive::stats() const {
  LpmStats s;
  if (large_owner_) {
    s = large_owner_->stats();
  } else {
    s.rules = trie_->stats().rules;
    s.groups_used = static_cast<uint32_t>(long24_.size());
    s.groups_retired = groups_retired_;
    s.groups_free = groupsFree();
  }
  s.memory_bytes += trie_->stats().memory_bytes;
  for (const auto& r : retired_large_) s.memory_bytes += r->stats().memory_bytes;
  return s;
}

size_t Lpm4Adaptive::touchedBytes() const {
  size_t n = trie_->touchedBytes();
  if (large_owner_) n += large_owner_->stats().memory_bytes;
  return n;
}

void Lpm4Adaptive::reserve(size_t rules) {
  if (!large_owner_ && rules > small_max_rules_ && toLarge(rules).ok()) return;
  if (large_owner_)
    large_owner_->reserve(rules);
  else
    trie_->reserve(rules);
}

}  // namespace fastpath
