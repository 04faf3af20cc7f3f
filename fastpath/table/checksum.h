// SPDX-License-Identifier: GPL-2.0-only
// Internet checksum helpers (RFC 1071) and the incremental update of RFC 1624.
// Values are 16-bit words exactly as they sit in the packet (network order in memory,
// read with memcpy): one's complement sums are byte-order independent (RFC 1071 2(B)).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace fastpath {

/// One's complement sum of `len` bytes (len even), folded to 16 bits, not inverted.
inline uint16_t csumPartial(const uint8_t* data, size_t len, uint32_t sum = 0) noexcept {
  for (size_t i = 0; i + 1 < len; i += 2) {
    uint16_t w;
    std::memcpy(&w, data + i, 2);
    sum += w;
  }
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(sum);
}

/// The IPv4 header checksum field value for a header of `len` bytes whose checksum field
/// is zero (full recomputation).
inline uint16_t ipv4HeaderChecksum(const uint8_t* header, size_t len) noexcept {
  return static_cast<uint16_t>(~csumPartial(header, len));
}

/// One's complement sum of `len` bytes, len a multiple of 4 (IPv4 headers), 32 bits at a
/// time into a 64-bit accumulator (no carry handling inside the loop), folded to 16 bits.
inline uint16_t csumWords32(const uint8_t* data, size_t len) noexcept {
  uint64_t sum = 0;
  for (size_t i = 0; i < len; i += 4) {
    uint32_t w;
    std::memcpy(&w, data + i, 4);
    sum += w;
  }
  sum = (sum & 0xffffffffu) + (sum >> 32);
  sum = (sum & 0xffffffffu) + (sum >> 32);
  uint32_t s32 = static_cast<uint32_t>(sum);
  s32 = (s32 & 0xffff) + (s32 >> 16);
  s32 = (s32 & 0xffff) + (s32 >> 16);
  return static_cast<uint16_t>(s32);
}

/// True when the header (checksum field included) sums to all ones (RFC 1071 verify).
/// `len` is the IPv4 header length (IHL * 4).
inline bool ipv4HeaderChecksumOk(const uint8_t* header, size_t len) noexcept {
  return csumWords32(header, len) == 0xffff;
}

/// RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'), the checksum after one 16-bit word of the
/// covered data changed from `old_word` to `new_word`. Never yields 0xffff for a header
/// whose full recomputation would give 0x0000 (the eqn. 2 pitfall, RFC 1624 section 3).
inline uint16_t csumReplace16(uint16_t check, uint16_t old_word, uint16_t new_word) noexcept {
  uint32_t sum = static_cast<uint16_t>(~check);
  sum += static_cast<uint16_t>(~old_word);
  sum += new_word;
  sum = (sum & 0xffff) + (sum >> 16);
  sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

/// Decrements the TTL of the IPv4 header at `ip` and updates its checksum (RFC 1624).
/// Returns the new TTL. The caller checked TTL > 1.
inline uint8_t ipv4DecrementTtl(uint8_t* ip) noexcept {
  uint16_t old_word, check;
  std::memcpy(&old_word, ip + 8, 2);  // TTL | protocol
  std::memcpy(&check, ip + 10, 2);
  // The new word is built from bytes already read: storing the TTL byte and reloading the
  // 16-bit word would defeat store-to-load forwarding (a stall per packet).
  const uint8_t word[2] = {static_cast<uint8_t>(ip[8] - 1), ip[9]};
  uint16_t new_word;
  std::memcpy(&new_word, word, 2);
  check = csumReplace16(check, old_word, new_word);
  std::memcpy(ip + 8, &new_word, 2);
  std::memcpy(ip + 10, &check, 2);
  return word[0];
}

}  // namespace fastpath
