// SPDX-License-Identifier: GPL-2.0-only
// The route mirror with IPv6 against pure ns-3 simulations: static and connected routes are
// mirrored exactly, NDP entries become neighbours, and stale ones are confirmed or withdrawn.
#include "fast-path-route-mirror-fixture.h"

#include <gtest/gtest.h>

using namespace ns3;
using namespace ns3::route_mirror_test;

TEST_F(RouteMirrorTest, Ipv6StaticAndConnectedRoutesAndNdpNeighboursAreMirrored)
{
    Config::SetDefault("ns3::Icmpv6L4Protocol::DAD", BooleanValue(false));
    Line6 line;
    line.Build();
    line.Ping("2001:2:0:30::1");
    bool hadStatic = false;
    Simulator::Schedule(Seconds(2.5), [&]() {
        hadStatic = Has(line.mirror->GetSentRoutes(), R("2001:2:0:30::/64", "2001:2:0:2::2", 1));
        // The static route goes away: the next poll withdraws it.
        Ptr<Ipv6StaticRouting> st = Ipv6StaticRoutingHelper().GetStaticRouting(
            line.nodes.Get(1)->GetObject<Ipv6>());
        for (uint32_t i = 0; i < st->GetNRoutes(); ++i)
        {
            if (st->GetRoute(i).GetDestNetwork() == Ipv6Address("2001:2:0:30::"))
            {
                st->RemoveRoute(i);
                break;
            }
        }
    });
    Simulator::Stop(Seconds(3));
    Simulator::Run();

    EXPECT_TRUE(hadStatic);
    const FastPathTable& sent = line.mirror->GetSentRoutes();
    EXPECT_TRUE(Has(sent, R("2001:2:0:1::/64", "", 0)));
    EXPECT_TRUE(Has(sent, R("2001:2:0:2::/64", "", 1)));
    EXPECT_FALSE(Has(sent, R("2001:2:0:30::/64", "2001:2:0:2::2", 1)));
    EXPECT_FALSE(Has(line.applied, R("2001:2:0:30::/64", "2001:2:0:2::2", 1)));
    for (const auto& r : sent.ToVector())
    {
        const auto& b = r.prefix.address.bytes;
        EXPECT_FALSE(r.prefix.address.family == fastpath::Family::kIpv6 &&
                     (b[0] == 0xff || (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)))
            << "link-local or multicast prefix mirrored: " << r.prefix.toString();
    }
    EXPECT_EQ(line.mirror->GetResolvedCount(), 0u);
    EXPECT_FALSE(line.mirror->HasOpaqueProtocol());
    EXPECT_TRUE(FastPathTable::Diff(line.applied, sent).add.empty());
    EXPECT_TRUE(FastPathTable::Diff(line.applied, sent).remove.empty());

    // B resolved A and its static next hop C with NDP while forwarding the echoes.
    const auto& nb = line.mirror->GetSentNeighbours().Entries();
    auto a = nb.find(FastPathNeighbours::KeyOf(fastpath::IpAddress::parse("2001:2:0:1::1").value(), 0));
    auto c = nb.find(FastPathNeighbours::KeyOf(fastpath::IpAddress::parse("2001:2:0:2::2").value(), 1));
    ASSERT_NE(a, nb.end()) << "A's NDP entry not mirrored";
    ASSERT_NE(c, nb.end()) << "C's NDP entry not mirrored";
    EXPECT_EQ(a->second.mac, line.Mac(line.ab.Get(0)));
    EXPECT_EQ(c->second.mac, line.Mac(line.bc.Get(1)));
}

// With the data on the fast path ns-3 stops sending to its IPv6 neighbours, so their NDP
// entries would stay STALE (and mirrored) forever; the mirror has ns-3 confirm them: a
// neighbour that answers stays, one that left is removed and withdrawn.
TEST_F(RouteMirrorTest, StaleNdpNeighboursAreConfirmedAndAGoneOneIsWithdrawn)
{
    Config::SetDefault("ns3::Icmpv6L4Protocol::DAD", BooleanValue(false));
    Line6 line;
    line.Build();
    line.mirror->SetAttribute("StaleNeighbourReconfirm", TimeValue(Seconds(10)));
    line.Ping("2001:2:0:30::1");
    const auto aKey =
        FastPathNeighbours::KeyOf(fastpath::IpAddress::parse("2001:2:0:1::1").value(), 0);
    const auto cKey =
        FastPathNeighbours::KeyOf(fastpath::IpAddress::parse("2001:2:0:2::2").value(), 1);
    bool aMirrored = false, cMirrored = false;
    Simulator::Schedule(Seconds(2), [&]() {
        const auto& nb = line.mirror->GetSentNeighbours().Entries();
        aMirrored = nb.count(aKey) != 0;
        cMirrored = nb.count(cKey) != 0;
        // C leaves: its interface towards B goes down and answers nothing from now on.
        line.nodes.Get(2)->GetObject<Ipv6>()->SetDown(line.bcIf.GetInterfaceIndex(1));
    });
    // ReachableTime (30 s) -> STALE, 10 s later DELAY (5 s), 3 unicast probes (1 s each).
    Simulator::Stop(Seconds(60));
    Simulator::Run();

    ASSERT_TRUE(aMirrored && cMirrored) << "NDP entries not mirrored after the pings";
    const auto& nb = line.mirror->GetSentNeighbours().Entries();
    EXPECT_EQ(nb.count(cKey), 0u) << "the neighbour that left is still in fastpathd";
    EXPECT_EQ(nb.count(aKey), 1u) << "the neighbour that answers was withdrawn";
    Ptr<Ipv6L3Protocol> b = line.nodes.Get(1)->GetObject<Ipv6L3Protocol>();
    NdiscCache::Entry* a =
        b->GetInterface(line.abIf.GetInterfaceIndex(1))->GetNdiscCache()->Lookup(
            Ipv6Address("2001:2:0:1::1"));
    ASSERT_NE(a, nullptr);
    EXPECT_FALSE(a->IsStale()) << "A's entry was never confirmed again";
}
