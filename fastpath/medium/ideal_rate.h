// SPDX-License-Identifier: GPL-2.0-only
// ns-3 3.37's IdealWifiManager for HE SU frames: the highest HE-MCS whose SNR threshold is
// below the SNR the sender last observed from the receiver, converted to the data's channel
// width. The thresholds are ns-3's own: the SNR at which its default error model
// (TableBasedErrorRateModel) gives the manager's BerThreshold (1e-6), written at build time
// by gen/per_table_gen.cc. C++17 (the generator includes it). The radio medium does not use
// it yet; tests/ideal_rate_ns3_test.cc holds it to ns-3's numbers.
#pragma once

#include <cstdint>

namespace fastpath::medium {

inline constexpr unsigned kIdealWidths = 4;  ///< 20, 40, 80, 160 MHz
inline constexpr uint16_t kIdealWidthMhz[kIdealWidths] = {20, 40, 80, 160};
inline constexpr unsigned kIdealHeMcs = 12;
inline constexpr double kIdealBerThreshold = 1e-6;  ///< IdealWifiManager's BerThreshold

/// SNR (dB) at which HE-MCS m, one stream, at width w reaches kIdealBerThreshold
/// (ErrorRateModel::CalculateSnr of TableBasedErrorRateModel); per_table_data.cc, generated.
extern const double kIdealHeSnrThresholdDb[kIdealWidths][kIdealHeMcs];

/// The width's row of the thresholds, or -1.
inline constexpr int idealWidthIndex(uint16_t width_mhz) {
  for (unsigned i = 0; i < kIdealWidths; ++i)
    if (kIdealWidthMhz[i] == width_mhz) return int(i);
  return -1;
}

/// An SNR observed over `observed_width_mhz` as IdealWifiManager sees it for data at
/// `data_width_mhz`: the same power over a wider channel's noise (linear SNR divided by the
/// widths' ratio).
double idealSnrAtWidthDb(double snr_db, uint16_t observed_width_mhz, uint16_t data_width_mhz);

/// The HE-MCS IdealWifiManager picks for data at `width_mhz` given the SNR (dB, already at
/// that width): the highest whose threshold is below it; -1 when none is (ns-3 then sends
/// at the lowest MCS, 0) or the width is unknown.
int idealHeMcs(double snr_db, uint16_t width_mhz);

}  // namespace fastpath::medium
