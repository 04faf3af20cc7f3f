// SPDX-License-Identifier: GPL-2.0-only
// FastPathPartition without fastpathd: the rank from the launcher's environment or
// --FastPathPartition, the placement by system id, and METIS's automatic placement of
// grids (balanced, few links cut, the same in every process). And the hosts file of a run
// over several hosts (FastPathHostsFile), and a host's clock offset weighed against the
// delay budgets of its links to other hosts (FastPathClockCheck).
#include "ns3/core-module.h"
#include "ns3/fast-path-clock-check.h"
#include "ns3/fast-path-helper.h"
#include "ns3/fast-path-hosts-file.h"
#include "ns3/fast-path-partition.h"
#include "ns3/network-module.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

using namespace ns3;

namespace
{

using Edge = FastPathPartition::Edge;

/// The links of a side x side grid of routers (node i*side+j), as examples/grid builds it.
std::vector<Edge>
Grid(uint32_t side)
{
    std::vector<Edge> e;
    for (uint32_t i = 0; i < side; ++i)
    {
        for (uint32_t j = 0; j < side; ++j)
        {
            if (j + 1 < side)
            {
                e.emplace_back(i * side + j, i * side + j + 1);
            }
            if (i + 1 < side)
            {
                e.emplace_back(i * side + j, (i + 1) * side + j);
            }
        }
    }
    return e;
}

std::function<const char*(const char*)>
Env(std::map<std::string, std::string> vars)
{
    return [vars](const char* name) -> const char* {
        auto it = vars.find(name);
        return it == vars.end() ? nullptr : it->second.c_str();
    };
}

TEST(FastPathPartitionTest, RankFromTheOptionThenTheLaunchers)
{
    auto none = FastPathPartition::Detect("", Env({}));
    ASSERT_TRUE(none.ok());
    EXPECT_EQ(none.value().rank, 0u);
    EXPECT_EQ(none.value().size, 1u);

    auto ompi = FastPathPartition::Detect(
        "", Env({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "3"},
                 {"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}}));
    ASSERT_TRUE(ompi.ok());
    EXPECT_EQ(ompi.value().rank, 1u);
    EXPECT_EQ(ompi.value().size, 3u);
    EXPECT_EQ(ompi.value().source, "OMPI_COMM_WORLD_RANK");

    auto pmi = FastPathPartition::Detect("", Env({{"PMI_RANK", "2"}, {"PMI_SIZE", "4"}}));
    ASSERT_TRUE(pmi.ok());
    EXPECT_EQ(pmi.value().rank, 2u);
    auto slurm =
        FastPathPartition::Detect("", Env({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}}));
    ASSERT_TRUE(slurm.ok());
    EXPECT_EQ(slurm.value().size, 2u);

    // The option wins over the environment.
    auto option = FastPathPartition::Detect(
        "1/2", Env({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "4"}}));
    ASSERT_TRUE(option.ok());
    EXPECT_EQ(option.value().rank, 1u);
    EXPECT_EQ(option.value().size, 2u);
}

TEST(FastPathPartitionTest, MalformedRanksAreRefusedSayingWhat)
{
    for (const char* bad : {"2/2", "1", "a/2", "0/0", "-1/2", "1/2/3", "0/2000"})
    {
        auto r = FastPathPartition::Parse(bad);
        EXPECT_FALSE(r.ok()) << bad;
        if (!r.ok())
        {
            EXPECT_NE(r.error().message.find("FastPathPartition"), std::string::npos);
        }
    }
    auto half = FastPathPartition::Detect("", Env({{"PMI_RANK", "1"}}));
    ASSERT_FALSE(half.ok());
    EXPECT_NE(half.error().message.find("PMI_SIZE"), std::string::npos);
}

TEST(FastPathPartitionTest, SystemIdsAreRespected)
{
    std::vector<uint32_t> ids{0, 0, 1, 1, 2, 0};
    auto r = FastPathPartition::Assign(ids, Grid(2), 3);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.value(), ids);
    // A system id of a process that does not exist is refused, naming the node.
    auto bad = FastPathPartition::Assign(ids, Grid(2), 2);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("node 4"), std::string::npos);
}

TEST(FastPathPartitionTest, GridsAreSplitBalancedWithFewLinksCut)
{
    // 8x8 (112 links) in 2: two halves of 32, the cut no worse than a straight line (8).
    // 16x16 in 2 and in 4: a line (16), quarters (32).
    struct Case
    {
        uint32_t side, parts, maxCut;
    };
    for (const Case& c : {Case{8, 2, 8}, Case{16, 2, 16}, Case{16, 4, 32}, Case{8, 3, 16}})
    {
        const auto edges = Grid(c.side);
        const uint32_t n = c.side * c.side;
        auto parts = FastPathPartition::Balance(n, edges, c.parts);
        ASSERT_EQ(parts.size(), n);
        std::vector<uint32_t> count(c.parts, 0);
        for (uint32_t p : parts)
        {
            ASSERT_LT(p, c.parts);
            ++count[p];
        }
        const uint32_t most = *std::max_element(count.begin(), count.end());
        const uint32_t least = *std::min_element(count.begin(), count.end());
        // METIS's default imbalance is 3 %.
        EXPECT_LE(most, (n / c.parts) * 103 / 100 + 1) << c.side << "x" << c.side << " in "
                                                        << c.parts;
        EXPECT_GE(least, 1u);
        EXPECT_LE(FastPathPartition::CutEdges(parts, edges), c.maxCut)
            << c.side << "x" << c.side << " in " << c.parts;
        // Every process computes the same placement.
        EXPECT_EQ(FastPathPartition::Balance(n, edges, c.parts), parts);
    }
}

TEST(FastPathPartitionTest, AutomaticWhenNoSystemIdAndDegenerateGraphs)
{
    auto r = FastPathPartition::Assign(std::vector<uint32_t>(64, 0), Grid(8), 2);
    ASSERT_TRUE(r.ok());
    EXPECT_LE(FastPathPartition::CutEdges(r.value(), Grid(8)), 8u);
    // One process: everything on it. More processes than nodes: one node each.
    EXPECT_EQ(FastPathPartition::Balance(3, Grid(2), 1), std::vector<uint32_t>(3, 0));
    EXPECT_EQ(FastPathPartition::Balance(3, {}, 5), (std::vector<uint32_t>{0, 1, 2}));
    // No links at all (and duplicates, self loops): still balanced.
    auto loose = FastPathPartition::Balance(10, {{1, 1}, {2, 3}, {3, 2}}, 2);
    EXPECT_EQ(std::count(loose.begin(), loose.end(), 0u), 5);
}

/// The simulator's Partitioned attribute as its next instance gets it ("true", "false").
std::string
PartitionedDefault()
{
    TypeId::AttributeInformation info;
    EXPECT_TRUE(TypeId::LookupByName("ns3::FastPathRealtimeSimulatorImpl")
                    .LookupAttributeByName("Partitioned", &info));
    return info.initialValue->SerializeToString(info.checker);
}

TEST(FastPathPartitionTest, SeveralProcessesSelectTheSimulatorThatStartsThemTogether)
{
    StringValue impl;
    GlobalValue::GetValueByName("SimulatorImplementationType", impl);
    const std::string before = impl.Get();
    // As CommandLine sets them, in either order.
    GlobalValue::Bind("FastPathPartition", StringValue("1/2"));
    GlobalValue::Bind("FastPathEmulation", StringValue("1"));
    GlobalValue::GetValueByName("SimulatorImplementationType", impl);
    EXPECT_EQ(impl.Get(), "ns3::FastPathRealtimeSimulatorImpl");
    EXPECT_EQ(PartitionedDefault(), "true");
    EXPECT_EQ(FastPathHelper::CheckSimulatorPreconditions(), "");
    // One process: the same simulator (its clock starts after the emulation's setup),
    // without the placement.
    GlobalValue::Bind("FastPathPartition", StringValue("0/1"));
    GlobalValue::GetValueByName("SimulatorImplementationType", impl);
    EXPECT_EQ(impl.Get(), "ns3::FastPathRealtimeSimulatorImpl");
    EXPECT_EQ(PartitionedDefault(), "false");
    GlobalValue::Bind("FastPathPartition", StringValue("0/3"));
    GlobalValue::GetValueByName("SimulatorImplementationType", impl);
    EXPECT_EQ(impl.Get(), "ns3::FastPathRealtimeSimulatorImpl");
    EXPECT_EQ(PartitionedDefault(), "true");
    // A malformed value is refused where the command line sets it.
    EXPECT_FALSE(GlobalValue::BindFailSafe("FastPathPartition", StringValue("3/2")));
    GlobalValue::Bind("FastPathEmulation", BooleanValue(false));
    GlobalValue::Bind("FastPathPartition", StringValue(""));
    GlobalValue::Bind("SimulatorImplementationType", StringValue(before));
}

TEST(FastPathHostsFileTest, OneLinePerHostInRankOrder)
{
    auto h = FastPathHostsFile::Parse("# two hosts\n"
                                      "a  /run/a.sock  b=wa   # host a\n"
                                      "\n"
                                      "b  /run/b.sock  a=wb c=wc\n"
                                      "c  /run/c.sock\n",
                                      "hosts");
    ASSERT_TRUE(h.ok()) << h.error().message;
    ASSERT_EQ(h.value().size(), 3u);
    EXPECT_EQ(h.value()[0].name, "a");
    EXPECT_EQ(h.value()[0].socket, "/run/a.sock");
    EXPECT_EQ(h.value()[0].line, 2);
    EXPECT_EQ(h.value()[1].wires.size(), 2u);
    EXPECT_EQ(FastPathHostsFile::WireTo(h.value()[1], "c"), "wc");
    EXPECT_EQ(FastPathHostsFile::WireTo(h.value()[0], "c"), "");
    EXPECT_TRUE(h.value()[2].wires.empty());
}

TEST(FastPathHostsFileTest, BadLinesAreRefusedNamingTheLine)
{
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"", "hosts: no host"},
        {"a\n", "hosts line 1: host a has no control socket"},
        {"a b=wa\n", "hosts line 1: host a: 'b=wa' is where the control socket goes"},
        {"a /s b\n", "hosts line 1: 'b' is no wire: write PEER=INTERFACE"},
        {"a /s a=wa\n", "hosts line 1: host a has a wire to itself"},
        {"a /s b=w1 b=w2\nb /t\n", "hosts line 1: host a has two wires to b"},
        {"a /s b=this-name-is-too-long\nb /t\n", "hosts line 1: interface name"},
        {"a /s\nb /t\na /u\n", "hosts line 3: host a is also on line 1"},
        {"a /s c=wc\nb /t\n", "hosts line 1: host a has a wire to c, which is not a host"},
        {"a:1 /s\n", "hosts line 1: host name 'a:1' is not valid"},
    };
    for (const auto& [text, message] : bad)
    {
        auto h = FastPathHostsFile::Parse(text, "hosts");
        ASSERT_FALSE(h.ok()) << text;
        EXPECT_NE(h.error().message.find(message), std::string::npos)
            << text << ": " << h.error().message;
    }
    auto missing = FastPathHostsFile::Read("/nonexistent/hosts");
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().message.find("cannot read the hosts file /nonexistent/hosts"),
              std::string::npos);
}

TEST(FastPathHostsFileVxlanWireTest, AVxlanWireIsReadWithItsUnderlay)
{
    auto h = FastPathHostsFile::Parse(
        "a /run/a.sock b=wa,encap=vxlan,underlay=198.18.10.2,peer_underlay=198.18.20.2 c=wc\n"
        "b /run/b.sock a=wb,encap=vxlan,underlay=198.18.20.2,peer_underlay=198.18.10.2\n"
        "c /run/c.sock a=wd\n",
        "hosts");
    ASSERT_TRUE(h.ok()) << h.error().message;
    const auto& a = h.value()[0];
    EXPECT_EQ(FastPathHostsFile::WireTo(a, "b"), "wa");
    ASSERT_EQ(a.vxlan.count("wa"), 1u);
    EXPECT_EQ(a.vxlan.at("wa").underlay.toString(), "198.18.10.2");
    EXPECT_EQ(a.vxlan.at("wa").peer_underlay.toString(), "198.18.20.2");
    EXPECT_EQ(a.vxlan.at("wa").port, 4789);
    EXPECT_EQ(a.vxlan.count("wc"), 0u); // 802.1Q
    EXPECT_TRUE(h.value()[2].vxlan.empty());
}

TEST(FastPathHostsFileVxlanWireTest, BothEndsOfAVxlanWireMustAgree)
{
    const std::string a = "a /s b=wa,encap=vxlan,underlay=198.18.10.2,peer_underlay=198.18.20.2";
    const std::vector<std::pair<std::string, std::string>> bad = {
        {a + "\nb /t a=wb\n",
         "hosts line 1: host a's wire to b is VXLAN, host b's wire back (line 2) is 802.1Q"},
        {a + "\nb /t a=wb,encap=vxlan,underlay=198.18.20.2,peer_underlay=198.18.10.3\n",
         "hosts line 1: host a's wire to b: underlay 198.18.10.2, peer_underlay 198.18.20.2, "
         "port 4789 do not match host b's"},
        {a + "\nb /t a=wb,encap=vxlan,underlay=198.18.20.2,peer_underlay=198.18.10.2,"
             "port=4790\n",
         "do not match host b's (underlay 198.18.20.2, peer_underlay 198.18.10.2, port 4790)"},
        {"a /s b=wa,encap=vxlan,underlay=198.18.10.2\nb /t\n",
         "hosts line 1: 'b=wa,encap=vxlan,underlay=198.18.10.2' is no wire (VXLAN needs "
         "peer_underlay"},
    };
    for (const auto& [text, message] : bad)
    {
        auto h = FastPathHostsFile::Parse(text, "hosts");
        ASSERT_FALSE(h.ok()) << text;
        EXPECT_NE(h.error().message.find(message), std::string::npos)
            << text << ": " << h.error().message;
    }
}

TEST(FastPathClockCheckTest, AnOffsetBeyondALinksBudgetIsAWarningNamingTheLink)
{
    const std::vector<FastPathClockCheck::Budget> budgets = {{"t-l3", 993000},
                                                             {"t-l7", 4993000}};
    // Within the smallest budget (993 us): reported with it, no warning; the sign is kept.
    auto ok = FastPathClockCheck::Check("a", {true, -12000, "chrony"}, budgets);
    EXPECT_FALSE(ok.warning);
    EXPECT_EQ(ok.line, "fastpath: host a: clock offset -12 us (chrony), within the delay budget "
                       "of its links to other hosts (the smallest: 993 us, link t-l3)");
    // Exactly the budget is still within it.
    EXPECT_FALSE(FastPathClockCheck::Check("a", {true, 993000, "ptp"}, budgets).warning);
    // Beyond the smallest budget, either sign: a warning naming the tightest link.
    for (int64_t offset : {int64_t(994000), int64_t(-2100000)})
    {
        auto w = FastPathClockCheck::Check("b", {true, offset, "ptp"}, budgets);
        EXPECT_TRUE(w.warning) << offset;
        EXPECT_EQ(w.line.rfind("fastpath: warning: host b: clock offset ", 0), 0u) << w.line;
        EXPECT_NE(w.line.find("exceeds the delay budget of link t-l3 (993 us: its delay less the "
                              "wire's latency)"),
                  std::string::npos)
            << w.line;
        EXPECT_NE(w.line.find("synchronise the hosts' clocks"), std::string::npos) << w.line;
    }
    // Unknown: said so, with why, never a warning (nothing depends on it).
    auto unknown = FastPathClockCheck::Check("a", {false, 0, "neither chronyd nor ptp4l runs"},
                                             budgets);
    EXPECT_FALSE(unknown.warning);
    EXPECT_EQ(unknown.line.rfind("fastpath: host a: clock offset unknown (neither chronyd nor "
                                 "ptp4l runs): ",
                                 0),
              0u)
        << unknown.line;
    // No link to another host: the offset alone.
    EXPECT_EQ(FastPathClockCheck::Check("a", {true, 5000000, "chrony"}, {}).line,
              "fastpath: host a: clock offset +5000 us (chrony)");
}

} // namespace
