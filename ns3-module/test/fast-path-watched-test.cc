// SPDX-License-Identifier: GPL-2.0-only
// The watched parameter holders (FastPathWatched) without fastpathd: a Config::Set on them is
// notified, nothing else is; the ns-3 type's defaults still apply; and a Config path through
// a watched pointer attribute (TxQueue) reaches its object once, so a sink connected by path
// fires once per event.
#include "ns3/core-module.h"
#include "ns3/csma-net-device.h"
#include "ns3/fast-path-net-device.h"
#include "ns3/fast-path-point-to-point-net-device.h"
#include "ns3/fast-path-watched.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <gtest/gtest.h>

#include <string>

using namespace ns3;

namespace
{

/// Enqueue calls a sink connected by `path` (Config::Connect, with context) sees while
/// `packets` frames go into `queue`.
int
EnqueuesSeen(const std::string& path, Ptr<Queue<Packet>> queue, int packets)
{
    int seen = 0;
    Callback<void, std::string, Ptr<const Packet>> sink(
        [&seen](std::string, Ptr<const Packet>) { ++seen; });
    Config::Connect(path, sink);
    for (int i = 0; i < packets; ++i)
    {
        EXPECT_TRUE(queue->Enqueue(Create<Packet>(100)));
    }
    Config::Disconnect(path, sink);
    return seen;
}

TEST(FastPathWatchedTest, ConfigSetOfAWatchedAttributeIsNotified)
{
    ObjectFactory devices("ns3::PointToPointNetDevice");
    devices.Set("DataRate", StringValue("3Mbps"));
    Ptr<PointToPointNetDevice> dev =
        FastPathWatched::Watching(devices).Create<PointToPointNetDevice>();
    Ptr<PointToPointChannel> ch =
        FastPathWatched::Watching(ObjectFactory("ns3::PointToPointChannel"))
            .Create<PointToPointChannel>();
    ASSERT_EQ(dev->GetInstanceTypeId().GetName(), "ns3::FastPathWatchedPointToPointNetDevice");
    DataRateValue rate;
    dev->GetAttribute("DataRate", rate);
    EXPECT_EQ(rate.Get().GetBitRate(), 3000000u); // the factory's value
    int devChanges = 0;
    int chChanges = 0;
    ASSERT_TRUE(FastPathWatched::Watch(dev, [&]() { ++devChanges; }));
    ASSERT_TRUE(FastPathWatched::Watch(ch, [&]() { ++chChanges; }));
    EXPECT_FALSE(FastPathWatched::Watch(CreateObject<Node>(), []() {}));

    Ptr<Node> node = CreateObject<Node>();
    node->AddDevice(dev);
    dev->Attach(ch);
    Config::Set("/NodeList/" + std::to_string(node->GetId()) +
                    "/DeviceList/*/$ns3::PointToPointNetDevice/DataRate",
                StringValue("7Mbps"));
    EXPECT_EQ(devChanges, 1);
    dev->GetAttribute("DataRate", rate);
    EXPECT_EQ(rate.Get().GetBitRate(), 7000000u);
    Config::Set("/ChannelList/" + std::to_string(ch->GetId()) + "/$ns3::PointToPointChannel/Delay",
                StringValue("4ms"));
    EXPECT_EQ(chChanges, 1);
    TimeValue delay;
    ch->GetAttribute("Delay", delay);
    EXPECT_EQ(delay.Get(), MilliSeconds(4));
    // Reading is no change; an attribute the emulation does not read is not watched.
    dev->GetAttribute("DataRate", rate);
    dev->SetAttribute("InterframeGap", TimeValue(MicroSeconds(1)));
    EXPECT_EQ(devChanges, 1);
    Simulator::Destroy();
}

TEST(FastPathWatchedTest, DefaultsOfTheNs3TypeStillApply)
{
    Config::SetDefault("ns3::DropTailQueue<Packet>::MaxSize", StringValue("17p"));
    Ptr<QueueBase> q = FastPathWatched::Watching(ObjectFactory("ns3::DropTailQueue<Packet>"))
                           .Create<QueueBase>();
    EXPECT_EQ(q->GetInstanceTypeId().GetName(), "ns3::FastPathWatchedDropTailQueue");
    EXPECT_EQ(q->GetMaxSize().GetValue(), 17u);
    int changes = 0;
    FastPathWatched::Watch(q, [&]() { ++changes; });
    q->SetAttribute("MaxSize", StringValue("5p"));
    EXPECT_EQ(changes, 1);
    EXPECT_EQ(q->GetMaxSize().GetValue(), 5u);
    // Another queue type is left as it is (not watched).
    ObjectFactory other("ns3::DropTailQueue<QueueDiscItem>");
    EXPECT_EQ(FastPathWatched::Watching(other).GetTypeId().GetName(),
              "ns3::DropTailQueue<QueueDiscItem>");
    Config::SetDefault("ns3::DropTailQueue<Packet>::MaxSize", StringValue("100p"));
}

// The emulated point-to-point device's TxQueue (the watched copy of the attribute and
// PointToPointNetDevice's own lead to the same queue): Config finds the queue once, and a
// sink connected by path fires once per enqueue.
TEST(FastPathWatchedTest, ATxQueueSinkConnectedByPathFiresOncePerEnqueue)
{
    Ptr<Node> node = CreateObject<Node>();
    Ptr<FastPathPointToPointNetDevice> dev = CreateObject<FastPathPointToPointNetDevice>();
    Ptr<Queue<Packet>> queue = CreateObject<DropTailQueue<Packet>>();
    dev->SetQueue(queue);
    node->AddDevice(dev);
    const std::string txQueue = "/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/TxQueue";
    EXPECT_EQ(Config::LookupMatches(txQueue).GetN(), 1u);
    EXPECT_EQ(EnqueuesSeen(txQueue + "/Enqueue", queue, 3), 3);
    EXPECT_EQ(queue->GetTotalReceivedPackets(), 3u);

    // A watched CSMA device likewise.
    Ptr<CsmaNetDevice> csma =
        FastPathWatched::Watching(ObjectFactory("ns3::CsmaNetDevice")).Create<CsmaNetDevice>();
    ASSERT_EQ(csma->GetInstanceTypeId().GetName(), "ns3::FastPathWatchedCsmaNetDevice");
    Ptr<Queue<Packet>> csmaQueue = CreateObject<DropTailQueue<Packet>>();
    csma->SetQueue(csmaQueue);
    node->AddDevice(csma);
    EXPECT_EQ(EnqueuesSeen("/NodeList/*/DeviceList/*/$ns3::CsmaNetDevice/TxQueue/Enqueue",
                           csmaQueue,
                           2),
              2);
    Simulator::Destroy();
}

// A path through the watched TxQueue to a watched queue's attribute sets it once (one
// notification), and a set of the TxQueue itself is still the device's (notified) and
// replaces the queue; a value a factory gave survives construction.
TEST(FastPathWatchedTest, APathThroughAWatchedTxQueueSetsOnceAndTheTxQueueStaysWatched)
{
    Ptr<Node> node = CreateObject<Node>();
    Ptr<PointToPointNetDevice> dev =
        FastPathWatched::Watching(ObjectFactory("ns3::PointToPointNetDevice"))
            .Create<PointToPointNetDevice>();
    Ptr<QueueBase> queue = FastPathWatched::Watching(ObjectFactory("ns3::DropTailQueue<Packet>"))
                               .Create<QueueBase>();
    dev->SetQueue(DynamicCast<Queue<Packet>>(queue));
    node->AddDevice(dev);
    int devChanges = 0;
    int queueChanges = 0;
    ASSERT_TRUE(FastPathWatched::Watch(dev, [&]() { ++devChanges; }));
    ASSERT_TRUE(FastPathWatched::Watch(queue, [&]() { ++queueChanges; }));
    const std::string path = "/NodeList/" + std::to_string(node->GetId()) +
                             "/DeviceList/*/$ns3::PointToPointNetDevice/TxQueue";
    Config::Set(path + "/MaxSize", StringValue("9p"));
    EXPECT_EQ(queue->GetMaxSize().GetValue(), 9u);
    EXPECT_EQ(queueChanges, 1);
    EXPECT_EQ(devChanges, 0);

    Ptr<Queue<Packet>> other = CreateObject<DropTailQueue<Packet>>();
    Config::Set(path, PointerValue(other));
    EXPECT_EQ(devChanges, 1);
    EXPECT_EQ(dev->GetQueue(), other);

    // A TxQueue given to the ns-3 type's factory (as helpers give attributes) is the
    // watched device's.
    Ptr<Queue<Packet>> given = CreateObject<DropTailQueue<Packet>>();
    ObjectFactory factory("ns3::PointToPointNetDevice");
    factory.Set("TxQueue", PointerValue(given));
    EXPECT_EQ(FastPathWatched::Watching(factory).Create<PointToPointNetDevice>()->GetQueue(),
              given);
    Simulator::Destroy();
}

// The emulated point-to-point device's ReceiveErrorModel: the device's own attribute (the
// engine's model), the watched copy and PointToPointNetDevice's own. Config follows only
// PointToPointNetDevice's (the others answer under another checker), so a path through the
// name reaches the model once, and it is the engine's.
TEST(FastPathWatchedTest, AReceiveErrorModelPathReachesTheModelOnce)
{
    Ptr<Node> node = CreateObject<Node>();
    Ptr<FastPathPointToPointNetDevice> dev = CreateObject<FastPathPointToPointNetDevice>();
    node->AddDevice(dev);
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    em->SetUnit(RateErrorModel::ERROR_UNIT_BYTE);
    dev->SetAttribute("ReceiveErrorModel", PointerValue(em));
    Config::MatchContainer found =
        Config::LookupMatches("/NodeList/" + std::to_string(node->GetId()) +
                              "/DeviceList/*/$ns3::PointToPointNetDevice/ReceiveErrorModel");
    ASSERT_EQ(found.GetN(), 1u);
    EXPECT_EQ(found.Get(0), em);
    Simulator::Destroy();
}

// A ReceiveErrorModel given to a factory reaches the engine at construction, whichever type
// the factory had when it was set (helpers set attributes on the ns-3 type's factory, or on
// the emulating type's once the switch has changed it), and a per-packet rate is the link's.
TEST(FastPathWatchedTest, AReceiveErrorModelGivenToAFactoryIsTheEngines)
{
    for (bool setOnStock : {true, false})
    {
        SCOPED_TRACE(setOnStock ? "set on ns3::PointToPointNetDevice"
                                : "set on ns3::FastPathPointToPointNetDevice");
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        ObjectFactory factory(setOnStock ? "ns3::PointToPointNetDevice"
                                         : "ns3::FastPathPointToPointNetDevice");
        factory.Set("ReceiveErrorModel", PointerValue(em));
        factory.SetTypeId(FastPathPointToPointNetDevice::GetTypeId());
        Ptr<FastPathPointToPointNetDevice> dev = factory.Create<FastPathPointToPointNetDevice>();
        EXPECT_EQ(dev->GetEngine()->GetReceiveErrorModel(), em);
        EXPECT_TRUE(dev->GetEngine()->IsReceiveErrorModelOnLink());
        EXPECT_EQ(dev->GetLinkErrorModel(), em);
        PointerValue got;
        dev->GetAttribute("ReceiveErrorModel", got);
        EXPECT_EQ(got.Get<ErrorModel>(), em);
    }
    // Per-byte: the engine drops, the link carries none.
    Ptr<RateErrorModel> bytes = CreateObject<RateErrorModel>();
    bytes->SetUnit(RateErrorModel::ERROR_UNIT_BYTE);
    ObjectFactory factory("ns3::PointToPointNetDevice");
    factory.Set("ReceiveErrorModel", PointerValue(bytes));
    factory.SetTypeId(FastPathPointToPointNetDevice::GetTypeId());
    Ptr<FastPathPointToPointNetDevice> dev = factory.Create<FastPathPointToPointNetDevice>();
    EXPECT_EQ(dev->GetEngine()->GetReceiveErrorModel(), bytes);
    EXPECT_FALSE(dev->GetEngine()->IsReceiveErrorModelOnLink());
    EXPECT_EQ(dev->GetLinkErrorModel(), nullptr);
    Simulator::Destroy();
}

} // namespace
