// SPDX-License-Identifier: GPL-2.0-only
// The pairs of a radio medium as the data path reads them: an immutable table, per sender
// the members that hear it (received power, whether they can detect its frames, whether
// they sense it; a pair doing neither is interference only), built by the control thread and published whole, so that a frame sees one
// version of every pair (PairTables). Per-pair counters live outside the tables, so that
// they outlast updates.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include "fastpath/medium_types.h"

namespace fastpath::medium {

/// A counter written by one thread (the worker) and read by another: a relaxed load and
/// store, not a locked read-modify-write.
struct Counter {
  std::atomic<uint64_t> v{0};
  void add(uint64_t n = 1) { v.store(v.load(std::memory_order_relaxed) + n, std::memory_order_relaxed); }
  void max(uint64_t n) {
    if (n > v.load(std::memory_order_relaxed)) v.store(n, std::memory_order_relaxed);
  }
  uint64_t get() const { return v.load(std::memory_order_relaxed); }
};

struct PairStats {
  Counter attempts, delivered, error_drops, collision_drops;
};

struct PairEntry {
  uint32_t to = 0;
  bool detect = false;  ///< at or above the detection thresholds (sensitivity, minimum RSSI)
  bool sense = false;   ///< at or above the carrier-sense threshold (CcaSensitivity)
  double rx_dbm = 0;
  double rx_mw = 0;
  PairStats* stats = nullptr;
};

/// A sender's entries (C++17-clean: the tests that call ns-3 include this header).
struct PairRange {
  const PairEntry* b;
  const PairEntry* e;
  const PairEntry* begin() const { return b; }
  const PairEntry* end() const { return e; }
  size_t size() const { return size_t(e - b); }
};

struct PairTable {
  uint64_t version = 0;
  std::vector<uint32_t> offsets;  ///< members + 1: sender i's entries are [offsets[i], offsets[i+1])
  std::vector<PairEntry> entries;
  /// Frames in flight that read this table (the worker's count; it keeps the table alive).
  mutable uint32_t in_flight = 0;

  PairRange from(uint32_t i) const {
    return {entries.data() + offsets[i], entries.data() + offsets[i + 1]};
  }
};

/// One ordered pair by member index.
struct IndexedPair {
  uint32_t from = 0, to = 0;
  double rx_dbm = -200;
  bool remove = false;
};

/// The control thread's set of pairs and the tables it published from them; the worker's
/// view of the newest table. Publication as the worker's Publication<T>: a release store of
/// an immutable table with a growing version, adopted by the worker at a frame's start; a
/// table is freed once the worker reports a later version as the oldest it still reads.
class PairTables {
 public:
  PairTables(uint32_t members, const MediumPhy& phy);

  // Control thread.
  /// Applies a batch (all of it: validated by the caller) and publishes the new table.
  void apply(const std::vector<IndexedPair>& changes, bool replace_all);
  /// Frees tables the worker no longer reads.
  void reclaim();
  /// The current pairs with their counters (present pairs only).
  struct Snapshot {
    IndexedPair pair;
    const PairStats* stats;
  };
  std::vector<Snapshot> snapshot() const;
  uint64_t updates() const { return version_ - 1; }
  uint32_t members() const { return members_; }

  // Worker.
  /// The newest table (adopt at a frame's start; never null).
  const PairTable* newest() const { return latest_.load(std::memory_order_acquire); }
  /// The oldest version the worker still reads (frames in flight included).
  void serve(uint64_t version) { served_.store(version, std::memory_order_release); }

 private:
  void publish();

  uint32_t members_;
  double detect_dbm_, sense_dbm_;
  double floor_dbm_;  ///< weaker pairs are absent: min(rx sensitivity, carrier sense)
  std::unordered_map<uint64_t, double> pairs_;  ///< from << 32 | to -> rx dBm
  std::unordered_map<uint64_t, PairStats*> stats_index_;
  std::deque<PairStats> stats_;  ///< stable addresses
  std::deque<std::unique_ptr<PairTable>> tables_;  ///< published, oldest first
  uint64_t version_ = 0;
  std::atomic<const PairTable*> latest_{nullptr};
  std::atomic<uint64_t> served_{0};
};

}  // namespace fastpath::medium
