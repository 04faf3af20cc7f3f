// SPDX-License-Identifier: GPL-2.0-only
// IPv4 multibit trie, strides 16-8-8: level 0 is the 2^16-entry root (bits 0-15), levels 1
// and 2 are 256-entry nodes (bits 16-23, 24-31). The update rules are Lpm6Trie's (and
// DIR-24-8's at every level): an add overwrites the leaves owned by shorter or equal
// prefixes in its range, descending into linked nodes; a remove hands the leaves it owned to
// the covering rule; a node whose 256 leaves are one rule short enough for its parent is
// folded back and retired (reused after an epoch). A new node is filled completely before
// the entry linking it is stored, so lookups never see half a node.
//
// The default route (/0) is not expanded: it is one word beside the table, and an invalid
// leaf means "the default route, if any". So a /0 costs nothing, and a longer prefix's
// removal leaves invalid leaves where the /0 covers it.
#include <algorithm>
#include <cerrno>
#include <string>

#include "table/lpm4_trie.h"
#include "table/lpm_memory.h"

namespace fastpath {

namespace {

constexpr uint32_t kRootEntries = 1u << 16;
constexpr uint32_t kNodeEntries = 256;
constexpr size_t kNodeBytes = kNodeEntries * sizeof(uint32_t);
constexpr size_t kRootBytes = kRootEntries * sizeof(uint32_t);
constexpr unsigned kPageShift = 10;  // root entries per 4 KiB page: 1024
constexpr size_t kPageBytes = 4096;

constexpr const char* kWho = "lpm4 trie";
using Errors = LpmErrors<Lpm4Prefix>;

inline int levelEnd(int level) { return 16 + 8 * level; }
inline uint32_t levelIndex(uint32_t ip, int level) {
  return level == 0 ? ip >> 16 : (ip >> (32 - levelEnd(level))) & 0xff;
}

}  // namespace

Lpm4Trie::Lpm4Trie(const LpmConfig& config) : config_(config) {}

Lpm4Trie::~Lpm4Trie() { detail::unmapTable(root_, map_bytes_); }

Result<std::unique_ptr<Lpm4Trie>> Lpm4Trie::create(const LpmConfig& config) {
  if (config.max_groups > kValueMask + 1)
    return makeError(-EINVAL, "lpm4 trie: max_groups " + std::to_string(config.max_groups) +
                                  " out of range 0.." + std::to_string(kValueMask + 1));
  std::unique_ptr<Lpm4Trie> t(new Lpm4Trie(config));
  // One slack node: the branch-free bulk lookup reads node 0 for leaves met early.
  t->map_bytes_ = kRootBytes + (size_t{config.max_groups} + 1) * kNodeBytes;
  // Small pages: a few written entries must not back a 2 MiB page each.
  t->root_ = static_cast<uint32_t*>(detail::mapTable(t->map_bytes_, /*huge_pages=*/false));
  if (!t->root_)
    return makeError(-ENOMEM, "lpm4 trie: cannot map " + std::to_string(t->map_bytes_ >> 20) +
                                  " MiB for the nodes; lower max_groups or raise the memory limit");
  t->nodes_ = t->root_ + kRootEntries;
  t->pool_.reset(config.max_groups);
  return t;
}

void Lpm4Trie::releaseRetired() { pool_.releaseRetired(); }

void Lpm4Trie::clear() {
  for (unsigned p = 0; p < 64; ++p)
    if (root_pages_ & (uint64_t{1} << p))
      detail::discardTable(reinterpret_cast<uint8_t*>(root_) + p * kPageBytes, kPageBytes);
  detail::discardTable(nodes_, size_t{pool_.highWater()} * kNodeBytes);
  root_pages_ = 0;
  pool_.reset(config_.max_groups);
  default_ = kLpmNoRoute;
  rules_.clear();
}

size_t Lpm4Trie::touchedBytes() const {
  return static_cast<size_t>(__builtin_popcountll(root_pages_)) * kPageBytes +
         size_t{pool_.highWater()} * kNodeBytes;
}

void Lpm4Trie::store(int level, uint32_t* slot, uint32_t v) {
  __atomic_store_n(slot, v, __ATOMIC_RELEASE);
  if (level == 0) root_pages_ |= uint64_t{1} << ((slot - root_) >> kPageShift);
}

// Overwrites, in a whole node and its subtree, the leaves owned by rules of length <= depth.
void Lpm4Trie::fillNode(uint32_t node, uint8_t depth, uint32_t entry) {
  uint32_t* t = table(1, node);
  for (uint32_t j = 0; j < kNodeEntries; ++j) {
    const uint32_t e = t[j];
    if (e & kExt)
      fillNode(e & kValueMask, depth, entry);
    else if (yieldsTo(e, depth))
      store(1, &t[j], entry);
  }
}

void Lpm4Trie::addAt(int level, uint32_t node, uint32_t ip, uint8_t depth, uint32_t entry) {
  uint32_t* t = table(level, node);
  const int end = levelEnd(level);
  if (depth <= end) {
    const uint32_t count = 1u << (end - depth);
    const uint32_t first = levelIndex(ip, level) & ~(count - 1);
    for (uint32_t i = first; i < first + count; ++i) {
      const uint32_t e = t[i];
      if (e & kExt)
        fillNode(e & kValueMask, depth, entry);
      else if (yieldsTo(e, depth))
        store(level, &t[i], entry);
    }
    return;
  }
  const uint32_t i = levelIndex(ip, level);
  const uint32_t e = t[i];
  uint32_t child;
  if (e & kExt) {
    child = e & kValueMask;
  } else {
    child = *pool_.alloc();  // add() checked that the path's nodes are free
    uint32_t* c = table(1, child);
    for (uint32_t j = 0; j < kNodeEntries; ++j) store(1, &c[j], e);  // inherit the leaf
    store(level, &t[i], link(child));
  }
  addAt(level + 1, child, ip, depth, entry);
}

uint32_t Lpm4Trie::nodesNeeded(uint32_t ip, uint8_t depth) const {
  int level = 0;
  uint32_t node = 0;
  while (depth > levelEnd(level)) {
    const uint32_t e = table(level, node)[levelIndex(ip, level)];
    if (!(e & kExt)) break;
    node = e & kValueMask;
    ++level;
  }
  uint32_t need = 0;
  for (; depth > levelEnd(level); ++level) ++need;
  return need;
}

Status Lpm4Trie::add(uint32_t ip, uint8_t depth, uint32_t next_hop) {
  if (auto st = Errors::checkAdd(kWho, depth, next_hop, kMaxNextHop); !st.ok()) return st;
  ip = Lpm4Prefix::masked(ip, depth);
  uint32_t* existing = rules_.find(ip, depth);
  if (!existing && rules_.size() >= config_.max_rules)
    return Errors::tableFull(kWho, ip, depth, config_.max_rules);
  if (const uint32_t need = nodesNeeded(ip, depth); need > pool_.freeCount())
    return makeError(-ENOSPC, "lpm4 trie: cannot add " + Lpm4Prefix::text(ip, depth) + ": needs " +
                                  std::to_string(need) + " nodes, " +
                                  std::to_string(pool_.freeCount()) + " free of " +
                                  std::to_string(config_.max_groups) + "; raise max_groups");
  if (depth == 0)
    __atomic_store_n(&default_, next_hop, __ATOMIC_RELEASE);
  else
    addAt(0, 0, ip, depth, leaf(depth, next_hop));
  if (existing)
    *existing = next_hop;
  else
    rules_.insert(ip, depth, next_hop);
  return {};
}

std::optional<uint32_t> Lpm4Trie::collapsible(uint32_t node, int level) const {
  return uniformLeaf(table(level, node), levelEnd(level - 1));
}

// Hands the leaves of the rule of length `own` in [first, first + count) of a level's table
// (and the subtrees below) to `replacement`, folding back every child that became one short
// leaf.
void Lpm4Trie::sweep(int level, uint32_t node, uint32_t first, uint32_t count, uint8_t own,
                     uint32_t replacement) {
  uint32_t* t = table(level, node);
  for (uint32_t i = first; i < first + count; ++i) {
    const uint32_t e = t[i];
    if (e & kExt) {
      const uint32_t child = e & kValueMask;
      sweep(level + 1, child, 0, kNodeEntries, own, replacement);
      if (auto v = collapsible(child, level + 1)) {
        store(level, &t[i], *v);
        pool_.retire(child);  // only leaf-only nodes are folded: no subtree
      }
    } else if (ownedBy(e, own)) {
      store(level, &t[i], replacement);
    }
  }
}

void Lpm4Trie::removeAt(int level, uint32_t node, uint32_t ip, uint8_t depth,
                        uint32_t replacement) {
  uint32_t* t = table(level, node);
  const int end = levelEnd(level);
  if (depth <= end) {
    const uint32_t count = 1u << (end - depth);
    sweep(level, node, levelIndex(ip, level) & ~(count - 1), count, depth, replacement);
    return;
  }
  const uint32_t i = levelIndex(ip, level);
  const uint32_t e = t[i];
  if (!(e & kExt)) return;  // cannot happen while the rule exists
  const uint32_t child = e & kValueMask;
  removeAt(level + 1, child, ip, depth, replacement);
  if (auto v = collapsible(child, level + 1)) {
    store(level, &t[i], *v);
    pool_.retire(child);
  }
}

Status Lpm4Trie::remove(uint32_t ip, uint8_t depth) {
  if (auto st = Errors::checkDepth(kWho, depth); !st.ok()) return st;
  ip = Lpm4Prefix::masked(ip, depth);
  if (!rules_.erase(ip, depth)) return Errors::noSuchRule(kWho, ip, depth);
  if (depth == 0) {
    __atomic_store_n(&default_, kLpmNoRoute, __ATOMIC_RELEASE);
    return {};
  }
  // The default route is not in the table (its leaves are invalid ones): it covers nothing.
  removeAt(0, 0, ip, depth, coverLeaf(rules_.covering(ip, depth, /*min_depth=*/1)));
  return {};
}

std::optional<uint32_t> Lpm4Trie::find(uint32_t ip, uint8_t depth) const {
  if (depth > 32) return std::nullopt;
  return rules_.find(Lpm4Prefix::masked(ip, depth), depth);
}

void Lpm4Trie::forEachRule(const std::function<void(uint32_t, uint8_t, uint32_t)>& fn) const {
  rules_.forEach(fn);
}

LpmStats Lpm4Trie::stats() const {
  LpmStats s;
  s.rules = rules_.size();
  s.groups_used = pool_.used();
  s.groups_free = pool_.freeCount();
  s.groups_retired = pool_.retiredCount();
  s.memory_bytes = map_bytes_;
  return s;
}

// Branch-free within a block: every lookup of the block takes the same levels, a leaf met
// early reads a harmless entry (node 0's first, mapped even when no node exists) and keeps
// its value, so the lookups carry no mispredicted branch and overlap in the out-of-order
// window (a small table's nodes are in L1/L2: the reads, not their latency, bound the
// rate). The last level is skipped for a block none of whose lookups needs it (prefixes
// longer than /24 are rare).
void Lpm4Trie::lookupBulk(const uint32_t* ips, uint32_t* nhs, size_t n) const noexcept {
  constexpr size_t kBlock = 16;
  const uint32_t* const root = root_;
  const uint32_t* const nodes = nodes_;
  const uint32_t dflt = __atomic_load_n(&default_, __ATOMIC_ACQUIRE);
  auto step = [nodes](uint32_t e, uint32_t ip, unsigned shift) {
    const uint32_t ext = 0u - ((e >> 30) & 1u);  // all ones when e links a node
    const uint32_t at = (((e & kValueMask) << 8) | ((ip >> shift) & 0xff)) & ext;
    const uint32_t next = __atomic_load_n(&nodes[at], __ATOMIC_RELAXED);
    return e ^ ((e ^ next) & ext);
  };
  for (size_t base = 0; base < n; base += kBlock) {
    const size_t m = std::min(kBlock, n - base);
    const uint32_t* ip = ips + base;
    uint32_t e[kBlock];
    uint32_t any = 0;
    for (size_t i = 0; i < m; ++i) {
      e[i] = step(__atomic_load_n(&root[ip[i] >> 16], __ATOMIC_ACQUIRE), ip[i], 8);
      any |= e[i];
    }
    if (any & kExt)
      for (size_t i = 0; i < m; ++i) e[i] = step(e[i], ip[i], 0);
    for (size_t i = 0; i < m; ++i) {
      const uint32_t valid = 0u - (e[i] >> 31);
      nhs[base + i] = (e[i] & kValueMask & valid) | (dflt & ~valid);
    }
  }
}

}  // namespace fastpath
