// SPDX-License-Identifier: GPL-2.0-only
// The 32-bit entry every multibit LPM table here stores (DIR-24-8's tbl24/tbl8, the IPv4
// trie's nodes, the IPv6 trie's groups): valid | ext | depth | value. A leaf (ext clear)
// holds the next hop of the rule that owns it and that rule's length; a link (ext set)
// holds the index of a 256-entry group one level down. One 32-bit word, so a worker reads
// an entry with one atomic load and sees either the old or the new one.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

namespace fastpath {

/// Entry encoding with `kValueBits` bits of value (next hop or group index); the depth
/// takes the bits between the value and the two flags.
template <unsigned kValueBits>
struct LpmEntry {
  static constexpr uint32_t kValid = 1u << 31;
  static constexpr uint32_t kExt = 1u << 30;
  static constexpr uint32_t kDepthShift = kValueBits;
  static constexpr uint32_t kDepthMask = ((1u << (30 - kValueBits)) - 1) << kDepthShift;
  static constexpr uint32_t kValueMask = (1u << kValueBits) - 1;

  /// The leaf of a rule of length `depth` with next hop `value`.
  static constexpr uint32_t leaf(unsigned depth, uint32_t value) {
    return kValid | (uint32_t{depth} << kDepthShift) | value;
  }
  /// The entry linking group `group`.
  static constexpr uint32_t link(uint32_t group) { return kValid | kExt | group; }
  /// Length of the rule owning a leaf.
  static constexpr unsigned entryDepth(uint32_t e) { return (e & kDepthMask) >> kDepthShift; }
  /// An add of length `depth` takes this leaf: it is empty or owned by a rule no longer.
  static constexpr bool yieldsTo(uint32_t e, unsigned depth) {
    return !(e & kValid) || entryDepth(e) <= depth;
  }
  /// The leaf belongs to the rule of length `depth` (a longer rule would have overwritten
  /// it, a shorter one could not have): a remove of that rule hands it on.
  static constexpr bool ownedBy(uint32_t e, unsigned depth) {
    return (e & kValid) && (e & kDepthMask) == (uint32_t{depth} << kDepthShift);
  }
  /// The leaf that replaces a removed rule's: its covering rule's, or an invalid entry.
  static constexpr uint32_t coverLeaf(const std::optional<std::pair<uint8_t, uint32_t>>& cover) {
    return cover ? leaf(cover->first, cover->second) : 0;
  }
  /// When the 256 entries of a group are one leaf that the parent can hold (invalid, or a
  /// rule of length <= `parent_end`), that leaf: the group can be folded back into its
  /// parent entry and retired (rte_lpm's tbl8_recycle_check, at every level of a trie).
  static std::optional<uint32_t> uniformLeaf(const uint32_t* group, int parent_end) {
    const uint32_t first = group[0];
    if (first & kExt) return std::nullopt;
    if ((first & kValid) && static_cast<int>(entryDepth(first)) > parent_end) return std::nullopt;
    for (uint32_t j = 1; j < 256; ++j)
      if (group[j] != first) return std::nullopt;
    return first;
  }
};

/// IPv4 tables: 24-bit next hops and group indexes, 6-bit depth.
using Lpm4Entry = LpmEntry<24>;
/// IPv6 trie: 22-bit next hops and group indexes, 8-bit depth (up to /128).
using Lpm6Entry = LpmEntry<22>;
static_assert(Lpm4Entry::kDepthMask == 0x3fu << 24);
static_assert(Lpm6Entry::kDepthMask == 0xffu << 22);

}  // namespace fastpath
