// SPDX-License-Identifier: GPL-2.0-only
#include "bench_common.h"

#include <arpa/inet.h>
#include <getopt.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "fp_bench.h"

namespace fastpath::bench {

uint64_t monoNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t realtimeNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool pinToCpu(int cpu) {
  if (cpu < 0) return true;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof(set), &set) == 0;
}

bool parseMac(const std::string& text, uint8_t out[6]) {
  unsigned v[6];
  char tail;
  if (std::sscanf(text.c_str(), "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                  &tail) != 6)
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

bool parseIpv6(const std::string& text, uint8_t out[16]) {
  in6_addr a;
  if (inet_pton(AF_INET6, text.c_str(), &a) != 1) return false;
  std::memcpy(out, &a, 16);
  return true;
}

uint32_t checksumAdd(const void* data, size_t len, uint32_t sum) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  uint64_t s = sum;
  size_t i = 0;
  for (; i + 1 < len; i += 2) {
    uint16_t w;
    std::memcpy(&w, p + i, 2);
    s += w;
  }
  if (i < len) {  // odd tail: padded with a zero byte
    uint8_t last[2] = {p[i], 0};
    uint16_t w;
    std::memcpy(&w, last, 2);
    s += w;
  }
  while (s >> 32) s = (s & 0xffffffffull) + (s >> 32);
  return (uint32_t)s;
}

uint16_t checksumFinish(uint32_t sum, bool udp) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  uint16_t c = (uint16_t)~sum;
  return (udp && c == 0) ? 0xffff : c;
}

uint32_t ipv6PseudoSum(const uint8_t src[16], const uint8_t dst[16], uint32_t len,
                       uint8_t next_header) {
  uint32_t tail[2] = {htonl(len), htonl(next_header)};
  uint32_t sum = checksumAdd(src, 16, 0);
  sum = checksumAdd(dst, 16, sum);
  return checksumAdd(tail, sizeof(tail), sum);
}

uint32_t benchUdp6BaseSum(const uint8_t src[16], const uint8_t dst[16], uint16_t dst_port_be,
                          int payload) {
  const uint32_t udp_len = 8 + (uint32_t)payload;
  const uint16_t hdr[4] = {0, dst_port_be, htons((uint16_t)udp_len), 0};
  const uint32_t magic = FP_BENCH_MAGIC;  // the rest of the payload: zeros, sum 0
  uint32_t sum = ipv6PseudoSum(src, dst, udp_len, 17 /* IPPROTO_UDP */);
  sum = checksumAdd(hdr, sizeof(hdr), sum);
  return checksumAdd(&magic, sizeof(magic), sum);
}

uint16_t benchUdp6Checksum(uint32_t base, uint16_t src_port_be, const void* payload) {
  static_assert(offsetof(fp_bench_payload, flow) == 4 && sizeof(fp_bench_payload) == 24,
                "the per-frame sum covers bytes 4..23 of the payload");
  uint32_t sum = checksumAdd(&src_port_be, 2, base);
  sum = checksumAdd(static_cast<const uint8_t*>(payload) + 4, sizeof(fp_bench_payload) - 4, sum);
  return checksumFinish(sum, true);
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
  const std::string prefix = text.substr(0, slash);
  r.family = prefix.find(':') == std::string::npos ? 4 : 6;
  if (r.family == 4 ? !parseIpv4(prefix, &r.prefix_be) : !parseIpv6(prefix, r.prefix6)) {
    *error = "route '" + text + "': bad IPv" + std::to_string(r.family) + " prefix";
    return std::nullopt;
  }
  const int max_len = r.family == 4 ? 32 : 128;
  const std::string len_text = text.substr(slash + 1, c1 - slash - 1);
  r.length = len_text.empty() ? -1 : std::atoi(len_text.c_str());
  if (r.length < 0 || r.length > max_len) {
    *error = "route '" + text + "': prefix length must be 0.." + std::to_string(max_len);
    return std::nullopt;
  }
  r.ifname = text.substr(c1 + 1, c2 - c1 - 1);
  if (!parseMac(text.substr(c2 + 1), r.next_hop_mac)) {
    *error = "route '" + text + "': bad next-hop MAC";
    return std::nullopt;
  }
  if (r.family == 6) {
    for (int i = 0; i < 16; i++) {
      const int bits = r.length - 8 * i;  // prefix bits in byte i
      r.prefix6[i] &= bits >= 8 ? 0xff : bits <= 0 ? 0 : (uint8_t)(0xff << (8 - bits));
    }
    return r;
  }
  uint32_t mask = r.length == 0 ? 0 : htonl(~0u << (32 - r.length));
  r.prefix_be &= mask;
  return r;
}

const StaticRoute* lookupRoute(const std::vector<StaticRoute>& routes, uint32_t dst_be) {
  const StaticRoute* best = nullptr;
  for (const auto& r : routes) {
    if (r.family != 4) continue;
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

std::optional<ForwarderArgs> parseForwarderArgs(const char* program, int argc, char** argv,
                                                void (*usage)(FILE*), int* exit_code) {
  static const option longopts[] = {{"ifname", required_argument, nullptr, 'i'},
                                    {"route", required_argument, nullptr, 'r'},
                                    {"cpu", required_argument, nullptr, 'c'},
                                    {"help", no_argument, nullptr, 'h'},
                                    {nullptr, 0, nullptr, 0}};
  ForwarderArgs a;
  *exit_code = 2;
  int c;
  while ((c = getopt_long(argc, argv, "h", longopts, nullptr)) != -1) {
    if (c == 'i') {
      a.ifnames.push_back(optarg);
    } else if (c == 'r') {
      std::string err;
      auto r = parseRoute(optarg, &err);
      if (!r) {
        std::fprintf(stderr, "%s: %s\n", program, err.c_str());
        return std::nullopt;
      }
      if (r->family != 4) {
        std::fprintf(stderr, "%s: route '%s': IPv4 only\n", program, optarg);
        return std::nullopt;
      }
      a.routes.push_back(*r);
    } else if (c == 'c') {
      char* end = nullptr;
      a.cpu = (int)std::strtol(optarg, &end, 10);
      if (!end || *end || a.cpu < 0) {
        std::fprintf(stderr, "%s: --cpu '%s': not a CPU number\n", program, optarg);
        return std::nullopt;
      }
    } else {
      usage(c == 'h' ? stdout : stderr);
      if (c == 'h') *exit_code = 0;
      return std::nullopt;
    }
  }
  return a;
}

}  // namespace fastpath::bench
