// SPDX-License-Identifier: GPL-2.0-only
// ECN's two bits in an Ethernet frame's IP header (RFC 3168): whether a frame is
// ECN-capable, and marking it Congestion Experienced as a router's queue discipline does
// (IPv4: the header checksum updated incrementally, RFC 1624; IPv6 has none).
#pragma once

#include <cstdint>

namespace fastpath {

/// ECT(0), ECT(1) or CE in an untagged IPv4 or IPv6 frame; false for anything else.
inline bool ecnCapable(const uint8_t* f, uint32_t len) {
  if (len < 16) return false;
  const uint16_t type = uint16_t(f[12] << 8 | f[13]);
  if (type == 0x0800 && len >= 34 && (f[14] >> 4) == 4) return (f[15] & 3) != 0;
  if (type == 0x86dd && len >= 54 && (f[14] >> 4) == 6) return ((f[15] >> 4) & 3) != 0;
  return false;
}

/// Sets CE in an ECN-capable frame (ecnCapable true); returns false and changes nothing
/// otherwise.
inline bool markCongestion(uint8_t* f, uint32_t len) {
  if (!ecnCapable(f, len)) return false;
  if (f[13] == 0x00) {  // IPv4 (0x0800): TOS is the low byte of the header's first word
    const uint16_t old_word = uint16_t(f[14] << 8 | f[15]);
    f[15] |= 3;
    const uint16_t new_word = uint16_t(f[14] << 8 | f[15]);
    // HC' = ~(~HC + ~m + m')
    uint32_t sum = uint16_t(~uint16_t(f[24] << 8 | f[25])) + uint16_t(~old_word) + new_word;
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    const uint16_t hc = uint16_t(~sum);
    f[24] = uint8_t(hc >> 8);
    f[25] = uint8_t(hc);
  } else {  // IPv6: traffic class bits 4..5 of byte 15
    f[15] |= 0x30;
  }
  return true;
}

}  // namespace fastpath
