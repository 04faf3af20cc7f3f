// SPDX-License-Identifier: GPL-2.0-only
// ns/frame of xdp_fp_classify per class, measured by the kernel (BPF_PROG_TEST_RUN with
// `repeat`; the reported per-repetition duration becomes the benchmark's manual time).
// Needs root. Two variants per frame:
//   xsk     an AF_XDP socket is bound, so DATA/CONTROL/PUNT take the full deliver path
//           (bpf_xdp_adjust_meta + bpf_redirect_map). test_run reuses one xdp_buff across
//           repetitions, so from the third repetition adjust_meta finds no room and counts
//           meta_failed instead of writing the 12-byte meta: a few stores fewer, one
//           counter more; the same order of cost.
//   no_xsk  no socket bound: classification + the no-XSK fallback, no metadata.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "classifier_fixtures.h"

namespace fastpath::testing {
namespace {

constexpr uint32_t kRepeat = 20000;

struct Sample {
  const char* name;
  const char* fixture;  // description in fixtures()
};

constexpr Sample kSamples[] = {
    {"data_ipv4_udp", "ipv4 udp data"},
    {"data_ipv4_tcp", "ipv4 tcp data"},
    {"data_ipv4_qinq", "802.1ad+802.1Q ipv4 data"},
    {"data_ipv6_udp", "ipv6 udp data"},
    {"data_ipv6_4ext", "ipv6 4 ext headers (max depth) data"},
    {"control_arp", "arp request (broadcast)"},
    {"control_udp_port", "udp port rule OLSR 698"},
    {"control_local_v4", "ipv4 to local address"},
    {"control_local_v6", "ipv6 to local address"},
    {"control_multicast_v4", "ipv4 multicast 224.0.0.9"},
    {"control_icmpv6_nd", "icmpv6 neighbour solicitation"},
    {"punt_ttl", "ipv4 ttl 1"},
    {"punt_options", "ipv4 options"},
    {"punt_fragment", "ipv4 first fragment (MF)"},
    {"punt_ipv6_ext_depth", "ipv6 5 ext headers (beyond depth)"},
    {"punt_unknown_l3", "unknown ethertype"},
    {"pass_rule", "tcp port rule PASS (ssh 22)"},
};

ClassifierEnv* env(bool xsk) {
  static std::unique_ptr<ClassifierEnv> with, without;
  std::unique_ptr<ClassifierEnv>& e = xsk ? with : without;
  if (!e) {
    e = std::make_unique<ClassifierEnv>();
    std::string err = e->open(xsk);
    if (!err.empty()) {
      std::fprintf(stderr, "classifier_bench: %s (run as root)\n", err.c_str());
      e.reset();
      return nullptr;
    }
  }
  return e.get();
}

void bmClassify(benchmark::State& state, const Sample& sample, bool xsk) {
  ClassifierEnv* e = env(xsk);
  if (!e) {
    state.SkipWithError("cannot load the classifier (root needed)");
    return;
  }
  Bytes frame;
  for (const Fixture& f : fixtures())
    if (f.description == sample.fixture) frame = f.frame;
  if (frame.empty()) {
    state.SkipWithError("fixture not found");
    return;
  }
  for (auto _ : state) {
    RunResult r = runFrame(e->cls->progFd(), frame, kRepeat);
    if (r.err) {
      state.SkipWithError("BPF_PROG_TEST_RUN failed");
      return;
    }
    state.SetIterationTime(r.duration * 1e-9);  // kernel-measured ns per repetition
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["bytes"] = static_cast<double>(frame.size());
}

int registerAll() {
  for (const Sample& s : kSamples)
    for (bool xsk : {true, false})
      benchmark::RegisterBenchmark(
          (std::string("classify/") + s.name + (xsk ? "/xsk" : "/no_xsk")).c_str(),
          [&s, xsk](benchmark::State& st) { bmClassify(st, s, xsk); })
          ->UseManualTime()
          ->Iterations(50)  // manual time is ~tens of ns per iteration: fix the count
          // The machine is shared: the minimum over repetitions is the best estimate of the
          // program's own cost, the median shows the noise.
          ->Repetitions(7)
          ->ComputeStatistics(
              "min",
              [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); })
          ->ReportAggregatesOnly(true)
          ->Unit(benchmark::kNanosecond);
  return 0;
}

const int kRegistered = registerAll();

}  // namespace
}  // namespace fastpath::testing

BENCHMARK_MAIN();
