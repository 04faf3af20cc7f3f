// SPDX-License-Identifier: GPL-2.0-only
// FastPathPlan::Text against fastpathd's own topology parser: what the helpers generated
// (nodes with their host, links with both ends and each direction's emulation, a segment,
// bridges over segment ports) written as a topology file reads back as the same nodes,
// links, segments and bridges; other names and node default are left out. No fastpathd,
// no privileges.
#include "ns3/fast-path-plan.h"

#include "daemon/topology.h"
#include "fastpath/link_params.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace ns3;

namespace
{

fastpath::MacAddress
Mac(const std::string& text)
{
    return fastpath::MacAddress::parse(text).value();
}

fastpath::LinkParams
Params(const std::string& words)
{
    std::vector<std::string> args;
    std::istringstream in(words);
    for (std::string w; in >> w;)
    {
        args.push_back(w);
    }
    fastpath::LinkParams p;
    EXPECT_TRUE(fastpath::applyLinkParamWords(args, &p).ok()) << words;
    return p;
}

fastpath::LinkInfo
Link(const std::string& name, const std::string& a, const std::string& b, int k)
{
    fastpath::LinkInfo l;
    l.name = name;
    l.a = {a, b.substr(b.find('-') + 1), 0, Mac("02:66:70:00:00:0" + std::to_string(2 * k)), 1500};
    l.b = {b, a.substr(a.find('-') + 1), 0, Mac("02:66:70:00:00:0" + std::to_string(2 * k + 1)),
           1500};
    return l;
}

} // namespace

TEST(FastPathPlanTest, TheGeneratedPlanReadsBackAsTheSameTopology)
{
    std::vector<fastpath::NodeInfo> nodes(6);
    nodes[0].name = "default";
    const char* names[] = {"dia-a", "dia-b", "dia-c", "dia-d"};
    for (int i = 0; i < 4; ++i)
    {
        nodes[i + 1].name = names[i];
    }
    nodes[5].name = "other-x"; // another script's: not in this plan
    std::vector<fastpath::LinkInfo> links = {Link("dia-l0", "dia-a", "dia-b", 0),
                                             Link("dia-l1", "dia-a", "dia-c", 1),
                                             Link("dia-l2", "dia-b", "dia-d", 2),
                                             Link("dia-l3", "dia-c", "dia-d", 3),
                                             Link("other-l0", "other-x", "dia-a", 4)};
    const auto p2p = Params("rate 10mbit overhead 2 delay 5ms limit 100");
    for (auto& l : links)
    {
        l.a_to_b = l.b_to_a = p2p;
    }
    links[3].b_to_a = Params("rate 10mbit overhead 2 delay 5ms limit 100 loss 1%"); // d -> c
    links[2].up = false;
    std::vector<fastpath::SegmentInfo> segments(1);
    segments[0].name = "dia-csma0";
    segments[0].params = Params("rate 100mbit overhead 4 delay 6560ns limit 100");
    for (int i = 0; i < 3; ++i)
    {
        fastpath::SegmentInfo::Port port;
        port.node = names[i];
        port.port = "csma0";
        port.mac = Mac("02:66:70:00:01:0" + std::to_string(i));
        segments[0].ports.push_back(port);
    }

    const std::string text = FastPathPlan::Text(nodes, links, segments, "dia-");
    auto topo = fastpath::parseTopologyText(text, "plan.yaml");
    ASSERT_TRUE(topo.ok()) << topo.error().message << "\n" << text;
    const auto& t = topo.value();
    ASSERT_EQ(t.nodes.size(), 4u) << text;
    for (int i = 0; i < 4; ++i)
    {
        EXPECT_EQ(t.nodes[i].spec.name, names[i]);
        EXPECT_EQ(t.nodes[i].spec.host, "local");
    }
    ASSERT_EQ(t.links.size(), 4u) << text;
    for (size_t k = 0; k < 4; ++k)
    {
        const auto& got = t.links[k].spec;
        EXPECT_EQ(got.name, links[k].name);
        EXPECT_EQ(got.a.node, links[k].a.node);
        EXPECT_EQ(got.a.port, links[k].a.port);
        EXPECT_EQ(got.b.node, links[k].b.node);
        EXPECT_EQ(got.b.port, links[k].b.port);
        EXPECT_EQ(got.a.mac, links[k].a.mac);
        EXPECT_EQ(got.b.mac, links[k].b.mac);
        EXPECT_EQ(got.up, links[k].up);
        EXPECT_TRUE(got.a_to_b == links[k].a_to_b) << got.name << ": "
                                                   << fastpath::formatLinkParams(got.a_to_b);
        EXPECT_TRUE(got.b_to_a == links[k].b_to_a) << got.name << ": "
                                                   << fastpath::formatLinkParams(got.b_to_a);
    }
    EXPECT_DOUBLE_EQ(t.links[3].spec.b_to_a.loss, 0.01);
    EXPECT_EQ(t.links[3].spec.a_to_b.loss, 0);
    ASSERT_EQ(t.segments.size(), 1u) << text;
    EXPECT_EQ(t.segments[0].spec.name, "dia-csma0");
    ASSERT_EQ(t.segments[0].spec.ports.size(), 3u);
    EXPECT_EQ(t.segments[0].spec.ports[2].node, "dia-c");
    EXPECT_EQ(t.segments[0].spec.ports[2].mac, segments[0].ports[2].mac);
    EXPECT_TRUE(t.segments[0].spec.params == segments[0].params);
}

TEST(FastPathPlanTest, APlanWithBridgesReadsBackWithTheBridgesOnTheirSegmentPorts)
{
    // Node dia-s bridges two segments (ns-3: a BridgeNetDevice over two CsmaNetDevices);
    // dia-a and dia-b are on one segment each.
    std::vector<fastpath::NodeInfo> nodes(3);
    nodes[0].name = "dia-s";
    nodes[1].name = "dia-a";
    nodes[2].name = "dia-b";
    std::vector<fastpath::SegmentInfo> segments(2);
    for (int k = 0; k < 2; ++k)
    {
        segments[k].name = "dia-csma" + std::to_string(k);
        for (const std::string node : {"dia-s", k == 0 ? "dia-a" : "dia-b"})
        {
            fastpath::SegmentInfo::Port port;
            port.node = node;
            port.port = "csma" + std::to_string(k);
            port.mac = Mac("02:66:70:00:0" + std::to_string(k) + ":0" +
                           std::to_string(segments[k].ports.size()));
            segments[k].ports.push_back(port);
        }
    }
    std::vector<fastpath::BridgeInfo> bridges(3);
    bridges[0].name = "dia-br0";
    bridges[0].node = "dia-s";
    bridges[0].ageing_ns = 20'000'000'000; // ns-3's ExpirationTime 20 s
    for (const char* port : {"csma0", "csma1"})
    {
        fastpath::BridgeInfo::Port p;
        p.port = port;
        bridges[0].ports.push_back(p);
    }
    bridges[1] = bridges[0];
    bridges[1].name = "dia-br1";
    bridges[1].ageing_ns = 2'500'000'000; // 2.5 s: the file has whole seconds
    bridges[2] = bridges[0];
    bridges[2].name = "other-br0"; // another script's: not in this plan

    // Two bridges on the same ports would be refused by fastpathd: plan them one at a time.
    for (size_t k = 0; k < 2; ++k)
    {
        std::vector<fastpath::BridgeInfo> planned = {bridges[k], bridges[2]};
        const std::string text = FastPathPlan::Text(nodes, {}, segments, "dia-", planned);
        auto topo = fastpath::parseTopologyText(text, "plan.yaml");
        ASSERT_TRUE(topo.ok()) << topo.error().message << "\n" << text;
        const auto& t = topo.value();
        ASSERT_EQ(t.bridges.size(), 1u) << text;
        const auto& got = t.bridges[0].spec;
        EXPECT_EQ(got.name, bridges[k].name);
        EXPECT_EQ(got.node, "dia-s");
        EXPECT_EQ(got.ports, (std::vector<std::string>{"csma0", "csma1"})) << text;
        // Each port is the bridge node's port on a segment of the file, one per segment,
        // as fastpathd's createBridge requires.
        std::vector<std::string> bridged;
        for (const auto& port : got.ports)
        {
            for (const auto& seg : t.segments)
            {
                for (const auto& p : seg.spec.ports)
                {
                    if (p.node == got.node && p.port == port)
                    {
                        bridged.push_back(seg.spec.name);
                    }
                }
            }
        }
        EXPECT_EQ(bridged, (std::vector<std::string>{"dia-csma0", "dia-csma1"})) << text;
        if (k == 0)
        {
            EXPECT_EQ(got.ageing_ns, 20'000'000'000u);
            EXPECT_EQ(text.find("# ageing"), std::string::npos) << text;
        }
        else
        {
            // Rounded up, never shorter, and the file says so.
            EXPECT_EQ(got.ageing_ns, 3'000'000'000u);
            EXPECT_NE(text.find("# ageing 2500000000 ns in fastpathd, 3 s here"),
                      std::string::npos)
                << text;
        }
    }
}

TEST(FastPathPlanTest, APlanWithNothingOfThePrefixIsStillAValidTopology)
{
    std::vector<fastpath::NodeInfo> nodes(1);
    nodes[0].name = "default";
    auto topo = fastpath::parseTopologyText(FastPathPlan::Text(nodes, {}, {}, "none-"), "p");
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    EXPECT_TRUE(topo.value().nodes.empty());
}
