// SPDX-License-Identifier: GPL-2.0-only
// IPv6 multibit trie: level 0 is a 2^24-entry table (bits 0..23), level k >= 1 a 256-entry
// group for bits 24+8(k-1) .. 24+8k-1. Each entry is either a leaf (valid, depth of the
// rule that owns it, next hop) or a link to a group one level down. Updates use the same
// rules as DIR-24-8 at every level: an add overwrites leaves owned by shorter or equal
// prefixes in its range (descending into linked groups); a remove hands the leaves it
// owned to the covering rule; a group whose 256 leaves are all the same rule, short
// enough to be stored one level up, is folded back and retired (reused after an epoch).
// The default route is not expanded: a leaf it would own stays invalid and lookups answer
// default_ there, so the covering rule of a removed prefix is never ::/0 (its replacement
// is the invalid leaf).
#include <algorithm>
#include <cerrno>
#include <set>
#include <string>

#include "table/lpm6_trie.h"
#include "table/lpm_memory.h"

namespace fastpath {

namespace {

constexpr uint32_t kTbl24Entries = 1u << 24;
constexpr uint32_t kGroupEntries = 256;
constexpr int kMaxLevel = 13;  // 24 + 13 * 8 = 128

inline void store(uint32_t* slot, uint32_t v) { __atomic_store_n(slot, v, __ATOMIC_RELEASE); }
inline int levelEnd(int level) { return 24 + 8 * level; }
inline uint32_t levelIndex(const uint8_t* ip, int level) {
  return level == 0 ? (uint32_t{ip[0]} << 16) | (uint32_t{ip[1]} << 8) | ip[2] : ip[2 + level];
}

constexpr const char* kWho = "lpm6";
using Errors = LpmErrors<Lpm6Prefix>;

}  // namespace

Lpm6Trie::Lpm6Trie(const LpmConfig& config) : config_(config) {}

Lpm6Trie::~Lpm6Trie() {
  detail::unmapTable(tbl24_, tbl24_bytes_);
  detail::unmapTable(groups_, groups_bytes_);
}

Result<std::unique_ptr<Lpm6Trie>> Lpm6Trie::create(const LpmConfig& config) {
  if (config.max_groups == 0 || config.max_groups > kValueMask + 1)
    return makeError(-EINVAL, "lpm6: max_groups " + std::to_string(config.max_groups) +
                                  " out of range 1.." + std::to_string(kValueMask + 1));
  std::unique_ptr<Lpm6Trie> t(new Lpm6Trie(config));
  t->tbl24_bytes_ = size_t{kTbl24Entries} * sizeof(uint32_t);
  t->groups_bytes_ = size_t{config.max_groups} * kGroupEntries * sizeof(uint32_t);
  t->tbl24_ = static_cast<uint32_t*>(detail::mapTable(t->tbl24_bytes_, /*huge_pages=*/false));
  t->groups_ = static_cast<uint32_t*>(detail::mapTable(t->groups_bytes_, /*huge_pages=*/false));
  if (!t->tbl24_ || !t->groups_)
    return makeError(
        -ENOMEM, "lpm6: cannot map " + std::to_string((t->tbl24_bytes_ + t->groups_bytes_) >> 20) +
                     " MiB for the tables; lower max_groups or raise the memory limit");
  t->pool_.reset(config.max_groups);
  return t;
}

uint32_t* Lpm6Trie::table(int level, uint32_t group) const {
  return level == 0 ? tbl24_ : groups_ + size_t{group} * kGroupEntries;
}

void Lpm6Trie::releaseRetired() { pool_.releaseRetired(); }

// Overwrites, in a whole group and its subtree, the leaves owned by rules of length <= depth.
void Lpm6Trie::fillGroup(uint32_t group, uint8_t depth, uint32_t entry) {
  uint32_t* g = groups_ + size_t{group} * kGroupEntries;
  for (uint32_t j = 0; j < kGroupEntries; ++j) {
    const uint32_t e = g[j];
    if (e & kExt)
      fillGroup(e & kValueMask, depth, entry);
    else if (yieldsTo(e, depth))
      store(&g[j], entry);
  }
}

bool Lpm6Trie::addAt(uint32_t* tbl, int level, const Address& ip, uint8_t depth, uint32_t entry) {
  const int end = levelEnd(level);
  if (depth <= end) {
    const uint32_t count = 1u << (end - depth);
    const uint32_t first = levelIndex(ip.data(), level) & ~(count - 1);
    for (uint32_t i = first; i < first + count; ++i) {
      const uint32_t e = tbl[i];
      if (e & kExt)
        fillGroup(e & kValueMask, depth, entry);
      else if (yieldsTo(e, depth))
        store(&tbl[i], entry);
    }
    return true;
  }
  const uint32_t i = levelIndex(ip.data(), level);
  const uint32_t e = tbl[i];
  uint32_t group;
  if (e & kExt) {
    group = e & kValueMask;
  } else {
    auto g = pool_.alloc();
    if (!g) return false;  // add() checked capacity first, so this does not happen
    group = *g;
    uint32_t* child = table(level + 1, group);
    for (uint32_t j = 0; j < kGroupEntries; ++j) store(&child[j], e);  // inherit the leaf
    store(&tbl[i], link(group));
  }
  return addAt(table(level + 1, group), level + 1, ip, depth, entry);
}

Status Lpm6Trie::add(const uint8_t* ip_in, uint8_t depth, uint32_t next_hop) {
  if (auto st = Errors::checkAdd(kWho, depth, next_hop, kMaxNextHop); !st.ok()) return st;
  const Address ip = Lpm6Prefix::masked(ip_in, depth);
  uint32_t* existing = rules_.find(ip, depth);
  if (!existing && rules_.size() >= config_.max_rules)
    return Errors::tableFull(kWho, ip, depth, config_.max_rules);
  if (const uint32_t need = groupsNeeded({{ip, depth}}); need > pool_.freeCount())
    return makeError(-ENOSPC, "lpm6: cannot add " + Lpm6Prefix::text(ip, depth) + ": needs " +
                                  std::to_string(need) + " groups, " +
                                  std::to_string(pool_.freeCount()) + " free of " +
                                  std::to_string(config_.max_groups) + "; raise max_groups");
  if (depth == 0)
    __atomic_store_n(&default_, next_hop, __ATOMIC_RELEASE);
  else
    addAt(tbl24_, 0, ip, depth, leaf(depth, next_hop));
  if (existing)
    *existing = next_hop;
  else
    rules_.insert(ip, depth, next_hop);
  if (!huge_pages_ && rules_.size() >= kHugePagesFromRules) {
    detail::adviseHugePages(tbl24_, tbl24_bytes_);
    detail::adviseHugePages(groups_, groups_bytes_);
    huge_pages_ = true;
  }
  return {};
}

std::optional<uint32_t> Lpm6Trie::collapsible(uint32_t group, int level) const {
  return uniformLeaf(groups_ + size_t{group} * kGroupEntries, levelEnd(level - 1));
}

void Lpm6Trie::removeAt(uint32_t* tbl, int level, const Address& ip, uint8_t depth,
                        uint32_t replacement) {
  const int end = levelEnd(level);
  auto sweep = [&](auto& self, uint32_t* t, int lvl, uint32_t first, uint32_t count) -> void {
    for (uint32_t i = first; i < first + count; ++i) {
      const uint32_t e = t[i];
      if (e & kExt) {
        const uint32_t child = e & kValueMask;
        self(self, table(lvl + 1, child), lvl + 1, 0, kGroupEntries);
        if (auto v = collapsible(child, lvl + 1)) {
          store(&t[i], *v);
          pool_.retire(child);  // only leaf-only groups are folded: no subtree
        }
      } else if (ownedBy(e, depth)) {
        store(&t[i], replacement);
      }
    }
  };
  if (depth <= end) {
    const uint32_t count = 1u << (end - depth);
    const uint32_t first = levelIndex(ip.data(), level) & ~(count - 1);
    sweep(sweep, tbl, level, first, count);
    return;
  }
  const uint32_t i = levelIndex(ip.data(), level);
  const uint32_t e = tbl[i];
  if (!(e & kExt)) return;  // cannot happen while the rule exists
  const uint32_t child = e & kValueMask;
  removeAt(table(level + 1, child), level + 1, ip, depth, replacement);
  if (auto v = collapsible(child, level + 1)) {
    store(&tbl[i], *v);
    pool_.retire(child);  // only leaf-only groups are folded: no subtree
  }
}

Status Lpm6Trie::remove(const uint8_t* ip_in, uint8_t depth) {
  if (auto st = Errors::checkDepth(kWho, depth); !st.ok()) return st;
  const Address ip = Lpm6Prefix::masked(ip_in, depth);
  if (!rules_.erase(ip, depth)) return Errors::noSuchRule(kWho, ip, depth);
  if (depth == 0) {
    __atomic_store_n(&default_, kLpmNoRoute, __ATOMIC_RELEASE);
    return {};
  }
  // ::/0 is not in the table (its leaves are invalid ones): it covers nothing.
  removeAt(tbl24_, 0, ip, depth, coverLeaf(rules_.covering(ip, depth, /*min_depth=*/1)));
  return {};
}

std::optional<uint32_t> Lpm6Trie::find(const uint8_t* ip, uint8_t depth) const {
  if (depth > 128) return std::nullopt;
  return rules_.find(Lpm6Prefix::masked(ip, depth), depth);
}

void Lpm6Trie::forEachRule(const std::function<void(const Address&, uint8_t, uint32_t)>& fn) const {
  rules_.forEach(fn);
}

uint32_t Lpm6Trie::groupsNeeded(const std::vector<std::pair<Address, uint8_t>>& prefixes) const {
  // Follow existing links as far as they go; every level below that the prefix reaches
  // needs one new group per distinct path (shared by prefixes with the same leading bytes).
  std::set<std::pair<int, Address>> fresh;
  for (const auto& [ip, depth] : prefixes) {
    int level = 0;
    const uint32_t* tbl = tbl24_;
    while (depth > levelEnd(level)) {
      const uint32_t e = tbl[levelIndex(ip.data(), level)];
      if (!(e & kExt)) break;
      tbl = table(level + 1, e & kValueMask);
      ++level;
    }
    for (; depth > levelEnd(level) && level < kMaxLevel; ++level)
      fresh.emplace(level + 1,
                    Lpm6Prefix::masked(ip.data(), static_cast<unsigned>(levelEnd(level))));
  }
  return static_cast<uint32_t>(fresh.size());
}

void Lpm6Trie::lookupBulk(const uint8_t* const* ips, uint32_t* nhs, size_t n) const noexcept {
  constexpr size_t kChunk = 32;
  const uint32_t dflt = __atomic_load_n(&default_, __ATOMIC_ACQUIRE);
  for (size_t base = 0; base < n; base += kChunk) {
    const size_t m = std::min(kChunk, n - base);
    const uint8_t* const* ip = ips + base;
    uint32_t e[kChunk];
    const uint32_t* slot[kChunk];
    for (size_t i = 0; i < m; ++i) {
      slot[i] = &tbl24_[(uint32_t{ip[i][0]} << 16) | (uint32_t{ip[i][1]} << 8) | ip[i][2]];
      __builtin_prefetch(slot[i]);
    }
    uint32_t pending = 0;
    for (size_t i = 0; i < m; ++i) {
      e[i] = __atomic_load_n(slot[i], __ATOMIC_ACQUIRE);
      pending |= e[i] & kExt;
    }
    // Every level consumes one address byte, so all lookups still walking are at the
    // same byte.
    for (unsigned byte = 3; pending && byte < 16; ++byte) {
      for (size_t i = 0; i < m; ++i) {
        if (!(e[i] & kExt)) continue;
        slot[i] = &groups_[((e[i] & kValueMask) << 8) | ip[i][byte]];
        __builtin_prefetch(slot[i]);
      }
      pending = 0;
      for (size_t i = 0; i < m; ++i) {
        if (!(e[i] & kExt)) continue;
        e[i] = __atomic_load_n(slot[i], __ATOMIC_ACQUIRE);
        pending |= e[i] & kExt;
      }
    }
    for (size_t i = 0; i < m; ++i) nhs[base + i] = (e[i] & kValid) ? (e[i] & kValueMask) : dflt;
  }
}

LpmStats Lpm6Trie::stats() const {
  LpmStats s;
  s.rules = rules_.size();
  s.groups_used = pool_.used();
  s.groups_free = pool_.freeCount();
  s.groups_retired = pool_.retiredCount();
  s.memory_bytes = tbl24_bytes_ + groups_bytes_;
  return s;
}

}  // namespace fastpath
