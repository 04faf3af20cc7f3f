// SPDX-License-Identifier: GPL-2.0-only
// IPv4 DXR (D18R). Chunks are rebuilt from the DIR-24-8 store rather than from the rules:
// the DIR-24-8 already resolved every overlap, so a chunk is the run-length encoding of its
// 64 tbl24 entries (and of the 256 addresses of each /24 that holds longer prefixes).
#include <algorithm>
#include <cerrno>
#include <string>

#include "table/lpm4_dxr.h"
#include "table/lpm_memory.h"

namespace fastpath {

namespace {

constexpr uint32_t kChunks = 1u << Lpm4Dxr::kDirectBits;
constexpr uint32_t kMaxRanges = 255;  // count - 1 == 255 marks kFallback
// Heap units addressable by a direct entry (offset field), and the largest chunk.
constexpr uint32_t kHeapUnits = Lpm4Dxr::kOffsetMask + 1;
constexpr uint32_t kMaxChunkUnits = (kMaxRanges * 4 + Lpm4Dxr::kUnit - 1) / Lpm4Dxr::kUnit;
constexpr uint32_t kUnitsPerLine = 64 / Lpm4Dxr::kUnit;
// Never allocated: the vector compares of the last block may read up to 32 bytes past it.
constexpr uint32_t kSlackUnits = 64 / Lpm4Dxr::kUnit;

constexpr const char* kWho = "lpm4 dxr";
using Errors = LpmErrors<Lpm4Prefix>;
inline void store(uint32_t* slot, uint32_t v) { __atomic_store_n(slot, v, __ATOMIC_RELEASE); }

uint32_t blockBytes(uint32_t n, bool is_short) {
  return is_short ? ((n + 1) & ~1u) + 2 * n : 4 * n;
}

}  // namespace

Lpm4Dxr::Lpm4Dxr(std::unique_ptr<Lpm4Dir24_8> dir) : dir_(std::move(dir)) {}

Lpm4Dxr::~Lpm4Dxr() {
  detail::unmapTable(direct_, direct_bytes_);
  detail::unmapTable(heap_, heap_bytes_);
}

Result<std::unique_ptr<Lpm4Dxr>> Lpm4Dxr::create(const LpmConfig& config) {
  auto dir = Lpm4Dir24_8::create(config);
  if (!dir.ok()) return dir.error();
  std::unique_ptr<Lpm4Dxr> t(new Lpm4Dxr(std::move(dir).value()));
  t->direct_bytes_ = size_t{kChunks} * sizeof(uint32_t);
  t->heap_units_ = kHeapUnits - kSlackUnits;
  t->heap_bytes_ = size_t{kHeapUnits} * kUnit;
  t->direct_ = static_cast<uint32_t*>(detail::mapTable(t->direct_bytes_));
  t->heap_ = static_cast<uint8_t*>(detail::mapTable(t->heap_bytes_));
  if (!t->direct_ || !t->heap_)
    return makeError(-ENOMEM,
                     "lpm4 dxr: cannot map " +
                         std::to_string((t->direct_bytes_ + t->heap_bytes_) >> 20) +
                         " MiB for the direct table and range heap; raise the memory limit");
  std::fill(t->direct_, t->direct_ + kChunks, kLeafNoRoute);
  t->free_.resize(kMaxChunkUnits + 1);
  t->dirty_flag_.assign(kChunks, 0);
  t->long_per_chunk_.assign(kChunks, 0);
  return t;
}

// Before returning from add()/remove(), every chunk the change touches answers from the
// (already updated) DIR-24-8 table; its heap block may still be read, so it is retired.
void Lpm4Dxr::invalidate(uint32_t first_chunk, uint32_t last_chunk) {
  for (uint32_t c = first_chunk; c <= last_chunk; ++c) {
    const uint32_t e = direct_[c];
    if (e != kFallback) {
      store(&direct_[c], kFallback);
      if (e & kChunk) retired_.emplace_back(e & kOffsetMask, chunkUnits(e));
    }
    if (!dirty_flag_[c]) {
      dirty_flag_[c] = 1;
      dirty_.push_back(c);
    }
  }
}

Status Lpm4Dxr::add(uint32_t ip, uint8_t depth, uint32_t next_hop) {
  if (auto st = Errors::checkDepth(kWho, depth); !st.ok()) return st;
  ip = Lpm4Prefix::masked(ip, depth);
  const bool fresh = !dir_->find(ip, depth).has_value();
  if (auto st = dir_->add(ip, depth, next_hop); !st.ok()) return st;
  if (fresh && depth > 24) {
    ++long24_[ip >> 8];
    ++long_per_chunk_[ip >> kChunkBits];
  }
  const uint64_t span = uint64_t{1} << (32 - depth);
  invalidate(ip >> kChunkBits, static_cast<uint32_t>((ip + span - 1) >> kChunkBits));
  return {};
}

Status Lpm4Dxr::remove(uint32_t ip, uint8_t depth) {
  if (auto st = Errors::checkDepth(kWho, depth); !st.ok()) return st;
  ip = Lpm4Prefix::masked(ip, depth);
  if (auto st = dir_->remove(ip, depth); !st.ok()) return st;
  if (depth > 24) {
    auto it = long24_.find(ip >> 8);
    if (it != long24_.end() && --it->second == 0) long24_.erase(it);
    --long_per_chunk_[ip >> kChunkBits];
  }
  const uint64_t span = uint64_t{1} << (32 - depth);
  invalidate(ip >> kChunkBits, static_cast<uint32_t>((ip + span - 1) >> kChunkBits));
  return {};
}

uint32_t Lpm4Dxr::chunkUnits(uint32_t e) {
  const uint32_t n = ((e >> kCountShift) & 0xff) + 1;
  return (blockBytes(n, e & kShort) + kUnit - 1) / kUnit;
}

// Exact-size free lists; fresh blocks of up to a cache line never straddle one, larger
// ones start on a line (a lookup touches as few lines as the chunk needs).
std::optional<uint32_t> Lpm4Dxr::allocUnits(uint32_t units) {
  auto& fl = free_[units];
  if (!fl.empty()) {
    const uint32_t off = fl.back();
    fl.pop_back();
    return off;
  }
  uint32_t at = bump_;
  const uint32_t in_line = at % kUnitsPerLine;
  if (in_line != 0 && in_line + units > kUnitsPerLine) {
    const uint32_t gap = kUnitsPerLine - in_line;
    at += gap;
    if (at > heap_units_) return std::nullopt;
    free_[gap].push_back(bump_);  // the gap stays usable for small chunks
    bump_ = at;
  }
  if (uint64_t{at} + units > heap_units_) return std::nullopt;
  bump_ = at + units;
  return at;
}

void Lpm4Dxr::rebuild(uint32_t chunk) {
  auto& starts = scratch_starts_;
  auto& nhs = scratch_nhs_;
  starts.clear();
  nhs.clear();
  const uint32_t base = chunk << kChunkBits;
  auto push = [&](uint32_t addr) {
    const uint32_t v = dir_->lookup(addr);
    if (nhs.empty() || nhs.back() != v) {
      starts.push_back(addr - base);
      nhs.push_back(v);
    }
  };
  const bool any_long = long_per_chunk_[chunk] != 0;
  for (uint32_t j = 0; j < (1u << (kChunkBits - 8)); ++j) {
    const uint32_t a = base + (j << 8);
    if (any_long && long24_.count(a >> 8)) {
      for (uint32_t k = 0; k < 256; ++k) push(a + k);
    } else {
      push(a);
    }
  }
  const uint32_t n = static_cast<uint32_t>(nhs.size());
  if (n == 1) {
    store(&direct_[chunk], nhs[0] == kLpmNoRoute ? kLeafNoRoute : nhs[0]);
    return;
  }
  if (n > kMaxRanges) return;  // stays fallback
  bool is_short = true;
  for (uint32_t i = 0; i < n; ++i) {
    if (nhs[i] != kLpmNoRoute && nhs[i] > kMaxCompactNextHop) return;  // stays fallback
    if (starts[i] & 0xff) is_short = false;
  }
  const uint32_t units = (blockBytes(n, is_short) + kUnit - 1) / kUnit;
  const auto off = allocUnits(units);
  if (!off) return;  // heap full: stays fallback
  uint8_t* blk = heap_ + size_t{*off} * kUnit;
  uint16_t* nh_out;
  if (is_short) {
    for (uint32_t i = 0; i < n; ++i) blk[i] = static_cast<uint8_t>(starts[i] >> 8);
    if (n & 1) blk[n] = 0;
    nh_out = reinterpret_cast<uint16_t*>(blk + ((n + 1) & ~1u));
  } else {
    auto* s = reinterpret_cast<uint16_t*>(blk);
    for (uint32_t i = 0; i < n; ++i) s[i] = static_cast<uint16_t>(starts[i]);
    nh_out = s + n;
  }
  for (uint32_t i = 0; i < n; ++i)
    nh_out[i] = nhs[i] == kLpmNoRoute ? kNoRoute16 : static_cast<uint16_t>(nhs[i]);
  // The block is complete before the release store links it.
  store(&direct_[chunk], kChunk | (is_short ? kShort : 0) | ((n - 1) << kCountShift) | *off);
}

void Lpm4Dxr::releaseRetired() {
  dir_->releaseRetired();
  for (const auto& [off, units] : retired_) free_[units].push_back(off);
  retired_.clear();
  setCompactMinRules(compact_min_rules_);
}

// While the DIR-24-8 answers, changed chunks only wait in fallback: a small table's
// updates cost what DIR-24-8's cost. They are built when the compact structure takes over
// (once, bounded by the number of chunks) and from then on after every change.
void Lpm4Dxr::setCompactMinRules(uint32_t rules) {
  compact_min_rules_ = rules;
  const uint32_t on = dir_->stats().rules >= rules ? 1 : 0;
  if (on) {
    for (uint32_t c : dirty_) {
      dirty_flag_[c] = 0;
      rebuild(c);
    }
    dirty_.clear();
  }
  if (on != compact_) __atomic_store_n(&compact_, on, __ATOMIC_RELAXED);
}

uint32_t Lpm4Dxr::resolveWide(uint32_t e, uint32_t ip) const noexcept {
  if (e == kFallback) return dir_->lookup(ip);
  const uint8_t* blk = heap_ + size_t{e & kOffsetMask} * kUnit;
  const uint32_t n = ((e >> kCountShift) & 0xff) + 1;
  if (e & kShort) {
    const uint32_t idx = search(blk, n, (ip >> 8) & ((1u << (kChunkBits - 8)) - 1));
    return nextHop(blk + ((n + 1) & ~1u) + 2 * idx);
  }
  const uint32_t idx =
      search(reinterpret_cast<const uint16_t*>(blk), n, ip & ((1u << kChunkBits) - 1));
  return nextHop(blk + 2 * n + 2 * idx);
}

LpmStats Lpm4Dxr::stats() const {
  LpmStats s = dir_->stats();
  s.memory_bytes += direct_bytes_ + heap_bytes_;
  return s;
}

Lpm4Dxr::DxrStats Lpm4Dxr::dxrStats() const {
  DxrStats s;
  for (uint32_t c = 0; c < kChunks; ++c) {
    const uint32_t e = direct_[c];
    if (dirty_flag_[c]) ++s.pending_chunks;
    if (e == kFallback) {
      if (!dirty_flag_[c]) ++s.fallback_chunks;
    } else if (!(e & kChunk)) {
      ++s.leaf_chunks;
    } else {
      ++(e & kShort ? s.short_chunks : s.long_chunks);
      s.ranges += ((e >> kCountShift) & 0xff) + 1;
    }
  }
  s.heap_bytes_used = size_t{bump_} * kUnit;
  s.hot_bytes = direct_bytes_ + s.heap_bytes_used;
  return s;
}

// Software pipeline, two memory latencies in flight: the direct entry of lookup
// i + 2*kAhead is prefetched, the direct entry of i + kAhead is read and its chunk
// prefetched, and lookup i is searched (its chunk is in L1 by then). The chunk prefetch is
// branch-free.
void Lpm4Dxr::lookupBulk(const uint32_t* ips, uint32_t* nhs, size_t n) const noexcept {
  if (!compactActive()) return dir_->lookupBulk(ips, nhs, n);
  constexpr size_t kAhead = 12;  // measured: 6 < 8 < 12 (interleaved runs, 1M prefixes)
  constexpr size_t kRing = 16;   // power of two > kAhead
  const uint32_t* const direct = direct_;
  const uint8_t* const heap = heap_;
  uint32_t ent[kRing];
  auto stage = [&](size_t i) {
    const uint32_t e = __atomic_load_n(&direct[ips[i] >> kChunkBits], __ATOMIC_ACQUIRE);
    ent[i % kRing] = e;
    // Leaves prefetch the heap's first line: no branch, no page walk to an untouched page.
    const size_t off = (e & kChunk) ? size_t{e & kOffsetMask} * kUnit : 0;
    __builtin_prefetch(heap + off);
    __builtin_prefetch(heap + off + ((((e >> kCountShift) & 0xff) >= 16) ? 64 : 0));
  };
  for (size_t i = 0; i < n && i < 2 * kAhead; ++i)
    __builtin_prefetch(&direct[ips[i] >> kChunkBits]);
  for (size_t i = 0; i < n && i < kAhead; ++i) stage(i);
  for (size_t i = 0; i < n; ++i) {
    if (i + 2 * kAhead < n) __builtin_prefetch(&direct[ips[i + 2 * kAhead] >> kChunkBits]);
    if (i + kAhead < n) stage(i + kAhead);
    const uint32_t e = ent[i % kRing];
    nhs[i] = (e & kChunk) ? resolve(e, ips[i]) : (e == kLeafNoRoute ? kLpmNoRoute : e);
  }
}

}  // namespace fastpath
