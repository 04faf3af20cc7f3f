// SPDX-License-Identifier: GPL-2.0-only
// fp-rawfwd: the raw-socket userspace IPv4 forwarder of the benchmark (the thesis's
// "data plane in userspace"): one AF_PACKET socket per interface, batched recvmmsg(),
// static longest-prefix table, MAC rewrite, TTL decrement, batched sendmmsg() with
// PACKET_QDISC_BYPASS. Single thread; runs until SIGINT/SIGTERM. Kernel IP forwarding
// must be off in its namespace (the kernel still sees and drops the frames, as it did in
// the thesis's setup).
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_common.h"

namespace fb = fastpath::bench;

namespace {
volatile sig_atomic_t g_stop = 0;
constexpr int kBatch = 64;
constexpr int kFrame = 2048;

struct Port {
  std::string name;
  int ifindex = 0;
  int fd = -1;
  uint8_t mac[6] = {};
  // TX staging for this egress port.
  std::vector<uint8_t> tx_buf;
  mmsghdr tx_msgs[kBatch];
  iovec tx_iov[kBatch];
  int tx_count = 0;
  unsigned long long tx_ok = 0, tx_fail = 0;
};

bool openPort(Port* p) {
  p->ifindex = (int)if_nametoindex(p->name.c_str());
  if (!p->ifindex || !fb::interfaceMac(p->name, p->mac)) {
    std::fprintf(stderr, "fp-rawfwd: no interface '%s' here\n", p->name.c_str());
    return false;
  }
  p->fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_IP));
  if (p->fd < 0) {
    std::fprintf(stderr, "fp-rawfwd: socket(AF_PACKET): %s (run as root)\n", std::strerror(errno));
    return false;
  }
  int one = 1;
  setsockopt(p->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
  setsockopt(p->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
  int buf = 8 << 20;
  setsockopt(p->fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf));
  setsockopt(p->fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf));
  sockaddr_ll sll{};
  sll.sll_family = AF_PACKET;
  sll.sll_protocol = htons(ETH_P_IP);
  sll.sll_ifindex = p->ifindex;
  if (bind(p->fd, reinterpret_cast<sockaddr*>(&sll), sizeof(sll)) != 0) {
    std::fprintf(stderr, "fp-rawfwd: bind to %s: %s\n", p->name.c_str(), std::strerror(errno));
    return false;
  }
  p->tx_buf.assign((size_t)kBatch * kFrame, 0);
  for (int i = 0; i < kBatch; i++) {
    p->tx_iov[i] = {&p->tx_buf[(size_t)i * kFrame], 0};
    std::memset(&p->tx_msgs[i], 0, sizeof(mmsghdr));
    p->tx_msgs[i].msg_hdr.msg_iov = &p->tx_iov[i];
    p->tx_msgs[i].msg_hdr.msg_iovlen = 1;
  }
  return true;
}

void flush(Port* p) {
  int off = 0;
  while (off < p->tx_count) {
    int r = sendmmsg(p->fd, p->tx_msgs + off, (unsigned)(p->tx_count - off), 0);
    if (r <= 0) {
      p->tx_fail += (unsigned long long)(p->tx_count - off);
      break;
    }
    p->tx_ok += (unsigned long long)r;
    off += r;
  }
  p->tx_count = 0;
}
}  // namespace

static void usage(FILE* to) {
  std::fprintf(to, "usage: fp-rawfwd --ifname IF... --route PREFIX/LEN,IFNAME,NEXTHOP_MAC... "
                   "[--cpu N]\n");
}

int main(int argc, char** argv) {
  std::vector<Port> ports;
  std::vector<fb::StaticRoute> routes;
  int cpu = -1;
  int exit_code = 2;
  const auto args = fb::parseForwarderArgs("fp-rawfwd", argc, argv, usage, &exit_code);
  if (!args) return exit_code;
  routes = args->routes;
  cpu = args->cpu;
  ports.reserve(16);
  for (const std::string& name : args->ifnames) {
    ports.emplace_back();
    ports.back().name = name;
  }
  if (ports.empty() || ports.size() > 16 || routes.empty()) {
    std::fprintf(stderr, "fp-rawfwd: give 1..16 --ifname and at least one --route\n");
    return 2;
  }
  std::signal(SIGINT, [](int) { g_stop = 1; });
  std::signal(SIGTERM, [](int) { g_stop = 1; });
  if (cpu >= 0 && !fb::pinToCpu(cpu)) {
    std::fprintf(stderr, "fp-rawfwd: cannot pin to CPU %d: %s\n", cpu, std::strerror(errno));
    return 1;
  }
  for (auto& p : ports)
    if (!openPort(&p)) return 1;
  std::vector<int> route_port(routes.size(), -1);
  for (size_t i = 0; i < routes.size(); i++) {
    for (size_t j = 0; j < ports.size(); j++)
      if (ports[j].name == routes[i].ifname) route_port[i] = (int)j;
    if (route_port[i] < 0) {
      std::fprintf(stderr, "fp-rawfwd: route via '%s', which is not an --ifname\n",
                   routes[i].ifname.c_str());
      return 2;
    }
  }

  std::vector<uint8_t> rx_buf((size_t)kBatch * kFrame);
  mmsghdr rx_msgs[kBatch];
  iovec rx_iov[kBatch];
  sockaddr_ll rx_addr[kBatch];
  std::vector<pollfd> pfds;
  for (auto& p : ports) pfds.push_back({p.fd, POLLIN, 0});
  std::printf("{\"ready\": true}\n");
  std::fflush(stdout);
  unsigned long long rx = 0, dropped = 0;
  while (!g_stop) {
    if (poll(pfds.data(), pfds.size(), 200) <= 0) continue;
    for (size_t pi = 0; pi < ports.size(); pi++) {
      if (!(pfds[pi].revents & POLLIN)) continue;
      for (int i = 0; i < kBatch; i++) {
        rx_iov[i] = {&rx_buf[(size_t)i * kFrame], kFrame};
        std::memset(&rx_msgs[i], 0, sizeof(mmsghdr));
        rx_msgs[i].msg_hdr.msg_iov = &rx_iov[i];
        rx_msgs[i].msg_hdr.msg_iovlen = 1;
        rx_msgs[i].msg_hdr.msg_name = &rx_addr[i];
        rx_msgs[i].msg_hdr.msg_namelen = sizeof(sockaddr_ll);
      }
      int n = recvmmsg(ports[pi].fd, rx_msgs, kBatch, MSG_DONTWAIT, nullptr);
      if (n <= 0) continue;
      rx += (unsigned long long)n;
      for (int i = 0; i < n; i++) {
        uint8_t* f = &rx_buf[(size_t)i * kFrame];
        size_t len = rx_msgs[i].msg_len;
        // Only frames addressed to this port's MAC, plain IPv4 header, TTL > 1.
        if (rx_addr[i].sll_pkttype != PACKET_HOST || len < 34 || f[14] != 0x45 || f[22] <= 1) {
          dropped++;
          continue;
        }
        uint32_t dst;
        std::memcpy(&dst, f + 30, 4);
        const fb::StaticRoute* r = fb::lookupRoute(routes, dst);
        if (!r) {
          dropped++;
          continue;
        }
        Port& out = ports[(size_t)route_port[(size_t)(r - routes.data())]];
        fb::decrementTtl(f + 14);
        std::memcpy(f, r->next_hop_mac, 6);
        std::memcpy(f + 6, out.mac, 6);
        // Copy into the egress batch (the thesis's forwarder also copied once).
        std::memcpy(&out.tx_buf[(size_t)out.tx_count * kFrame], f, len);
        out.tx_iov[out.tx_count].iov_len = len;
        if (++out.tx_count == kBatch) flush(&out);
      }
      for (auto& p : ports)
        if (p.tx_count) flush(&p);
    }
  }
  unsigned long long tx = 0, fail = 0;
  for (auto& p : ports) {
    tx += p.tx_ok;
    fail += p.tx_fail;
    close(p.fd);
  }
  std::fprintf(stderr, "fp-rawfwd: rx %llu tx %llu tx_fail %llu not_forwarded %llu\n", rx, tx, fail,
               dropped);
  return 0;
}
