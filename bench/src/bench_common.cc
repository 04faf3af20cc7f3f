// SPDX-License-Identifier: GPL-2.0-only
#include "bench_common.h"

#include <arpa/inet.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace fastpath::bench {

uint64_t monoNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool pinToCpu(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof(set), &set) == 0;
}

bool parseMac(const std::string& text, uint8_t out[6]) {
  unsigned v[6];
  char tail;
  if (std::sscanf(text.c_str(), "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3], &v[4],
                  &v[5], &tail) != 6)
    return false;
  for (int i = 0; i < 6; i++) {
    if (v[i] > 0xff) return false;
    out[i] = (uint8_t)v[i];
  }
  return true;
}

bool parseIpv4(const std::string& text, uint32_t* out_be) {
  in_addr a;
  if (inet_pton(AF_INET, text.c_str(), &a) != 1) return false;
  *out_be = a.s_addr;
  return true;
}

std::optional<StaticRoute> parseRoute(const std::string& text, std::string* error) {
  StaticRoute r;
  size_t slash = text.find('/');
  size_t c1 = text.find(',');
  size_t c2 = c1 == std::string::npos ? c1 : text.find(',', c1 + 1);
  if (slash == std::string::npos || c1 == std::string::npos || c2 == std::string::npos ||
      slash > c1) {
    *error = "route '" + text + "': expected PREFIX/LEN,IFNAME,NEXTHOP_MAC";
    return std::nullopt;
  }
  if (!parseIpv4(text.substr(0, slash), &r.prefix_be)) {
    *error = "route '" + text + "': bad IPv4 prefix";
    return std::nullopt;
  }
  r.length = std::atoi(text.substr(slash + 1, c1 - slash - 1).c_str());
  if (r.length < 0 || r.length > 32) {
    *error = "route '" + text + "': prefix length must be 0..32";
    return std::nullopt;
  }
  r.ifname = text.substr(c1 + 1, c2 - c1 - 1);
  if (!parseMac(text.substr(c2 + 1), r.next_hop_mac)) {
    *error = "route '" + text + "': bad next-hop MAC";
    return std::nullopt;
  }
  uint32_t mask = r.length == 0 ? 0 : htonl(~0u << (32 - r.length));
  r.prefix_be &= mask;
  return r;
}

const StaticRoute* lookupRoute(const std::vector<StaticRoute>& routes, uint32_t dst_be) {
  const StaticRoute* best = nullptr;
  for (const auto& r : routes) {
    uint32_t mask = r.length == 0 ? 0 : htonl(~0u << (32 - r.length));
    if ((dst_be & mask) == r.prefix_be && (!best || r.length > best->length)) best = &r;
  }
  return best;
}

bool interfaceMac(const std::string& ifname, uint8_t out[6]) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) return false;
  ifreq ifr{};
  std::snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname.c_str());
  bool ok = ioctl(fd, SIOCGIFHWADDR, &ifr) == 0;
  if (ok) std::memcpy(out, ifr.ifr_hwaddr.sa_data, 6);
  close(fd);
  return ok;
}

}  // namespace fastpath::bench
