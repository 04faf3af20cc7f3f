// SPDX-License-Identifier: GPL-2.0-only
// A router's RedQueueDisc emulated, without fastpathd: its attributes become the link's RED
// discipline (`aqm red`), and fastpathd's counts of the direction become the queue disc's
// statistics, as a script reads them with GetStats().
#include "ns3/core-module.h"
#include "ns3/fast-path-forwarded-queue.h"
#include "ns3/fast-path-forwarded-red.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include "fastpath/control_types.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace ns3;

namespace
{

TEST(FastPathForwardedRedTest, ARedQueueDiscBecomesTheLinksRedWithItsAttributes)
{
    NodeContainer nodes;
    nodes.Create(2);
    PointToPointHelper p2p;
    NetDeviceContainer ab = p2p.Install(nodes);
    InternetStackHelper internet;
    internet.Install(nodes);
    TrafficControlHelper red;
    red.SetRootQueueDisc("ns3::RedQueueDisc",
                         "MaxSize",
                         StringValue("1000p"),
                         "MinTh",
                         DoubleValue(5),
                         "MaxTh",
                         DoubleValue(15),
                         "MeanPktSize",
                         UintegerValue(512),
                         "FengAdaptive",
                         BooleanValue(true),
                         "LinkBandwidth",
                         StringValue("1Mbps"),
                         "LinkDelay",
                         StringValue("50ms"));
    red.Install(ab.Get(0));
    TrafficControlHelper nl;
    nl.SetRootQueueDisc("ns3::RedQueueDisc",
                        "MaxSize",
                        StringValue("51200B"),
                        "NLRED",
                        BooleanValue(true),
                        "Gentle",
                        BooleanValue(false),
                        "QW",
                        DoubleValue(-1));
    nl.Install(ab.Get(1));

    fastpath::LinkParams p;
    ASSERT_TRUE(AddForwardedQueueDisc(ab.Get(0), p));
    EXPECT_EQ(p.aqm, fastpath::LinkParams::Aqm::kRed);
    EXPECT_EQ(p.limit_packets, 100u) << "the device queue stays";
    EXPECT_EQ(p.aqm_limit_packets, 1000u);
    EXPECT_EQ(p.red.min_th, 5);
    EXPECT_EQ(p.red.max_th, 15);
    EXPECT_EQ(p.red.mean_pkt_size, 512u);
    EXPECT_TRUE(p.red.feng);
    EXPECT_FALSE(p.red.nonlinear);
    EXPECT_EQ(p.red.link_bps, 1000000u);
    EXPECT_EQ(p.red.link_delay_ns, 50000000u);
    EXPECT_EQ(p.red.l_interm, 50) << "ns-3's default";
    EXPECT_TRUE(p.red.gentle);
    EXPECT_EQ(p.red.interval_ns, 500000000u);
    EXPECT_EQ(p.red.rtt_ns, 100000000u);
    EXPECT_TRUE(fastpath::validateLinkParams(p));

    fastpath::LinkParams q;
    ASSERT_TRUE(AddForwardedQueueDisc(ab.Get(1), q));
    EXPECT_EQ(q.aqm_limit_packets, 0u);
    EXPECT_EQ(q.aqm_limit_bytes, 51200u);
    EXPECT_TRUE(q.red.nonlinear);
    EXPECT_FALSE(q.red.gentle);
    EXPECT_EQ(q.red.qw, -1);

    // A link counting bytes: its device queue cannot hold RED's wait; noted, unchanged.
    fastpath::LinkParams bytes;
    bytes.limit_packets = 0;
    bytes.limit_bytes = 30000;
    EXPECT_FALSE(AddForwardedQueueDisc(ab.Get(0), bytes));
    EXPECT_EQ(bytes.aqm, fastpath::LinkParams::Aqm::kNone);
    testing::internal::CaptureStderr();
    Simulator::Run();
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("ns3::RedQueueDisc (limit in other units than the device queue's)"),
              std::string::npos)
        << err;
    Simulator::Destroy();
}

TEST(FastPathForwardedRedTest, FastpathdsCountsBecomeTheQueueDiscsStatistics)
{
    fastpath::LinkDirectionStats s;
    s.tx_packets = 1000;
    s.tx_bytes = 1000 * 566; // 552-byte IP packets in 14-byte Ethernet headers
    s.aqm_drops = 40;
    s.aqm_drop_bytes = 40 * 566;
    s.aqm_forced_drops = 3;
    s.aqm_forced_drop_bytes = 3 * 566;
    s.queue_drops = 2;
    s.aqm_marks = 5;
    s.aqm_forced_marks = 1;
    Ptr<RedQueueDisc> qd = CreateObject<RedQueueDisc>();
    QueueDisc::Stats& st = const_cast<QueueDisc::Stats&>(qd->GetStats());
    CopyRedStats(s, st);
    const QueueDisc::Stats& got = qd->GetStats();
    EXPECT_EQ(got.nTotalReceivedPackets, 1000u);
    EXPECT_EQ(got.nTotalReceivedBytes, 1000u * 552);
    EXPECT_EQ(got.GetNDroppedPackets(RedQueueDisc::UNFORCED_DROP), 37u);
    EXPECT_EQ(got.GetNDroppedBytes(RedQueueDisc::UNFORCED_DROP), 37u * 552);
    EXPECT_EQ(got.GetNDroppedPackets(RedQueueDisc::FORCED_DROP), 3u);
    EXPECT_EQ(got.GetNDroppedPackets(QueueDisc::INTERNAL_QUEUE_DROP), 2u);
    EXPECT_EQ(got.nTotalDroppedPacketsBeforeEnqueue, 42u);
    EXPECT_EQ(got.nTotalEnqueuedPackets, 958u);
    EXPECT_EQ(got.nTotalSentPackets, 958u) << "GetStats() derives it from the dequeued";
    EXPECT_EQ(got.GetNMarkedPackets(RedQueueDisc::UNFORCED_MARK), 4u);
    EXPECT_EQ(got.GetNMarkedPackets(RedQueueDisc::FORCED_MARK), 1u);
    // Printed as the example prints it.
    std::ostringstream out;
    out << got;
    EXPECT_NE(out.str().find("Unforced drop: 37 / 20424"), std::string::npos) << out.str();
    // Copied again (the next refresh): replaced, not added.
    s.aqm_drops = 41;
    s.aqm_drop_bytes = 41 * 566;
    CopyRedStats(s, st);
    EXPECT_EQ(qd->GetStats().GetNDroppedPackets(RedQueueDisc::UNFORCED_DROP), 38u);
}

} // namespace
