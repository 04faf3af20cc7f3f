// SPDX-License-Identifier: GPL-2.0-only
// 802.11ax (HE) single-user PPDU timing as ns-3 3.37 computes it (WifiPhy::CalculateTxDuration
// with an HE SU TxVector, one spatial stream, BCC): the rates of HE-MCS 0..11 at a channel
// width and guard interval, and a PSDU's duration on the air. The radio medium does not send
// HE frames yet; this is the airtime it needs to, checked against ns-3 in
// tests/he_airtime_ns3_test.cc.
#pragma once

#include <cstdint>

namespace fastpath::medium {

inline constexpr unsigned kHeMcsCount = 12;

/// HE SU preamble as ns-3 3.37 times it: L-STF, L-LTF, L-SIG, RL-SIG (24 us), HE-SIG-A
/// (8 us), HE-STF (4 us) and one HE-LTF (8 us), whatever the guard interval.
inline constexpr uint64_t kHeSuPreambleNs = 44000;

/// True for the widths (20, 40, 80, 160 MHz) and guard intervals (800, 1600, 3200 ns) an HE
/// SU PPDU can use, and MCS 0..11.
bool heSuValid(uint8_t mcs, uint16_t width_mhz, uint16_t gi_ns);

/// Data bits per OFDM symbol times 12 (an integer for every MCS and width: the 5/6, 2/3 and
/// 3/4 codes make the plain count fractional, e.g. 8166.67 at MCS 11, 80 MHz); 0 when invalid.
uint64_t heDataBitsPerSymbolTimes12(uint8_t mcs, uint16_t width_mhz);

/// The MCS's data rate in bit/s, rounded as ns-3's WifiMode::GetDataRate (to the bit).
uint64_t heDataRateBps(uint8_t mcs, uint16_t width_mhz, uint16_t gi_ns);

/// Duration of an HE SU PPDU carrying a PSDU of `bytes` (an A-MPDU's bytes, delimiters and
/// padding included, as ns-3 passes the PSDU's size): preamble + symbols of 12.8 us + GI
/// holding 16 service bits, the payload and 6 tail bits. 0 when invalid.
uint64_t heSuDurationNs(uint8_t mcs, uint16_t width_mhz, uint16_t gi_ns, uint32_t bytes);

}  // namespace fastpath::medium
