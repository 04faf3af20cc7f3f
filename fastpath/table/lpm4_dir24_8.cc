// SPDX-License-Identifier: GPL-2.0-only
// IPv4 DIR-24-8. The update algorithms follow DPDK's rte_lpm (add_depth_small/big,
// delete_depth_small/big, tbl8 recycling) with one difference that matters for lock-free
// readers here: a tbl8 group is never reused before the owner's epoch synchronize().
#include <cerrno>
#include <string>
#include <unordered_map>
#include <utility>

#include "table/lpm4_dir24_8.h"
#include "table/lpm_memory.h"

namespace fastpath {

namespace {

constexpr uint32_t kTbl24Entries = 1u << 24;
constexpr uint32_t kGroupEntries = 256;

constexpr const char* kWho = "lpm4";
using Errors = LpmErrors<Lpm4Prefix>;

inline void store(uint32_t* slot, uint32_t v) { __atomic_store_n(slot, v, __ATOMIC_RELEASE); }

}  // namespace

Lpm4Dir24_8::Lpm4Dir24_8(const LpmConfig& config) : config_(config) {}

Lpm4Dir24_8::~Lpm4Dir24_8() {
  detail::unmapTable(tbl24_, tbl24_bytes_);
  detail::unmapTable(tbl8_, tbl8_bytes_);
}

Result<std::unique_ptr<Lpm4Dir24_8>> Lpm4Dir24_8::create(const LpmConfig& config) {
  if (config.max_groups == 0 || config.max_groups > kValueMask + 1)
    return makeError(-EINVAL, "lpm4: max_groups " + std::to_string(config.max_groups) +
                                  " out of range 1.." + std::to_string(kValueMask + 1));
  std::unique_ptr<Lpm4Dir24_8> t(new Lpm4Dir24_8(config));
  t->tbl24_bytes_ = size_t{kTbl24Entries} * sizeof(uint32_t);
  t->tbl8_bytes_ = size_t{config.max_groups} * kGroupEntries * sizeof(uint32_t);
  t->tbl24_ = static_cast<uint32_t*>(detail::mapTable(t->tbl24_bytes_));
  t->tbl8_ = static_cast<uint32_t*>(detail::mapTable(t->tbl8_bytes_));
  if (!t->tbl24_ || !t->tbl8_)
    return makeError(
        -ENOMEM, "lpm4: cannot map " + std::to_string((t->tbl24_bytes_ + t->tbl8_bytes_) >> 20) +
                     " MiB for the tables; lower max_groups or raise the memory limit");
  t->groups_.reset(config.max_groups);
  t->rules_.reserve(std::min<size_t>(config.max_rules, 1u << 16));
  return t;
}

void Lpm4Dir24_8::releaseRetired() { groups_.releaseRetired(); }

// depth <= 24: expand over 2^(24-depth) tbl24 entries; inside existing groups, overwrite
// only entries that belong to shorter (or equal) prefixes.
void Lpm4Dir24_8::addSmall(uint32_t ip, uint8_t depth, uint32_t entry) {
  const uint32_t first = ip >> 8;
  const uint32_t last = first + (1u << (24 - depth));
  for (uint32_t i = first; i < last; ++i) {
    const uint32_t e = tbl24_[i];
    if (!(e & kExt)) {
      if (yieldsTo(e, depth)) store(&tbl24_[i], entry);
      continue;
    }
    uint32_t* grp = tbl8_ + size_t{e & kValueMask} * kGroupEntries;
    for (uint32_t j = 0; j < kGroupEntries; ++j) {
      const uint32_t g = grp[j];
      if (yieldsTo(g, depth)) store(&grp[j], entry);
    }
  }
}

// depth > 24: one tbl24 entry; create its group from the current entry if needed (filled
// completely before the tbl24 entry points to it, so readers never see a half group).
bool Lpm4Dir24_8::addBig(uint32_t ip, uint8_t depth, uint32_t entry) {
  const uint32_t i = ip >> 8;
  const uint32_t e = tbl24_[i];
  uint32_t group;
  if (e & kExt) {
    group = e & kValueMask;
  } else {
    auto g = groups_.alloc();
    if (!g) return false;
    group = *g;
    uint32_t* grp = tbl8_ + size_t{group} * kGroupEntries;
    for (uint32_t j = 0; j < kGroupEntries; ++j) store(&grp[j], e);  // inherit (or invalid)
  }
  uint32_t* grp = tbl8_ + size_t{group} * kGroupEntries;
  const uint32_t first = ip & 0xff;
  const uint32_t last = first + (1u << (32 - depth));
  for (uint32_t j = first; j < last; ++j) {
    const uint32_t g = grp[j];
    if (yieldsTo(g, depth)) store(&grp[j], entry);
  }
  if (!(e & kExt)) store(&tbl24_[i], kValid | kExt | group);
  return true;
}

Status Lpm4Dir24_8::add(uint32_t ip, uint8_t depth, uint32_t next_hop) {
  if (auto st = Errors::checkAdd(kWho, depth, next_hop, kMaxNextHop); !st.ok()) return st;
  ip = Lpm4Prefix::masked(ip, depth);
  uint32_t* existing = rules_.find(ip, depth);
  if (!existing) {
    if (rules_.size() >= config_.max_rules)
      return Errors::tableFull(kWho, ip, depth, config_.max_rules);
    if (depth > 24 && !(tbl24_[ip >> 8] & kExt) && groups_.freeCount() == 0)
      return makeError(-ENOSPC, "lpm4: cannot add " + Lpm4Prefix::text(ip, depth) + ": all " +
                                    std::to_string(config_.max_groups) +
                                    " tbl8 groups in use; raise max_groups");
  }
  const uint32_t entry = leaf(depth, next_hop);
  if (depth <= 24) {
    addSmall(ip, depth, entry);
  } else if (!addBig(ip, depth, entry)) {
    return makeError(-ENOSPC,
                     "lpm4: cannot add " + Lpm4Prefix::text(ip, depth) + ": tbl8 groups exhausted");
  }
  if (existing)
    *existing = next_hop;
  else
    rules_.insert(ip, depth, next_hop);
  return {};
}

// Entries owned by the removed rule have exactly its depth (a longer rule would have
// overwritten them, a shorter one could not); they get the covering rule or nothing.
void Lpm4Dir24_8::removeSmall(uint32_t ip, uint8_t depth, uint32_t replacement) {
  const uint32_t first = ip >> 8;
  const uint32_t last = first + (1u << (24 - depth));
  for (uint32_t i = first; i < last; ++i) {
    const uint32_t e = tbl24_[i];
    if (!(e & kExt)) {
      if (ownedBy(e, depth)) store(&tbl24_[i], replacement);
      continue;
    }
    uint32_t* grp = tbl8_ + size_t{e & kValueMask} * kGroupEntries;
    for (uint32_t j = 0; j < kGroupEntries; ++j)
      if (ownedBy(grp[j], depth)) store(&grp[j], replacement);
  }
}

void Lpm4Dir24_8::removeBig(uint32_t ip, uint8_t depth, uint32_t replacement) {
  const uint32_t i = ip >> 8;
  const uint32_t e = tbl24_[i];
  if (!(e & kExt)) return;  // cannot happen while the rule exists
  const uint32_t group = e & kValueMask;
  uint32_t* grp = tbl8_ + size_t{group} * kGroupEntries;
  const uint32_t first = ip & 0xff;
  const uint32_t last = first + (1u << (32 - depth));
  for (uint32_t j = first; j < last; ++j)
    if (ownedBy(grp[j], depth)) store(&grp[j], replacement);

  // Recycle (rte_lpm tbl8_recycle_check): a group whose 256 entries are all invalid, or all
  // the same rule of depth <= 24, is folded back into its tbl24 entry and retired.
  if (auto folded = uniformLeaf(grp, 24)) {
    store(&tbl24_[i], *folded);
    groups_.retire(group);
  }
}

Status Lpm4Dir24_8::remove(uint32_t ip, uint8_t depth) {
  if (auto st = Errors::checkDepth(kWho, depth); !st.ok()) return st;
  ip = Lpm4Prefix::masked(ip, depth);
  if (!rules_.erase(ip, depth)) return Errors::noSuchRule(kWho, ip, depth);
  const uint32_t replacement = coverLeaf(rules_.covering(ip, depth));
  if (depth <= 24)
    removeSmall(ip, depth, replacement);
  else
    removeBig(ip, depth, replacement);
  return {};
}

std::optional<uint32_t> Lpm4Dir24_8::find(uint32_t ip, uint8_t depth) const {
  if (depth > 32) return std::nullopt;
  return rules_.find(Lpm4Prefix::masked(ip, depth), depth);
}

void Lpm4Dir24_8::forEachRule(const std::function<void(uint32_t, uint8_t, uint32_t)>& fn) const {
  rules_.forEach(fn);
}

uint32_t Lpm4Dir24_8::groupsNeeded(
    const std::vector<std::pair<uint32_t, uint8_t>>& prefixes) const {
  // Each distinct /24 that gets a longer prefix and has no group yet needs one.
  std::unordered_map<uint32_t, bool> seen;
  uint32_t n = 0;
  for (const auto& [ip, depth] : prefixes) {
    if (depth <= 24) continue;
    const uint32_t i = ip >> 8;
    if (tbl24_[i] & kExt) continue;
    if (seen.emplace(i, true).second) ++n;
  }
  return n;
}

LpmStats Lpm4Dir24_8::stats() const {
  LpmStats s;
  s.rules = rules_.size();
  s.groups_used = groups_.used();
  s.groups_free = groups_.freeCount();
  s.groups_retired = groups_.retiredCount();
  s.memory_bytes = tbl24_bytes_ + tbl8_bytes_;
  return s;
}

void Lpm4Dir24_8::lookupBulk(const uint32_t* ips, uint32_t* nhs, size_t n) const noexcept {
  constexpr size_t kAhead = 16;  // ~ memory latency / per-lookup time, measured
  for (size_t i = 0; i < n && i < kAhead; ++i) __builtin_prefetch(&tbl24_[ips[i] >> 8]);
  for (size_t i = 0; i < n; ++i) {
    if (i + kAhead < n) __builtin_prefetch(&tbl24_[ips[i + kAhead] >> 8]);
    nhs[i] = lookup(ips[i]);
  }
}

}  // namespace fastpath
