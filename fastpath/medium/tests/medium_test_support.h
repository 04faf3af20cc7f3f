// SPDX-License-Identifier: GPL-2.0-only
// What the radio medium's tests share: a sink recording what the model did, a loop that runs
// its events on a fake clock, a medium set up with its pairs and its recorder, and the pair
// sets several tests use (a full mesh, hidden terminals, the edge of reception).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <vector>

#include "medium/radio_medium.h"

namespace fastpath::medium {

struct Recorder : MediumSink {
  struct Delivery {
    uint64_t cookie;
    uint32_t to;
    uint64_t t;
  };
  std::vector<Delivery> deliveries;
  std::map<uint64_t, TxOutcome> outcomes;
  std::map<uint64_t, uint64_t> done_at;
  uint64_t now = 0;
  void deliver(uint64_t cookie, uint32_t to, uint64_t t) override {
    deliveries.push_back({cookie, to, t});
  }
  void done(uint64_t cookie, uint32_t, TxOutcome o) override {
    outcomes[cookie] = o;
    done_at[cookie] = now;
  }
};

/// Runs the medium's events until none is left or `until`.
inline void runAll(RadioMedium& m, Recorder& r, uint64_t until = UINT64_MAX) {
  for (uint64_t t = m.nextEventNs(); t != UINT64_MAX && t <= until; t = m.nextEventNs()) {
    r.now = t;
    m.advance(t, r);
  }
}

inline MediumPhy phy11b() {
  MediumPhy p;  // 802.11b: 11 Mbit/s data, 1 Mbit/s basic, NIST, ns-3's thresholds
  return p;
}

/// Every ordered pair among `members` at `dbm`.
inline std::vector<IndexedPair> mesh(std::initializer_list<uint32_t> members, double dbm) {
  std::vector<IndexedPair> out;
  for (uint32_t a : members)
    for (uint32_t b : members)
      if (a != b) out.push_back({a, b, dbm, false});
  return out;
}

inline constexpr uint64_t kMs = 1000000;
inline constexpr uint32_t kEth = 1000;

/// A medium of `members` (its random draws seeded with `seed`) with `pairs` applied, and the
/// recorder of what it does: where every test of the model starts
/// (`MediumRun med(...); auto& [m, r] = med;`).
struct MediumRun {
  MediumRun(const MediumPhy& phy, uint32_t members, uint64_t seed,
            const std::vector<IndexedPair>& pairs)
      : m(phy, members, seed) {
    m.pairs().apply(pairs, false);
  }

  RadioMedium m;
  Recorder r;
};

/// Hidden terminals: 0 and 2 each hear 1 and are heard by it at -70 dBm; they do not hear
/// each other.
inline std::vector<IndexedPair> hiddenPairs() {
  return {{0, 1, -70}, {1, 0, -70}, {2, 1, -70}, {1, 2, -70}};
}

/// 0 and 2 each offer `n` unicast frames to 1 at 1 ms (cookies i and 1000 + i): both
/// saturated.
inline void bothSendTo1(MediumRun& med, int n) {
  for (int i = 0; i < n; ++i) {
    med.m.send(kMs, 0, 1, kEth, uint64_t(i), med.r);
    med.m.send(kMs, 2, 1, kEth, uint64_t(1000 + i), med.r);
  }
}

/// 0 and 1 at the edge of reception: they hear each other at -89.3 dBm (SNR ~4.3 dB). With
/// the preamble detected at any power (atTheEdge), a 1 Mbit/s frame passes and an 11 Mbit/s
/// one, which needs ~6 dB or more, does not.
inline std::vector<IndexedPair> edgePairs() { return {{0, 1, -89.3}, {1, 0, -89.3}}; }

/// `phy` detecting preambles at any power, so that edgePairs' frames are detected.
inline MediumPhy atTheEdge(MediumPhy phy) {
  phy.preamble_min_rssi_dbm = -200;
  return phy;
}
}  // namespace fastpath::medium
