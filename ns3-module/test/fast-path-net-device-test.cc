// SPDX-License-Identifier: GPL-2.0-only
// FastPathNetDevice's transmit queue and receive error model, on a socketpair in place of
// fastpathd's control channel: the queue paces frames at the link's rate and drives ns-3's
// flow control, so a queue disc above it fills and drops exactly as above a simulated
// PointToPointNetDevice; the ReceiveErrorModel attribute drops, counts and traces frames
// arriving at the device, or hands a per-packet rate to the link.
#include "ns3/core-module.h"
#include "ns3/fast-path-net-device.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <gtest/gtest.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>
#include <vector>

using namespace ns3;

namespace
{

/// A FastPathNetDevice on one end of a socketpair (the test holds the other end), with a
/// PointToPointNetDevice stand-in aggregated as FastPathPointToPointHelper does.
struct DeviceOnSocket
{
    Ptr<Node> node;
    Ptr<FastPathNetDevice> dev;
    Ptr<PointToPointNetDevice> standIn;
    int peer = -1;
    int own = -1; //!< the device's end (the device reads and closes it)

    explicit DeviceOnSocket(bool pointToPoint = true)
    {
        int sv[2];
        EXPECT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
        // Room for every frame a test writes (the peer is not read while the device sends).
        const int buf = 1 << 20;
        setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
        setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
        peer = sv[1];
        own = sv[0];
        node = CreateObject<Node>();
        dev = CreateObject<FastPathNetDevice>();
        dev->SetAddress(Mac48Address("02:66:70:00:00:01"));
        dev->SetFileDescriptor(sv[0]);
        dev->SetPointToPoint(pointToPoint);
        node->AddDevice(dev);
        standIn = CreateObject<PointToPointNetDevice>();
        dev->AggregateObject(standIn);
        dev->Start(Seconds(0));
    }

    ~DeviceOnSocket()
    {
        close(peer);
    }

    /// Writes an Ethernet frame carrying IPv4 (an `ipBytes` long payload) as fastpathd would.
    void Arrive(uint32_t ipBytes) const
    {
        std::vector<uint8_t> f(14 + ipBytes, 0);
        const uint8_t dst[6] = {0x02, 0x66, 0x70, 0, 0, 1};
        const uint8_t src[6] = {0x02, 0x66, 0x70, 0, 0, 2};
        std::copy(dst, dst + 6, f.begin());
        std::copy(src, src + 6, f.begin() + 6);
        f[12] = 0x08;
        f[13] = 0x00;
        f[14] = 0x45;
        EXPECT_EQ(write(peer, f.data(), f.size()), ssize_t(f.size()));
    }
};

void
UseSimulator(const std::string& type)
{
    Simulator::Destroy();
    GlobalValue::Bind("SimulatorImplementationType", StringValue(type));
}

struct Received
{
    uint32_t delivered = 0;
    std::vector<uint32_t> dropped; //!< sizes of the frames PhyRxDrop reported
};

/// Runs a realtime simulation in which `frames` IPv4 packets of `ipBytes` arrive at `d`.
Received
Receive(DeviceOnSocket& d, uint32_t frames, uint32_t ipBytes)
{
    Received r;
    d.dev->SetReceiveCallback(
        [&r](Ptr<NetDevice>, Ptr<const Packet>, uint16_t, const Address&) {
            ++r.delivered;
            return true;
        });
    d.dev->TraceConnectWithoutContext(
        "PhyRxDrop",
        Callback<void, Ptr<const Packet>>([&r](Ptr<const Packet> p) {
            r.dropped.push_back(p->GetSize());
        }));
    Simulator::Schedule(MilliSeconds(20), [&d, frames, ipBytes]() {
        for (uint32_t i = 0; i < frames; ++i)
        {
            d.Arrive(ipBytes);
        }
    });
    Simulator::Stop(MilliSeconds(300));
    Simulator::Run();
    return r;
}

TEST(FastPathNetDeviceTest, AReceiveErrorModelDropsCountsAndTracesFramesArrivingForNs3)
{
    UseSimulator("ns3::RealtimeSimulatorImpl");
    DeviceOnSocket d;
    // The 2nd and 4th frames received, as ReceiveListErrorModel counts them.
    Ptr<ReceiveListErrorModel> em = CreateObject<ReceiveListErrorModel>();
    em->SetList({1, 3});
    d.dev->SetAttribute("ReceiveErrorModel", PointerValue(em));
    PointerValue got;
    d.dev->GetAttribute("ReceiveErrorModel", got);
    EXPECT_EQ(got.Get<ErrorModel>(), em);
    EXPECT_FALSE(d.dev->IsReceiveErrorModelOnLink());

    Received r = Receive(d, 6, 100);
    EXPECT_EQ(r.delivered, 4u);
    EXPECT_EQ(d.dev->GetReceiveErrorDrops(), 2u);
    // Traced as PointToPointNetDevice traces it: the IP packet behind its PPP header.
    EXPECT_EQ(r.dropped, (std::vector<uint32_t>{102, 102}));
    // The link is not asked to drop anything.
    PointerValue onStandIn;
    d.standIn->GetAttribute("ReceiveErrorModel", onStandIn);
    EXPECT_FALSE(onStandIn.Get<ErrorModel>());
    Simulator::Destroy();
}

// What fastpathd sends before the device starts waits on the channel and is delivered at the
// start (as FdNetDevice's reader, started then, reads it); what reaches the device after its
// stop is dropped and counted, never delivered.
TEST(FastPathNetDeviceTest, FramesBeforeTheStartAreDeliveredAndAfterTheStopCounted)
{
    UseSimulator("ns3::RealtimeSimulatorImpl");
    DeviceOnSocket d;
    d.dev->SetAttribute("Start", TimeValue(MilliSeconds(20)));
    d.dev->SetAttribute("Stop", TimeValue(MilliSeconds(100)));
    uint32_t delivered = 0;
    d.dev->SetReceiveCallback([&delivered](Ptr<NetDevice>, Ptr<const Packet>, uint16_t,
                                           const Address&) {
        ++delivered;
        return true;
    });
    for (int i = 0; i < 3; ++i)
    {
        d.Arrive(100); // before the simulation runs
    }
    Simulator::Schedule(MilliSeconds(10), [&d]() { d.Arrive(100); }); // before the start
    Simulator::Schedule(MilliSeconds(50), [&d]() { d.Arrive(100); });
    // Read after the stop: written at 99 ms once the wall clock is past 100 ms, so the
    // receive thread hands them to the simulator after the stop event; this event waits
    // (bounded) until the device's end holds none of them.
    Simulator::Schedule(MilliSeconds(99), [&d]() {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        for (int i = 0; i < 4; ++i)
        {
            d.Arrive(100);
        }
        int waiting = 1;
        for (int k = 0; k < 400 && waiting > 0; ++k)
        {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
            ASSERT_EQ(ioctl(d.own, FIONREAD, &waiting), 0);
        }
        EXPECT_EQ(waiting, 0) << "the receive thread read nothing for 2 s";
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    });
    uint64_t stoppedBeforeStop = 1;
    Simulator::Schedule(MilliSeconds(90), [&]() { stoppedBeforeStop = d.dev->GetStoppedDrops(); });
    Simulator::Stop(MilliSeconds(200));
    Simulator::Run();
    EXPECT_EQ(delivered, 5u) << "the frames written before the start, or the one after it";
    EXPECT_EQ(stoppedBeforeStop, 0u);
    EXPECT_EQ(d.dev->GetStoppedDrops(), 4u);
    EXPECT_EQ(d.dev->GetMalformedDrops(), 0u);
    Simulator::Destroy();
}

// Start() and Stop() as FdNetDevice's: called before the simulation runs they set the Start
// and Stop attributes; called while it runs they move the device's start and stop to that
// much later. The link comes up and the frames waiting are delivered at the new start; at
// the new stop the channel is closed (fastpathd's end sees it).
TEST(FastPathNetDeviceTest, StartAndStopMethodsMoveTheDevicesStartAndStop)
{
    UseSimulator("ns3::RealtimeSimulatorImpl");
    DeviceOnSocket d;
    d.dev->Start(Seconds(100));
    TimeValue startAttribute;
    d.dev->GetAttribute("Start", startAttribute);
    EXPECT_EQ(startAttribute.Get(), Seconds(100));
    uint32_t delivered = 0;
    d.dev->SetReceiveCallback([&delivered](Ptr<NetDevice>, Ptr<const Packet>, uint16_t,
                                           const Address&) {
        ++delivered;
        return true;
    });
    auto sendFrame = [&d]() {
        std::vector<uint8_t> f(14 + 100, 0);
        f[0] = 0x02; // to the device's MAC, as Arrive() writes it
        f[1] = 0x66;
        f[2] = 0x70;
        f[5] = 1;
        f[12] = 0x08;
        f[14] = 0x45;
        return send(d.peer, f.data(), f.size(), MSG_NOSIGNAL);
    };
    Simulator::Schedule(MilliSeconds(10), [&d]() { d.Arrive(100); }); // waits for the start
    bool upBefore = true, upAfter = false;
    uint32_t deliveredBefore = 1, deliveredAfter = 0;
    Simulator::Schedule(MilliSeconds(20), [&d]() {
        d.dev->Start(MilliSeconds(10)); // at 30 ms, not 100 s
        d.dev->Stop(MilliSeconds(60));  // at 80 ms
    });
    Simulator::Schedule(MilliSeconds(25), [&]() {
        upBefore = d.dev->IsLinkUp();
        deliveredBefore = delivered;
    });
    ssize_t sentWhileUp = -1;
    Simulator::Schedule(MilliSeconds(40), [&]() {
        upAfter = d.dev->IsLinkUp();
        sentWhileUp = sendFrame();
    });
    Simulator::Schedule(MilliSeconds(70), [&]() { deliveredAfter = delivered; });
    ssize_t sentAfterStop = 0;
    int errnoAfterStop = 0;
    Simulator::Schedule(MilliSeconds(90), [&]() {
        sentAfterStop = sendFrame();
        errnoAfterStop = errno;
    });
    Simulator::Stop(MilliSeconds(120));
    Simulator::Run();
    EXPECT_FALSE(upBefore) << "the device started before Start()'s time";
    EXPECT_EQ(deliveredBefore, 0u);
    EXPECT_TRUE(upAfter) << "the device did not start at Start()'s time";
    EXPECT_EQ(sentWhileUp, 114);
    EXPECT_EQ(deliveredAfter, 2u) << "the frame written before the start, and the one after";
    EXPECT_EQ(sentAfterStop, -1) << "the channel is still open after Stop()'s time";
    EXPECT_EQ(errnoAfterStop, EPIPE);
    EXPECT_EQ(delivered, 2u);
    Simulator::Destroy();
}

TEST(FastPathNetDeviceTest, APerByteRateDropsHereByEachFramesSize)
{
    UseSimulator("ns3::RealtimeSimulatorImpl");
    DeviceOnSocket d;
    // Per byte: certain loss for any frame (rate 1), none with the model disabled.
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    em->SetUnit(RateErrorModel::ERROR_UNIT_BYTE);
    em->SetRate(1.0);
    d.dev->SetAttribute("ReceiveErrorModel", PointerValue(em));
    EXPECT_FALSE(d.dev->IsReceiveErrorModelOnLink());
    Received r = Receive(d, 5, 60);
    EXPECT_EQ(r.delivered, 0u);
    EXPECT_EQ(r.dropped.size(), 5u);
    EXPECT_EQ(d.dev->GetReceiveErrorDrops(), 5u);
    Simulator::Destroy();
}

TEST(FastPathNetDeviceTest, APerPacketRateOnALinkIsTheLinksLoss)
{
    UseSimulator("ns3::RealtimeSimulatorImpl");
    DeviceOnSocket d;
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
    em->SetRate(1.0);
    d.dev->SetAttribute("ReceiveErrorModel", PointerValue(em));
    EXPECT_TRUE(d.dev->IsReceiveErrorModelOnLink());
    // The stand-in holds it, where the helper reads the link's loss from.
    PointerValue onStandIn;
    d.standIn->GetAttribute("ReceiveErrorModel", onStandIn);
    EXPECT_EQ(onStandIn.Get<ErrorModel>(), em);
    // fastpathd drops; what it lets through is not dropped a second time here.
    Received r = Receive(d, 4, 100);
    EXPECT_EQ(r.delivered, 4u);
    EXPECT_TRUE(r.dropped.empty());
    Simulator::Destroy();
}

TEST(FastPathNetDeviceTest, AListErrorModelIsRefused)
{
    EXPECT_EXIT(
        {
            DeviceOnSocket d;
            Ptr<ListErrorModel> em = CreateObject<ListErrorModel>();
            d.dev->SetAttribute("ReceiveErrorModel", PointerValue(em));
        },
        ::testing::ExitedWithCode(1),
        "a ListErrorModel drops packets by uid.*ReceiveListErrorModel");
}

/// What a queue disc and the device below it did with a burst.
struct BurstResult
{
    QueueDisc::Stats qdisc;
    uint32_t sent = 0;             //!< frames the device transmitted (MacTx)
    std::vector<int64_t> txTimesNs; //!< when each began
    bool stoppedWhileFull = false;
};

/// `burst` UDP packets of 1000 bytes sent at once to the subnet's broadcast address (no ARP)
/// through a pfifo of 5 packets on `dev` (its TxQueue: 3 packets, 1 Mbit/s); simulated
/// from 1 s to the end of the transmissions.
BurstResult
SendBurst(Ptr<Node> node, Ptr<NetDevice> dev, uint32_t burst)
{
    BurstResult r;
    InternetStackHelper().Install(node);
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue("5p"));
    QueueDiscContainer qd = tch.Install(dev);
    Ipv4AddressHelper addr("10.1.1.0", "255.255.255.0");
    addr.Assign(NetDeviceContainer(dev));
    dev->TraceConnectWithoutContext(
        "MacTx",
        Callback<void, Ptr<const Packet>>([&r](Ptr<const Packet>) {
            ++r.sent;
            r.txTimesNs.push_back(Simulator::Now().GetNanoSeconds());
        }));
    Ptr<Socket> s = Socket::CreateSocket(node, UdpSocketFactory::GetTypeId());
    s->SetAllowBroadcast(true);
    s->Connect(InetSocketAddress(Ipv4Address("10.1.1.255"), 9));
    Ptr<NetDeviceQueue> txq = dev->GetObject<NetDeviceQueueInterface>()->GetTxQueue(0);
    Simulator::Schedule(Seconds(1), [s, burst, txq, &r]() {
        for (uint32_t i = 0; i < burst; ++i)
        {
            s->Send(Create<Packet>(1000));
        }
        r.stoppedWhileFull = txq->IsStopped();
    });
    Simulator::Stop(Seconds(2));
    Simulator::Run();
    r.qdisc = qd.Get(0)->GetStats();
    return r;
}

TEST(FastPathNetDeviceTest, AQueueDiscOnTheDeviceFillsAndDropsAsSimulated)
{
    const uint32_t kBurst = 30;
    // Simulated: PointToPointHelper's device (flow control on), the reference.
    UseSimulator("ns3::DefaultSimulatorImpl");
    NodeContainer simNodes;
    simNodes.Create(2);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("1Mbps"));
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("3p"));
    NetDeviceContainer simDevs = p2p.Install(simNodes);
    BurstResult sim = SendBurst(simNodes.Get(0), simDevs.Get(0), kBurst);
    Simulator::Destroy();

    // Emulated: the device on fastpathd's channel with the same rate and TxQueue.
    UseSimulator("ns3::DefaultSimulatorImpl");
    DeviceOnSocket d;
    d.standIn->SetAttribute("DataRate", StringValue("1Mbps"));
    ObjectFactory qf("ns3::DropTailQueue<Packet>");
    qf.Set("MaxSize", StringValue("3p"));
    d.dev->SetTxQueue(qf.Create<Queue<Packet>>(), d.standIn, -12, 0);
    BurstResult emu = SendBurst(d.node, d.dev, kBurst);

    // The burst backs up into the queue disc, which drops what neither holds.
    EXPECT_TRUE(sim.stoppedWhileFull);
    EXPECT_TRUE(emu.stoppedWhileFull);
    EXPECT_GT(sim.qdisc.nTotalDroppedPackets, 0u);
    EXPECT_EQ(emu.qdisc.nTotalReceivedPackets, sim.qdisc.nTotalReceivedPackets);
    EXPECT_EQ(emu.qdisc.nTotalDroppedPackets, sim.qdisc.nTotalDroppedPackets);
    EXPECT_EQ(emu.qdisc.nTotalDequeuedPackets, sim.qdisc.nTotalDequeuedPackets);
    EXPECT_EQ(emu.sent, sim.sent);
    // One frame after the other, each after the last one's serialization as fastpathd's
    // link counts it, which is PointToPointNetDevice's: (28 + 1000 IP bytes + 2 PPP) * 8
    // bits at 1 Mbit/s.
    ASSERT_GE(emu.txTimesNs.size(), 2u);
    for (size_t i = 1; i < emu.txTimesNs.size(); ++i)
    {
        EXPECT_EQ(emu.txTimesNs[i] - emu.txTimesNs[i - 1], 8240000) << "frame " << i;
    }
    // The frames reached the socket, in full.
    std::vector<uint8_t> buf(2000);
    EXPECT_EQ(read(d.peer, buf.data(), buf.size()), 14 + 1028);
    Simulator::Destroy();
}

} // namespace
