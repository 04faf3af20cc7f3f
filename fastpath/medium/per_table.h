// SPDX-License-Identifier: GPL-2.0-only
// Error rates from the table the build generated from ns-3's models (per_table_grid.h):
// the log of a bit's success at an SNR, interpolated between the grid's points, and what
// follows from it for a frame.
#pragma once

#include <cstdint>

#include "fastpath/medium_types.h"
#include "medium/per_table_grid.h"

namespace fastpath::medium {

/// log(success of one bit) at `snr_db` for the rate of table row `rate_index`.
inline double logBitSuccess(WifiErrorModel model, int rate_index, double snr_db) {
  const double* row = kLogBitSuccess[static_cast<unsigned>(model)][rate_index];
  double x = (snr_db - kPerSnrMinDb) / kPerSnrStepDb;
  if (!(x > 0)) return row[0];
  if (x >= kPerSnrPoints - 1) return row[kPerSnrPoints - 1];
  const unsigned i = static_cast<unsigned>(x);
  const double f = x - i;
  return row[i] + (row[i + 1] - row[i]) * f;
}

/// Success of a chunk of `bits` at `snr_db` and `rate_kbps` (a known rate), as ns-3's
/// ErrorRateModel::GetChunkSuccessRate.
double chunkSuccess(WifiErrorModel model, uint32_t rate_kbps, double snr_db, double bits);

/// Success of one try of a whole MAC frame of `bytes` without interference: its PHY header
/// at the header rate and its payload at `rate_kbps` (what ns-3's PHY draws).
double frameSuccess(WifiErrorModel model, uint32_t rate_kbps, double snr_db, uint32_t bytes);

/// The receiver's noise floor: thermal noise (k * 290 K) over the channel (22 MHz DSSS,
/// 20 MHz OFDM) times the noise figure, as ns-3's InterferenceHelper; in dBm.
double noiseFloorDbm(uint32_t rate_kbps, double noise_figure_db);

}  // namespace fastpath::medium
