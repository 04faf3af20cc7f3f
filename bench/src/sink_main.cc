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
#include "fp_bench_sink.skel.h"

namespace {

volatile sig_atomic_t g_stop = 0;

struct Attached {
  int ifindex;
  std::string name;
};

double bucketMidNs(unsigned b) {
  unsigned msb = b >> FP_BENCH_LAT_SUB_BITS;
  unsigned sub = b & ((1u << FP_BENCH_LAT_SUB_BITS) - 1);
  if (msb < FP_BENCH_LAT_SUB_BITS) return (double)b;  // exact small values
  double base = (double)(1ull << msb);
  double step = base / (1u << FP_BENCH_LAT_SUB_BITS);
  return base + step * (sub + 0.5);
}

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
  __u64 packets = 0, bytes = 0, gap_loss = 0, reordered = 0, first = ~0ull, last = 0;
  int seen = 0;
  double sum = 0, sum_sq = 0;
  int n_fair = expect_flows > 0 ? expect_flows : 0;
  std::vector<__u64> per_flow;
  for (__u32 i = 0; i < FP_BENCH_MAX_FLOWS; i++) {
    fp_bench_flow f{};
    if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.fp_bench_flows), &i, &f) != 0) continue;
    if (f.packets || f.next_seq) {
      seen++;
      packets += f.packets;
      bytes += f.bytes;
      gap_loss += f.next_seq > f.packets ? f.next_seq - f.packets : 0;
      reordered += f.reordered;
      if (f.first_ns && f.first_ns < first) first = f.first_ns;
      if (f.last_ns > last) last = f.last_ns;
    }
    if ((expect_flows > 0 && (int)i < expect_flows) || (expect_flows <= 0 && f.packets)) {
      sum += (double)f.packets;
      sum_sq += (double)f.packets * (double)f.packets;
    }
  }
  if (n_fair == 0) n_fair = seen;
  double jain = (n_fair > 0 && sum_sq > 0) ? sum * sum / (n_fair * sum_sq) : 0.0;
  std::vector<__u64> hist(FP_BENCH_LAT_BUCKETS, 0);
  __u64 total = 0;
  double lat_sum = 0;
  for (__u32 i = 0; i < FP_BENCH_LAT_BUCKETS; i++) {
    bpf_map_lookup_elem(bpf_map__fd(skel->maps.fp_bench_latency), &i, &hist[i]);
    total += hist[i];
    lat_sum += (double)hist[i] * bucketMidNs(i);
  }
  auto percentile = [&](double q) {
    if (!total) return 0.0;
    __u64 want = (__u64)(q * (double)total), acc = 0;
    for (__u32 i = 0; i < FP_BENCH_LAT_BUCKETS; i++) {
      acc += hist[i];
      if (acc > want) return bucketMidNs(i);
    }
    return 0.0;
  };
  __u64 glob[FP_BENCH_CNT_MAX] = {};
  for (__u32 i = 0; i < FP_BENCH_CNT_MAX; i++)
    bpf_map_lookup_elem(bpf_map__fd(skel->maps.fp_bench_global), &i, &glob[i]);
  std::printf(
      "{\"packets\": %llu, \"bytes\": %llu, \"flows_seen\": %d, \"gap_loss\": %llu, "
      "\"reordered\": %llu, \"jain\": %.4f, \"lat_p50_us\": %.2f, \"lat_p99_us\": %.2f, "
      "\"lat_mean_us\": %.2f, \"first_ns\": %llu, \"last_ns\": %llu, \"other\": %llu, "
      "\"bad_flow\": %llu}\n",
      (unsigned long long)packets, (unsigned long long)bytes, seen, (unsigned long long)gap_loss,
      (unsigned long long)reordered, jain, percentile(0.50) / 1e3, percentile(0.99) / 1e3,
      total ? lat_sum / (double)total / 1e3 : 0.0, (unsigned long long)(first == ~0ull ? 0 : first),
      (unsigned long long)last, (unsigned long long)glob[FP_BENCH_CNT_OTHER],
      (unsigned long long)glob[FP_BENCH_CNT_BAD_FLOW]);
  std::fflush(stdout);
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
