// SPDX-License-Identifier: GPL-2.0-only
// fp-link-fidelity: what fastpathd's link emulation does to real frames, against what it was
// configured to do. S -- R -- D in network namespaces (veth); in R one fastpathd (linked
// in-process, as the tests do) with nodes n1 (fp0, facing S) and n2 (fp1, facing D) joined
// by link l1, emulated in the direction n1 -> n2. S sends UDP frames carrying a flow, a
// sequence number and a CLOCK_REALTIME send stamp; D captures them on a packet socket with
// the kernel's receive stamp (SO_TIMESTAMPNS, taken when R's transmission enters D). Each
// scenario runs on a freshly started daemon (the worker's lateness histogram counts only its
// frames) and writes every received frame plus the daemon's counters; a last probe without
// traffic measures how late a thread like the worker wakes from ppoll(). The analysis
// (errors, throughput, loss intervals, plots) is bench/fidelity/link_fidelity.py's.
//
// Every traffic loop is bounded in frames and in time; SIGINT/SIGTERM stop the run between
// frames, and the namespaces and the daemon are removed on every way out.
//
// This file: the command line, the testbed and the loop over the scenarios
// (fidelity_scenarios, fidelity_traffic, fidelity_run, fidelity_output do the rest).
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench_netns.h"
#include "fastpath/log.h"
#include "fidelity_run.h"
#include "fidelity_scenarios.h"
#include "fidelity_traffic.h"

namespace fastpath::fidelity {
namespace {

void onSignal(int) { requestStop(); }

void usage() {
  std::printf(
      "usage: fp-link-fidelity --out DIR [options]   (root; normally run by link_fidelity.py)\n"
      "  --out DIR          where frames-<scenario>.csv and scenarios.jsonl are written\n"
      "  --only LIST        scenarios by kind or name, comma-separated (baseline, delay, rate,\n"
      "                     loss, gemodel, flows, timer, or e.g. rate-1gbit); default: all\n"
      "  --scale X          frames per scenario times X (0.05 for a smoke run); default 1\n"
      "  --worker-cpu N     CPU of fastpathd's worker (1)\n"
      "  --traffic-cpu N    CPU of the sender, the capture and D's receive work (0)\n"
      "  --rt-priority N|auto  the worker's SCHED_FIFO priority (auto, as fastpathd)\n"
      "  --napi-rt N        R's veth NAPI threaded, on the worker's CPU, SCHED_FIFO N (50);\n"
      "                     0: NAPI in softirq on the sender's CPU\n"
      "  --idle-poll-us N   the worker's sleep in poll() when idle (fastpathd's default 1000;\n"
      "                     0: never sleeps, spins)\n"
      "  --list             print the scenarios and exit\n");
}

int run(int argc, char** argv) {
  Options opt;
  bool list = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "fp-link-fidelity: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--out") {
      opt.out = next();
    } else if (a == "--only") {
      std::stringstream ss(next());
      std::string x;
      while (std::getline(ss, x, ','))
        if (!x.empty()) opt.only.push_back(x);
    } else if (a == "--scale") {
      opt.scale = std::atof(next().c_str());
    } else if (a == "--worker-cpu") {
      opt.worker_cpu = std::atoi(next().c_str());
    } else if (a == "--traffic-cpu") {
      opt.traffic_cpu = std::atoi(next().c_str());
    } else if (a == "--rt-priority") {
      const std::string v = next();
      opt.rt_priority = v == "auto" ? Config::kRtAuto : std::atoi(v.c_str());
    } else if (a == "--napi-rt") {
      opt.napi_rt = std::atoi(next().c_str());
    } else if (a == "--idle-poll-us") {
      opt.idle_poll_us = std::atoi(next().c_str());
    } else if (a == "--list") {
      list = true;
    } else if (a == "--help" || a == "-h") {
      usage();
      return 0;
    } else {
      std::fprintf(stderr, "fp-link-fidelity: unknown option %s (see --help)\n", a.c_str());
      return 2;
    }
  }
  std::vector<Scenario> scenarios;
  for (const auto& s : allScenarios(opt.scale > 0 ? opt.scale : 1.0))
    if (opt.only.empty() || std::find(opt.only.begin(), opt.only.end(), s.kind) != opt.only.end() ||
        std::find(opt.only.begin(), opt.only.end(), s.name) != opt.only.end())
      scenarios.push_back(s);
  if (list) {
    for (const auto& s : scenarios)
      std::printf("%-18s %-8s %6u B %10.0f frames/s %8llu frames\n", s.name.c_str(), s.kind.c_str(),
                  s.frame_len, s.pps, (unsigned long long)s.frames);
    return 0;
  }
  if (opt.out.empty()) {
    usage();
    return 2;
  }
  if (scenarios.empty()) {
    std::fprintf(stderr, "fp-link-fidelity: --only matched no scenario (see --list)\n");
    return 2;
  }
  std::string why;
  if (!bench::haveNetnsPrivileges(&why)) {
    std::fprintf(stderr, "fp-link-fidelity: %s\n", why.c_str());
    return 77;
  }
  mkdir(opt.out.c_str(), 0755);
  struct sigaction sa {};
  sa.sa_handler = onSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
  setLogLevel(LogLevel::kError);

  Testbed tb;
  tb.topo = std::make_unique<bench::NetnsTestbed>("fid");
  tb.s = tb.topo->addNamespace("s");
  tb.r = tb.topo->addNamespace("r");
  tb.d = tb.topo->addNamespace("d");
  tb.topo->addVeth(tb.s, "s0", tb.r, "fp0");
  tb.topo->addVeth(tb.r, "fp1", tb.d, "d0");
  if (!tb.topo->mac(tb.s, "s0", tb.s_mac.bytes.data()) ||
      !tb.topo->mac(tb.r, "fp0", tb.r0_mac.bytes.data()) ||
      !tb.topo->mac(tb.d, "d0", tb.d_mac.bytes.data())) {
    std::fprintf(stderr,
                 "fp-link-fidelity: the veth pairs were not created (ip link add failed?)\n");
    return 1;
  }
  // D's receive work on the traffic CPU (RPS; the stamp is taken before, when R's frame
  // enters D), so that the worker's CPU does R's work only.
  char mask[16];
  std::snprintf(mask, sizeof(mask), "%x", 1u << std::max(0, opt.traffic_cpu));
  tb.topo->exec(tb.d,
                std::string("sh -c 'echo ") + mask + " > /sys/class/net/d0/queues/rx-0/rps_cpus'");

  std::ofstream jsonl(opt.out + "/scenarios.jsonl", std::ios::trunc);
  int failures = 0;
  for (const auto& sc : scenarios) {
    if (stopRequested()) break;
    if (auto st = runScenario(opt, tb, sc, jsonl); !st) {
      std::fprintf(stderr, "fp-link-fidelity: %s\n", st.error().message.c_str());
      ++failures;
    }
  }
  if (stopRequested()) {
    std::fprintf(stderr, "fp-link-fidelity: interrupted; namespaces removed\n");
    return 130;
  }
  return failures ? 1 : 0;
}

}  // namespace
}  // namespace fastpath::fidelity

int main(int argc, char** argv) { return fastpath::fidelity::run(argc, argv); }
