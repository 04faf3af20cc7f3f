// SPDX-License-Identifier: GPL-2.0-only
// FastPathWifiHelper emulating an infrastructure BSS, against fastpathd's control server over
// an in-memory network (no fastpathd, no privileges): the stations' and the access point's
// Install() return emulated devices at once, on one channel that Ipv4GlobalRoutingHelper
// reads as it reads the simulated BSS's (the same routes both ways); what is not one BSS of
// one access point is refused, a BSS without its access point when the run starts.
#include "fast-path-in-memory-fixture.h"

#include "ns3/core-module.h"
#include "ns3/fast-path-channel.h"
#include "ns3/fast-path-net-device.h"
#include "ns3/fast-path-point-to-point-helper.h"
#include "ns3/fast-path-wifi-helper.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-helper.h"
#include "ns3/network-module.h"
#include "ns3/ssid.h"
#include "ns3/wifi-mac-helper.h"
#include "ns3/yans-wifi-helper.h"

#include <gtest/gtest.h>

#include <string>

using namespace ns3;

namespace
{

/// A route's choice for a destination: the gateway and the output device's index.
struct Hop
{
    Ipv4Address gateway;
    uint32_t ifIndex = 0;
};

class WifiBssTest : public fastpath_ns3_test::InMemoryEmulationTest
{
  protected:
    WifiBssTest()
        : InMemoryEmulationTest("bss")
    {
    }
};

/// third.cc's shape, smaller: a server behind the access point over a point-to-point link
/// (10.1.1.0/24), two stations in the BSS (10.1.3.0/24), global routing. Returns the hop
/// of station 1 towards the server and of the server towards station 1, and checks the
/// devices the Install() calls returned.
std::pair<Hop, Hop>
ThirdLike(bool emulated)
{
    NodeContainer ends;
    ends.Create(2); // the access point, the server
    NodeContainer stations;
    stations.Create(2);
    FastPathPointToPointHelper p2p;
    NetDeviceContainer p2pDevices = p2p.Install(ends);

    FastPathWifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211b);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode",
                                 StringValue("DsssRate11Mbps"),
                                 "ControlMode",
                                 StringValue("DsssRate1Mbps"));
    YansWifiPhyHelper phy;
    phy.SetChannel(YansWifiChannelHelper::Default().Create());
    WifiMacHelper mac;
    const Ssid ssid("fp-bss");
    mac.SetType("ns3::StaWifiMac", "Ssid", SsidValue(ssid), "ActiveProbing", BooleanValue(false));
    NetDeviceContainer staDevices = wifi.Install(phy, mac, stations);
    mac.SetType("ns3::ApWifiMac", "Ssid", SsidValue(ssid));
    NetDeviceContainer apDevices = wifi.Install(phy, mac, ends.Get(0));

    EXPECT_EQ(staDevices.GetN(), 2u);
    EXPECT_EQ(apDevices.GetN(), 1u);
    if (emulated)
    {
        // Emulated devices at once, all three on one BSS channel.
        Ptr<Channel> bss = apDevices.Get(0)->GetChannel();
        EXPECT_TRUE(DynamicCast<FastPathWifiChannel>(bss));
        for (uint32_t i = 0; i < 2; ++i)
        {
            EXPECT_TRUE(DynamicCast<FastPathNetDevice>(staDevices.Get(i)));
            EXPECT_EQ(staDevices.Get(i)->GetChannel(), bss);
            EXPECT_EQ(staDevices.Get(i)->GetNode(), stations.Get(i));
        }
        EXPECT_EQ(bss ? bss->GetNDevices() : 0, 3u);
        EXPECT_EQ(stations.Get(0)->GetNDevices(), 1u) << "the stand-ins are on no node";
    }

    MobilityHelper mobility;
    mobility.Install(stations);
    mobility.Install(ends.Get(0));
    InternetStackHelper stack;
    stack.Install(ends);
    stack.Install(stations);
    Ipv4AddressHelper address;
    address.SetBase("10.1.1.0", "255.255.255.0");
    address.Assign(p2pDevices);
    address.SetBase("10.1.3.0", "255.255.255.0");
    Ipv4InterfaceContainer sta = address.Assign(staDevices);
    address.Assign(apDevices);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    auto hop = [](Ptr<Node> from, Ipv4Address to) {
        Ptr<Ipv4> ipv4 = from->GetObject<Ipv4>();
        Ipv4Header h;
        h.SetDestination(to);
        Socket::SocketErrno err;
        Ptr<Ipv4Route> r =
            ipv4->GetRoutingProtocol()->RouteOutput(Create<Packet>(), h, nullptr, err);
        EXPECT_TRUE(r) << "no route from node " << from->GetId() << " to " << to;
        return r ? Hop{r->GetGateway(), r->GetOutputDevice()->GetIfIndex()} : Hop{};
    };
    return {hop(stations.Get(1), Ipv4Address("10.1.1.2")), hop(ends.Get(1), sta.GetAddress(1))};
}

TEST_F(WifiBssTest, EmulatedStationsAndAccessPointAreOneBssGlobalRoutingReadsAsSimulated)
{
    Emulate(false);
    const auto simulated = ThirdLike(false);
    Simulator::Destroy();
    Emulate(true);
    const auto emulated = ThirdLike(true);
    // The station goes to the server through the access point's BSS address, the server
    // to the station through the access point's link address: both runs alike.
    EXPECT_EQ(simulated.first.gateway, Ipv4Address("10.1.3.3"));
    EXPECT_EQ(emulated.first.gateway, simulated.first.gateway);
    EXPECT_EQ(emulated.first.ifIndex, simulated.first.ifIndex);
    EXPECT_EQ(simulated.second.gateway, Ipv4Address("10.1.1.1"));
    EXPECT_EQ(emulated.second.gateway, simulated.second.gateway);
    EXPECT_EQ(emulated.second.ifIndex, simulated.second.ifIndex);
}

/// An Install() of `macType` with Ssid `ssid` on `channel`, emulated.
void
InstallBss(Ptr<YansWifiChannel> channel,
           const std::string& macType,
           const std::string& ssid,
           uint32_t n,
           const std::string& dataMode = "DsssRate11Mbps")
{
    NodeContainer nodes;
    nodes.Create(n);
    FastPathWifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211b);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode",
                                 StringValue(dataMode),
                                 "ControlMode",
                                 StringValue("DsssRate1Mbps"));
    YansWifiPhyHelper phy;
    phy.SetChannel(channel);
    WifiMacHelper mac;
    mac.SetType(macType, "Ssid", SsidValue(Ssid(ssid)));
    wifi.Install(phy, mac, nodes);
}

TEST_F(WifiBssTest, EmulatedWhatIsNotOneBssOfOneAccessPointIsRefused)
{
    Emulate(true);
    auto channel = []() { return YansWifiChannelHelper::Default().Create(); };
    EXPECT_EXIT(
        {
            Ptr<YansWifiChannel> c = channel();
            InstallBss(c, "ns3::StaWifiMac", "a", 2);
            InstallBss(c, "ns3::ApWifiMac", "b", 1);
        },
        ::testing::ExitedWithCode(1),
        "one YansWifiChannel carries the Ssids \"a\" and \"b\": one BSS per channel");
    EXPECT_EXIT(
        {
            Ptr<YansWifiChannel> c = channel();
            InstallBss(c, "ns3::ApWifiMac", "a", 1);
            InstallBss(c, "ns3::ApWifiMac", "a", 1);
        },
        ::testing::ExitedWithCode(1),
        "Ssid \"a\" has 2 access points on one channel");
    EXPECT_EXIT(
        {
            Ptr<YansWifiChannel> c = channel();
            InstallBss(c, "ns3::StaWifiMac", "a", 2);
            InstallBss(c, "ns3::ApWifiMac", "a", 1, "DsssRate2Mbps");
        },
        ::testing::ExitedWithCode(1),
        "have different rates, retry limits or error models");
    // Two channels, two BSSs: accepted.
    InstallBss(channel(), "ns3::ApWifiMac", "a", 1);
    InstallBss(channel(), "ns3::ApWifiMac", "a", 1);
}

TEST_F(WifiBssTest, EmulatedStationsWithoutTheirAccessPointAreRefusedWhenTheRunStarts)
{
    Emulate(true);
    EXPECT_EXIT(
        {
            InstallBss(YansWifiChannelHelper::Default().Create(), "ns3::StaWifiMac", "a", 2);
            Simulator::Stop(Seconds(1));
            Simulator::Run();
        },
        ::testing::ExitedWithCode(1),
        "Ssid \"a\" has 2 station\\(s\\) and no access point");
}

} // namespace
