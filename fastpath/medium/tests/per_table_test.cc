// SPDX-License-Identifier: GPL-2.0-only
// The generated error-rate table and the medium's receive decisions against ns-3's
// error-rate models called here directly (NistErrorRateModel, YansErrorRateModel; DSSS rates
// through their DsssErrorRateModel), and the frame timing against ns-3's PHY arithmetic.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "medium/airtime.h"
#include "medium/per_table.h"
#include "medium/radio_medium.h"
#include "ns3/dsss-phy.h"
#include "ns3/nist-error-rate-model.h"
#include "ns3/ofdm-phy.h"
#include "ns3/wifi-tx-vector.h"
#include "ns3/yans-error-rate-model.h"

namespace fastpath::medium {
namespace {

using ns3::Ptr;

ns3::WifiMode modeFor(uint32_t kbps) {
  switch (kbps) {
    case 1000: return ns3::DsssPhy::GetDsssRate1Mbps();
    case 2000: return ns3::DsssPhy::GetDsssRate2Mbps();
    case 5500: return ns3::DsssPhy::GetDsssRate5_5Mbps();
    case 11000: return ns3::DsssPhy::GetDsssRate11Mbps();
    default: return ns3::OfdmPhy::GetOfdmRate(uint64_t(kbps) * 1000, 20);
  }
}

Ptr<ns3::ErrorRateModel> ns3Model(WifiErrorModel m) {
  if (m == WifiErrorModel::kNist) return ns3::CreateObject<ns3::NistErrorRateModel>();
  return ns3::CreateObject<ns3::YansErrorRateModel>();
}

/// ns-3's success of `bits` at `snr_db` and `kbps`.
double ns3Success(ns3::ErrorRateModel& model, uint32_t kbps, double snr_db, uint64_t bits) {
  ns3::WifiTxVector tx;
  tx.SetMode(modeFor(kbps));
  tx.SetChannelWidth(isDsssRate(kbps) ? 22 : 20);
  return model.GetChunkSuccessRate(modeFor(kbps), tx, std::pow(10.0, snr_db / 10), bits);
}

TEST(PerTable, GridPointsAreNs3sValues) {
  for (auto m : {WifiErrorModel::kNist, WifiErrorModel::kYans}) {
    auto model = ns3Model(m);
    for (uint32_t kbps : kPerRateKbps)
      for (double snr_db = -5; snr_db <= 30; snr_db += 0.5)
        for (uint64_t bits : {uint64_t(8), uint64_t(8 * 100), uint64_t(8 * 1500)}) {
          const double want = ns3Success(*model, kbps, snr_db, bits);
          const double got = chunkSuccess(m, kbps, snr_db, double(bits));
          EXPECT_NEAR(got, want, 1e-9 + 1e-6 * want)
              << "model " << int(m) << " rate " << kbps << " snr " << snr_db << " bits " << bits;
        }
  }
}

TEST(PerTable, BetweenGridPointsWithinHalfAPercent) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> snr(-5, 35);
  for (auto m : {WifiErrorModel::kNist, WifiErrorModel::kYans}) {
    auto model = ns3Model(m);
    for (int n = 0; n < 3000; ++n) {
      const uint32_t kbps = kPerRateKbps[n % kPerRates];
      const double s = snr(rng);
      const double want = ns3Success(*model, kbps, s, 8 * 1000);
      EXPECT_NEAR(chunkSuccess(m, kbps, s, 8 * 1000), want, 0.005)
          << "model " << int(m) << " rate " << kbps << " snr " << s;
    }
  }
}

TEST(PerTable, NoiseFloorIsNs3s) {
  // ns-3's InterferenceHelper: k = 1.3803e-23, 290 K, 22 MHz (DSSS), noise figure 7 dB.
  EXPECT_NEAR(noiseFloorDbm(11000, 7), -93.97 + 7 - 7 + 0.42, 0.05);
  EXPECT_NEAR(noiseFloorDbm(6000, 7) - noiseFloorDbm(1000, 7), 10 * std::log10(20.0 / 22), 1e-9);
}

TEST(Airtime, DsssAndOfdmDurationsAreNs3s) {
  // 802.11b long preamble: 192 us + ceil(bits / rate) us.
  EXPECT_EQ(frameTiming(1000, 1000).duration_ns, (192 + 8000) * 1000u);
  EXPECT_EQ(frameTiming(11000, 1000).duration_ns, (192 + 728) * 1000u);  // 727.3 -> 728
  EXPECT_EQ(frameTiming(5500, 14).duration_ns, (192 + 21) * 1000u);      // 20.4 -> 21
  // OFDM: 20 us + 4 us per symbol of (16 + 8 * bytes + 6) bits; 6 Mbit/s: 24 bits/symbol.
  EXPECT_EQ(frameTiming(6000, 14).duration_ns, (20 + 4 * 6) * 1000u);    // 134 bits: 6 symbols
  EXPECT_EQ(frameTiming(54000, 1500).duration_ns, (20 + 4 * 56) * 1000u);  // 12022/216: 56
  const DcfTiming b = dcfTiming(true), a = dcfTiming(false);
  EXPECT_EQ(b.difs_ns, 50000u);
  EXPECT_EQ(a.difs_ns, 34000u);
  EXPECT_EQ(b.cw_min, 31u);
  EXPECT_EQ(a.cw_min, 15u);
}

struct Counting : MediumSink {
  uint64_t delivered = 0, finished = 0;
  void deliver(uint64_t, uint32_t, uint64_t) override { ++delivered; }
  void done(uint64_t, uint32_t, TxOutcome) override { ++finished; }
};

/// Two members, `from` 0 heard by 1 at `rx_dbm`; `frames` broadcasts, one at a time.
double deliveredShare(const MediumPhy& phy, double rx_dbm, uint32_t eth_bytes, int frames) {
  RadioMedium m(phy, 2, 11);
  m.pairs().apply({IndexedPair{0, 1, rx_dbm, false}}, false);
  Counting sink;
  uint64_t now = 0;
  for (int i = 0; i < frames; ++i) {
    m.send(now, 0, kBroadcast, eth_bytes, uint64_t(i), sink);
    now = m.nextEventNs();
    while (now != UINT64_MAX && sink.finished <= uint64_t(i)) {
      m.advance(now, sink);
      now = m.nextEventNs();
    }
    now = std::max<uint64_t>(now == UINT64_MAX ? 0 : now, 0) + 1000000 * uint64_t(i + 1);
  }
  return double(sink.delivered) / frames;
}

TEST(RadioMediumDecisions, BroadcastDeliveryFollowsNs3sErrorRate) {
  // A receiver at several SNRs around the basic rate's threshold: the share of frames it
  // receives is ns-3's success of the PHY header and the payload, within 4 sigma.
  for (auto [kbps, model] : {std::pair{1000u, WifiErrorModel::kNist},
                             std::pair{6000u, WifiErrorModel::kNist},
                             std::pair{6000u, WifiErrorModel::kYans}}) {
    MediumPhy phy;
    phy.data_rate_kbps = phy.basic_rate_kbps = kbps;
    phy.error_model = model;
    phy.preamble_snr_db = -100;  // the error model alone decides
    phy.preamble_min_rssi_dbm = -200;
    phy.rx_sensitivity_dbm = phy.cs_threshold_dbm = -200;
    auto ns3m = ns3Model(model);
    const double noise = noiseFloorDbm(kbps, phy.noise_figure_db);
    const uint32_t eth = 500, bytes = wifiFrameBytes(eth);
    const FrameTiming t = frameTiming(kbps, bytes);
    const uint64_t header_bits = (t.payload_start_ns - t.header_start_ns) * t.header_kbps / 1000000;
    int checked = 0;
    for (double snr = -6; snr <= 12; snr += 0.25) {
      const double want = ns3Success(*ns3m, t.header_kbps, snr, header_bits) *
                          ns3Success(*ns3m, kbps, snr, uint64_t(bytes) * 8);
      if (want < 0.05 || want > 0.95) continue;
      const int n = 4000;
      const double got = deliveredShare(phy, noise + snr, eth, n);
      EXPECT_NEAR(got, want, 4 * std::sqrt(want * (1 - want) / n) + 0.005)
          << "rate " << kbps << " model " << int(model) << " snr " << snr;
      ++checked;
    }
    EXPECT_GT(checked, 0) << "rate " << kbps << ": no SNR in the transition";
  }
}

}  // namespace
}  // namespace fastpath::medium
