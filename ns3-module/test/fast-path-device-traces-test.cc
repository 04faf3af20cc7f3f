// SPDX-License-Identifier: GPL-2.0-only
// The stock devices' Config paths on an emulated device (a FastPathPointToPointNetDevice
// with its engine, a FastPathNetDevice with the stand-in CsmaNetDevice aggregated, as the
// emulating helpers install them), without fastpathd: the paths resolve (no abort), a connected trace source
// nobody feeds is named by FastPathDeviceTraces::Check, and observed frames fire what the
// simulated device fires for them.
#include "ns3/core-module.h"
#include "ns3/csma-module.h"
#include "ns3/fast-path-channel.h"
#include "ns3/fast-path-device-traces.h"
#include "ns3/fast-path-net-device.h"
#include "ns3/fast-path-point-to-point-net-device.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <gtest/gtest.h>

#include <map>

using namespace ns3;

namespace
{

std::map<std::string, uint32_t> g_count;
std::map<std::string, uint32_t> g_size;

void
Count(std::string context, Ptr<const Packet> p)
{
    const std::string source = context.substr(context.rfind('/') + 1);
    ++g_count[source];
    g_size[source] = p->GetSize();
}

/// An Ethernet frame of EtherType `type` around `payload` bytes.
Ptr<Packet>
Frame(uint16_t type, uint32_t payload)
{
    Ptr<Packet> p = Create<Packet>(payload);
    EthernetHeader eth(false);
    eth.SetLengthType(type);
    p->AddHeader(eth);
    return p;
}

class DeviceTracesTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        g_count.clear();
        g_size.clear();
        nodes_.Create(2);
        // An emulated link as FastPathPointToPointHelper installs it.
        Ptr<FastPathPointToPointChannel> ch = CreateObject<FastPathPointToPointChannel>();
        for (uint32_t i = 0; i < 2; ++i)
        {
            // A PointToPointNetDevice with its engine aggregated, as a
            // FastPathPointToPointNetDevice is (its own TypeId is the watched one, whose
            // duplicated attributes Config resolves twice: FastPathPointToPointNetDeviceTest
            // covers the class itself).
            Ptr<PointToPointNetDevice> d = CreateObject<PointToPointNetDevice>();
            d->Attach(ch);
            d->SetQueue(CreateObject<DropTailQueue<Packet>>());
            Ptr<FastPathNetDevice> engine = CreateObject<FastPathNetDevice>();
            d->AggregateObject(engine);
            engine->SetChannel(ch);
            engine->SetPointToPoint(true);
            nodes_.Get(i)->AddDevice(d);
            devices_.Add(d);
        }
        ch->SetEmulatedDevices(devices_.Get(0), devices_.Get(1));
        // A segment of one node as FastPathCsmaHelper installs it.
        Ptr<FastPathCsmaChannel> csmaCh = CreateObject<FastPathCsmaChannel>();
        Ptr<FastPathNetDevice> d = CreateObject<FastPathNetDevice>();
        nodes_.Get(0)->AddDevice(d);
        Ptr<CsmaNetDevice> standIn = CreateObject<CsmaNetDevice>();
        standIn->Attach(csmaCh);
        standIn->SetQueue(CreateObject<DropTailQueue<Packet>>());
        d->AggregateObject(standIn);
        d->SetChannel(csmaCh);
        csmaCh->SetEmulatedDevices(NetDeviceContainer(d));
        csma_ = d;
    }

    void TearDown() override
    {
        Simulator::Destroy();
    }

    const std::string kDev = "/NodeList/0/DeviceList/0/$ns3::PointToPointNetDevice/";
    NodeContainer nodes_;
    NetDeviceContainer devices_;
    Ptr<NetDevice> csma_;
};

TEST_F(DeviceTracesTest, PathsResolveAndAConnectedSourceNobodyFeedsIsNamed)
{
    EXPECT_EQ(FastPathDeviceTraces::Check(), "");
    Config::Connect(kDev + "TxQueue/Enqueue", MakeCallback(&Count));
    Config::Connect(kDev + "MacRx", MakeCallback(&Count));
    Config::Set(kDev + "TxQueue/MaxSize", QueueSizeValue(QueueSize("7p")));
    EXPECT_EQ(devices_.Get(0)
                  ->GetObject<PointToPointNetDevice>()
                  ->GetQueue()
                  ->GetMaxSize()
                  .GetValue(),
              7u);
    const std::string why = FastPathDeviceTraces::Check();
    EXPECT_NE(why.find("2 trace source(s)"), std::string::npos) << why;
    EXPECT_NE(why.find(kDev + "TxQueue/Enqueue: no capture tap observes this device's frames"),
              std::string::npos)
        << why;
    EXPECT_NE(why.find(kDev + "MacRx: no capture tap"), std::string::npos) << why;
    EXPECT_NE(why.find("--FastPathEmulation=0"), std::string::npos) << why;
    // Observed, they are fed.
    FastPathDeviceTraces::SetObserved(devices_.Get(0));
    EXPECT_EQ(FastPathDeviceTraces::Check(), "");
}

TEST_F(DeviceTracesTest, UnobservedListsTheDevicesWithASinkOnAFedSource)
{
    // (The observed set holds raw pointers: an earlier test's device may share an address.)
    FastPathDeviceTraces::SetObserved(devices_.Get(0), false);
    FastPathDeviceTraces::SetObserved(devices_.Get(1), false);
    EXPECT_TRUE(FastPathDeviceTraces::Unobserved().empty());
    // A source nothing feeds does not make a device worth tapping: it is refused.
    Config::Connect(kDev + "PhyTxDrop", MakeCallback(&Count));
    EXPECT_TRUE(FastPathDeviceTraces::Unobserved().empty());
    // A sink on the TxQueue that GetQueue() returns, connected on the queue itself.
    StaticCast<PointToPointNetDevice>(devices_.Get(1))
        ->GetQueue()
        ->TraceConnectWithoutContext("BytesInQueue",
                                     Callback<void, uint32_t, uint32_t>([](uint32_t, uint32_t) {}));
    auto unobserved = FastPathDeviceTraces::Unobserved();
    ASSERT_EQ(unobserved.size(), 1u);
    EXPECT_EQ(unobserved[0], devices_.Get(1));
    FastPathDeviceTraces::SetObserved(devices_.Get(1));
    EXPECT_TRUE(FastPathDeviceTraces::Unobserved().empty());
    FastPathDeviceTraces::SetObserved(devices_.Get(1), false);
}

TEST_F(DeviceTracesTest, DropsAreNamedEvenOnAnObservedDevice)
{
    FastPathDeviceTraces::SetObserved(devices_.Get(0));
    Config::Connect(kDev + "PhyTxDrop", MakeCallback(&Count));
    Config::Connect(kDev + "TxQueue/Drop", MakeCallback(&Count));
    const std::string why = FastPathDeviceTraces::Check();
    EXPECT_NE(why.find(kDev + "PhyTxDrop: fastpathd drops these frames itself"),
              std::string::npos)
        << why;
    EXPECT_NE(why.find(kDev + "TxQueue/Drop: fastpathd drops"), std::string::npos) << why;
}

TEST_F(DeviceTracesTest, ObservedFramesFireWhatTheSimulatedDeviceFires)
{
    for (const char* s : {"MacTx", "MacRx", "PhyTxBegin", "PhyTxEnd", "PhyRxEnd", "Sniffer",
                          "TxQueue/Enqueue", "TxQueue/Dequeue"})
    {
        Config::Connect(kDev + s, MakeCallback(&Count));
    }
    FastPathDeviceTraces::SetObserved(devices_.Get(0));
    const uint32_t l3 = 100;
    FastPathDeviceTraces::Observe(devices_.Get(0), FastPathFrameDirection::TX, Frame(0x0800, l3));
    EXPECT_EQ(g_count["MacTx"], 1u);
    EXPECT_EQ(g_size["MacTx"], l3); // the network-layer packet
    EXPECT_EQ(g_count["Enqueue"], 1u);
    EXPECT_EQ(g_count["Dequeue"], 1u);
    EXPECT_EQ(g_size["Enqueue"], l3 + 2); // with its PPP header
    EXPECT_EQ(g_count["PhyTxBegin"], 1u);
    EXPECT_EQ(g_count["PhyTxEnd"], 1u);
    EXPECT_EQ(g_count["Sniffer"], 1u);
    EXPECT_EQ(g_count["MacRx"], 0u);
    EXPECT_EQ(devices_.Get(0)->GetObject<PointToPointNetDevice>()->GetQueue()->GetNPackets(), 0u);
    FastPathDeviceTraces::Observe(devices_.Get(0), FastPathFrameDirection::RX, Frame(0x86DD, l3));
    EXPECT_EQ(g_count["MacRx"], 1u);
    EXPECT_EQ(g_size["MacRx"], l3 + 2);
    EXPECT_EQ(g_count["PhyRxEnd"], 1u);
    EXPECT_EQ(g_count["Sniffer"], 2u);
    // ARP has no point-to-point counterpart.
    FastPathDeviceTraces::Observe(devices_.Get(0), FastPathFrameDirection::RX, Frame(0x0806, 28));
    EXPECT_EQ(g_count["MacRx"], 1u);
    // The other end's stand-in is not this one's.
    FastPathDeviceTraces::Observe(devices_.Get(1), FastPathFrameDirection::TX, Frame(0x0800, l3));
    EXPECT_EQ(g_count["MacTx"], 1u);
}

TEST_F(DeviceTracesTest, CsmaObservedFramesCarryTheirEthernetHeaderAndTrailer)
{
    const std::string dev = "/NodeList/0/DeviceList/1/$ns3::CsmaNetDevice/";
    Config::Connect(dev + "MacTx", MakeCallback(&Count));
    Config::Connect(dev + "MacRx", MakeCallback(&Count));
    Config::Connect(dev + "MacTxBackoff", MakeCallback(&Count));
    FastPathDeviceTraces::SetObserved(csma_);
    const std::string why = FastPathDeviceTraces::Check();
    EXPECT_NE(why.find(dev + "MacTxBackoff: fastpathd's segment has no backoff"),
              std::string::npos)
        << why;
    EXPECT_EQ(why.find(dev + "MacRx"), std::string::npos) << why;
    FastPathDeviceTraces::Observe(csma_, FastPathFrameDirection::TX, Frame(0x0800, 100));
    FastPathDeviceTraces::Observe(csma_, FastPathFrameDirection::RX, Frame(0x0806, 46));
    EXPECT_EQ(g_size["MacTx"], 100u);
    EXPECT_EQ(g_count["MacRx"], 1u);
    EXPECT_EQ(g_size["MacRx"], 14u + 46 + 4);
}

} // namespace
