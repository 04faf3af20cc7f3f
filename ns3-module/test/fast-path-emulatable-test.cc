// SPDX-License-Identifier: GPL-2.0-only
// What an emulated script may hold (FastPathEmulation::WhyNotEmulated, checked at time 0 of
// an emulated run): emulated devices, loopback and real devices pass; a plain helper's
// point-to-point link or CSMA segment and a device fastpathd has no emulation of are named,
// each with its path, type, channel and what to use instead.
#include "ns3/core-module.h"
#include "ns3/bridge-helper.h"
#include "ns3/csma-module.h"
#include "ns3/fast-path-channel.h"
#include "ns3/fast-path-emulation.h"
#include "ns3/fast-path-helper.h"
#include "ns3/fast-path-net-device.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/simple-net-device-helper.h"

#include <gtest/gtest.h>

#include <set>

using namespace ns3;

namespace
{

class EmulatableTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        nodes_.Create(3);
        InternetStackHelper().Install(nodes_);
    }

    void TearDown() override
    {
        Simulator::Destroy();
    }

    /// An emulated link's devices, as FastPathPointToPointHelper installs them.
    void EmulatedLink(Ptr<Node> a, Ptr<Node> b)
    {
        Ptr<FastPathPointToPointChannel> ch = CreateObject<FastPathPointToPointChannel>();
        Ptr<FastPathNetDevice> da = CreateObject<FastPathNetDevice>();
        Ptr<FastPathNetDevice> db = CreateObject<FastPathNetDevice>();
        a->AddDevice(da);
        b->AddDevice(db);
        da->SetChannel(ch);
        db->SetChannel(ch);
        ch->SetEmulatedDevices(da, db);
    }

    NodeContainer nodes_;
};

TEST_F(EmulatableTest, EmulatedDevicesAndLoopbackPass)
{
    EmulatedLink(nodes_.Get(0), nodes_.Get(1));
    EmulatedLink(nodes_.Get(1), nodes_.Get(2));
    EXPECT_EQ(FastPathEmulation::WhyNotEmulated(), "");
    // The channel presents the emulated devices, as global routing walks it.
    Ptr<Channel> ch = nodes_.Get(0)->GetDevice(1)->GetChannel();
    ASSERT_TRUE(ch);
    EXPECT_EQ(ch->GetNDevices(), 2u);
    EXPECT_EQ(ch->GetDevice(0), nodes_.Get(0)->GetDevice(1));
    EXPECT_EQ(ch->GetDevice(1), nodes_.Get(1)->GetDevice(1));
}

TEST_F(EmulatableTest, APlainPointToPointLinkIsNamedWithTheHelperToUse)
{
    EmulatedLink(nodes_.Get(0), nodes_.Get(1));
    PointToPointHelper().Install(nodes_.Get(1), nodes_.Get(2));
    const std::string why = FastPathEmulation::WhyNotEmulated();
    EXPECT_NE(why.find("2 devices of this script cannot be emulated"), std::string::npos) << why;
    EXPECT_NE(why.find("/NodeList/1/DeviceList/2: ns3::PointToPointNetDevice on "
                       "ns3::PointToPointChannel"),
              std::string::npos)
        << why;
    EXPECT_NE(why.find("/NodeList/2/DeviceList/1"), std::string::npos) << why;
    EXPECT_NE(why.find("FastPathPointToPointHelper"), std::string::npos) << why;
    EXPECT_EQ(why.find("/NodeList/0/"), std::string::npos) << why;
}

TEST_F(EmulatableTest, APlainCsmaDeviceIsNamedWithTheHelperToUse)
{
    CsmaHelper().Install(NodeContainer(nodes_.Get(0)));
    const std::string why = FastPathEmulation::WhyNotEmulated();
    EXPECT_NE(why.find("1 device of this script cannot be emulated"), std::string::npos) << why;
    EXPECT_NE(why.find("/NodeList/0/DeviceList/1: ns3::CsmaNetDevice on ns3::CsmaChannel"),
              std::string::npos)
        << why;
    EXPECT_NE(why.find("FastPathCsmaHelper::Install(NodeContainer)"), std::string::npos) << why;
}

TEST_F(EmulatableTest, ADeviceOnNoChannelCarriesNothingAndPasses)
{
    // As routing/static-routing-slash32 does: a device made by hand to hold an address.
    EmulatedLink(nodes_.Get(0), nodes_.Get(1));
    Ptr<CsmaNetDevice> loose = CreateObject<CsmaNetDevice>();
    loose->SetAddress(Mac48Address::Allocate());
    nodes_.Get(0)->AddDevice(loose);
    EXPECT_EQ(FastPathEmulation::WhyNotEmulated(), "");
    // Once on a channel, it carries frames fastpathd does not see: refused.
    loose->Attach(CreateObject<CsmaChannel>());
    EXPECT_NE(FastPathEmulation::WhyNotEmulated().find("ns3::CsmaNetDevice on ns3::CsmaChannel"),
              std::string::npos);
}

TEST_F(EmulatableTest, AnAddressOnADeviceFastpathdDoesNotCarryIsStillTheNodes)
{
    // routing/global-routing-slash32: node 0 holds 192.168.1.1/32 on a device with no
    // channel. fastpathd must hand frames for it to ns-3 as for the link's own address, or it
    // routes them on (global routing covers that /32 too) and back, until the TTL runs out.
    EmulatedLink(nodes_.Get(0), nodes_.Get(1));
    Ptr<Ipv4> ipv4 = nodes_.Get(0)->GetObject<Ipv4>();
    ipv4->AddAddress(ipv4->AddInterface(nodes_.Get(0)->GetDevice(1)),
                     Ipv4InterfaceAddress("10.1.1.1", "255.255.255.252"));
    Ptr<CsmaNetDevice> loose = CreateObject<CsmaNetDevice>();
    loose->SetAddress(Mac48Address::Allocate());
    nodes_.Get(0)->AddDevice(loose);
    const int32_t i = ipv4->AddInterface(loose);
    ipv4->AddAddress(i, Ipv4InterfaceAddress("192.168.1.1", "255.255.255.255"));
    ipv4->SetUp(i);
    Ptr<Ipv6> ipv6 = nodes_.Get(0)->GetObject<Ipv6>();
    const int32_t i6 = ipv6->AddInterface(loose);
    ipv6->SetUp(i6); // a link-local address: ns-3's anyway, not a rule
    ipv6->AddAddress(i6, Ipv6InterfaceAddress("2001:2::1", Ipv6Prefix(128)));

    std::set<std::string> got;
    for (const auto& a : FastPathHelper::LocalAddressesOf(nodes_.Get(0)))
    {
        got.insert(a.toString());
    }
    EXPECT_EQ(got, (std::set<std::string>{"10.1.1.1", "192.168.1.1", "2001:2::1"}));
    // Another node's addresses are not node 0's.
    EXPECT_TRUE(FastPathHelper::LocalAddressesOf(nodes_.Get(2)).empty());
}

TEST_F(EmulatableTest, ADeviceWithoutEmulationIsNamedWithTheReason)
{
    SimpleNetDeviceHelper().Install(nodes_.Get(2));
    const std::string why = FastPathEmulation::WhyNotEmulated();
    EXPECT_NE(why.find("/NodeList/2/DeviceList/1: ns3::SimpleNetDevice on ns3::SimpleChannel: "
                       "fastpathd has no emulation of this device and channel"),
              std::string::npos)
        << why;
    EXPECT_NE(why.find("--FastPathEmulation=0"), std::string::npos) << why;
}

TEST_F(EmulatableTest, ABridgeOverDevicesNoCsmaHelperMadeIsNamedWithWhatToDoInstead)
{
    // Node 2 bridges two emulated channels (node 0's and node 1's) whose devices no
    // FastPathCsmaHelper made (no fastpathd segment behind them): fastpathd cannot bridge
    // them. (A bridge over FastPathCsmaHelper's devices is made in fastpathd instead:
    // FastPathCsmaHelper::PlanBridges, run by the conformance example
    // routing/global-routing-multi-switch-plus-router.)
    NodeContainer bridgeNode;
    bridgeNode.Create(1);
    NetDeviceContainer ports;
    for (uint32_t i = 0; i < 2; ++i)
    {
        Ptr<FastPathCsmaChannel> ch = CreateObject<FastPathCsmaChannel>();
        Ptr<FastPathNetDevice> member = CreateObject<FastPathNetDevice>();
        Ptr<FastPathNetDevice> port = CreateObject<FastPathNetDevice>();
        nodes_.Get(i)->AddDevice(member);
        bridgeNode.Get(0)->AddDevice(port);
        member->SetChannel(ch);
        port->SetChannel(ch);
        ch->SetEmulatedDevices(NetDeviceContainer(Ptr<NetDevice>(member), Ptr<NetDevice>(port)));
        ports.Add(port);
    }
    EXPECT_EQ(FastPathEmulation::WhyNotBridged(), "");
    BridgeHelper().Install(bridgeNode.Get(0), ports);
    EXPECT_EQ(FastPathEmulation::WhyNotEmulated(), "");
    const std::string why = FastPathEmulation::WhyNotBridged();
    EXPECT_NE(why.find("/NodeList/3/DeviceList/2: ns3::BridgeNetDevice (BridgeHelper) over "
                       "emulated devices: port /NodeList/3/DeviceList/0 "
                       "(ns3::FastPathNetDevice) is no emulated CSMA device"),
              std::string::npos)
        << why;
    EXPECT_NE(why.find("--FastPathEmulation=0"), std::string::npos) << why;
}

TEST_F(EmulatableTest, ABridgeThatDoesNotLearnIsRefusedByName)
{
    NodeContainer bridgeNode;
    bridgeNode.Create(1);
    Ptr<FastPathCsmaChannel> ch = CreateObject<FastPathCsmaChannel>();
    Ptr<FastPathNetDevice> port = CreateObject<FastPathNetDevice>();
    bridgeNode.Get(0)->AddDevice(port);
    port->SetChannel(ch);
    ch->SetEmulatedDevices(NetDeviceContainer(Ptr<NetDevice>(port)));
    BridgeHelper hub;
    hub.SetDeviceAttribute("EnableLearning", BooleanValue(false));
    hub.Install(bridgeNode.Get(0), NetDeviceContainer(port));
    const std::string why = FastPathEmulation::WhyNotBridged();
    EXPECT_NE(why.find("EnableLearning is false"), std::string::npos) << why;
}

} // namespace
