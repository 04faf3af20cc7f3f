// SPDX-License-Identifier: GPL-2.0-only
// fp-xdpfwd: the XDP-only baseline router of the benchmark (fp_bench_xdpfwd.bpf.c) —
// LPM, MAC rewrite, TTL / hop-limit decrement, devmap redirect, all in XDP, IPv4 and IPv6.
// Attaches on every --ifname, installs the --route entries (IPv4 or IPv6 prefixes), runs
// until SIGINT/SIGTERM, then detaches.
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <getopt.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_common.h"
#include "fp_bench_xdpfwd.skel.h"

namespace fb = fastpath::bench;

namespace {
volatile sig_atomic_t g_stop = 0;

struct LpmKey {
  __u32 prefixlen;
  __u32 addr;
};
struct LpmKey6 {
  __u32 prefixlen;
  __u8 addr[16];
};
struct NextHop {
  __u32 port;
  __u8 src_mac[6];
  __u8 dst_mac[6];
};
}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> ifnames;
  std::vector<fb::StaticRoute> routes;
  bool skb_mode = false;
  static const option longopts[] = {{"ifname", required_argument, nullptr, 'i'},
                                    {"route", required_argument, nullptr, 'r'},
                                    {"skb-mode", no_argument, nullptr, 's'},
                                    {"help", no_argument, nullptr, 'h'},
                                    {nullptr, 0, nullptr, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "h", longopts, nullptr)) != -1) {
    if (c == 'i') {
      ifnames.push_back(optarg);
    } else if (c == 'r') {
      std::string err;
      auto r = fb::parseRoute(optarg, &err);
      if (!r) {
        std::fprintf(stderr, "fp-xdpfwd: %s\n", err.c_str());
        return 2;
      }
      routes.push_back(*r);
    } else if (c == 's') {
      skb_mode = true;
    } else {
      std::fprintf(c == 'h' ? stdout : stderr,
                   "usage: fp-xdpfwd --ifname IF... --route PREFIX/LEN,IFNAME,NEXTHOP_MAC...\n"
                   "  XDP-only IPv4/IPv6 forwarding between the given interfaces (native mode;\n"
                   "  --skb-mode for generic XDP). Frames it cannot forward go to the kernel.\n"
                   "  Runs until SIGINT/SIGTERM. The receiving veth peers need an XDP program.\n");
      return c == 'h' ? 0 : 2;
    }
  }
  if (ifnames.empty() || routes.empty()) {
    std::fprintf(stderr, "fp-xdpfwd: give at least one --ifname and one --route\n");
    return 2;
  }
  std::signal(SIGINT, [](int) { g_stop = 1; });
  std::signal(SIGTERM, [](int) { g_stop = 1; });

  fp_bench_xdpfwd* skel = fp_bench_xdpfwd__open_and_load();
  if (!skel) {
    std::fprintf(stderr, "fp-xdpfwd: loading the XDP program failed: %s\n", std::strerror(errno));
    return 1;
  }
  std::vector<int> ifindexes;
  int rc = 0;
  const __u32 mode = skb_mode ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE;
  for (size_t i = 0; i < ifnames.size() && rc == 0; i++) {
    int idx = (int)if_nametoindex(ifnames[i].c_str());
    if (!idx) {
      std::fprintf(stderr, "fp-xdpfwd: no interface '%s'\n", ifnames[i].c_str());
      rc = 1;
      break;
    }
    __u32 key = (__u32)i, val = (__u32)idx;
    if (bpf_map_update_elem(bpf_map__fd(skel->maps.fp_xdpfwd_ports), &key, &val, BPF_ANY)) {
      std::fprintf(stderr, "fp-xdpfwd: devmap entry for %s: %s\n", ifnames[i].c_str(),
                   std::strerror(errno));
      rc = 1;
      break;
    }
    int err = bpf_xdp_attach(idx, bpf_program__fd(skel->progs.xdp_fp_bench_fwd), mode, nullptr);
    if (err) {
      std::fprintf(stderr, "fp-xdpfwd: XDP attach on %s: %s\n", ifnames[i].c_str(),
                   std::strerror(-err));
      rc = 1;
      break;
    }
    ifindexes.push_back(idx);
  }
  for (const auto& r : routes) {
    if (rc) break;
    size_t port = 0;
    while (port < ifnames.size() && ifnames[port] != r.ifname) port++;
    if (port == ifnames.size()) {
      std::fprintf(stderr, "fp-xdpfwd: route via '%s', which is not an --ifname\n",
                   r.ifname.c_str());
      rc = 2;
      break;
    }
    LpmKey key{(__u32)r.length, r.prefix_be};
    LpmKey6 key6{(__u32)r.length, {}};
    std::memcpy(key6.addr, r.prefix6, 16);
    NextHop nh{};
    nh.port = (__u32)port;
    std::memcpy(nh.dst_mac, r.next_hop_mac, 6);
    const int map = r.family == 4 ? bpf_map__fd(skel->maps.fp_xdpfwd_routes)
                                  : bpf_map__fd(skel->maps.fp_xdpfwd_routes6);
    const void* k = r.family == 4 ? static_cast<const void*>(&key) : &key6;
    if (!fb::interfaceMac(r.ifname, nh.src_mac) || bpf_map_update_elem(map, k, &nh, BPF_ANY)) {
      std::fprintf(stderr, "fp-xdpfwd: installing route via %s failed\n", r.ifname.c_str());
      rc = 1;
    }
  }
  if (rc == 0) {
    std::printf("{\"ready\": true}\n");
    std::fflush(stdout);
    while (!g_stop) pause();
  }
  for (int idx : ifindexes) bpf_xdp_detach(idx, mode, nullptr);
  fp_bench_xdpfwd__destroy(skel);
  return rc;
}
