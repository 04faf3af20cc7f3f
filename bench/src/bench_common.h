// SPDX-License-Identifier: GPL-2.0-only
// Small helpers shared by the benchmark tools (fp-trafgen, fp-sink, fp-rawfwd,
// fp-xdpfwd): argument parsing of MAC/IPv4/prefix/route strings, CPU pinning, clocks.
#pragma once

#include <netinet/in.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace fastpath::bench {

/// CLOCK_MONOTONIC in nanoseconds (the clock bpf_ktime_get_ns() reads).
uint64_t monoNs();
/// CLOCK_REALTIME in nanoseconds (the clock of the kernel's SO_TIMESTAMPNS receive stamps).
uint64_t realtimeNs();
/// Pins the calling thread to one CPU; false (with errno) on failure. A negative CPU
/// leaves the thread where it is (true).
bool pinToCpu(int cpu);
/// "aa:bb:cc:dd:ee:ff" -> 6 bytes.
bool parseMac(const std::string& text, uint8_t out[6]);
/// "198.18.0.1" -> address in network byte order.
bool parseIpv4(const std::string& text, uint32_t* out_be);
/// "2001:2::1" -> 16 bytes in network byte order.
bool parseIpv6(const std::string& text, uint8_t out[16]);

/// RFC 1071 one's complement sum of len bytes read as 16-bit words in memory order, added
/// to sum and not folded. The sum is byte-order independent: a checksum folded from it
/// and stored as a native 16-bit word has the right bytes. len must be even except for
/// the last piece of a packet.
uint32_t checksumAdd(const void* data, size_t len, uint32_t sum);
/// Folds a checksumAdd() sum and complements it: the value to store (as a native 16-bit
/// word) into a header checksum field. UDP's 0 (no checksum) is sent as 0xffff.
uint16_t checksumFinish(uint32_t sum, bool udp);
/// Sum of the IPv6 pseudo-header (RFC 8200 8.1) for an upper-layer packet of len bytes.
uint32_t ipv6PseudoSum(const uint8_t src[16], const uint8_t dst[16], uint32_t len,
                       uint8_t next_header);

/// fp-trafgen's IPv6 UDP checksum, in two steps. The sum of everything that is the same in
/// every generated frame: pseudo-header, UDP header without source port and checksum, a
/// payload of `payload` bytes holding only FP_BENCH_MAGIC (the rest zero until the frame
/// is filled in).
uint32_t benchUdp6BaseSum(const uint8_t src[16], const uint8_t dst[16], uint16_t dst_port_be,
                          int payload);
/// The checksum of one frame: base plus its source port and the payload's bytes 4..23
/// ({flow, seq, tx_ns}); all other payload bytes must still be as in benchUdp6BaseSum.
uint16_t benchUdp6Checksum(uint32_t base, uint16_t src_port_be, const void* payload);

/// One static route of the baseline forwarders: "PREFIX/LEN,IFNAME,NEXTHOP_MAC", the
/// prefix IPv4 or IPv6.
struct StaticRoute {
  int family = 4;            ///< 4 or 6
  uint32_t prefix_be = 0;    ///< IPv4 prefix (family 4)
  uint8_t prefix6[16] = {};  ///< IPv6 prefix (family 6), host bits cleared
  int length = 0;
  std::string ifname;
  uint8_t next_hop_mac[6] = {};
};
std::optional<StaticRoute> parseRoute(const std::string& text, std::string* error);
/// Longest-prefix match of an IPv4 destination over a small table (linear: the bench
/// tables have 2 entries); IPv6 routes are not considered.
const StaticRoute* lookupRoute(const std::vector<StaticRoute>& routes, uint32_t dst_be);

/// The command line of the userspace baseline forwarders: --ifname IF (repeated),
/// --route PREFIX/LEN,IFNAME,NEXTHOP_MAC (repeated, IPv4 only), --cpu N, --help.
struct ForwarderArgs {
  std::vector<std::string> ifnames;
  std::vector<StaticRoute> routes;
  int cpu = -1;
};
/// Reads it; on --help or a bad word returns nullopt and sets *exit_code (0 or 2) after
/// `usage(stdout|stderr)` or a message naming `program`.
std::optional<ForwarderArgs> parseForwarderArgs(const char* program, int argc, char** argv,
                                                void (*usage)(FILE*), int* exit_code);

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
