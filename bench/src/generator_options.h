// SPDX-License-Identifier: GPL-2.0-only
// The command line and the frame template shared by the UDP generators (fp-trafgen,
// fp-xdpgen): the same options, checks, messages and frames, so that the two tools can be
// swapped in a benchmark without changing anything else. Each tool adds its own options.
#pragma once

#include <getopt.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "fp_bench.h"

namespace fastpath::bench {

/// UDP source port of flow 0; flow n sends from kSrcPortBase + n.
constexpr int kSrcPortBase = 10000;
/// The most frames one send call (or kernel batch) may take: --batch's upper bound.
constexpr int kMaxBatch = 256;

/// Options common to both generators, with their defaults.
struct GeneratorOptions {
  std::string ifname;
  uint8_t src_mac[6] = {}, dst_mac[6] = {};
  bool have_src_mac = false, have_dst_mac = false;
  bool ipv6 = false;
  std::string src_text, dst_text;
  uint32_t src_ip = 0, dst_ip = 0;
  uint8_t src_ip6[16] = {}, dst_ip6[16] = {};
  int dst_port = FP_BENCH_UDP_PORT;
  int payload = 160;
  int flows = 1;
  double pps = 0, mbps = 0;  // after parsing, --mbps is also given as pps
  bool flat_out = false;
  double duration_s = 1.0;
  uint64_t count = 0;  // 0: bounded by duration only
  int cpu = -1;
  int batch = 64;  // frames per sendmmsg (fp-trafgen) or per kernel flush (fp-xdpgen)
  double max_lag_us = 1000;  // paced: schedule debt offered as a burst at most; 0 = all
  int rt_priority = 0;       // paced: SCHED_FIFO priority (0: normal; fp-xdpgen ignores it)
  int ttl = 64;              // IPv4 TTL / IPv6 hop limit
};

/// What a generator adds to the common command line.
struct GeneratorTool {
  const char* name;  // "fp-trafgen": the prefix of every message
  bool ipv6;         // takes --ipv6; without it --ipv6 is refused as IPv4 only
  void (*usage)(FILE* out);
  /// The tool's own long options (their `val` distinct from the common ones: use
  /// characters outside "imMsdPlfrbFtncBLRT6h") and what to do with each; false ends the
  /// parse with exit code 2 (the handler prints the reason).
  std::vector<option> extra;
  std::function<bool(int val, const char* arg)> onExtra;
};

/// Parses and checks the command line into `o`: a message naming the tool on stderr and
/// false for anything wrong (the caller exits 2); --help prints the usage and exits 0.
bool parseGeneratorOptions(int argc, char** argv, const GeneratorTool& tool,
                           GeneratorOptions* o);

/// Usage lines both tools print alike, from --flows to --count.
void printRateUsage(FILE* out);

/// One frame as every generator sends it: Ethernet, IPv4 (with its checksum; DF set) or
/// IPv6, UDP from kSrcPortBase without checksum (IPv6's is per frame) and a zero payload
/// holding the magic. The generator fills in source port, flow, sequence and send time.
std::vector<uint8_t> generatorFrame(const GeneratorOptions& o);

/// Offsets in generatorFrame()'s frame.
size_t generatorUdpOffset(const GeneratorOptions& o);
size_t generatorPayloadOffset(const GeneratorOptions& o);

}  // namespace fastpath::bench
