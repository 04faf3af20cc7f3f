// SPDX-License-Identifier: GPL-2.0-only
#include "medium/he_airtime.h"

namespace fastpath::medium {

namespace {

// Data subcarriers of an HE SU PPDU per width (802.11ax table 27-15: 242-, 484-, 996- and
// 2x996-tone RUs).
uint32_t dataSubcarriers(uint16_t width_mhz) {
  switch (width_mhz) {
    case 20: return 234;
    case 40: return 468;
    case 80: return 980;
    case 160: return 1960;
    default: return 0;
  }
}

// Per MCS: coded bits per subcarrier and the code rate as numerator / denominator.
struct McsParams {
  uint32_t bits_per_subcarrier, rate_num, rate_den;
};
constexpr McsParams kMcs[kHeMcsCount] = {
    {1, 1, 2}, {2, 1, 2}, {2, 3, 4}, {4, 1, 2}, {4, 3, 4},  {6, 2, 3},
    {6, 3, 4}, {6, 5, 6}, {8, 3, 4}, {8, 5, 6}, {10, 3, 4}, {10, 5, 6}};

constexpr uint64_t kSymbolNoGiNs = 12800;

}  // namespace

bool heSuValid(uint8_t mcs, uint16_t width_mhz, uint16_t gi_ns) {
  return mcs < kHeMcsCount && dataSubcarriers(width_mhz) != 0 &&
         (gi_ns == 800 || gi_ns == 1600 || gi_ns == 3200);
}

uint64_t heDataBitsPerSymbolTimes12(uint8_t mcs, uint16_t width_mhz) {
  if (mcs >= kHeMcsCount) return 0;
  const McsParams& p = kMcs[mcs];
  return uint64_t(dataSubcarriers(width_mhz)) * p.bits_per_subcarrier * 12 * p.rate_num /
         p.rate_den;
}

uint64_t heDataRateBps(uint8_t mcs, uint16_t width_mhz, uint16_t gi_ns) {
  if (!heSuValid(mcs, width_mhz, gi_ns)) return 0;
  // bits per symbol / symbol duration, rounded to the nearest bit per second.
  const uint64_t num = heDataBitsPerSymbolTimes12(mcs, width_mhz) * 1000000000ull;
  const uint64_t den = 12 * (kSymbolNoGiNs + gi_ns);
  return (num + den / 2) / den;
}

uint64_t heSuDurationNs(uint8_t mcs, uint16_t width_mhz, uint16_t gi_ns, uint32_t bytes) {
  if (!heSuValid(mcs, width_mhz, gi_ns)) return 0;
  const uint64_t bits12 = (16 + 8 * uint64_t(bytes) + 6) * 12;
  const uint64_t per_symbol12 = heDataBitsPerSymbolTimes12(mcs, width_mhz);
  const uint64_t symbols = (bits12 + per_symbol12 - 1) / per_symbol12;
  return kHeSuPreambleNs + symbols * (kSymbolNoGiNs + gi_ns);
}

}  // namespace fastpath::medium
