// SPDX-License-Identifier: GPL-2.0-only
// 802.11 timing as ns-3 3.37 computes it: a frame's duration on the air (preamble, PHY
// header, payload at its rate), ACK size, and the DCF's slot, SIFS, DIFS and contention
// windows of DSSS (802.11b) and OFDM (802.11a) PHYs.
#pragma once

#include <cstdint>

namespace fastpath::medium {

struct DcfTiming {
  uint64_t slot_ns, sifs_ns, difs_ns;
  uint32_t cw_min, cw_max;
};

/// DSSS: slot 20 us, SIFS 10 us, CW 31..1023; OFDM: slot 9 us, SIFS 16 us, CW 15..1023;
/// DIFS = SIFS + 2 slots (ns-3's DCF: AIFSN 2).
DcfTiming dcfTiming(bool dsss);

/// Where a frame's header and payload lie in its airtime, and at which rates.
struct FrameTiming {
  /// The PHY header section ns-3 draws at the header rate: preamble and header, from the
  /// frame's start (PhyEntity::GetPhyHeaderSections).
  uint64_t header_start_ns;
  uint64_t payload_start_ns;
  uint64_t duration_ns;      ///< whole frame
  uint32_t header_kbps;      ///< 1000 (DSSS long preamble) or 6000 (OFDM)
};

/// A MAC frame of `bytes` (MAC header and FCS included) at `rate_kbps`: DSSS long preamble
/// (144 us + 48 us header at 1 Mbit/s, payload rounded up to whole microseconds, as
/// ns-3's DsssPhy); OFDM 16 us preamble + 4 us SIGNAL + 4 us symbols of 16 + 8*bytes + 6 bits.
FrameTiming frameTiming(uint32_t rate_kbps, uint32_t bytes);

/// 802.11 MAC framing of an Ethernet frame: 24 bytes of MAC header, 8 of LLC/SNAP and 4 of
/// FCS replace the 14 of the Ethernet header.
inline uint32_t wifiFrameBytes(uint32_t ethernet_bytes) {
  return (ethernet_bytes > 14 ? ethernet_bytes - 14 : 0) + 36;
}
inline constexpr uint32_t kAckBytes = 14;
inline constexpr uint32_t kCtsBytes = 14;
inline constexpr uint32_t kRtsBytes = 20;

}  // namespace fastpath::medium
