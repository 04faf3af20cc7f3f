// SPDX-License-Identifier: GPL-2.0-only
#include "medium/per_table.h"

#include <cmath>

#include "medium/airtime.h"

namespace fastpath::medium {

double chunkSuccess(WifiErrorModel model, uint32_t rate_kbps, double snr_db, double bits) {
  const int r = perRateIndex(rate_kbps);
  if (r < 0) return 0;
  return std::exp(bits * logBitSuccess(model, r, snr_db));
}

double frameSuccess(WifiErrorModel model, uint32_t rate_kbps, double snr_db, uint32_t bytes) {
  const FrameTiming t = frameTiming(rate_kbps, bytes);
  const double header_bits = double(t.payload_start_ns - t.header_start_ns) * t.header_kbps / 1e6;
  return chunkSuccess(model, t.header_kbps, snr_db, header_bits) *
         chunkSuccess(model, rate_kbps, snr_db, double(bytes) * 8);
}

double noiseFloorDbm(uint32_t rate_kbps, double noise_figure_db) {
  constexpr double kBoltzmann = 1.3803e-23;  // ns-3's value
  const double width_hz = isDsssRate(rate_kbps) ? 22e6 : 20e6;
  const double watts = kBoltzmann * 290 * width_hz;
  return 10 * std::log10(watts * 1000) + noise_figure_db;
}

}  // namespace fastpath::medium
