// SPDX-License-Identifier: GPL-2.0-only
#include "generator_options.h"

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/udp.h>

#include <cstdlib>
#include <cstring>
#include <tuple>

#include "bench_common.h"

namespace fastpath::bench {

namespace {

const option kCommonOptions[] = {{"ifname", required_argument, nullptr, 'i'},
                                 {"src-mac", required_argument, nullptr, 'm'},
                                 {"dst-mac", required_argument, nullptr, 'M'},
                                 {"src-ip", required_argument, nullptr, 's'},
                                 {"dst-ip", required_argument, nullptr, 'd'},
                                 {"dst-port", required_argument, nullptr, 'P'},
                                 {"payload", required_argument, nullptr, 'l'},
                                 {"flows", required_argument, nullptr, 'f'},
                                 {"pps", required_argument, nullptr, 'r'},
                                 {"mbps", required_argument, nullptr, 'b'},
                                 {"flat-out", no_argument, nullptr, 'F'},
                                 {"duration", required_argument, nullptr, 't'},
                                 {"count", required_argument, nullptr, 'n'},
                                 {"cpu", required_argument, nullptr, 'c'},
                                 {"batch", required_argument, nullptr, 'B'},
                                 {"max-lag-us", required_argument, nullptr, 'L'},
                                 {"rt-priority", required_argument, nullptr, 'R'},
                                 {"ttl", required_argument, nullptr, 'T'},
                                 {"ipv6", no_argument, nullptr, '6'},
                                 {"help", no_argument, nullptr, 'h'}};

// The first check the options fail, or nullptr.
const char* invalid(const GeneratorOptions& o) {
  const int max_payload = o.ipv6 ? 1500 - 40 - 8 : 1500 - 20 - 8;
  if (o.ifname.empty()) return "--ifname is required";
  if (o.src_text.empty() || o.dst_text.empty()) return "--src-ip and --dst-ip are required";
  if (!o.have_dst_mac) return "--dst-mac is required (the router's ingress MAC)";
  if (o.payload < (int)sizeof(fp_bench_payload) || o.payload > max_payload)
    return o.ipv6 ? "--payload must be 24..1452 with --ipv6" : "--payload must be 24..1472";
  if (o.flows < 1 || o.flows > FP_BENCH_MAX_FLOWS) return "--flows must be 1..1024";
  if ((o.pps > 0) + (o.mbps > 0) + o.flat_out != 1)
    return "give exactly one of --pps, --mbps, --flat-out";
  if (o.duration_s <= 0 || o.duration_s > 600) return "--duration must be in (0, 600]";
  if (o.batch < 1 || o.batch > kMaxBatch) return "--batch must be 1..256";
  if (o.ttl < 1 || o.ttl > 255) return "--ttl must be 1..255";
  if (o.dst_port < 1 || o.dst_port > 65535)  // not cut to 16 bits: port 0 is no port
    return "--dst-port must be 1..65535";
  return nullptr;
}

}  // namespace

bool parseGeneratorOptions(int argc, char** argv, const GeneratorTool& tool,
                           GeneratorOptions* o) {
  std::vector<option> longopts(std::begin(kCommonOptions), std::end(kCommonOptions));
  longopts.insert(longopts.end(), tool.extra.begin(), tool.extra.end());
  longopts.push_back({nullptr, 0, nullptr, 0});
  int c;
  while ((c = getopt_long(argc, argv, "h", longopts.data(), nullptr)) != -1) {
    switch (c) {
      case 'i': o->ifname = optarg; break;
      case 'm':
      case 'M': {
        const bool src = c == 'm';
        bool& have = src ? o->have_src_mac : o->have_dst_mac;
        have = parseMac(optarg, src ? o->src_mac : o->dst_mac);
        if (!have) {
          std::fprintf(stderr, "%s: bad %s '%s'\n", tool.name, src ? "--src-mac" : "--dst-mac",
                       optarg);
          return false;
        }
        break;
      }
      case 's': o->src_text = optarg; break;
      case 'd': o->dst_text = optarg; break;
      case '6':
        if (!tool.ipv6) {
          std::fprintf(stderr, "%s: IPv4 only (use fp-trafgen --ipv6 for IPv6)\n", tool.name);
          return false;
        }
        o->ipv6 = true;
        break;
      case 'P': o->dst_port = std::atoi(optarg); break;
      case 'l': o->payload = std::atoi(optarg); break;
      case 'f': o->flows = std::atoi(optarg); break;
      case 'r': o->pps = std::atof(optarg); break;
      case 'b': o->mbps = std::atof(optarg); break;
      case 'F': o->flat_out = true; break;
      case 't': o->duration_s = std::atof(optarg); break;
      case 'n': o->count = std::strtoull(optarg, nullptr, 10); break;
      case 'c': o->cpu = std::atoi(optarg); break;
      case 'B': o->batch = std::atoi(optarg); break;
      case 'L': o->max_lag_us = std::atof(optarg); break;
      case 'R': o->rt_priority = std::atoi(optarg); break;
      case 'T': o->ttl = std::atoi(optarg); break;
      case 'h': tool.usage(stdout); std::exit(0);
      case '?': tool.usage(stderr); return false;
      default:
        if (!tool.onExtra || !tool.onExtra(c, optarg)) return false;
        break;
    }
  }
  // Addresses are parsed after every option: --ipv6 may come after them.
  for (auto [text, v4, v6, name] : {std::tuple{&o->src_text, &o->src_ip, o->src_ip6, "--src-ip"},
                                    std::tuple{&o->dst_text, &o->dst_ip, o->dst_ip6, "--dst-ip"}}) {
    if (text->empty()) continue;
    if (o->ipv6 ? !parseIpv6(*text, v6) : !parseIpv4(*text, v4)) {
      std::fprintf(stderr, "%s: bad %s '%s' (an IPv%d address%s)\n", tool.name, name,
                   text->c_str(), o->ipv6 ? 6 : 4,
                   o->ipv6 || !tool.ipv6 ? "" : "; IPv6 needs --ipv6");
      return false;
    }
  }
  if (const char* err = invalid(*o)) {
    std::fprintf(stderr, "%s: %s (see --help)\n", tool.name, err);
    return false;
  }
  if (o->mbps > 0) o->pps = o->mbps * 1e6 / (8.0 * o->payload);
  return true;
}

void printRateUsage(FILE* out) {
  std::fprintf(
      out,
      "  --flows N          number of flows (source ports), 1..%d (default 1)\n"
      "  --pps N            offered rate in packets/s\n"
      "  --mbps N           offered rate in Mbit/s of UDP payload (iperf's convention)\n"
      "  --flat-out         as fast as possible\n"
      "  --duration S       seconds to send (default 1, max 600)\n"
      "  --count N          stop after N packets (also bounded by --duration)\n",
      FP_BENCH_MAX_FLOWS);
}

size_t generatorUdpOffset(const GeneratorOptions& o) {
  return sizeof(ethhdr) + (o.ipv6 ? sizeof(ip6_hdr) : sizeof(iphdr));
}

size_t generatorPayloadOffset(const GeneratorOptions& o) {
  return generatorUdpOffset(o) + sizeof(udphdr);
}

std::vector<uint8_t> generatorFrame(const GeneratorOptions& o) {
  const size_t udp_off = generatorUdpOffset(o);
  const uint16_t udp_len = (uint16_t)(sizeof(udphdr) + o.payload);
  std::vector<uint8_t> f(udp_off + udp_len, 0);
  auto* eth = reinterpret_cast<ethhdr*>(f.data());
  std::memcpy(eth->h_dest, o.dst_mac, 6);
  std::memcpy(eth->h_source, o.src_mac, 6);
  eth->h_proto = htons(o.ipv6 ? ETH_P_IPV6 : ETH_P_IP);
  if (o.ipv6) {
    auto* ip6 = reinterpret_cast<ip6_hdr*>(eth + 1);
    ip6->ip6_flow = htonl(6u << 28);
    ip6->ip6_plen = htons(udp_len);
    ip6->ip6_nxt = IPPROTO_UDP;
    ip6->ip6_hlim = (uint8_t)o.ttl;
    std::memcpy(&ip6->ip6_src, o.src_ip6, 16);
    std::memcpy(&ip6->ip6_dst, o.dst_ip6, 16);
  } else {
    auto* ip = reinterpret_cast<iphdr*>(eth + 1);
    ip->version = 4;
    ip->ihl = 5;
    ip->tot_len = htons((uint16_t)(sizeof(iphdr) + udp_len));
    ip->frag_off = htons(IP_DF);
    ip->ttl = (uint8_t)o.ttl;
    ip->protocol = IPPROTO_UDP;
    ip->saddr = o.src_ip;
    ip->daddr = o.dst_ip;
    ip->check = checksumFinish(checksumAdd(ip, sizeof(*ip), 0), false);
  }
  auto* udp = reinterpret_cast<udphdr*>(&f[udp_off]);
  udp->source = htons(kSrcPortBase);
  udp->dest = htons((uint16_t)o.dst_port);
  udp->len = htons(udp_len);
  udp->check = 0;  // IPv4: optional, left out; IPv6: filled in per frame
  auto* pl = reinterpret_cast<fp_bench_payload*>(&f[udp_off + sizeof(udphdr)]);
  pl->magic = FP_BENCH_MAGIC;
  return f;
}

}  // namespace fastpath::bench
