// SPDX-License-Identifier: GPL-2.0-only
// The naive IPv4 LPM reference the LPM tests compare every lookup with (every rule in a hash
// map per length, lookup tries every length from the longest), and the prefix lengths of
// their random tables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <unordered_map>

#include "table/lpm_common.h"

namespace fastpath::testing {

inline uint32_t mask4(unsigned d) { return d == 0 ? 0 : ~0u << (32 - d); }

class Ref4 {
 public:
  void add(uint32_t ip, uint8_t d, uint32_t nh) { rules_[d][ip & mask4(d)] = nh; }
  bool remove(uint32_t ip, uint8_t d) { return rules_[d].erase(ip & mask4(d)) > 0; }
  bool has(uint32_t ip, uint8_t d) const { return rules_[d].count(ip & mask4(d)) > 0; }
  uint32_t lookup(uint32_t ip) const {
    for (int d = 32; d >= 0; --d) {
      const auto& m = rules_[d];
      if (m.empty()) continue;
      auto it = m.find(ip & mask4(d));
      if (it != m.end()) return it->second;
    }
    return kLpmNoRoute;
  }
  size_t size() const {
    size_t n = 0;
    for (const auto& m : rules_) n += m.size();
    return n;
  }
  std::unordered_map<uint32_t, uint32_t> rules_[33];
};

// Prefix lengths shaped like a real table: mostly /24, /16-/23, some longer.
inline uint8_t randomDepth4(std::mt19937_64& rng) {
  const unsigned r = rng() % 100;
  if (r < 50) return 24;
  if (r < 85) return static_cast<uint8_t>(8 + rng() % 16);                // 8..23
  if (r < 99 || rng() % 64) return static_cast<uint8_t>(25 + rng() % 8);  // 25..32
  return static_cast<uint8_t>(rng() %
                              8);  // 0..7: rare, as in real tables (each spans 2^17+ entries)
}

}  // namespace fastpath::testing
