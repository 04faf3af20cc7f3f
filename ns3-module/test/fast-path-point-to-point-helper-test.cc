// SPDX-License-Identifier: GPL-2.0-only
// FastPathPointToPointHelper without fastpathd: simulated, it builds what PointToPointHelper
// builds; LinkParamsOf reads a link's emulation from the ns-3 objects' attributes; the
// FastPathEmulation switch selects the realtime simulator and checksums.
#include "ns3/core-module.h"
#include "ns3/fast-path-point-to-point-helper.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <gtest/gtest.h>

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
    EXPECT_EQ(p.overhead_bytes, 2u);
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
    EXPECT_NE(implBefore, "ns3::RealtimeSimulatorImpl");

    // As CommandLine sets it (--FastPathEmulation=1): a string, through Bind.
    GlobalValue::Bind("FastPathEmulation", StringValue("1"));
    EXPECT_TRUE(FastPathPointToPointHelper::IsEmulated());
    GlobalValue::GetValueByName("SimulatorImplementationType", impl);
    GlobalValue::GetValueByName("ChecksumEnabled", checksums);
    EXPECT_EQ(impl.Get(), "ns3::RealtimeSimulatorImpl");
    EXPECT_TRUE(checksums.Get());
    EXPECT_EQ(FastPathHelper::CheckSimulatorPreconditions(), "");

    GlobalValue::Bind("FastPathEmulation", BooleanValue(false));
    GlobalValue::Bind("SimulatorImplementationType", StringValue(implBefore));
    GlobalValue::Bind("ChecksumEnabled", BooleanValue(checksumsBefore));
    EXPECT_FALSE(FastPathPointToPointHelper::IsEmulated());
}

} // namespace
