// SPDX-License-Identifier: GPL-2.0-only
// One fp-link-fidelity scenario on the testbed S -- R -- D: a fresh fastpathd in R (nodes
// n1 and n2 joined by link l1, emulated n1 -> n2), warm-up, the scenario's traffic from S
// captured at D, the drain, and the scenario's line in scenarios.jsonl and frames file.
#pragma once

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "bench_netns.h"
#include "daemon/daemon.h"
#include "fidelity_scenarios.h"

namespace fastpath::fidelity {

struct Options {
  std::string out;
  int worker_cpu = 1;
  int traffic_cpu = 0;
  int rt_priority = Config::kRtAuto;
  int idle_poll_us = -1;  // -1: fastpathd's default
  int napi_rt = 50;       // R's veth NAPI threaded at SCHED_FIFO N on the worker's CPU; 0: softirq
  std::vector<std::string> only;  // kinds or names; empty: all
  double scale = 1.0;
};

/// The namespaces (S, R, D) and the MAC addresses the frames and the daemon need.
struct Testbed {
  std::unique_ptr<bench::NetnsTestbed> topo;
  std::string s, r, d;
  MacAddress s_mac, r0_mac, d_mac;
};

/// Runs one scenario (the timer probe for kind "timer") and appends its results.
Status runScenario(const Options& opt, Testbed& tb, const Scenario& sc, std::ofstream& jsonl);

}  // namespace fastpath::fidelity
