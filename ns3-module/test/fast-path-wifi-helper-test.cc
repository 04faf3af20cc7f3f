// SPDX-License-Identifier: GPL-2.0-only
// FastPathWifiHelper without fastpathd: simulated it is WifiHelper (same devices, same
// frames, same powers); the radio it reads from a script's PHY and station manager, on an
// installed device and on a stand-in; the medium's pairs against the power and the noise
// ns-3's PHY reports for each received frame (MonitorSnifferRx); a MAC stand-in firing the
// link failure traces.
#include "ns3/applications-module.h"
#include "ns3/constant-position-mobility-model.h"
#include "ns3/core-module.h"
#include "ns3/fast-path-wifi-helper.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-helper.h"
#include "ns3/network-module.h"
#include "ns3/wifi-mac-helper.h"
#include "ns3/wifi-mac.h"
#include "ns3/wifi-mpdu.h"
#include "ns3/wifi-remote-station-manager.h"
#include "ns3/wifi-phy.h"
#include "ns3/yans-wifi-channel.h"
#include "ns3/yans-wifi-helper.h"
#include "ns3/propagation-loss-model.h"
#include "ns3/propagation-delay-model.h"

#include <gtest/gtest.h>

#include <map>

using namespace ns3;

namespace
{

/// What a received frame looked like at a PHY: sender's node, power, noise.
struct Heard
{
    uint32_t rxNode;
    double signalDbm;
    double noiseDbm;
};

struct Outcome
{
    std::string deviceType;
    uint64_t echoed = 0;
    std::vector<Heard> heard;
    std::vector<FastPathMediumPair> pairs; //!< the plan of the installed devices
    std::vector<FastPathRadio> radios;
    FastPathRadio standIn;
};

std::vector<Heard>* g_heard = nullptr;

void
Sniffed(std::string context,
        Ptr<const Packet>,
        uint16_t,
        WifiTxVector,
        MpduInfo,
        SignalNoiseDbm sn,
        uint16_t)
{
    g_heard->push_back({static_cast<uint32_t>(std::stoul(context)), sn.signal, sn.noise});
}

/// Three ad hoc nodes at 0, 10 and 25 m (802.11b, 11 Mbit/s, 7.5 dBm, the channel's
/// default LogDistance + ConstantSpeed), node 0 echoing to node 1 and node 2 to node 1.
template <typename Helper>
Outcome
Scenario()
{
    RngSeedManager::SetSeed(7);
    RngSeedManager::SetRun(1);
    NodeContainer nodes;
    nodes.Create(3);
    MobilityHelper mobility;
    Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
    pos->Add(Vector(0, 0, 0));
    pos->Add(Vector(10, 0, 0));
    pos->Add(Vector(25, 0, 0));
    mobility.SetPositionAllocator(pos);
    mobility.Install(nodes);

    Helper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211b);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode",
                                 StringValue("DsssRate11Mbps"),
                                 "ControlMode",
                                 StringValue("DsssRate2Mbps"),
                                 "MaxSsrc",
                                 UintegerValue(5));
    YansWifiPhyHelper phy;
    YansWifiChannelHelper channel = YansWifiChannelHelper::Default();
    phy.SetChannel(channel.Create());
    phy.Set("TxPowerStart", DoubleValue(7.5));
    phy.Set("TxPowerEnd", DoubleValue(7.5));
    phy.Set("RxSensitivity", DoubleValue(-95));
    phy.Set("CcaSensitivity", DoubleValue(-84));
    phy.Set("RxNoiseFigure", DoubleValue(5));
    phy.Set("RxGain", DoubleValue(1.5));
    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac");
    NetDeviceContainer devices = wifi.Install(phy, mac, nodes);

    Outcome out;
    if constexpr (std::is_same_v<Helper, FastPathWifiHelper>)
    {
        // Without a MAC: this simulation's frames reach it on the channel (the emulation's
        // MAC stand-ins are on a channel nothing transmits on).
        Ptr<WifiNetDevice> s = wifi.CreateStandIn(phy, mac, nodes.Get(0));
        out.standIn = wifi.RadioOf(s, phy);
        EXPECT_EQ(nodes.Get(0)->GetNDevices(), 1u); // the stand-in is on no node
        EXPECT_EQ(FastPathWifiHelper::MacTypeOf(mac), "ns3::AdhocWifiMac");
    }

    InternetStackHelper internet;
    internet.Install(nodes);
    Ipv4AddressHelper addresses;
    addresses.SetBase("198.18.0.0", "255.255.255.0");
    Ipv4InterfaceContainer ifs = addresses.Assign(devices);
    UdpEchoServerHelper server(9);
    server.Install(nodes.Get(1)).Start(Seconds(0.5));
    for (uint32_t client : {0u, 2u})
    {
        UdpEchoClientHelper echo(ifs.GetAddress(1), 9);
        echo.SetAttribute("MaxPackets", UintegerValue(20));
        echo.SetAttribute("Interval", TimeValue(MilliSeconds(50)));
        echo.SetAttribute("PacketSize", UintegerValue(600));
        ApplicationContainer a = echo.Install(nodes.Get(client));
        a.Start(Seconds(1 + 0.01 * client));
        a.Get(0)->TraceConnectWithoutContext(
            "RxWithAddresses",
            MakeBoundCallback(+[](uint64_t* n, Ptr<const Packet>, const Address&, const Address&) {
                ++*n;
            }, &out.echoed));
    }
    g_heard = &out.heard;
    for (uint32_t i = 0; i < 3; ++i)
    {
        Ptr<WifiNetDevice> d = DynamicCast<WifiNetDevice>(devices.Get(i));
        d->GetPhy()->TraceConnect("MonitorSnifferRx", std::to_string(i), MakeCallback(&Sniffed));
        if constexpr (std::is_same_v<Helper, FastPathWifiHelper>)
        {
            out.radios.push_back(wifi.RadioOf(d, phy));
        }
    }
    out.deviceType = devices.Get(0)->GetInstanceTypeId().GetName();
    if constexpr (std::is_same_v<Helper, FastPathWifiHelper>)
    {
        out.pairs = wifi.PlanOf(devices, phy).ComputeAll();
    }
    Simulator::Stop(Seconds(3));
    Simulator::Run();
    Simulator::Destroy();
    g_heard = nullptr;
    return out;
}

} // namespace

TEST(FastPathWifiHelperTest, SimulatedItIsWifiHelper)
{
    const Outcome plain = Scenario<WifiHelper>();
    const Outcome fast = Scenario<FastPathWifiHelper>();
    EXPECT_EQ(fast.deviceType, "ns3::WifiNetDevice");
    EXPECT_EQ(fast.deviceType, plain.deviceType);
    EXPECT_EQ(plain.echoed, 40u);
    EXPECT_EQ(fast.echoed, plain.echoed);
    ASSERT_EQ(fast.heard.size(), plain.heard.size());
    ASSERT_GT(fast.heard.size(), 80u);
    for (size_t i = 0; i < fast.heard.size(); ++i)
    {
        EXPECT_EQ(fast.heard[i].rxNode, plain.heard[i].rxNode);
        EXPECT_DOUBLE_EQ(fast.heard[i].signalDbm, plain.heard[i].signalDbm);
    }
}

TEST(FastPathWifiHelperTest, RadioIsTheScriptsPhyAndStationManager)
{
    const Outcome o = Scenario<FastPathWifiHelper>();
    ASSERT_EQ(o.radios.size(), 3u);
    FastPathRadio r = o.radios[0];
    EXPECT_DOUBLE_EQ(r.txPowerDbm, 7.5);
    EXPECT_DOUBLE_EQ(r.rxGainDb, 1.5);
    EXPECT_DOUBLE_EQ(r.rxSensitivityDbm, -95);
    EXPECT_DOUBLE_EQ(r.ccaSensitivityDbm, -84);
    EXPECT_DOUBLE_EQ(r.noiseFigureDb, 5);
    EXPECT_EQ(r.channelWidthMhz, 22); // 802.11b
    EXPECT_EQ(r.dataMode, "DsssRate11Mbps");
    EXPECT_EQ(r.controlMode, "DsssRate2Mbps");
    EXPECT_EQ(r.nonUnicastMode, "DsssRate1Mbps"); // unset: the basic mode
    EXPECT_EQ(r.maxSsrc, 5u);
    EXPECT_EQ(r.maxSlrc, 4u);
    EXPECT_EQ(r.rtsCtsThreshold, 65535u);
    // The stand-in built from the helpers, never on a node, reads the same radio (but the
    // control answer modes, which need a MAC: MacStandInFiresTheLinkFailureTraces).
    EXPECT_TRUE(o.standIn.ctsMode.empty() && o.standIn.ackMode.empty());
    r.ctsMode.clear();
    r.ackMode.clear();
    EXPECT_TRUE(o.standIn == r) << o.standIn.dataMode << " " << o.standIn.nonUnicastMode << " "
                                << o.standIn.channelWidthMhz;
}

TEST(FastPathWifiHelperTest, PairsAreWhatNs3sPhyReceives)
{
    const Outcome o = Scenario<FastPathWifiHelper>();
    // Node 1 hears 0 and 2; 0 and 2 hear 1 (replies) and, 25 m apart, each other's
    // frames when the plan says they are in range. Every frame's power at a receiver is
    // one of the plan's pairs into it, and its noise the receiver's noise floor when
    // nothing else was on the air.
    std::map<uint32_t, std::vector<double>> into;
    for (const auto& p : o.pairs)
    {
        into[p.rx].push_back(p.rxPowerDbm);
    }
    ASSERT_FALSE(o.heard.empty());
    uint32_t matched = 0;
    uint32_t quiet = 0;
    for (const auto& h : o.heard)
    {
        bool found = false;
        for (double dbm : into[h.rxNode])
        {
            found = found || std::fabs(dbm - h.signalDbm) < 1e-6;
        }
        EXPECT_TRUE(found) << "node " << h.rxNode << " heard " << h.signalDbm
                           << " dBm, no pair into it has that power";
        matched += found;
        if (std::fabs(h.noiseDbm - o.radios[h.rxNode].NoiseFloorDbm()) < 1e-6)
        {
            ++quiet;
        }
    }
    EXPECT_EQ(matched, o.heard.size());
    EXPECT_GT(quiet, o.heard.size() / 2); // most frames met no interference
    // The plan is sparse at the sensitivity: every pair in it is at or above -95 dBm.
    for (const auto& p : o.pairs)
    {
        EXPECT_GE(p.rxPowerDbm, -95);
    }
}

TEST(FastPathWifiHelperTest, ModeNamesGiveTheMediumsRates)
{
    EXPECT_EQ(FastPathWifiHelper::RateKbps("DsssRate1Mbps"), 1000u);
    EXPECT_EQ(FastPathWifiHelper::RateKbps("DsssRate5_5Mbps"), 5500u);
    EXPECT_EQ(FastPathWifiHelper::RateKbps("DsssRate11Mbps"), 11000u);
    EXPECT_EQ(FastPathWifiHelper::RateKbps("OfdmRate6Mbps"), 6000u);
    EXPECT_EQ(FastPathWifiHelper::RateKbps("ErpOfdmRate54Mbps"), 54000u);
    EXPECT_EQ(FastPathWifiHelper::RateKbps("HtMcs7"), 0u);
    EXPECT_EQ(FastPathWifiHelper::RateKbps(""), 0u);
}

TEST(FastPathWifiHelperTest, MediumPhyIsTheScriptsRadioAndErrorModels)
{
    FastPathRadio r;
    r.dataMode = "DsssRate11Mbps";
    r.nonUnicastMode = "DsssRate2Mbps";
    r.noiseFigureDb = 5;
    r.rxSensitivityDbm = -93;
    r.maxSsrc = 5;
    YansWifiPhyHelper plain;
    fastpath::MediumPhy p = FastPathWifiHelper::MediumPhyOf(r, plain);
    EXPECT_EQ(p.data_rate_kbps, 11000u);
    EXPECT_EQ(p.basic_rate_kbps, 2000u);
    EXPECT_DOUBLE_EQ(p.noise_figure_db, 5);
    EXPECT_DOUBLE_EQ(p.rx_sensitivity_dbm, -93);
    EXPECT_DOUBLE_EQ(p.cs_threshold_dbm, -82); // CcaSensitivity, not RxSensitivity
    EXPECT_EQ(p.retry_limit, 5u);
    EXPECT_LT(p.capture_margin_db, 0); // no frame capture model: none
    EXPECT_TRUE(fastpath::validateMediumPhy(p).ok());
    r.ccaSensitivityDbm = -85;
    EXPECT_DOUBLE_EQ(FastPathWifiHelper::MediumPhyOf(r, plain).cs_threshold_dbm, -85);
    r.ccaSensitivityDbm = -82;

    YansWifiPhyHelper nist;
    nist.SetErrorRateModel("ns3::NistErrorRateModel");
    nist.SetFrameCaptureModel("ns3::SimpleFrameCaptureModel", "Margin", DoubleValue(4.5));
    p = FastPathWifiHelper::MediumPhyOf(r, nist);
    EXPECT_EQ(p.error_model, fastpath::WifiErrorModel::kNist);
    EXPECT_DOUBLE_EQ(p.capture_margin_db, 4.5);
    YansWifiPhyHelper yans;
    yans.SetErrorRateModel("ns3::YansErrorRateModel");
    EXPECT_EQ(FastPathWifiHelper::MediumPhyOf(r, yans).error_model,
              fastpath::WifiErrorModel::kYans);
    // A rate the medium does not have is refused by the medium's own rule.
    r.dataMode = "HtMcs7";
    EXPECT_FALSE(fastpath::validateMediumPhy(FastPathWifiHelper::MediumPhyOf(r, plain)).ok());
}

TEST(FastPathWifiHelperTest, NoiseFigureComesFromTheHelperOrTheDefault)
{
    YansWifiPhyHelper set;
    set.Set("RxNoiseFigure", DoubleValue(4.25));
    EXPECT_DOUBLE_EQ(FastPathWifiHelper::NoiseFigureOf(set), 4.25);
    YansWifiPhyHelper unset;
    EXPECT_DOUBLE_EQ(FastPathWifiHelper::NoiseFigureOf(unset), 7);
    Config::SetDefault("ns3::WifiPhy::RxNoiseFigure", DoubleValue(9));
    YansWifiPhyHelper later;
    EXPECT_DOUBLE_EQ(FastPathWifiHelper::NoiseFigureOf(later), 9);
    Config::SetDefault("ns3::WifiPhy::RxNoiseFigure", DoubleValue(7));
}

TEST(FastPathWifiHelperDeathTest, EmulatedTheDefaultWifiHelpersStationManagerIsRefused)
{
    // An infrastructure MAC passes; WifiHelper's defaults (802.11ax, IdealWifiManager: the
    // tutorial's third.cc) are refused by the rate they would pick.
    auto script = []() {
        GlobalValue::Bind("FastPathEmulation", BooleanValue(true));
        NodeContainer nodes;
        nodes.Create(2);
        FastPathWifiHelper wifi;
        YansWifiPhyHelper phy;
        phy.SetChannel(YansWifiChannelHelper::Default().Create());
        WifiMacHelper mac;
        mac.SetType("ns3::StaWifiMac");
        wifi.Install(phy, mac, nodes);
    };
    EXPECT_EXIT(script(),
                ::testing::ExitedWithCode(1),
                "the station manager ns3::IdealWifiManager is not emulated");
}

TEST(FastPathWifiHelperDeathTest, EmulatedAStationManagerTheMediumHasNotIsRefused)
{
    auto script = []() {
        GlobalValue::Bind("FastPathEmulation", BooleanValue(true));
        NodeContainer nodes;
        nodes.Create(2);
        FastPathWifiHelper wifi;
        wifi.SetStandard(WIFI_STANDARD_80211b);
        wifi.SetRemoteStationManager("ns3::MinstrelWifiManager");
        YansWifiPhyHelper phy;
        phy.SetChannel(YansWifiChannelHelper::Default().Create());
        WifiMacHelper mac;
        mac.SetType("ns3::AdhocWifiMac");
        wifi.Install(phy, mac, nodes);
    };
    EXPECT_EXIT(script(),
                ::testing::ExitedWithCode(1),
                "the station manager ns3::MinstrelWifiManager is not emulated: the medium adapts "
                "the rate as ns3::ArfWifiManager does or keeps it constant");
}

TEST(FastPathWifiHelperTest, BatchesBecomeMediumUpdatesByNodeName)
{
    std::vector<FastPathPairUpdate> batch(2);
    batch[0].pair = {0, 2, -61.5, 300};
    batch[1].pair = {2, 1, 0, 0};
    batch[1].present = false;
    const std::vector<std::string> members = {"t-a", "t-b", "t-c"};
    fastpath::MediumUpdate u = FastPathWifiHelper::UpdateOf(batch, members, true);
    EXPECT_TRUE(u.replace_all);
    ASSERT_EQ(u.pairs.size(), 2u);
    EXPECT_EQ(u.pairs[0].from, "t-a");
    EXPECT_EQ(u.pairs[0].to, "t-c");
    EXPECT_DOUBLE_EQ(u.pairs[0].rx_power_dbm, -61.5);
    EXPECT_FALSE(u.pairs[0].remove);
    EXPECT_EQ(u.pairs[1].from, "t-c");
    EXPECT_EQ(u.pairs[1].to, "t-b");
    EXPECT_TRUE(u.pairs[1].remove);
    EXPECT_FALSE(FastPathWifiHelper::UpdateOf(batch, members, false).replace_all);
    // Every pair passes the medium's own rule for a pair.
    EXPECT_TRUE(fastpath::validateMediumPair(u.pairs[0], members).ok());
}

TEST(FastPathWifiHelperTest, HiddenTerminalsPairsFromAMatrixLossAndArfsRate)
{
    // wifi-hidden-terminal's set-up: a MatrixPropagationLossModel on a YansWifiChannel made
    // by hand, 0 and 2 hear 1 but not each other; ARF adapts the rate.
    NodeContainer nodes;
    nodes.Create(3);
    for (uint32_t i = 0; i < 3; ++i)
    {
        nodes.Get(i)->AggregateObject(CreateObject<ConstantPositionMobilityModel>());
    }
    Ptr<MatrixPropagationLossModel> loss = CreateObject<MatrixPropagationLossModel>();
    loss->SetDefaultLoss(200);
    loss->SetLoss(nodes.Get(0)->GetObject<MobilityModel>(), nodes.Get(1)->GetObject<MobilityModel>(), 50);
    loss->SetLoss(nodes.Get(2)->GetObject<MobilityModel>(), nodes.Get(1)->GetObject<MobilityModel>(), 50);
    Ptr<YansWifiChannel> channel = CreateObject<YansWifiChannel>();
    channel->SetPropagationLossModel(loss);
    channel->SetPropagationDelayModel(CreateObject<ConstantSpeedPropagationDelayModel>());
    FastPathWifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211b);
    wifi.SetRemoteStationManager("ns3::ArfWifiManager");
    YansWifiPhyHelper phy;
    phy.SetChannel(channel);
    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac");
    NetDeviceContainer devices = wifi.Install(phy, mac, nodes);
    FastPathMediumPlan plan = wifi.PlanOf(devices, phy);
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    for (const auto& p : plan.ComputeAll())
    {
        pairs.emplace_back(p.tx, p.rx);
        EXPECT_NEAR(p.rxPowerDbm, 16.0206 - 50, 1e-3);
    }
    const std::vector<std::pair<uint32_t, uint32_t>> expected = {{0, 1}, {1, 0}, {1, 2}, {2, 1}};
    EXPECT_EQ(pairs, expected);
    const FastPathRadio r = wifi.RadioOf(DynamicCast<WifiNetDevice>(devices.Get(0)), phy);
    EXPECT_EQ(r.dataMode, "DsssRate11Mbps"); // ARF's top rate
    EXPECT_EQ(r.controlMode, "DsssRate1Mbps");
    EXPECT_EQ(r.stationManager, "ns3::ArfWifiManager");
    EXPECT_EQ(r.arfSuccessThreshold, 10u);
    EXPECT_EQ(r.arfTimerThreshold, 15u);
    const fastpath::MediumPhy p = FastPathWifiHelper::MediumPhyOf(r, phy);
    EXPECT_EQ(p.rate_control, fastpath::RateControl::kArf);
    EXPECT_EQ(p.data_rate_kbps, 11000u);
    EXPECT_TRUE(fastpath::validateMediumPhy(p).ok());
    Simulator::Destroy();
}

// A MAC stand-in reports a unicast that exhausted its retries as ns-3's MAC does: WifiMac's
// DroppedMpdu (the reason, the receiver in Addr1) and the station manager's
// MacTxFinalDataFailed; its station manager gives the control answers' modes.
TEST(FastPathWifiHelperTest, MacStandInFiresTheLinkFailureTraces)
{
    NodeContainer nodes;
    nodes.Create(1);
    nodes.Get(0)->AggregateObject(CreateObject<ConstantPositionMobilityModel>());
    FastPathWifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211b);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode", StringValue("DsssRate11Mbps"),
                                 "ControlMode", StringValue("DsssRate1Mbps"));
    YansWifiPhyHelper phy;
    phy.SetChannel(YansWifiChannelHelper::Default().Create());
    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac");
    const Mac48Address self("02:00:00:00:00:0a");
    Ptr<WifiNetDevice> d = wifi.CreateMacStandIn(phy, mac, nodes.Get(0), self);
    ASSERT_TRUE(d->GetMac());
    EXPECT_EQ(d->GetMac()->GetAddress(), self);
    EXPECT_EQ(nodes.Get(0)->GetNDevices(), 0u);

    struct Seen
    {
        std::vector<std::pair<WifiMacDropReason, Mac48Address>> dropped;
        std::vector<Mac48Address> finalFailed;
    } seen;
    d->GetMac()->TraceConnectWithoutContext(
        "DroppedMpdu",
        MakeBoundCallback(+[](Seen* s, WifiMacDropReason why, Ptr<const WifiMpdu> mpdu) {
            s->dropped.emplace_back(why, mpdu->GetHeader().GetAddr1());
        }, &seen));
    d->GetRemoteStationManager()->TraceConnectWithoutContext(
        "MacTxFinalDataFailed",
        MakeBoundCallback(+[](Seen* s, Mac48Address a) { s->finalFailed.push_back(a); }, &seen));
    const Mac48Address peer("02:00:00:00:00:0b");
    FastPathWifiHelper::NotifyRetryLimit(d, peer);
    ASSERT_EQ(seen.dropped.size(), 1u);
    EXPECT_EQ(seen.dropped[0].first, WIFI_MAC_DROP_REACHED_RETRY_LIMIT);
    EXPECT_EQ(seen.dropped[0].second, peer);
    ASSERT_EQ(seen.finalFailed.size(), 1u);
    EXPECT_EQ(seen.finalFailed[0], peer);

    // The CTS answers the 1 Mbit/s RTS at 1 Mbit/s; the ACK answers an 11 Mbit/s frame with
    // ns-3's control answer mode for it.
    const FastPathRadio r = wifi.RadioOf(d, phy);
    EXPECT_EQ(r.ctsMode, "DsssRate1Mbps");
    EXPECT_EQ(r.ackMode,
              d->GetRemoteStationManager()->GetControlAnswerMode(WifiMode("DsssRate11Mbps"))
                  .GetUniqueName());
    const fastpath::MediumPhy p = FastPathWifiHelper::MediumPhyOf(r, phy);
    EXPECT_EQ(p.rts_rate_kbps, 1000u);
    EXPECT_EQ(p.cts_rate_kbps, 1000u);
    EXPECT_EQ(p.ack_rate_kbps, FastPathWifiHelper::RateKbps(r.ackMode));
    EXPECT_EQ(p.rts_threshold, 65535u);
    EXPECT_EQ(p.long_retry_limit, 4u);
    Simulator::Destroy();
}

// The medium's queue is WifiMacQueue's default (500 frames, MaxDelay 500 ms): a script that
// keeps it passes, one that changes its MaxDelay or MaxSize is told what differs.
TEST(FastPathWifiHelperTest, QueueOtherThanNs3sDefaultIsNamed)
{
    NodeContainer nodes;
    nodes.Create(1);
    nodes.Get(0)->AggregateObject(CreateObject<ConstantPositionMobilityModel>());
    FastPathWifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211b);
    YansWifiPhyHelper phy;
    phy.SetChannel(YansWifiChannelHelper::Default().Create());
    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac");
    auto standIn = [&] {
        return wifi.CreateMacStandIn(phy, mac, nodes.Get(0), Mac48Address("02:00:00:00:00:0a"));
    };
    EXPECT_EQ(FastPathWifiHelper::QueueMismatch(standIn()), "");
    EXPECT_EQ(FastPathWifiHelper::QueueMismatch(nullptr), "");  // the defaults, no MAC

    Config::SetDefault("ns3::WifiMacQueue::MaxDelay", TimeValue(MilliSeconds(100)));
    const std::string delay = FastPathWifiHelper::QueueMismatch(standIn());
    EXPECT_NE(delay.find("MaxDelay +100"), std::string::npos) << delay;
    EXPECT_NE(FastPathWifiHelper::QueueMismatch(nullptr).find("MaxDelay"), std::string::npos);
    Config::SetDefault("ns3::WifiMacQueue::MaxDelay", TimeValue(MilliSeconds(500)));

    Config::SetDefault("ns3::WifiMacQueue::MaxSize", QueueSizeValue(QueueSize("100p")));
    const std::string size = FastPathWifiHelper::QueueMismatch(standIn());
    EXPECT_NE(size.find("MaxSize 100p"), std::string::npos) << size;
    Config::SetDefault("ns3::WifiMacQueue::MaxSize", QueueSizeValue(QueueSize("500p")));
    EXPECT_EQ(FastPathWifiHelper::QueueMismatch(standIn()), "");
    Simulator::Destroy();
}
