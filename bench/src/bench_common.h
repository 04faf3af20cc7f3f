// SPDX-License-Identifier: GPL-2.0-only
// Small helpers shared by the benchmark tools (fp-trafgen, fp-sink, fp-rawfwd,
// fp-xdpfwd): argument parsing of MAC/IPv4/prefix/route strings, CPU pinning, clocks.
#pragma once

#include <netinet/in.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fastpath::bench {

/// CLOCK_MONOTONIC in nanoseconds (the clock bpf_ktime_get_ns() reads).
uint64_t monoNs();
/// Pins the calling thread to one CPU; false (with errno) on failure.
bool pinToCpu(int cpu);
/// "aa:bb:cc:dd:ee:ff" -> 6 bytes.
bool parseMac(const std::string& text, uint8_t out[6]);
/// "198.18.0.1" -> address in network byte order.
bool parseIpv4(const std::string& text, uint32_t* out_be);

/// One static route of the baseline forwarders: "PREFIX/LEN,IFNAME,NEXTHOP_MAC".
struct StaticRoute {
  uint32_t prefix_be = 0;
  int length = 0;
  std::string ifname;
  uint8_t next_hop_mac[6] = {};
};
std::optional<StaticRoute> parseRoute(const std::string& text, std::string* error);
/// Longest-prefix match over a small table (linear: the bench tables have 2 entries).
const StaticRoute* lookupRoute(const std::vector<StaticRoute>& routes, uint32_t dst_be);

/// MAC address of a local interface (SIOCGIFHWADDR); false when it does not exist.
bool interfaceMac(const std::string& ifname, uint8_t out[6]);

/// RFC 1624 incremental update of the IPv4 header checksum for a TTL decrement.
inline void decrementTtl(uint8_t* ip_header) {
  ip_header[8]--;
  uint32_t sum = (uint32_t)ip_header[10] << 8 | ip_header[11];
  sum += 0x0100;  // the TTL is the high byte of its 16-bit word
  sum = (sum & 0xffff) + (sum >> 16);
  ip_header[10] = (uint8_t)(sum >> 8);
  ip_header[11] = (uint8_t)sum;
}

}  // namespace fastpath::bench
