// SPDX-License-Identifier: GPL-2.0-only
// HE SU timing against ns-3 3.37's own: WifiPhy::CalculateTxDuration and WifiMode::GetDataRate
// for every HE-MCS, width and guard interval, over every PSDU size up to 4000 bytes.
#include <gtest/gtest.h>

#include "medium/he_airtime.h"
#include "ns3/he-phy.h"
#include "ns3/wifi-phy.h"
#include "ns3/wifi-tx-vector.h"

namespace fastpath::medium {
namespace {

ns3::WifiTxVector heSu(uint8_t mcs, uint16_t width, uint16_t gi) {
  ns3::WifiTxVector tx;
  tx.SetMode(ns3::HePhy::GetHeMcs(mcs));
  tx.SetPreambleType(ns3::WIFI_PREAMBLE_HE_SU);
  tx.SetChannelWidth(width);
  tx.SetGuardInterval(gi);
  tx.SetNss(1);
  return tx;
}

TEST(HeAirtime, RatesAreNs3s) {
  for (uint16_t width : {20, 40, 80, 160})
    for (uint16_t gi : {800, 1600, 3200})
      for (uint8_t mcs = 0; mcs < kHeMcsCount; ++mcs) {
        const ns3::WifiTxVector tx = heSu(mcs, width, gi);
        const uint64_t ns3_bps = ns3::HePhy::GetHeMcs(mcs).GetDataRate(tx);
        // ns-3 truncates a double to uint64: within one bit per second.
        EXPECT_LE(std::max(ns3_bps, heDataRateBps(mcs, width, gi)) -
                      std::min(ns3_bps, heDataRateBps(mcs, width, gi)),
                  1u)
            << "MCS " << int(mcs) << " " << width << " MHz GI " << gi;
      }
  // third.cc's data frames: HE-MCS 7 at 80 MHz, 3.2 us GI (ns-3 3.37's defaults).
  EXPECT_EQ(heDataRateBps(7, 80, 3200), 306250000u);
}

TEST(HeAirtime, SuDurationsAreNs3s) {
  unsigned mismatches = 0;
  for (uint16_t width : {20, 40, 80, 160})
    for (uint16_t gi : {800, 1600, 3200})
      for (uint8_t mcs = 0; mcs < kHeMcsCount; ++mcs) {
        const ns3::WifiTxVector tx = heSu(mcs, width, gi);
        for (uint32_t bytes = 1; bytes <= 4000; ++bytes) {
          const uint64_t ns3_ns =
              ns3::WifiPhy::CalculateTxDuration(bytes, tx, ns3::WIFI_PHY_BAND_5GHZ)
                  .GetNanoSeconds();
          const uint64_t ours = heSuDurationNs(mcs, width, gi, bytes);
          if (ours != ns3_ns && ++mismatches <= 5)
            ADD_FAILURE() << "MCS " << int(mcs) << " " << width << " MHz GI " << gi << " "
                          << bytes << " bytes: ns-3 " << ns3_ns << " ns, ours " << ours;
        }
      }
  EXPECT_EQ(mismatches, 0u);
  // The echo request of third.cc: a 1094-byte S-MPDU at HE-MCS 7, 80 MHz, 3.2 us GI.
  EXPECT_EQ(heSuDurationNs(7, 80, 3200, 1094), 76000u);
}

TEST(HeAirtime, InvalidParametersGiveZero) {
  EXPECT_EQ(heSuDurationNs(12, 80, 3200, 100), 0u);
  EXPECT_EQ(heSuDurationNs(7, 60, 3200, 100), 0u);
  EXPECT_EQ(heSuDurationNs(7, 80, 400, 100), 0u);
  EXPECT_EQ(heDataRateBps(7, 80, 400), 0u);
  EXPECT_FALSE(heSuValid(0, 10, 800));
}

}  // namespace
}  // namespace fastpath::medium
