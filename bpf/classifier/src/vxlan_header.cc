// SPDX-License-Identifier: GPL-2.0-only
// The outer headers of a VXLAN link end (RFC 7348 5): built once when the link is made, so
// the program only fills in what changes per frame (lengths, IPv4 checksum, source port).
#include <arpa/inet.h>

#include <cstring>

#include "fastpath/classifier.h"

namespace fastpath {

std::array<uint8_t, FP_VXLAN_OVERHEAD> vxlanOuterHeader(const MacAddress& wire_mac,
                                                        const MacAddress& next_hop,
                                                        uint32_t src_addr, uint32_t dst_addr,
                                                        uint16_t port, uint32_t vni) {
  std::array<uint8_t, FP_VXLAN_OVERHEAD> h{};
  uint8_t* eth = h.data();
  std::memcpy(eth, next_hop.bytes.data(), 6);
  std::memcpy(eth + 6, wire_mac.bytes.data(), 6);
  eth[12] = 0x08;  // IPv4
  eth[13] = 0x00;
  uint8_t* ip = eth + 14;
  ip[0] = 0x45;
  ip[6] = 0x40;  // DF: the underlay must not fragment a link's frame (its MTU was checked)
  ip[8] = 64;    // TTL
  ip[9] = 17;    // UDP
  std::memcpy(ip + 12, &src_addr, 4);
  std::memcpy(ip + 16, &dst_addr, 4);
  // RFC 1071 over the header with a total length of 0; the program adds the length.
  uint32_t sum = 0;
  for (int i = 0; i < 20; i += 2) sum += uint32_t(ip[i] << 8 | ip[i + 1]);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  const uint16_t check = uint16_t(~sum);
  ip[10] = uint8_t(check >> 8);
  ip[11] = uint8_t(check);
  uint8_t* udp = ip + 20;
  udp[2] = uint8_t(port >> 8);
  udp[3] = uint8_t(port);
  uint8_t* vx = udp + 8;
  vx[0] = FP_VXLAN_FLAG_I;
  vx[4] = uint8_t(vni >> 16);
  vx[5] = uint8_t(vni >> 8);
  vx[6] = uint8_t(vni);
  return h;
}

}  // namespace fastpath
