// SPDX-License-Identifier: GPL-2.0-only
// fp-link-fidelity's output: one JSON object per scenario in scenarios.jsonl (a minimal
// writer: numbers, strings, nested objects) and every received frame in a CSV file, both
// read by link_fidelity.py.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastpath/control_backend.h"
#include "fidelity_traffic.h"

namespace fastpath::fidelity {

/// One JSON object built key by key, in order.
class JsonObject {
 public:
  /// Integral values print without a fraction; non-finite ones as 0.
  JsonObject& num(const std::string& k, double v);
  JsonObject& str(const std::string& k, const std::string& v);
  /// `v` is already JSON (a nested object).
  JsonObject& raw(const std::string& k, const std::string& v);
  std::string done() const { return s_.empty() ? "{}" : s_ + "}"; }

 private:
  std::string s_;
};

/// A link direction's counters as deltas over the scenario (b - a); depth and sojourn as
/// read at the end (b).
JsonObject directionJson(const LinkDirectionStats& a, const LinkDirectionStats& b);
/// {scope: {counter: value}} of counter sets; nonzero_only drops the zeros.
std::string countersJson(const std::vector<CounterSet>& sets, bool nonzero_only);
/// frames-<scenario>.csv: seq, flow, len, send and receive stamps relative to t0.
bool writeFrames(const std::string& path, const std::vector<Record>& recs, uint64_t t0);

}  // namespace fastpath::fidelity
