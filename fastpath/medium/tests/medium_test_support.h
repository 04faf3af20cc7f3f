// SPDX-License-Identifier: GPL-2.0-only
// What the radio medium's tests share: a sink recording what the model did, a loop that runs
// its events on a fake clock, a full mesh of pairs.
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
}  // namespace fastpath::medium
