// SPDX-License-Identifier: GPL-2.0-only
// The control-side rule store every LPM table keeps beside its lookup structure: exact
// rules (masked prefix, length) -> next hop, counted per length, with the covering-rule
// search a remove needs (the longest remaining rule shorter than the removed one that
// covers it: its next hop takes over the removed rule's leaves). The address family
// (Lpm4Prefix, Lpm6Prefix) says how a prefix is masked, keyed and printed. The store also
// words the errors every table reports the same way, so they read alike.
#pragma once

#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "fastpath/result.h"

namespace fastpath {

/// IPv4 prefixes: host byte order integers; key = (masked ip << 6) | depth.
struct Lpm4Prefix {
  using Address = uint32_t;
  using Key = uint64_t;
  using Hash = std::hash<uint64_t>;
  static constexpr unsigned kMaxDepth = 32;

  static uint32_t mask(unsigned depth) { return depth == 0 ? 0 : ~0u << (32 - depth); }
  static Address masked(Address ip, unsigned depth) { return ip & mask(depth); }
  static Key key(Address masked_ip, uint8_t depth) { return (uint64_t{masked_ip} << 6) | depth; }
  static Address address(Key k) { return static_cast<uint32_t>(k >> 6); }
  static uint8_t depth(Key k) { return static_cast<uint8_t>(k & 0x3f); }
  static std::string text(Address ip, unsigned depth) {
    return std::to_string(ip >> 24) + "." + std::to_string((ip >> 16) & 0xff) + "." +
           std::to_string((ip >> 8) & 0xff) + "." + std::to_string(ip & 0xff) + "/" +
           std::to_string(depth);
  }
};

/// IPv6 prefixes: 16 bytes, network order.
struct Lpm6Prefix {
  using Address = std::array<uint8_t, 16>;
  struct Key {
    Address addr;
    uint8_t depth;
    bool operator==(const Key& o) const { return depth == o.depth && addr == o.addr; }
  };
  struct Hash {
    size_t operator()(const Key& k) const noexcept {
      uint64_t x, y;
      std::memcpy(&x, k.addr.data(), 8);
      std::memcpy(&y, k.addr.data() + 8, 8);
      uint64_t h = x ^ (y * 0x9e3779b97f4a7c15ull) ^ (uint64_t{k.depth} << 56);
      h ^= h >> 33;  // murmur3 fmix64
      h *= 0xff51afd7ed558ccdull;
      h ^= h >> 33;
      h *= 0xc4ceb9fe1a85ec53ull;
      h ^= h >> 33;
      return static_cast<size_t>(h);
    }
  };
  static constexpr unsigned kMaxDepth = 128;

  static Address masked(const uint8_t* ip, unsigned depth) {
    Address r{};
    for (unsigned i = 0; i < 16; ++i) {
      const int bits = static_cast<int>(depth) - static_cast<int>(i * 8);
      if (bits >= 8)
        r[i] = ip[i];
      else if (bits > 0)
        r[i] = static_cast<uint8_t>(ip[i] & (0xff00u >> bits));
    }
    return r;
  }
  static Address masked(const Address& ip, unsigned depth) { return masked(ip.data(), depth); }
  static Key key(const Address& masked_ip, uint8_t depth) { return Key{masked_ip, depth}; }
  static const Address& address(const Key& k) { return k.addr; }
  static uint8_t depth(const Key& k) { return k.depth; }
  static std::string text(const Address& a, unsigned depth) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%x:%x:%x:%x:%x:%x:%x:%x/%u", (a[0] << 8) | a[1],
                  (a[2] << 8) | a[3], (a[4] << 8) | a[5], (a[6] << 8) | a[7], (a[8] << 8) | a[9],
                  (a[10] << 8) | a[11], (a[12] << 8) | a[13], (a[14] << 8) | a[15], depth);
    return buf;
  }
};

/// Rules (masked prefix, length) -> next hop of one table. Control thread only. Addresses
/// passed in are already masked (Family::masked()).
template <typename Family>
class LpmRuleStore {
 public:
  using Address = typename Family::Address;
  using Cover = std::optional<std::pair<uint8_t, uint32_t>>;  ///< (length, next hop)

  /// The next hop of exactly this rule, or null. The pointer stays valid until the store
  /// changes, so an add can look up once and then update or insert().
  uint32_t* find(const Address& ip, uint8_t depth) {
    auto it = rules_.find(Family::key(ip, depth));
    return it == rules_.end() ? nullptr : &it->second;
  }
  std::optional<uint32_t> find(const Address& ip, uint8_t depth) const {
    auto it = rules_.find(Family::key(ip, depth));
    if (it == rules_.end()) return std::nullopt;
    return it->second;
  }
  /// Adds a rule that is not in the store.
  void insert(const Address& ip, uint8_t depth, uint32_t next_hop) {
    rules_.emplace(Family::key(ip, depth), next_hop);
    ++per_depth_[depth];
  }
  /// Removes a rule; false when it is not there.
  bool erase(const Address& ip, uint8_t depth) {
    if (rules_.erase(Family::key(ip, depth)) == 0) return false;
    --per_depth_[depth];
    return true;
  }
  /// The longest rule of length in [min_depth, depth) covering `ip`: the rule whose leaves
  /// replace those of a removed `ip/depth`. Tables that keep the default route beside the
  /// lookup structure pass min_depth 1 (its leaves are invalid ones).
  Cover covering(const Address& ip, uint8_t depth, uint8_t min_depth = 0) const {
    for (int d = depth - 1; d >= min_depth; --d) {
      if (per_depth_[d] == 0) continue;
      const auto len = static_cast<uint8_t>(d);
      auto it = rules_.find(Family::key(Family::masked(ip, len), len));
      if (it != rules_.end()) return std::make_pair(len, it->second);
    }
    return std::nullopt;
  }
  /// Calls fn(address, depth, next_hop) for every rule, in no particular order.
  template <typename Fn>
  void forEach(Fn&& fn) const {
    for (const auto& [key, nh] : rules_) fn(Family::address(key), Family::depth(key), nh);
  }
  size_t size() const { return rules_.size(); }
  void reserve(size_t rules) { rules_.reserve(rules); }
  void clear() {
    rules_ = {};
    per_depth_ = {};
  }

 private:
  std::unordered_map<typename Family::Key, uint32_t, typename Family::Hash> rules_;
  std::array<uint32_t, Family::kMaxDepth + 1> per_depth_{};
};

/// The errors of the LPM tables, one wording for all; `who` names the table ("lpm4",
/// "lpm4 trie", "lpm6").
template <typename Family>
struct LpmErrors {
  /// Checks a prefix length and a next hop before an add.
  static Status checkAdd(const char* who, uint8_t depth, uint32_t next_hop,
                         uint32_t max_next_hop) {
    if (auto st = checkDepth(who, depth); !st.ok()) return st;
    if (next_hop > max_next_hop)
      return makeError(-EINVAL, std::string(who) + ": next hop " + std::to_string(next_hop) +
                                    " > " + std::to_string(max_next_hop));
    return {};
  }
  static Status checkDepth(const char* who, uint8_t depth) {
    if (depth > Family::kMaxDepth)
      return makeError(-EINVAL, std::string(who) + ": prefix length " + std::to_string(depth) +
                                    " > " + std::to_string(Family::kMaxDepth));
    return {};
  }
  static Error tableFull(const char* who, const typename Family::Address& ip, uint8_t depth,
                         uint32_t max_rules) {
    return makeError(-ENOSPC, std::string(who) + ": cannot add " + Family::text(ip, depth) +
                                  ": table full (" + std::to_string(max_rules) +
                                  " rules); raise max_rules");
  }
  static Error noSuchRule(const char* who, const typename Family::Address& ip, uint8_t depth) {
    return makeError(-ENOENT, std::string(who) + ": cannot remove " + Family::text(ip, depth) +
                                  ": no such rule");
  }
};

}  // namespace fastpath
