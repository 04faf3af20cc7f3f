// SPDX-License-Identifier: GPL-2.0-only
// IPv4 longest-prefix match, DXR D18R (Zec & Mikuc, "DXR: towards a billion routing
// lookups per second in software", 2012): a 2^18-entry direct table (1 MiB) indexed by the
// top 18 address bits whose entry is either a next hop or a reference to a chunk of the
// range heap: the sorted start addresses of the chunk's 2^14-address span where the next
// hop changes, and the next hop of each range. A lookup is one L2-resident read plus an
// SSE2 compare of one (usually single cache line) chunk, so the hot working set of a
// 1M-prefix table is ~7 MiB instead of DIR-24-8's 64 MiB. Fast in bulk (lookupBulk()
// pipelines the two reads); a single lookup is not faster than DIR-24-8's.
//
// The source of truth is a DIR-24-8 table kept next to it (Lpm4Dir24_8: rule store,
// capacity limits, tbl8 groups). add()/remove() update it and switch the affected direct
// entries to "fallback" (lookups of those chunks go to the DIR-24-8 table, correct at once);
// the compact chunks are rebuilt from it in releaseRetired(), which the owner calls after
// an epoch synchronize() anyway. Chunks that cannot be encoded (a next hop > kMaxCompactNextHop,
// more than 255 ranges, heap full) simply stay in fallback: never a capacity error.
//
// Small tables are answered by the DIR-24-8 table itself (setCompactMinRules()): while
// the touched part of its first level is small, its one read beats DXR's search, so the
// compact structure only takes over (and is only maintained) from kDefaultCompactMinRules
// rules on.
#pragma once

#include <emmintrin.h>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "fastpath/result.h"
#include "table/lpm4_dir24_8.h"
#include "table/lpm_common.h"

namespace fastpath {

/// IPv4 DXR table. Same interface and threading contract (lpm_common.h) as Lpm4Dir24_8;
/// releaseRetired() additionally rebuilds the chunks changed since the last call (control
/// thread, bounded by the changes: one chunk per prefix of length >= 18).
class Lpm4Dxr {
 public:
  static constexpr uint32_t kMaxNextHop = Lpm4Dir24_8::kMaxNextHop;
  /// Chunks whose next hops are all <= this are compact (15 bits: sign extension decodes
  /// "no route"); others are served by the DIR-24-8. FibManager hands out next-hop slots
  /// lowest first, so this only matters beyond 32767 next hops in use.
  static constexpr uint32_t kMaxCompactNextHop = 0x7ffe;
  static constexpr unsigned kDirectBits = 18;
  static constexpr unsigned kChunkBits = 32 - kDirectBits;

  /// Reserves the tables (virtual memory). Fails with a message when it cannot be mapped.
  static Result<std::unique_ptr<Lpm4Dxr>> create(const LpmConfig& config = {});
  ~Lpm4Dxr();
  Lpm4Dxr(const Lpm4Dxr&) = delete;
  Lpm4Dxr& operator=(const Lpm4Dxr&) = delete;

  /// Adds `ip/depth` -> next_hop or replaces its next hop (see Lpm4Dir24_8::add()).
  Status add(uint32_t ip, uint8_t depth, uint32_t next_hop);
  /// Removes `ip/depth` (see Lpm4Dir24_8::remove()).
  Status remove(uint32_t ip, uint8_t depth);
  std::optional<uint32_t> find(uint32_t ip, uint8_t depth) const { return dir_->find(ip, depth); }
  void forEachRule(const std::function<void(uint32_t, uint8_t, uint32_t)>& fn) const {
    dir_->forEachRule(fn);
  }
  /// Makes retired memory reusable and rebuilds the compact chunks of every span changed
  /// since the last call. Call only after an epoch synchronize() that started after the
  /// add()/remove() calls (or when no lookup can run, e.g. before the table is published).
  void releaseRetired();
  uint32_t groupsNeeded(const std::vector<std::pair<uint32_t, uint8_t>>& prefixes) const {
    return dir_->groupsNeeded(prefixes);
  }
  /// Rules and groups of the DIR-24-8 store; memory_bytes = both structures (reserved).
  LpmStats stats() const;
  void reserve(size_t rules) { dir_->reserve(rules); }

  /// Shape of the compact structure (benchmarks, tests).
  struct DxrStats {
    uint32_t leaf_chunks = 0;      ///< direct entries holding a next hop
    uint32_t long_chunks = 0;      ///< heap chunks with 16-bit range starts
    uint32_t short_chunks = 0;     ///< heap chunks with 8-bit starts (all /24-aligned)
    uint32_t fallback_chunks = 0;  ///< served by the DIR-24-8 table
    uint32_t pending_chunks = 0;   ///< changed, rebuilt by the next releaseRetired()
    size_t ranges = 0;
    size_t heap_bytes_used = 0;  ///< heap high-water mark (live + free + retired)
    size_t hot_bytes = 0;        ///< direct table + heap high-water mark
  };
  DxrStats dxrStats() const;

  /// Below this many rules lookups are answered by the DIR-24-8 table (see
  /// setCompactMinRules()). Where fp_lpm_bench's BM_Lpm4Crossover (bulk, random
  /// destinations) saw the two cross: DIR-24-8 143 vs DXR 109M lookups/s at 128k rules,
  /// 111 vs 110 at 256k, 94 vs 105 at 512k. DIR-24-8 slows down as the touched part of its
  /// 64 MiB first level grows; DXR is compute-bound and nearly flat.
  static constexpr uint32_t kDefaultCompactMinRules = 1u << 18;
  /// Which structure answers lookups: the compact one once the table holds at least
  /// `rules` rules (0: always, as the tests of the compact structure need), the DIR-24-8
  /// table below that. Re-evaluated here and by every releaseRetired() (control thread).
  /// Below the threshold changed chunks are not rebuilt (they answer from the DIR-24-8);
  /// switching on rebuilds them first. Every direct entry is always correct (compact or
  /// fallback), so readers may see the switch late.
  void setCompactMinRules(uint32_t rules);
  /// True while lookups are answered by the compact structure.
  bool compactActive() const noexcept { return __atomic_load_n(&compact_, __ATOMIC_RELAXED) != 0; }

  /// Worker side: next hop of the longest prefix covering `ip`, or kLpmNoRoute.
  uint32_t lookup(uint32_t ip) const noexcept {
    if (!compactActive()) return dir_->lookup(ip);
    const uint32_t e = __atomic_load_n(&direct_[ip >> kChunkBits], __ATOMIC_ACQUIRE);
    if (__builtin_expect(!(e & kChunk), 0)) return e == kLeafNoRoute ? kLpmNoRoute : e;
    return resolve(e, ip);
  }
  /// Worker side: n lookups, direct entries read and chunks prefetched a block ahead.
  void lookupBulk(const uint32_t* ips, uint32_t* next_hops, size_t n) const noexcept;

  // Direct entry: leaf (bit 31 clear: a next hop, kLeafNoRoute = none), or chunk: short
  // format bit, range count - 1, heap offset in kUnit-byte units; kFallback = ask dir_.
  static constexpr uint32_t kChunk = 1u << 31;
  static constexpr uint32_t kShort = 1u << 30;
  static constexpr unsigned kCountShift = 22;
  static constexpr uint32_t kOffsetMask = (1u << kCountShift) - 1;
  // A count no chunk uses (at most 255 ranges) and offset 0: prefetching it is harmless.
  static constexpr uint32_t kFallback = kChunk | kShort | (0xffu << kCountShift);
  static constexpr uint32_t kLeafNoRoute = 0x7fffffffu;
  static constexpr uint16_t kNoRoute16 = 0xffff;
  static constexpr size_t kUnit = 8;

 private:
  explicit Lpm4Dxr(std::unique_ptr<Lpm4Dir24_8> dir);

  // The common case inline and short: up to 16 ranges, one or two SSE2 compares (starts are
  // sorted, starts[0] == 0, all < 2^14 so they compare as signed lanes; the bytes after
  // the starts are masked), no dependent loads, no branch on the result. Wider chunks and
  // kFallback (its count field reads as 256) take resolveWide().
  uint32_t resolve(uint32_t e, uint32_t ip) const noexcept {
    const uint32_t n = ((e >> kCountShift) & 0xff) + 1;
    if (__builtin_expect(n > 16, 0)) return resolveWide(e, ip);
    const uint8_t* blk = heap_ + size_t{e & kOffsetMask} * kUnit;
    const __m128i v0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk));
    uint32_t at;  // byte offset of the next hop in the block
    if (e & kShort) {
      const __m128i k =
          _mm_set1_epi8(static_cast<char>((ip >> 8) & ((1u << (kChunkBits - 8)) - 1)));
      const uint32_t gt = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpgt_epi8(v0, k)));
      at = ((n + 1) & ~1u) + 2 * (static_cast<uint32_t>(__builtin_ctz(gt | (1u << n))) - 1);
    } else {
      const __m128i k = _mm_set1_epi16(static_cast<short>(ip & ((1u << kChunkBits) - 1)));
      const __m128i v1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + 16));
      const uint64_t gt =
          static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpgt_epi16(v0, k))) |
          (uint64_t{static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpgt_epi16(v1, k)))} << 16);
      at =
          2 * n + (static_cast<uint32_t>(__builtin_ctzll(gt | (uint64_t{1} << (2 * n)))) & ~1u) - 2;
    }
    return nextHop(blk + at);
  }
  // Compact next hops are <= 0x7ffe and "none" is 0xffff: sign extension maps them to the
  // next hop or kLpmNoRoute without a compare.
  static uint32_t nextHop(const uint8_t* p) noexcept {
    int16_t v;
    __builtin_memcpy(&v, p, sizeof v);
    return static_cast<uint32_t>(static_cast<int32_t>(v));
  }
  uint32_t resolveWide(uint32_t e, uint32_t ip) const noexcept;
  template <typename T>
  static uint32_t search(const T* starts, uint32_t n, uint32_t key) noexcept {
    const T* base = starts;
    while (n > 1) {
      const uint32_t half = n / 2;
      base = (base[half] <= key) ? base + half : base;
      n -= half;
    }
    return static_cast<uint32_t>(base - starts);
  }

  void invalidate(uint32_t first_chunk, uint32_t last_chunk);
  void rebuild(uint32_t chunk);
  std::optional<uint32_t> allocUnits(uint32_t units);
  static uint32_t chunkUnits(uint32_t e);

  std::unique_ptr<Lpm4Dir24_8> dir_;  // source of truth, fallback for lookups
  uint32_t* direct_ = nullptr;        // 2^kDirectBits entries, mmap'd
  uint8_t* heap_ = nullptr;           // range heap, mmap'd
  uint32_t compact_ = 0;  // read by workers (relaxed: either value gives correct answers)
  size_t direct_bytes_ = 0;
  size_t heap_bytes_ = 0;
  uint32_t heap_units_ = 0;                             // capacity
  uint32_t bump_ = 0;                                   // first never-used unit
  std::vector<std::vector<uint32_t>> free_;             // free blocks by size in units
  std::vector<std::pair<uint32_t, uint32_t>> retired_;  // (offset, units)
  std::vector<uint32_t> dirty_;
  std::vector<uint8_t> dirty_flag_;
  std::unordered_map<uint32_t, uint32_t> long24_;  // /24 -> rules longer than /24 in it
  std::vector<uint32_t> long_per_chunk_;           // chunk -> rules longer than /24 in it
  // Rebuild scratch (control thread).
  std::vector<uint32_t> scratch_starts_;
  std::vector<uint32_t> scratch_nhs_;
  uint32_t compact_min_rules_ = kDefaultCompactMinRules;
};

}  // namespace fastpath
