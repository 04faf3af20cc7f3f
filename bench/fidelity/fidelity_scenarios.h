// SPDX-License-Identifier: GPL-2.0-only
// fp-link-fidelity's scenarios (what link parameters, what offered traffic) and the send
// schedule each one turns into.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fastpath::fidelity {

struct Scenario {
  std::string name;
  std::string kind;                // baseline, delay, rate, loss, gemodel, flows, timer
  std::vector<std::string> words;  // link parameters of n1 -> n2; empty: no emulation
  uint32_t frame_len = 160;        // Ethernet frame without FCS, as the link model counts it
  double pps = 1000;               // offered, all flows together
  uint64_t frames = 0;
  uint32_t flows = 1;
  enum class Pattern { kPoisson, kPeriodic, kRandomPhase } pattern = Pattern::kPeriodic;
  uint32_t max_batch = 1;  // frames per sendmmsg() when several are due at once
};

/// Every scenario, with its frame counts times `scale` (at least 50 frames each).
std::vector<Scenario> allScenarios(double scale);
/// The pattern's name as scenarios.jsonl writes it.
const char* patternName(Scenario::Pattern p);

struct Schedule {
  std::vector<uint64_t> due_ns;  // from the start of sending
  std::vector<uint16_t> flow;
};

/// When each frame of the scenario is due and its flow (seeded: the same every run).
Schedule makeSchedule(const Scenario& s);

}  // namespace fastpath::fidelity
