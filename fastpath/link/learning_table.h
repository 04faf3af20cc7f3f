// SPDX-License-Identifier: GPL-2.0-only
// A learning bridge's table of where each source MAC was last seen, as ns-3's
// BridgeNetDevice keeps it (3.37: a MAC is learned on the port it arrived on, and the
// entry expires ExpirationTime after it was last seen; no spanning tree). One table per
// (bridge, worker): written by that worker only, read by the control thread for listings
// (each entry is two relaxed atomics: a listing may see an entry a moment old, never a
// torn MAC). Fixed capacity, no allocation after construction: open addressing with
// linear probing; entries are never emptied, an expired one is reused by the next MAC
// that probes past it.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

namespace fastpath {

class LearningTable {
 public:
  /// A table of `capacity` entries (rounded up to a power of two, at least 16).
  explicit LearningTable(uint32_t capacity);

  /// `mac` (6 bytes) seen on bridge port `port` at `now_ns`: its entry now says `port`
  /// until `now_ns + ageing_ns`. False when the table is full of live entries (the MAC is
  /// not learned: its frames are flooded, as for an unknown MAC; counted in full()).
  bool learn(const uint8_t* mac, uint16_t port, uint64_t now_ns, uint64_t ageing_ns);
  /// The port `mac` was learned on, or -1 (never seen, or its entry expired by `now_ns`).
  int lookup(const uint8_t* mac, uint64_t now_ns) const;

  struct Entry {
    uint8_t mac[6];
    uint16_t port;
    uint64_t expires_ns;
  };
  /// The live entries at `now_ns` (any thread).
  std::vector<Entry> entries(uint64_t now_ns) const;
  /// MACs not learned because every entry was live (any thread).
  uint64_t full() const { return full_.load(std::memory_order_relaxed); }

 private:
  static uint64_t key(const uint8_t* mac, uint16_t port);
  static uint64_t macOf(uint64_t k) { return k >> 16; }
  static uint32_t hash(uint64_t mac48);

  struct Slot {
    std::atomic<uint64_t> key{0};      ///< MAC << 16 | port + 1 (0: never used)
    std::atomic<uint64_t> expires{0};  ///< when the entry stops being valid
  };
  std::vector<Slot> slots_;
  uint32_t mask_;
  std::atomic<uint64_t> full_{0};
};

}  // namespace fastpath
