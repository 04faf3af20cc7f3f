// SPDX-License-Identifier: GPL-2.0-only
// Test support for the XDP classifier: frame builders (Ethernet, VLAN, ARP, IPv4, IPv6 with
// extension headers, UDP, TCP, ICMP), a bpf_prog_test_run_opts wrapper that returns the
// fp_xdp_meta the program wrote, and a minimal AF_XDP socket bound into xsks_map.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fp_abi.h"

struct xsk_socket;
struct xsk_umem;

namespace fastpath::testing {

using Bytes = std::vector<uint8_t>;
using Mac = std::array<uint8_t, 6>;

constexpr Mac kDstMac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
constexpr Mac kSrcMac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
/// Unicast, neither the port's (kDstMac) nor the sender's.
constexpr Mac kOtherHostMac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x07};
constexpr Mac kBroadcastMac = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
constexpr Mac kMulticastMac = {0x01, 0x00, 0x5e, 0x00, 0x00, 0x09};

struct L2 {
  Mac dst = kDstMac;
  Mac src = kSrcMac;
  std::vector<uint16_t> tags;  ///< TPIDs (0x8100, 0x88a8), outermost first
};

struct V4 {
  std::array<uint8_t, 4> src = {198, 18, 0, 1};
  std::array<uint8_t, 4> dst = {198, 18, 1, 1};
  uint8_t proto = 17;
  uint8_t ttl = 64;
  uint8_t version = 4;
  uint8_t ihl = 5;        ///< option bytes (zeros) are added when > 5
  uint16_t frag_off = 0;  ///< host order: flags + offset
  int tot_len_delta = 0;  ///< added to the correct total length
};

struct Ext {
  uint8_t type;       ///< 0 hop-by-hop, 43 routing, 60 dest opts, 44 fragment, 51 AH
  uint16_t len = 8;   ///< bytes (multiple of 8; AH multiple of 4)
  uint16_t frag = 0;  ///< fragment header: offset/flags field, host order
};

struct V6 {
  std::array<uint8_t, 16> src = {0x20, 0x01, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  std::array<uint8_t, 16> dst = {0x20, 0x01, 0x00, 0x02, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  uint8_t hop_limit = 64;
  uint8_t proto = 17;  ///< upper-layer header after the extension headers
  uint8_t version = 6;
  std::vector<Ext> ext{};
};

Bytes udp(uint16_t sport, uint16_t dport, size_t payload = 18);
Bytes tcp(uint16_t sport, uint16_t dport, size_t payload = 0);
Bytes icmp(uint8_t type, size_t payload = 8);  ///< ICMPv4 or ICMPv6 (same layout)
Bytes ethernet(const L2& l2, uint16_t ethertype, const Bytes& payload);
Bytes arp(const L2& l2 = {kBroadcastMac, kSrcMac, {}});
Bytes ipv4(const L2& l2, const V4& ip, const Bytes& l4);
Bytes ipv6(const L2& l2, const V6& ip, const Bytes& l4);
/// Offset of the transport header in a frame built by ipv4()/ipv6().
size_t l3Offset(const L2& l2);

/// One run of the program through BPF_PROG_TEST_RUN.
struct RunResult {
  int err = 0;            ///< negative errno of the syscall
  uint32_t retval = 0;    ///< XDP action
  uint32_t duration = 0;  ///< average ns per run (kernel-measured)
  bool has_meta = false;  ///< the program put an fp_xdp_meta in front
  uint32_t meta_len = 0;
  fp_xdp_meta meta{};
  Bytes out;  ///< frame after the metadata
};
RunResult runFrame(int prog_fd, const Bytes& frame, uint32_t repeat = 1);

/// An AF_XDP socket in copy mode on ifname/queue of the current network namespace,
/// registered in xsks_map. No XDP program is loaded by it (INHIBIT_PROG_LOAD).
class TestXsk {
 public:
  static std::unique_ptr<TestXsk> create(const std::string& ifname, uint32_t queue, int xsks_map_fd,
                                         std::string* error);
  ~TestXsk();
  int fd() const;

  struct Rx {
    bool has_meta = false;
    fp_xdp_meta meta{};
    Bytes frame;
  };
  /// Frames received, until `max` arrived or timeout_ms passed.
  std::vector<Rx> receive(size_t max, int timeout_ms);

 private:
  struct Rings;
  TestXsk();
  std::unique_ptr<Rings> r_;
  void* buffer_ = nullptr;
  size_t size_ = 0;
};

}  // namespace fastpath::testing
