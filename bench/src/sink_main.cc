// SPDX-License-Identifier: GPL-2.0-only
// fp-sink: loads the XDP sink (fp_bench_sink.bpf.c) on D's interface and serves the
// harness over stdin/stdout, one command per line:
//   reset           zero all counters (before a run)
//   read [FLOWS]    print one JSON line: packets, bytes, sequence-gap loss, reordering,
//                   Jain's fairness over FLOWS flows (default: flows seen), latency
//                   p50/p99/mean from the histogram
//   quit            detach and exit (also on EOF, SIGINT, SIGTERM)
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <getopt.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "fp_bench.h"
#include "sink_report.h"
#include "fp_bench_sink.skel.h"

namespace {

volatile sig_atomic_t g_stop = 0;

struct Attached {
  int ifindex;
  std::string name;
};

void resetMaps(fp_bench_sink* skel) {
  fp_bench_flow zero_flow{};
  for (__u32 i = 0; i < FP_BENCH_MAX_FLOWS; i++)
    bpf_map_update_elem(bpf_map__fd(skel->maps.fp_bench_flows), &i, &zero_flow, BPF_ANY);
  __u64 zero = 0;
  for (__u32 i = 0; i < FP_BENCH_LAT_BUCKETS; i++)
    bpf_map_update_elem(bpf_map__fd(skel->maps.fp_bench_latency), &i, &zero, BPF_ANY);
  for (__u32 i = 0; i < FP_BENCH_CNT_MAX; i++)
    bpf_map_update_elem(bpf_map__fd(skel->maps.fp_bench_global), &i, &zero, BPF_ANY);
}

void printRead(fp_bench_sink* skel, int expect_flows) {
  std::vector<fp_bench_flow> flows(FP_BENCH_MAX_FLOWS);
  for (__u32 i = 0; i < FP_BENCH_MAX_FLOWS; i++)
    if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.fp_bench_flows), &i, &flows[i]) != 0)
      flows[i] = fp_bench_flow{};
  std::vector<uint64_t> hist(FP_BENCH_LAT_BUCKETS, 0);
  for (__u32 i = 0; i < FP_BENCH_LAT_BUCKETS; i++) {
    __u64 v = 0;
    bpf_map_lookup_elem(bpf_map__fd(skel->maps.fp_bench_latency), &i, &v);
    hist[i] = v;
  }
  __u64 glob[FP_BENCH_CNT_MAX] = {};
  for (__u32 i = 0; i < FP_BENCH_CNT_MAX; i++)
    bpf_map_lookup_elem(bpf_map__fd(skel->maps.fp_bench_global), &i, &glob[i]);
  fastpath::bench::printSinkRead(flows, hist, glob[FP_BENCH_CNT_OTHER],
                                 glob[FP_BENCH_CNT_BAD_FLOW], expect_flows);
}

}  // namespace

int main(int argc, char** argv) {
  std::string ifname;
  std::vector<std::string> pass_ifs;
  int port = FP_BENCH_UDP_PORT;
  static const option longopts[] = {{"ifname", required_argument, nullptr, 'i'},
                                    {"pass-ifname", required_argument, nullptr, 'p'},
                                    {"port", required_argument, nullptr, 'P'},
                                    {"help", no_argument, nullptr, 'h'},
                                    {nullptr, 0, nullptr, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "h", longopts, nullptr)) != -1) {
    if (c == 'i')
      ifname = optarg;
    else if (c == 'p')
      pass_ifs.push_back(optarg);
    else if (c == 'P')
      port = std::atoi(optarg);
    else {
      std::fprintf(c == 'h' ? stdout : stderr,
                   "usage: fp-sink --ifname IF [--pass-ifname IF ...] [--port N]\n"
                   "  Attaches the counting XDP sink (native mode) on IF and an XDP_PASS\n"
                   "  program on each --pass-ifname (veth peers that receive redirects).\n"
                   "  Then reads commands on stdin: reset | read [FLOWS] | quit.\n");
      return c == 'h' ? 0 : 2;
    }
  }
  if (ifname.empty()) {
    std::fprintf(stderr, "fp-sink: --ifname is required\n");
    return 2;
  }
  std::signal(SIGINT, [](int) { g_stop = 1; });
  std::signal(SIGTERM, [](int) { g_stop = 1; });
  std::signal(SIGPIPE, SIG_IGN);

  fp_bench_sink* skel = fp_bench_sink__open();
  if (!skel) {
    std::fprintf(stderr, "fp-sink: cannot open the BPF skeleton: %s\n", std::strerror(errno));
    return 1;
  }
  skel->rodata->bench_udp_port = (__u16)port;
  if (int err = fp_bench_sink__load(skel); err) {
    std::fprintf(stderr, "fp-sink: loading the XDP sink failed: %s (root? kernel BPF?)\n",
                 std::strerror(-err));
    fp_bench_sink__destroy(skel);
    return 1;
  }
  std::vector<Attached> attached;
  auto attach = [&](const std::string& name, bpf_program* prog) {
    int idx = (int)if_nametoindex(name.c_str());
    if (!idx) {
      std::fprintf(stderr, "fp-sink: no interface '%s' in this namespace\n", name.c_str());
      return false;
    }
    int err = bpf_xdp_attach(idx, bpf_program__fd(prog), XDP_FLAGS_DRV_MODE, nullptr);
    if (err) {
      std::fprintf(stderr, "fp-sink: native XDP attach on %s failed: %s\n", name.c_str(),
                   std::strerror(-err));
      return false;
    }
    attached.push_back({idx, name});
    return true;
  };
  bool ok = attach(ifname, skel->progs.xdp_fp_bench_sink);
  for (const auto& p : pass_ifs) ok = ok && attach(p, skel->progs.xdp_fp_bench_pass);
  if (ok) {
    resetMaps(skel);
    std::printf("{\"ready\": true, \"ifname\": \"%s\"}\n", ifname.c_str());
    std::fflush(stdout);
    std::string line;
    while (!g_stop) {
      pollfd pfd{0, POLLIN, 0};
      int r = poll(&pfd, 1, 200);
      if (r < 0 && errno != EINTR) break;
      if (r <= 0) continue;
      if (!std::getline(std::cin, line)) break;
      if (line == "reset") {
        resetMaps(skel);
        std::printf("{\"reset\": true}\n");
        std::fflush(stdout);
      } else if (line.rfind("read", 0) == 0) {
        printRead(skel, line.size() > 5 ? std::atoi(line.c_str() + 5) : 0);
      } else if (line == "quit") {
        break;
      } else if (!line.empty()) {
        std::printf("{\"error\": \"unknown command '%s'\"}\n", line.c_str());
        std::fflush(stdout);
      }
    }
  }
  for (const auto& a : attached) bpf_xdp_detach(a.ifindex, XDP_FLAGS_DRV_MODE, nullptr);
  fp_bench_sink__destroy(skel);
  return ok ? 0 : 1;
}
