// SPDX-License-Identifier: GPL-2.0-only
// What one worker keeps of one bridge: its learning table and its counters. Written by
// that worker only, read by the control thread (relaxed atomics), owned by the daemon's
// bridge (one per worker, as a segment's shapers are) and reached from the worker's link
// table (BridgeSlot).
#pragma once

#include <atomic>
#include <cstdint>

#include "link/learning_table.h"

namespace fastpath {

struct BridgeState {
  explicit BridgeState(uint32_t capacity) : table(capacity) {}

  struct Tally {
    std::atomic<uint64_t> v{0};
    void add(uint64_t n = 1) { v.store(v.load(std::memory_order_relaxed) + n, std::memory_order_relaxed); }
    uint64_t get() const { return v.load(std::memory_order_relaxed); }
  };

  LearningTable table;
  Tally received;   ///< frames heard on a bridge port
  Tally forwarded;  ///< sent on the one port their destination was learned on
  Tally flooded;    ///< broadcast, multicast or unknown destination: sent on every other port
  Tally local;      ///< to the bridge port's own MAC (nothing above the bridge in fastpathd)
};

}  // namespace fastpath
