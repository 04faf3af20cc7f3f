// SPDX-License-Identifier: GPL-2.0-only
// The grid of the error-rate table the build generates from ns-3's models
// (gen/per_table_gen.cc): models, rates and SNR points. C++17 (the generator is an ns-3
// program).
#pragma once

#include <cstdint>

namespace fastpath::medium {

inline constexpr unsigned kPerModels = 2;  ///< 0 NIST, 1 YANS (WifiErrorModel's order)
inline constexpr unsigned kPerRates = 12;
inline constexpr uint32_t kPerRateKbps[kPerRates] = {1000,  2000,  5500,  11000, 6000,  9000,
                                                     12000, 18000, 24000, 36000, 48000, 54000};
/// SNR from kPerSnrMinDb to kPerSnrMinDb + (kPerSnrPoints - 1) * kPerSnrStepDb. Below: the
/// first point's value; above: the last one's (every rate decodes there).
inline constexpr double kPerSnrMinDb = -10;
inline constexpr double kPerSnrStepDb = 0.02;
inline constexpr unsigned kPerSnrPoints = 2501;
inline constexpr double snrDbAt(unsigned i) { return kPerSnrMinDb + i * kPerSnrStepDb; }

/// log(success of one bit) for [model][rate][snr point] (per_table_data.cc, generated).
extern const double kLogBitSuccess[kPerModels][kPerRates][kPerSnrPoints];

/// The table's row of a rate, or -1 for an unknown rate.
inline constexpr int perRateIndex(uint32_t kbps) {
  for (unsigned i = 0; i < kPerRates; ++i)
    if (kPerRateKbps[i] == kbps) return int(i);
  return -1;
}

}  // namespace fastpath::medium
