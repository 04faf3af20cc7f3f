// SPDX-License-Identifier: GPL-2.0-only
#include "medium/airtime.h"

namespace fastpath::medium {

DcfTiming dcfTiming(bool dsss) {
  if (dsss) return DcfTiming{20000, 10000, 10000 + 2 * 20000, 31, 1023};
  return DcfTiming{9000, 16000, 16000 + 2 * 9000, 15, 1023};
}

FrameTiming frameTiming(uint32_t rate_kbps, uint32_t bytes) {
  const uint64_t bits = uint64_t(bytes) * 8;
  if (rate_kbps <= 11000 && rate_kbps != 9000 && rate_kbps != 6000) {
    // ns-3 DsssPhy: MicroSeconds(ceil(bits / rate in Mbit/s)).
    const uint64_t us = (bits * 1000 + rate_kbps - 1) / rate_kbps;
    return FrameTiming{0, 192000, 192000 + us * 1000, 1000};
  }
  const uint64_t bits_per_symbol = uint64_t(rate_kbps) * 4 / 1000;
  const uint64_t symbols = (16 + bits + 6 + bits_per_symbol - 1) / bits_per_symbol;
  return FrameTiming{0, 20000, 20000 + symbols * 4000, 6000};
}

}  // namespace fastpath::medium
