// SPDX-License-Identifier: GPL-2.0-only
// The stock helpers built on PointToPointHelper (PointToPointDumbbellHelper,
// PointToPointStarHelper) take a FastPathPointToPointHelper by value, as a plain
// PointToPointHelper, and call PointToPointHelper::Install. Emulated, they install emulating
// devices and create the same fastpathd links (ends, ports, MTU, each direction's rate, delay
// and queue limit; the devices' MACs) as the helper's own Install of the same topology;
// simulated, the stock devices. Against fastpathd's control server over an in-memory
// network of nodes and links: no fastpathd, no privileges.
#include "fast-path-in-memory-fixture.h"

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/traffic-control-module.h"
#include "ns3/fast-path-channel.h"
#include "ns3/fast-path-net-device.h"
#include "ns3/fast-path-point-to-point-helper.h"
#include "ns3/fast-path-point-to-point-net-device.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-dumbbell.h"
#include "ns3/point-to-point-module.h"
#include "ns3/point-to-point-star.h"

#include "fastpath/ctrl/client.h"
#include "fastpath/ctrl/protocol.h"

#include <gtest/gtest.h>

#include <cstring>
#include <sys/wait.h>
#include <unistd.h>
#include <functional>
#include <map>
#include <vector>

using namespace ns3;

namespace
{

class PointToPointStockHelpersTest : public fastpath_ns3_test::InMemoryEmulationTest
{
  protected:
    PointToPointStockHelpersTest()
        : InMemoryEmulationTest("stock")
    {
    }

    /// The links fastpathd has, asked as any client asks.
    std::vector<fastpath::LinkInfo> Links()
    {
        auto c = fastpath::ctrl::Client::connect(server_.SocketPath());
        EXPECT_TRUE(c.ok());
        if (!c.ok() || !c.value()->hello("test").ok())
        {
            return {};
        }
        auto links = c.value()->links();
        EXPECT_TRUE(links.ok());
        return links.ok() ? links.value() : std::vector<fastpath::LinkInfo>{};
    }

    /// Builds a topology with `build`, checks that every device of every node is an
    /// emulating one on an emulated link whose ends have the devices' MACs, and returns the
    /// links fastpathd has; the simulation is destroyed after (its links deleted).
    std::vector<fastpath::LinkInfo> Built(const std::function<void()>& build)
    {
        build();
        std::vector<fastpath::LinkInfo> links = Links();
        std::map<std::string, fastpath::LinkInfo> byName;
        for (const auto& l : links)
        {
            byName[l.name] = l;
        }
        uint32_t devices = 0;
        for (auto node = NodeList::Begin(); node != NodeList::End(); ++node)
        {
            for (uint32_t i = 0; i < (*node)->GetNDevices(); ++i)
            {
                Ptr<NetDevice> d = (*node)->GetDevice(i);
                auto fp = DynamicCast<FastPathPointToPointNetDevice>(d);
                EXPECT_TRUE(fp) << d->GetInstanceTypeId().GetName();
                if (!fp)
                {
                    continue;
                }
                ++devices;
                EXPECT_EQ(d->GetObject<FastPathNetDevice>(), fp->GetEngine());
                EXPECT_TRUE(fp->GetEngine()->GetQueue()) << "the engine has its TxQueue";
                EXPECT_TRUE(DynamicCast<FastPathPointToPointChannel>(d->GetChannel()));
                const std::string link = FastPathPointToPointHelper::GetFastPathLinkName(d);
                EXPECT_EQ(byName.count(link), 1u) << "device on node " << (*node)->GetId();
                if (!byName.count(link))
                {
                    continue;
                }
                const auto& l = byName[link];
                const auto& end = d->GetChannel()->GetDevice(0) == d ? l.a : l.b;
                uint8_t mac[6];
                Mac48Address::ConvertFrom(d->GetAddress()).CopyTo(mac);
                EXPECT_EQ(std::memcmp(mac, end.mac.bytes.data(), 6), 0) << link;
            }
        }
        EXPECT_EQ(devices, 2 * links.size());
        Simulator::Destroy();
        EXPECT_TRUE(Links().empty()) << "the links are deleted with the simulation";
        return links;
    }

    /// The same links: names, ends, MTUs, both directions' emulation.
    static void ExpectSamePlan(const std::vector<fastpath::LinkInfo>& stock,
                               const std::vector<fastpath::LinkInfo>& own)
    {
        ASSERT_EQ(stock.size(), own.size());
        for (size_t i = 0; i < stock.size(); ++i)
        {
            EXPECT_EQ(stock[i].name, own[i].name);
            EXPECT_EQ(stock[i].a.node, own[i].a.node) << stock[i].name;
            EXPECT_EQ(stock[i].b.node, own[i].b.node) << stock[i].name;
            EXPECT_EQ(stock[i].a.port, own[i].a.port) << stock[i].name;
            EXPECT_EQ(stock[i].b.port, own[i].b.port) << stock[i].name;
            EXPECT_EQ(stock[i].a.mtu, own[i].a.mtu) << stock[i].name;
            EXPECT_TRUE(stock[i].a_to_b == own[i].a_to_b)
                << stock[i].name << ": " << fastpath::formatLinkParams(stock[i].a_to_b)
                << " against " << fastpath::formatLinkParams(own[i].a_to_b);
            EXPECT_TRUE(stock[i].b_to_a == own[i].b_to_a) << stock[i].name;
        }
    }

    static void ExpectParams(const fastpath::LinkInfo& l,
                             uint64_t rate,
                             uint64_t delayNs,
                             uint32_t limit)
    {
        for (const auto* p : {&l.a_to_b, &l.b_to_a})
        {
            EXPECT_EQ(p->rate_bps, rate) << l.name;
            EXPECT_EQ(p->delay_ns, delayNs) << l.name;
            EXPECT_EQ(p->limit_packets, limit) << l.name;
        }
    }

};

TEST_F(PointToPointStockHelpersTest, ADumbbellOfTheStockHelperIsEmulatedAsTheHelperInstallsIt)
{
    Emulate(true);
    FastPathPointToPointHelper leaf;
    leaf.SetDeviceAttribute("DataRate", StringValue("10Mbps"));
    leaf.SetChannelAttribute("Delay", StringValue("1ms"));
    leaf.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("20p"));
    FastPathPointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue("1Mbps"));
    bottleneck.SetChannelAttribute("Delay", StringValue("20ms"));
    bottleneck.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("5p"));

    const auto stock = Built([&]() {
        // As traffic-control/red-vs-nlred.cc: the helpers sliced into plain ones.
        PointToPointDumbbellHelper d(2, leaf, 2, leaf, bottleneck);
    });
    const auto own = Built([&]() {
        // What PointToPointDumbbellHelper does, with the helpers' own Install.
        NodeContainer left, right, routers;
        routers.Create(2);
        left.Create(2);
        right.Create(2);
        bottleneck.Install(routers);
        for (uint32_t i = 0; i < 2; ++i)
        {
            leaf.Install(routers.Get(0), left.Get(i));
        }
        for (uint32_t i = 0; i < 2; ++i)
        {
            leaf.Install(routers.Get(1), right.Get(i));
        }
    });
    ASSERT_EQ(stock.size(), 5u);
    ExpectParams(stock[0], 1000000, 20000000, 5);
    for (size_t i = 1; i < stock.size(); ++i)
    {
        ExpectParams(stock[i], 10000000, 1000000, 20);
    }
    ExpectSamePlan(stock, own);
}

// As red-vs-nlred: a dumbbell whose router has a RedQueueDisc (the link direction gets
// `aqm red`, protocol 1.12: with a client of an older protocol the router keeps no queue
// disc), and a script that ends with exit() without Simulator::Destroy(). The process
// exits with the script's status (it aborted at exit, a double free, before) and its links
// are deleted from fastpathd as Destroy would.
TEST_F(PointToPointStockHelpersTest, AScriptEndingWithExitWithoutDestroyExitsCleanly)
{
    const bool redKnown = fastpath::ctrl::kProtocolMinor >= 12;
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0)
    {
        Emulate(true);
        FastPathPointToPointHelper leaf;
        leaf.SetDeviceAttribute("DataRate", StringValue("10Mbps"));
        FastPathPointToPointHelper bottleneck;
        bottleneck.SetDeviceAttribute("DataRate", StringValue("1Mbps"));
        bottleneck.SetChannelAttribute("Delay", StringValue("50ms"));
        PointToPointDumbbellHelper d(1, leaf, 1, leaf, bottleneck);
        InternetStackHelper stack;
        d.InstallStack(stack);
        if (redKnown)
        {
            TrafficControlHelper tch;
            tch.SetRootQueueDisc("ns3::RedQueueDisc", "MaxSize", StringValue("1000p"));
            tch.Install(d.GetLeft()->GetDevice(0));
        }
        Simulator::Stop(MilliSeconds(50));
        Simulator::Run();
        bool red = false;
        for (const auto& l : Links())
        {
            for (const auto* p : {&l.a_to_b, &l.b_to_a})
            {
                red |= p->aqm == fastpath::LinkParams::Aqm::kRed &&
                       p->red.link_bps == 1500000 && p->aqm_limit_packets == 1000;
            }
        }
        std::exit(red == redKnown ? 3 : 4);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 3) << "4: the router's direction had no RED";
    EXPECT_TRUE(Links().empty()) << "the links are deleted at the exit";
}

TEST_F(PointToPointStockHelpersTest, AStarOfTheStockHelperIsEmulatedAsTheHelperInstallsIt)
{
    Emulate(true);
    FastPathPointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("5Mbps"));
    p2p.SetChannelAttribute("Delay", StringValue("2ms"));

    const auto stock = Built([&]() {
        // As tcp/star.cc.
        PointToPointStarHelper star(3, p2p);
    });
    const auto own = Built([&]() {
        NodeContainer hub, spokes;
        hub.Create(1);
        spokes.Create(3);
        for (uint32_t i = 0; i < 3; ++i)
        {
            p2p.Install(hub.Get(0), spokes.Get(i));
        }
    });
    ASSERT_EQ(stock.size(), 3u);
    for (const auto& l : stock)
    {
        // DropTailQueue's default MaxSize: 100 packets.
        ExpectParams(l, 5000000, 2000000, 100);
    }
    ExpectSamePlan(stock, own);
}

TEST_F(PointToPointStockHelpersTest, SimulatedTheStockHelperBuildsTheStockDevices)
{
    Emulate(false);
    FastPathPointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("5Mbps"));
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("7p"));
    PointToPointStarHelper star(2, p2p);
    for (uint32_t i = 0; i < 2; ++i)
    {
        Ptr<NetDevice> d = star.GetHub()->GetDevice(i);
        EXPECT_EQ(d->GetInstanceTypeId().GetName(), "ns3::PointToPointNetDevice");
        EXPECT_EQ(d->GetChannel()->GetInstanceTypeId().GetName(), "ns3::PointToPointChannel");
        EXPECT_FALSE(d->GetObject<FastPathNetDevice>());
        // PointToPointHelper's flow control, as a plain helper's.
        EXPECT_TRUE(d->GetObject<NetDeviceQueueInterface>());
        auto q = StaticCast<PointToPointNetDevice>(d)->GetQueue();
        EXPECT_EQ(q->GetInstanceTypeId().GetName(), "ns3::DropTailQueue<Packet>");
        EXPECT_EQ(q->GetMaxSize().GetValue(), 7u);
    }
    EXPECT_TRUE(Links().empty());
}

} // namespace
