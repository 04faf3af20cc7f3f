// SPDX-License-Identifier: GPL-2.0-only
// fp-afxdp-min: the minimal AF_XDP forwarder of the benchmark, the practical limit of
// AF_XDP copy mode on the path: one loop on one thread, one AF_XDP socket (queue 0, copy
// mode) per interface, each with its own UMEM (libxdp xsk_umem__create/xsk_socket__create),
// fp_bench_xsk.bpf.c redirecting IPv4 into it (loaded with libbpf, one instance per
// interface; ARP and IPv6 go to the kernel). Per received batch: static longest-prefix
// lookup, memcpy into a free frame of the egress port's UMEM, MAC rewrite, TTL decrement,
// the RX frames straight back to the fill ring, one sendto() per egress port and batch;
// completions reaped every loop. Idle, it sleeps in poll(). Every frame it does not
// forward is counted by reason; the counts are printed as JSON at exit (SIGINT/SIGTERM).
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <net/if.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <xdp/xsk.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_common.h"
#include "fp_bench_xsk.skel.h"

namespace fb = fastpath::bench;

namespace {
volatile sig_atomic_t g_stop = 0;
constexpr uint32_t kFrameSize = XSK_UMEM__DEFAULT_FRAME_SIZE;  // 4096
constexpr uint32_t kRingSize = XSK_RING_CONS__DEFAULT_NUM_DESCS;  // 2048
constexpr uint32_t kFrames = 2 * kRingSize;  // half on the fill ring, half for TX
constexpr uint32_t kBatch = 64;
constexpr uint32_t kMaxPorts = 8;

// Why a received frame was not forwarded (counters printed at exit).
struct Drops {
  unsigned long long not_forwardable = 0;  // shorter than IPv4, IPv4 options, TTL <= 1
  unsigned long long no_route = 0;         // no --route matches the destination
  unsigned long long no_tx_frame = 0;      // egress UMEM has no free frame (TX backlog)
  unsigned long long tx_ring_full = 0;     // egress TX ring had no room for the batch
};

struct Port {
  std::string name;
  int ifindex = 0;
  uint8_t mac[6] = {};
  fp_bench_xsk* skel = nullptr;
  bool attached = false;
  uint8_t* area = nullptr;
  xsk_umem* umem = nullptr;
  xsk_socket* xsk = nullptr;
  xsk_ring_prod fill{}, tx{};
  xsk_ring_cons comp{}, rx{};
  std::vector<uint64_t> free_tx;  // frames of this UMEM free for transmission
  uint32_t in_flight = 0;         // submitted to TX, not completed yet
  // Staged for TX in the current batch: (frame address, length).
  uint64_t stage_addr[kBatch];
  uint32_t stage_len[kBatch];
  uint32_t staged = 0;
  unsigned long long rx_frames = 0, tx_done = 0, sendto_errors = 0;
};

bool openPort(Port* p) {
  p->ifindex = (int)if_nametoindex(p->name.c_str());
  if (!p->ifindex || !fb::interfaceMac(p->name, p->mac)) {
    std::fprintf(stderr, "fp-afxdp-min: no interface '%s' here\n", p->name.c_str());
    return false;
  }
  const size_t size = (size_t)kFrames * kFrameSize;
  void* area = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                    -1, 0);
  if (area == MAP_FAILED) {
    std::fprintf(stderr, "fp-afxdp-min: mmap of the UMEM of %s: %s\n", p->name.c_str(),
                 std::strerror(errno));
    return false;
  }
  p->area = static_cast<uint8_t*>(area);
  xsk_umem_config ucfg{};
  ucfg.fill_size = kRingSize;
  ucfg.comp_size = kRingSize;
  ucfg.frame_size = kFrameSize;
  int err = xsk_umem__create(&p->umem, p->area, size, &p->fill, &p->comp, &ucfg);
  if (err) {
    std::fprintf(stderr, "fp-afxdp-min: xsk_umem__create for %s: %s (run as root)\n",
                 p->name.c_str(), std::strerror(-err));
    return false;
  }
  xsk_socket_config scfg{};
  scfg.rx_size = kRingSize;
  scfg.tx_size = kRingSize;
  scfg.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD;  // our own program, below
  scfg.bind_flags = XDP_COPY;
  err = xsk_socket__create(&p->xsk, p->name.c_str(), 0, p->umem, &p->rx, &p->tx, &scfg);
  if (err) {
    std::fprintf(stderr, "fp-afxdp-min: AF_XDP socket on %s queue 0: %s\n", p->name.c_str(),
                 std::strerror(-err));
    return false;
  }
  // Frames 0 .. kRingSize-1 on the fill ring, the rest free for TX.
  uint32_t idx = 0;
  if (xsk_ring_prod__reserve(&p->fill, kRingSize, &idx) != kRingSize) {
    std::fprintf(stderr, "fp-afxdp-min: fill ring of %s: reserve failed\n", p->name.c_str());
    return false;
  }
  for (uint32_t i = 0; i < kRingSize; i++)
    *xsk_ring_prod__fill_addr(&p->fill, idx + i) = (uint64_t)i * kFrameSize;
  xsk_ring_prod__submit(&p->fill, kRingSize);
  for (uint32_t i = kRingSize; i < kFrames; i++) p->free_tx.push_back((uint64_t)i * kFrameSize);

  p->skel = fp_bench_xsk__open_and_load();
  if (!p->skel) {
    std::fprintf(stderr, "fp-afxdp-min: loading the XDP program for %s: %s\n", p->name.c_str(),
                 std::strerror(errno));
    return false;
  }
  err = xsk_socket__update_xskmap(p->xsk, bpf_map__fd(p->skel->maps.fp_afxdp_xsks));
  if (err) {
    std::fprintf(stderr, "fp-afxdp-min: socket of %s into the xskmap: %s\n", p->name.c_str(),
                 std::strerror(-err));
    return false;
  }
  err = bpf_xdp_attach(p->ifindex, bpf_program__fd(p->skel->progs.xdp_fp_bench_to_xsk),
                       XDP_FLAGS_DRV_MODE, nullptr);
  if (err) {
    std::fprintf(stderr, "fp-afxdp-min: XDP attach (native) on %s: %s\n", p->name.c_str(),
                 std::strerror(-err));
    return false;
  }
  p->attached = true;
  return true;
}

void closePort(Port* p) {
  if (p->attached) bpf_xdp_detach(p->ifindex, XDP_FLAGS_DRV_MODE, nullptr);
  if (p->xsk) xsk_socket__delete(p->xsk);
  if (p->umem) xsk_umem__delete(p->umem);
  if (p->skel) fp_bench_xsk__destroy(p->skel);
  if (p->area) munmap(p->area, (size_t)kFrames * kFrameSize);
}

// Completed transmissions: their frames are free again.
void reap(Port* p) {
  uint32_t idx = 0;
  const uint32_t n = xsk_ring_cons__peek(&p->comp, kRingSize, &idx);
  for (uint32_t i = 0; i < n; i++) p->free_tx.push_back(*xsk_ring_cons__comp_addr(&p->comp, idx + i));
  if (n) {
    xsk_ring_cons__release(&p->comp, n);
    p->in_flight -= n;
    p->tx_done += n;
  }
}

// Copy mode transmits only inside sendto(); frames it could not take now stay on the ring.
void kick(Port* p) {
  if (sendto(xsk_socket__fd(p->xsk), nullptr, 0, MSG_DONTWAIT, nullptr, 0) < 0 &&
      errno != EAGAIN && errno != EBUSY && errno != ENOBUFS && errno != ENETDOWN)
    p->sendto_errors++;
}

// The staged frames of an egress port onto its TX ring, one sendto().
void flush(Port* p, Drops* drops) {
  if (!p->staged) return;
  uint32_t idx = 0;
  if (xsk_ring_prod__reserve(&p->tx, p->staged, &idx) != p->staged) {
    drops->tx_ring_full += p->staged;
    for (uint32_t i = 0; i < p->staged; i++) p->free_tx.push_back(p->stage_addr[i]);
    p->staged = 0;
    return;
  }
  for (uint32_t i = 0; i < p->staged; i++) {
    xdp_desc* d = xsk_ring_prod__tx_desc(&p->tx, idx + i);
    d->addr = p->stage_addr[i];
    d->len = p->stage_len[i];
    d->options = 0;
  }
  xsk_ring_prod__submit(&p->tx, p->staged);
  p->in_flight += p->staged;
  p->staged = 0;
  kick(p);
}

// One RX batch of port `in`: returns the frames received.
uint32_t forward(Port* in, std::vector<Port>& ports, const std::vector<fb::StaticRoute>& routes,
                 const std::vector<int>& route_port, Drops* drops) {
  uint32_t idx_rx = 0, idx_fill = 0;
  const uint32_t n = xsk_ring_cons__peek(&in->rx, kBatch, &idx_rx);
  if (!n) return 0;
  // Every RX frame goes back to the fill ring (it was copied): the ring always has room,
  // it held these frames before the kernel used them.
  while (xsk_ring_prod__reserve(&in->fill, n, &idx_fill) != n) {
  }
  for (uint32_t i = 0; i < n; i++) {
    const xdp_desc* d = xsk_ring_cons__rx_desc(&in->rx, idx_rx + i);
    const uint8_t* f = static_cast<uint8_t*>(xsk_umem__get_data(in->area, d->addr));
    *xsk_ring_prod__fill_addr(&in->fill, idx_fill + i) = xsk_umem__extract_addr(d->addr);
    const uint32_t len = d->len;
    if (len < 34 || f[14] != 0x45 || f[22] <= 1) {
      drops->not_forwardable++;
      continue;
    }
    uint32_t dst;
    std::memcpy(&dst, f + 30, 4);
    const fb::StaticRoute* r = fb::lookupRoute(routes, dst);
    if (!r) {
      drops->no_route++;
      continue;
    }
    Port& out = ports[(size_t)route_port[(size_t)(r - routes.data())]];
    if (out.free_tx.empty()) {
      drops->no_tx_frame++;
      continue;
    }
    const uint64_t addr = out.free_tx.back();
    out.free_tx.pop_back();
    uint8_t* o = static_cast<uint8_t*>(xsk_umem__get_data(out.area, addr));
    std::memcpy(o, f, len);
    std::memcpy(o, r->next_hop_mac, 6);
    std::memcpy(o + 6, out.mac, 6);
    fb::decrementTtl(o + 14);
    out.stage_addr[out.staged] = addr;
    out.stage_len[out.staged] = len;
    out.staged++;
  }
  xsk_ring_prod__submit(&in->fill, n);
  xsk_ring_cons__release(&in->rx, n);
  in->rx_frames += n;
  for (auto& p : ports) flush(&p, drops);
  return n;
}

void usage(FILE* to) {
  std::fprintf(to,
               "usage: fp-afxdp-min --ifname IF... --route PREFIX/LEN,IFNAME,NEXTHOP_MAC... [--cpu N]\n"
               "  Minimal AF_XDP IPv4 forwarder (copy mode, one UMEM per interface, one loop):\n"
               "  static routes, MAC rewrite, TTL decrement. Prints {\"ready\": true} once\n"
               "  attached, its counters as JSON at SIGINT/SIGTERM. The receiving veth peers\n"
               "  need no XDP program (transmission goes through the kernel's xmit path).\n");
}
}  // namespace

int main(int argc, char** argv) {
  std::vector<Port> ports;
  int exit_code = 2;
  const auto args = fb::parseForwarderArgs("fp-afxdp-min", argc, argv, usage, &exit_code);
  if (!args) return exit_code;
  const std::vector<std::string>& names = args->ifnames;
  const std::vector<fb::StaticRoute>& routes = args->routes;
  const int cpu = args->cpu;
  if (names.empty() || names.size() > kMaxPorts || routes.empty()) {
    std::fprintf(stderr, "fp-afxdp-min: give 1..%u --ifname and at least one --route\n", kMaxPorts);
    return 2;
  }
  std::vector<int> route_port(routes.size(), -1);
  for (size_t i = 0; i < routes.size(); i++) {
    for (size_t j = 0; j < names.size(); j++)
      if (names[j] == routes[i].ifname) route_port[i] = (int)j;
    if (route_port[i] < 0) {
      std::fprintf(stderr, "fp-afxdp-min: route via '%s', which is not an --ifname\n",
                   routes[i].ifname.c_str());
      return 2;
    }
  }
  std::signal(SIGINT, [](int) { g_stop = 1; });
  std::signal(SIGTERM, [](int) { g_stop = 1; });
  if (cpu >= 0 && !fb::pinToCpu(cpu)) {
    std::fprintf(stderr, "fp-afxdp-min: cannot pin to CPU %d: %s\n", cpu, std::strerror(errno));
    return 1;
  }
  ports.resize(names.size());
  int rc = 0;
  for (size_t i = 0; i < names.size() && rc == 0; i++) {
    ports[i].name = names[i];
    if (!openPort(&ports[i])) rc = 1;
  }
  Drops drops;
  if (rc == 0) {
    std::vector<pollfd> pfds;
    for (auto& p : ports) pfds.push_back({xsk_socket__fd(p.xsk), POLLIN, 0});
    std::printf("{\"ready\": true}\n");
    std::fflush(stdout);
    while (!g_stop) {
      uint32_t work = 0;
      for (auto& p : ports) work += forward(&p, ports, routes, route_port, &drops);
      bool pending = false;
      for (auto& p : ports) {
        reap(&p);
        pending |= p.in_flight > 0;
      }
      if (work) continue;
      // Idle: transmissions sendto() left on a ring are pushed again; sleep until a frame
      // arrives (1 ms while transmissions are outstanding, to reap them).
      for (auto& p : ports)
        if (p.in_flight) kick(&p);
      poll(pfds.data(), pfds.size(), pending ? 1 : 200);
    }
  }
  unsigned long long rx = 0, tx = 0, sendto_errors = 0;
  std::string xsk_stats;
  for (auto& p : ports) {
    rx += p.rx_frames;
    tx += p.tx_done;
    sendto_errors += p.sendto_errors;
    if (p.xsk) {
      xdp_statistics st{};
      socklen_t len = sizeof(st);
      if (getsockopt(xsk_socket__fd(p.xsk), SOL_XDP, XDP_STATISTICS, &st, &len) == 0) {
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      "%s\"%s\": {\"rx_dropped\": %llu, \"rx_ring_full\": %llu, "
                      "\"fill_ring_empty\": %llu, \"tx_invalid\": %llu}",
                      xsk_stats.empty() ? "" : ", ", p.name.c_str(),
                      (unsigned long long)st.rx_dropped, (unsigned long long)st.rx_ring_full,
                      (unsigned long long)st.rx_fill_ring_empty_descs,
                      (unsigned long long)st.tx_invalid_descs);
        xsk_stats += buf;
      }
    }
    closePort(&p);
  }
  std::printf("{\"rx\": %llu, \"tx\": %llu, \"not_forwardable\": %llu, \"no_route\": %llu, "
              "\"no_tx_frame\": %llu, \"tx_ring_full\": %llu, \"sendto_errors\": %llu, "
              "\"xsk\": {%s}}\n",
              rx, tx, drops.not_forwardable, drops.no_route, drops.no_tx_frame, drops.tx_ring_full,
              sendto_errors, xsk_stats.c_str());
  std::fflush(stdout);
  return rc;
}
