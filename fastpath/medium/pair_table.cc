// SPDX-License-Identifier: GPL-2.0-only
#include "medium/pair_table.h"

#include <algorithm>
#include <cmath>

namespace fastpath::medium {

namespace {
uint64_t key(uint32_t from, uint32_t to) { return uint64_t(from) << 32 | to; }
}  // namespace

PairTables::PairTables(uint32_t members, const MediumPhy& phy)
    : members_(members),
      detect_dbm_(std::max(phy.rx_sensitivity_dbm, phy.preamble_min_rssi_dbm)),
      sense_dbm_(phy.cs_threshold_dbm),
      floor_dbm_(std::min(phy.rx_sensitivity_dbm, phy.cs_threshold_dbm)) {
  publish();
}

void PairTables::apply(const std::vector<IndexedPair>& changes, bool replace_all) {
  if (replace_all) pairs_.clear();
  for (const auto& c : changes) {
    // Sparse: a pair below the receiver's sensitivity is absent (ns-3's YansWifiChannel
    // hands such a frame to no PHY). Above it, a pair neither detected nor sensed stays:
    // its energy is interference for the frames its receiver decodes, and adds to the
    // energy its receiver senses.
    if (c.remove || c.rx_dbm < floor_dbm_)
      pairs_.erase(key(c.from, c.to));
    else
      pairs_[key(c.from, c.to)] = c.rx_dbm;
  }
  publish();
  reclaim();
}

void PairTables::publish() {
  auto t = std::make_unique<PairTable>();
  t->version = ++version_;
  std::vector<std::pair<uint64_t, double>> sorted(pairs_.begin(), pairs_.end());
  std::sort(sorted.begin(), sorted.end());
  t->offsets.assign(members_ + 1, 0);
  t->entries.reserve(sorted.size());
  for (const auto& [k, dbm] : sorted) {
    const uint32_t from = uint32_t(k >> 32), to = uint32_t(k);
    PairStats*& s = stats_index_[k];
    if (!s) s = &stats_.emplace_back();
    t->entries.push_back(PairEntry{to, dbm >= detect_dbm_, dbm >= sense_dbm_, dbm,
                                   std::pow(10.0, dbm / 10), s});
    ++t->offsets[from + 1];
  }
  for (uint32_t i = 0; i < members_; ++i) t->offsets[i + 1] += t->offsets[i];
  latest_.store(t.get(), std::memory_order_release);
  tables_.push_back(std::move(t));
}

void PairTables::reclaim() {
  const uint64_t served = served_.load(std::memory_order_acquire);
  while (tables_.size() > 1 && tables_.front()->version < served) tables_.pop_front();
}

std::vector<PairTables::Snapshot> PairTables::snapshot() const {
  std::vector<Snapshot> out;
  out.reserve(pairs_.size());
  for (const auto& [k, dbm] : pairs_)
    out.push_back(Snapshot{IndexedPair{uint32_t(k >> 32), uint32_t(k), dbm, false},
                           stats_index_.at(k)});
  std::sort(out.begin(), out.end(), [](const Snapshot& a, const Snapshot& b) {
    return key(a.pair.from, a.pair.to) < key(b.pair.from, b.pair.to);
  });
  return out;
}

}  // namespace fastpath::medium
