// SPDX-License-Identifier: GPL-2.0-only
// FastPathPointToPointNetDevice, the device an emulated point-to-point link puts on a node,
// on a socketpair in place of fastpathd's link (each end's engine on one end of it): it is a
// PointToPointNetDevice to the script (casts, GetQueue, Config paths), and the node's stack
// sends and receives through its engine, the FastPathNetDevice aggregated to it.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/fast-path-channel.h"
#include "ns3/fast-path-device-traces.h"
#include "ns3/fast-path-net-device.h"
#include "ns3/fast-path-point-to-point-net-device.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace ns3;

namespace
{

/// Two nodes joined as FastPathPointToPointHelper joins them, with a socketpair as the
/// link: what one engine writes, the other reads.
class PointToPointNetDeviceTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        Simulator::Destroy();
        GlobalValue::Bind("SimulatorImplementationType",
                          StringValue("ns3::RealtimeSimulatorImpl"));
        GlobalValue::Bind("ChecksumEnabled", BooleanValue(true));
        int sv[2];
        ASSERT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
        nodes_.Create(2);
        Ptr<FastPathPointToPointChannel> ch = CreateObject<FastPathPointToPointChannel>();
        for (uint32_t i = 0; i < 2; ++i)
        {
            Ptr<FastPathPointToPointNetDevice> d = CreateObject<FastPathPointToPointNetDevice>();
            d->SetAttribute("DataRate", StringValue("10Mbps"));
            d->Attach(ch);
            queues_[i] = CreateObject<DropTailQueue<Packet>>();
            d->SetQueue(queues_[i]);
            // The engine comes with the device.
            Ptr<FastPathNetDevice> engine = d->GetEngine();
            ASSERT_TRUE(engine);
            engine->SetChannel(ch);
            engine->SetTxQueue(CreateObject<DropTailQueue<Packet>>(), d, 2 - 14, 0);
            nodes_.Get(i)->AddDevice(d);
            // As FastPathHelper binds the port: its MAC and control channel on the engine.
            d->SetAddress(Mac48Address(i == 0 ? "02:66:70:00:00:01" : "02:66:70:00:00:02"));
            engine->SetFileDescriptor(sv[i]);
            engine->Start(Seconds(0));
            devices_.Add(d);
            engines_[i] = engine;
        }
        ch->SetEmulatedDevices(devices_.Get(0), devices_.Get(1));
        InternetStackHelper().Install(nodes_);
        Ipv4AddressHelper ipv4("198.18.0.0", "255.255.255.0");
        ifaces_ = ipv4.Assign(devices_);
    }

    void TearDown() override
    {
        Simulator::Destroy();
        GlobalValue::Bind("SimulatorImplementationType",
                          StringValue("ns3::DefaultSimulatorImpl"));
        GlobalValue::Bind("ChecksumEnabled", BooleanValue(false));
    }

    /// UDP echoes from node 0 to node 1; the replies node 0 received.
    uint32_t Echo(uint32_t packets)
    {
        UdpEchoServerHelper server(9);
        server.Install(nodes_.Get(1)).Start(Seconds(0));
        UdpEchoClientHelper client(ifaces_.GetAddress(1), 9);
        client.SetAttribute("MaxPackets", UintegerValue(packets));
        client.SetAttribute("Interval", TimeValue(MilliSeconds(20)));
        client.SetAttribute("PacketSize", UintegerValue(200));
        ApplicationContainer app = client.Install(nodes_.Get(0));
        app.Start(MilliSeconds(50));
        uint32_t replies = 0;
        app.Get(0)->TraceConnectWithoutContext(
            "Rx",
            Callback<void, Ptr<const Packet>>([&replies](Ptr<const Packet>) { ++replies; }));
        Simulator::Stop(MilliSeconds(150 + 20 * packets));
        Simulator::Run();
        return replies;
    }

    NodeContainer nodes_;
    NetDeviceContainer devices_;
    Ptr<Queue<Packet>> queues_[2];
    Ptr<FastPathNetDevice> engines_[2];
    Ipv4InterfaceContainer ifaces_;
};

TEST_F(PointToPointNetDeviceTest, IsAPointToPointNetDeviceWhoseStackSendsThroughItsEngine)
{
    // What traffic-control.cc and queue-discs-benchmark.cc do with the helper's devices.
    Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(devices_.Get(1));
    ASSERT_TRUE(p2p);
    EXPECT_EQ(p2p->GetQueue(), queues_[1]);
    EXPECT_EQ(StaticCast<PointToPointNetDevice>(devices_.Get(0))->GetQueue(), queues_[0]);
    EXPECT_TRUE(devices_.Get(0)->GetObject<NetDeviceQueueInterface>());
    EXPECT_EQ(devices_.Get(0)->GetObject<FastPathNetDevice>(), engines_[0]);
    // The engine stays off the node: the node's device is the point-to-point one.
    EXPECT_EQ(nodes_.Get(0)->GetNDevices(), 2u); // the link's end, loopback
    EXPECT_EQ(nodes_.Get(0)->GetDevice(0), devices_.Get(0));
    EXPECT_EQ(engines_[0]->GetNode(), nodes_.Get(0));
    // The port's frames are Ethernet frames: its MAC, ARP.
    EXPECT_EQ(devices_.Get(0)->GetAddress(), engines_[0]->GetAddress());
    EXPECT_TRUE(devices_.Get(0)->NeedsArp());
    EXPECT_TRUE(devices_.Get(0)->IsPointToPoint());
    EXPECT_EQ(devices_.Get(0)->GetChannel()->GetDevice(1), devices_.Get(1));

    EXPECT_EQ(Echo(5), 5u);
    // What ns-3 sent waited in the engines' queues (paced there); the device's TxQueue
    // holds what a tap observes (none here).
    EXPECT_GE(engines_[0]->GetQueue()->GetTotalReceivedPackets(), 6u); // ARP + 5 echoes
    EXPECT_EQ(queues_[0]->GetTotalReceivedPackets(), 0u);
}

TEST_F(PointToPointNetDeviceTest, ItsTxQueueCountsTheFramesATapObserves)
{
    const std::string dev = "/NodeList/0/DeviceList/0/$ns3::PointToPointNetDevice/";
    FastPathDeviceTraces::SetObserved(devices_.Get(0), false);
    uint32_t changes = 0;
    StaticCast<PointToPointNetDevice>(devices_.Get(0))
        ->GetQueue()
        ->TraceConnectWithoutContext("PacketsInQueue",
                                     Callback<void, uint32_t, uint32_t>(
                                         [&changes](uint32_t, uint32_t) { ++changes; }));
    // Nobody observes the device: the sink is named, with the device's path.
    const std::string why = FastPathDeviceTraces::Check();
    EXPECT_NE(why.find(dev + "TxQueue/PacketsInQueue: no capture tap observes"),
              std::string::npos)
        << why;
    FastPathDeviceTraces::SetObserved(devices_.Get(0));
    EXPECT_EQ(FastPathDeviceTraces::Check(), "");
    // A tap hands over the frames fastpathd sent on the port: two IPv4, one ARP.
    for (uint16_t type : {0x0800, 0x0806, 0x0800})
    {
        Ptr<Packet> f = Create<Packet>(100);
        EthernetHeader eth(false);
        eth.SetLengthType(type);
        f->AddHeader(eth);
        FastPathDeviceTraces::Observe(devices_.Get(0), FastPathFrameDirection::TX, f);
    }
    EXPECT_EQ(queues_[0]->GetTotalReceivedPackets(), 2u);
    EXPECT_EQ(queues_[0]->GetTotalReceivedBytes(), 2u * (100 + 2)); // PPP-framed
    EXPECT_EQ(queues_[0]->GetNPackets(), 0u);
    EXPECT_EQ(changes, 4u); // 0 -> 1 -> 0, twice
    FastPathDeviceTraces::SetObserved(devices_.Get(0), false);
}

TEST_F(PointToPointNetDeviceTest, ReceiveErrorModelAndPhyRxDropAreTheEngines)
{
    // A per-byte rate drops in the engine (fastpathd's link takes per-packet rates only);
    // set through the device's attribute, as a script sets it on the helper's device.
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    em->SetUnit(RateErrorModel::ERROR_UNIT_BYTE);
    em->SetRate(1.0);
    Config::Set("/NodeList/0/DeviceList/0/$ns3::PointToPointNetDevice/ReceiveErrorModel",
                PointerValue(em));
    EXPECT_EQ(engines_[0]->GetReceiveErrorModel(), em);
    EXPECT_FALSE(engines_[0]->IsReceiveErrorModelOnLink());
    PointerValue got;
    devices_.Get(0)->GetAttribute("ReceiveErrorModel", got);
    EXPECT_EQ(got.Get<ErrorModel>(), em);
    uint32_t dropped = 0;
    ASSERT_TRUE(devices_.Get(0)->TraceConnectWithoutContext(
        "PhyRxDrop",
        Callback<void, Ptr<const Packet>>([&dropped](Ptr<const Packet>) { ++dropped; })));
    // The echo replies never arrive (ARP's frames pass: a simulated point-to-point link
    // carries none, so its error model never sees one).
    EXPECT_EQ(Echo(3), 0u);
    EXPECT_EQ(dropped, 3u);
    EXPECT_EQ(dropped, engines_[0]->GetReceiveErrorDrops());
    // Nobody connected the stock device's PhyRxDrop, which nothing feeds.
    EXPECT_EQ(FastPathDeviceTraces::Check(), "");
}

} // namespace
