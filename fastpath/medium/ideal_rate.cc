// SPDX-License-Identifier: GPL-2.0-only
#include "medium/ideal_rate.h"

#include <cmath>

namespace fastpath::medium {

double idealSnrAtWidthDb(double snr_db, uint16_t observed_width_mhz, uint16_t data_width_mhz) {
  if (observed_width_mhz == 0 || data_width_mhz == 0) return snr_db;
  return snr_db - 10 * std::log10(double(data_width_mhz) / observed_width_mhz);
}

int idealHeMcs(double snr_db, uint16_t width_mhz) {
  const int w = idealWidthIndex(width_mhz);
  if (w < 0) return -1;
  // The rates grow with the MCS at one width and stream count: the highest qualifying MCS
  // is the fastest, as Ideal's search for the best rate finds.
  int best = -1;
  for (unsigned m = 0; m < kIdealHeMcs; ++m)
    if (kIdealHeSnrThresholdDb[w][m] < snr_db) best = int(m);
  return best;
}

}  // namespace fastpath::medium
