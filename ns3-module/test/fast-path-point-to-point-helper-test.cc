// SPDX-License-Identifier: GPL-2.0-only
// FastPathPointToPointHelper without fastpathd: simulated, it builds what PointToPointHelper
// builds; LinkParamsOf reads a link's emulation from the ns-3 objects' attributes; the
// FastPathEmulation switch selects the realtime simulator and checksums.
#include "ns3/core-module.h"
#include "ns3/fast-path-forwarded-queue.h"
#include "ns3/fast-path-point-to-point-helper.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace ns3;

namespace
{

TEST(FastPathPointToPointHelperTest, SimulatedItBuildsWhatPointToPointHelperBuilds)
{
    ASSERT_FALSE(FastPathPointToPointHelper::IsEmulated());
    NodeContainer nodes;
    nodes.Create(3);
    FastPathPointToPointHelper fp;
    PointToPointHelper& asPlain = fp; // it is one: tracing helpers and all
    (void)asPlain;
    fp.SetDeviceAttribute("DataRate", StringValue("10Mbps"));
    fp.SetChannelAttribute("Delay", StringValue("3ms"));
    fp.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("20p"));
    NetDeviceContainer a = fp.Install(nodes.Get(0), nodes.Get(1));
    NetDeviceContainer b = fp.Install(NodeContainer(nodes.Get(1), nodes.Get(2)));
    ASSERT_EQ(a.GetN(), 2u);
    ASSERT_EQ(b.GetN(), 2u);
    EXPECT_EQ(a.Get(0)->GetNode(), nodes.Get(0));
    EXPECT_EQ(a.Get(1)->GetNode(), nodes.Get(1));
    EXPECT_EQ(b.Get(1)->GetNode(), nodes.Get(2));
    Ptr<PointToPointNetDevice> d = DynamicCast<PointToPointNetDevice>(a.Get(0));
    ASSERT_TRUE(d);
    DataRateValue rate;
    d->GetAttribute("DataRate", rate);
    EXPECT_EQ(rate.Get().GetBitRate(), 10000000u);
    TimeValue delay;
    d->GetChannel()->GetAttribute("Delay", delay);
    EXPECT_EQ(delay.Get(), MilliSeconds(3));
    EXPECT_EQ(d->GetQueue()->GetMaxSize().GetValue(), 20u);
    EXPECT_EQ(FastPathPointToPointHelper::GetFastPathNodeName(nodes.Get(0)), "");
    Simulator::Destroy();
}

TEST(FastPathPointToPointHelperTest, LinkParamsComeFromTheDeviceChannelQueueAndErrorModel)
{
    Ptr<PointToPointNetDevice> dev = CreateObject<PointToPointNetDevice>();
    dev->SetAttribute("DataRate", StringValue("25Mbps"));
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
    em->SetRate(0.02);
    dev->SetAttribute("ReceiveErrorModel", PointerValue(em));
    Ptr<PointToPointChannel> ch = CreateObject<PointToPointChannel>();
    ch->SetAttribute("Delay", StringValue("7ms"));
    ObjectFactory qf("ns3::DropTailQueue<Packet>");
    qf.Set("MaxSize", StringValue("30p"));
    Ptr<QueueBase> q = qf.Create<QueueBase>();

    fastpath::LinkParams p = FastPathPointToPointHelper::LinkParamsOf(dev, ch, q);
    EXPECT_EQ(p.rate_bps, 25000000u);
    // ns-3 counts IP + PPP's 2 bytes; fastpathd's frame is IP + Ethernet's 14.
    EXPECT_EQ(p.overhead_bytes, -12);
    EXPECT_EQ(p.mpu_bytes, 0u);
    EXPECT_EQ(p.delay_ns, 7000000u);
    EXPECT_EQ(p.limit_packets, 30u);
    EXPECT_EQ(p.limit_bytes, 0u);
    EXPECT_DOUBLE_EQ(p.loss, 0.02);
    EXPECT_TRUE(fastpath::validateLinkParams(p).ok());

    // A byte limit, a per-bit error rate (as loss of MTU-sized frames), a disabled model.
    ObjectFactory bf("ns3::DropTailQueue<Packet>");
    bf.Set("MaxSize", StringValue("64000B"));
    em->SetUnit(RateErrorModel::ERROR_UNIT_BIT);
    em->SetRate(1e-6);
    p = FastPathPointToPointHelper::LinkParamsOf(dev, ch, bf.Create<QueueBase>());
    EXPECT_EQ(p.limit_packets, 0u);
    EXPECT_EQ(p.limit_bytes, 64000u);
    EXPECT_NEAR(p.loss, 1 - std::pow(1 - 1e-6, 8.0 * 1500), 1e-9);
    em->Disable();
    p = FastPathPointToPointHelper::LinkParamsOf(dev, ch, q);
    EXPECT_EQ(p.loss, 0);

    // ns-3 drops a frame at the device receiving it: the loss of the direction `dev` sends
    // into is the peer's ReceiveErrorModel, not dev's own.
    Ptr<PointToPointNetDevice> peer = CreateObject<PointToPointNetDevice>();
    Ptr<RateErrorModel> peerEm = CreateObject<RateErrorModel>();
    peerEm->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
    peerEm->SetRate(0.01);
    peer->SetAttribute("ReceiveErrorModel", PointerValue(peerEm));
    em->Enable();
    em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
    em->SetRate(0.3);
    EXPECT_DOUBLE_EQ(FastPathPointToPointHelper::LinkParamsOf(dev, ch, q, peer).loss, 0.01);
    EXPECT_DOUBLE_EQ(FastPathPointToPointHelper::LinkParamsOf(peer, ch, q, dev).loss, 0.3);
    Simulator::Destroy();
}

TEST(FastPathPointToPointHelperTest, TheSwitchSelectsTheRealtimeSimulatorAndChecksums)
{
    StringValue impl;
    BooleanValue checksums;
    GlobalValue::GetValueByName("SimulatorImplementationType", impl);
    GlobalValue::GetValueByName("ChecksumEnabled", checksums);
    const std::string implBefore = impl.Get();
    const bool checksumsBefore = checksums.Get();
    EXPECT_NE(implBefore, "ns3::FastPathRealtimeSimulatorImpl");

    // As CommandLine sets it (--FastPathEmulation=1): a string, through Bind.
    GlobalValue::Bind("FastPathEmulation", StringValue("1"));
    EXPECT_TRUE(FastPathPointToPointHelper::IsEmulated());
    GlobalValue::GetValueByName("SimulatorImplementationType", impl);
    GlobalValue::GetValueByName("ChecksumEnabled", checksums);
    EXPECT_EQ(impl.Get(), "ns3::FastPathRealtimeSimulatorImpl");
    EXPECT_TRUE(checksums.Get());
    EXPECT_EQ(FastPathHelper::CheckSimulatorPreconditions(), "");

    GlobalValue::Bind("FastPathEmulation", BooleanValue(false));
    GlobalValue::Bind("SimulatorImplementationType", StringValue(implBefore));
    GlobalValue::Bind("ChecksumEnabled", BooleanValue(checksumsBefore));
    EXPECT_FALSE(FastPathPointToPointHelper::IsEmulated());
}

TEST(FastPathForwardedQueueTest, AFifoQueueDiscAddsItsLimitCoDelIsMirroredOthersAreNoted)
{
    NodeContainer nodes;
    nodes.Create(4);
    PointToPointHelper p2p;
    NetDeviceContainer ab = p2p.Install(nodes.Get(0), nodes.Get(1));
    NetDeviceContainer cd = p2p.Install(nodes.Get(2), nodes.Get(3));
    InternetStackHelper internet;
    internet.Install(nodes);

    fastpath::LinkParams p; // the device queue's 100 packets
    EXPECT_FALSE(AddForwardedQueueDisc(ab.Get(0), p)) << "no queue disc yet";
    EXPECT_EQ(p.limit_packets, 100u);

    TrafficControlHelper fifo;
    fifo.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue("56p"));
    fifo.Install(ab.Get(0));
    TrafficControlHelper pfifo;
    pfifo.SetRootQueueDisc("ns3::PfifoFastQueueDisc", "MaxSize", StringValue("40p"));
    pfifo.Install(ab.Get(1));
    TrafficControlHelper tbf;
    tbf.SetRootQueueDisc("ns3::TbfQueueDisc");
    tbf.Install(cd.Get(0));
    NetDeviceContainer ef = p2p.Install(nodes.Get(2), nodes.Get(3));
    TrafficControlHelper codel;
    codel.SetRootQueueDisc("ns3::CoDelQueueDisc",
                           "MaxSize",
                           StringValue("200p"),
                           "Target",
                           StringValue("4ms"),
                           "UseEcn",
                           BooleanValue(true));
    codel.Install(ef.Get(0));

    // FIFO in front of the device queue: one drop-tail queue of both limits.
    EXPECT_TRUE(AddForwardedQueueDisc(ab.Get(0), p));
    EXPECT_EQ(p.limit_packets, 156u);
    fastpath::LinkParams q;
    EXPECT_TRUE(AddForwardedQueueDisc(ab.Get(1), q));
    EXPECT_EQ(q.limit_packets, 140u);
    // A link counting bytes: the packets of the queue disc cannot be added.
    fastpath::LinkParams bytes;
    bytes.limit_packets = 0;
    bytes.limit_bytes = 30000;
    EXPECT_FALSE(AddForwardedQueueDisc(ab.Get(0), bytes));
    EXPECT_EQ(bytes.limit_bytes, 30000u);
    // CoDel: the link's queue discipline, its attributes mirrored; the device queue stays.
    fastpath::LinkParams c;
    EXPECT_TRUE(AddForwardedQueueDisc(ef.Get(0), c));
    EXPECT_EQ(c.aqm, fastpath::LinkParams::Aqm::kCoDel);
    EXPECT_EQ(c.limit_packets, 100u);
    EXPECT_EQ(c.aqm_limit_packets, 200u);
    EXPECT_EQ(c.aqm_target_ns, 4000000u);
    EXPECT_EQ(c.aqm_interval_ns, 100000000u);
    EXPECT_EQ(c.aqm_min_bytes, 1500u);
    EXPECT_TRUE(c.aqm_ecn);
    EXPECT_EQ(c.aqm_ce_threshold_ns, 0u) << "CeThreshold's default: never";
    // Other queue discs (shaping: TBF) cannot act on what fastpathd forwards.
    fastpath::LinkParams r;
    EXPECT_FALSE(AddForwardedQueueDisc(cd.Get(0), r));
    EXPECT_EQ(r.limit_packets, 100u);
    EXPECT_FALSE(AddForwardedQueueDisc(cd.Get(0), r)) << "again: noted once";
    EXPECT_FALSE(AddForwardedQueueDisc(cd.Get(1), r)) << "no queue disc on this one";

    // Said once, in one line, when the instant's pushes are done.
    testing::internal::CaptureStderr();
    Simulator::Run();
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("queue discs ns3::FifoQueueDisc "
                       "(limit in other units than the device queue's) on 1 device, "
                       "ns3::TbfQueueDisc on 1 device hold only "
                       "what their node sends itself"),
              std::string::npos)
        << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    Simulator::Destroy();
}

} // namespace
