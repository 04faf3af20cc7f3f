// SPDX-License-Identifier: GPL-2.0-only
// IdealWifiManager's HE thresholds and choice against ns-3 3.37: the generated thresholds
// against TableBasedErrorRateModel::CalculateSnr called here, and the MCS an access point's
// IdealWifiManager really picks for a station at several distances (an ns-3 simulation of
// one infrastructure BSS with WifiHelper's defaults, as tutorial/third builds it) against
// idealHeMcs of the SNR the access point observed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>

#include "medium/ideal_rate.h"
#include "ns3/core-module.h"
#include "ns3/he-phy.h"
#include "ns3/mobility-helper.h"
#include "ns3/network-module.h"
#include "ns3/ssid.h"
#include "ns3/table-based-error-rate-model.h"
#include "ns3/wifi-net-device.h"
#include "ns3/wifi-psdu.h"
#include "ns3/yans-wifi-helper.h"

namespace fastpath::medium {
namespace {

TEST(IdealRate, ThresholdsAreNs3s) {
  auto table = ns3::CreateObject<ns3::TableBasedErrorRateModel>();
  for (unsigned w = 0; w < kIdealWidths; ++w)
    for (unsigned m = 0; m < kIdealHeMcs; ++m) {
      ns3::WifiTxVector tx;
      tx.SetMode(ns3::HePhy::GetHeMcs(m));
      tx.SetPreambleType(ns3::WIFI_PREAMBLE_HE_SU);
      tx.SetChannelWidth(kIdealWidthMhz[w]);
      tx.SetGuardInterval(3200);
      tx.SetNss(1);
      EXPECT_DOUBLE_EQ(kIdealHeSnrThresholdDb[w][m],
                       10 * std::log10(table->CalculateSnr(tx, kIdealBerThreshold)))
          << "HE-MCS " << m << " at " << kIdealWidthMhz[w] << " MHz";
    }
  // ns-3's thresholds rise with the MCS (the choice relies on it).
  for (unsigned w = 0; w < kIdealWidths; ++w)
    for (unsigned m = 1; m < kIdealHeMcs; ++m)
      EXPECT_GT(kIdealHeSnrThresholdDb[w][m], kIdealHeSnrThresholdDb[w][m - 1]);
}

TEST(IdealRate, WidthConversionAndEdges) {
  // The 20 MHz ACK third's access point hears at 28.99 dB is 22.97 dB over 80 MHz: HE-MCS 7.
  EXPECT_NEAR(idealSnrAtWidthDb(28.99, 20, 80), 22.969, 0.001);
  EXPECT_EQ(idealHeMcs(idealSnrAtWidthDb(28.99, 20, 80), 80), 7);
  EXPECT_EQ(idealHeMcs(-5, 80), -1);
  EXPECT_EQ(idealHeMcs(60, 80), 11);
  EXPECT_EQ(idealHeMcs(30, 60), -1);
  // Strictly above the threshold, as ns-3's comparison.
  EXPECT_EQ(idealHeMcs(kIdealHeSnrThresholdDb[2][8], 80), 7);
}

// One station at `distance` m from an access point, WifiHelper's and YansWifiPhyHelper's
// defaults (802.11ax, 5 GHz, 80 MHz, IdealWifiManager). The station sends frames to the access
// point, which answers; per HE data frame the access point sends, its MCS and the SNR of the
// last frame it received from the station (what IdealWifiManager keeps).
struct Observed {
  int mcs = -1;
  double snr_db = 0;
  uint16_t snr_width = 0;
};

Observed apDataOnce(double distance) {
  using namespace ns3;
  NodeContainer sta, ap;
  sta.Create(1);
  ap.Create(1);
  YansWifiChannelHelper channel = YansWifiChannelHelper::Default();
  YansWifiPhyHelper phy;
  phy.SetChannel(channel.Create());
  WifiHelper wifi;
  WifiMacHelper mac;
  Ssid ssid("fp-ideal");
  mac.SetType("ns3::StaWifiMac", "Ssid", SsidValue(ssid), "ActiveProbing", BooleanValue(false));
  NetDeviceContainer staDev = wifi.Install(phy, mac, sta);
  mac.SetType("ns3::ApWifiMac", "Ssid", SsidValue(ssid));
  NetDeviceContainer apDev = wifi.Install(phy, mac, ap);
  MobilityHelper mobility;
  Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
  pos->Add(Vector(0, 0, 0));
  pos->Add(Vector(distance, 0, 0));
  mobility.SetPositionAllocator(pos);
  mobility.Install(ap);
  mobility.Install(sta);

  Ptr<WifiNetDevice> apWifi = DynamicCast<WifiNetDevice>(apDev.Get(0));
  Ptr<WifiNetDevice> staWifi = DynamicCast<WifiNetDevice>(staDev.Get(0));
  auto last = std::make_shared<Observed>();
  auto result = std::make_shared<Observed>();
  apWifi->GetPhy()->TraceConnectWithoutContext(
      "MonitorSnifferRx",
      Callback<void, Ptr<const Packet>, uint16_t, WifiTxVector, MpduInfo, SignalNoiseDbm,
               uint16_t>([last](Ptr<const Packet>, uint16_t, WifiTxVector tx, MpduInfo,
                                SignalNoiseDbm sn, uint16_t) {
        last->snr_db = sn.signal - sn.noise;
        last->snr_width = tx.GetChannelWidth();
      }));
  apWifi->GetPhy()->TraceConnectWithoutContext(
      "PhyTxPsduBegin",
      Callback<void, WifiConstPsduMap, WifiTxVector, double>(
          [last, result](WifiConstPsduMap psdus, WifiTxVector tx, double) {
            if (result->mcs < 0 && tx.GetMode().GetModulationClass() == WIFI_MOD_CLASS_HE &&
                psdus.begin()->second->GetHeader(0).IsQosData()) {
              *result = *last;
              result->mcs = tx.GetMode().GetMcsValue();
            }
          }));
  // After association: a frame each way (the access point's answer is HE data).
  Simulator::Schedule(Seconds(1), [staWifi, apWifi]() {
    staWifi->Send(Create<Packet>(500), apWifi->GetAddress(), 0x0800);
  });
  Simulator::Schedule(Seconds(1.1), [staWifi, apWifi]() {
    apWifi->Send(Create<Packet>(500), staWifi->GetAddress(), 0x0800);
  });
  Simulator::Stop(Seconds(1.5));
  Simulator::Run();
  Simulator::Destroy();
  return *result;
}

TEST(IdealRate, ChoiceIsNs3sIdealWifiManagers) {
  std::map<int, int> seen;
  for (double d : {1.0, 5.0, 10.0, 15.0, 20.0, 30.0, 45.0}) {
    const Observed o = apDataOnce(d);
    ASSERT_GE(o.mcs, 0) << d << " m: the access point sent no HE data";
    const double snr = idealSnrAtWidthDb(o.snr_db, o.snr_width, 80);
    EXPECT_EQ(idealHeMcs(snr, 80), o.mcs) << d << " m, observed " << o.snr_db << " dB over "
                                          << o.snr_width << " MHz";
    ++seen[o.mcs];
    std::printf("%.0f m: %.2f dB over %u MHz, HE-MCS %d\n", d, o.snr_db, unsigned(o.snr_width), o.mcs);
  }
  // The distances span several MCS: the comparison is not one point.
  EXPECT_GE(seen.size(), 4u);
}

}  // namespace
}  // namespace fastpath::medium
