// SPDX-License-Identifier: GPL-2.0-only
// The route mirror's resolve-on-miss against pure ns-3 simulations: it learns AODV's and
// RIPng's decisions (and their neighbours) and withdraws an entry once the protocol loses the
// route.
#include "fast-path-route-mirror-fixture.h"

#include <gtest/gtest.h>

using namespace ns3;
using namespace ns3::route_mirror_test;

TEST_F(RouteMirrorTest, ResolveOnMissLearnsAodvDecisionsAndNeighbours)
{
    Line line;
    AodvHelper aodv;
    line.Build(aodv);
    Echo(line.nodes.Get(0), line.nodes.Get(2), Ipv4Address("198.18.2.2"), 5, 1);
    Simulator::Stop(Seconds(3));
    Simulator::Run();

    EXPECT_TRUE(line.mirror->HasOpaqueProtocol());
    const FastPathTable& sent = line.mirror->GetSentRoutes();
    EXPECT_TRUE(Has(sent, R("198.18.2.2/32", "", 1)));
    EXPECT_TRUE(Has(sent, R("198.18.1.1/32", "", 0)));
    // ns-3's ARP entries for both endpoints were mirrored.
    const auto& nb = line.mirror->GetSentNeighbours().Entries();
    auto key = [](const char* ip, fastpath::PortId port) {
        return FastPathNeighbours::KeyOf(ToFastPath(Ipv4Address(ip)), port);
    };
    EXPECT_EQ(nb.count(key("198.18.2.2", 1)), 1u);
    EXPECT_EQ(nb.count(key("198.18.1.1", 0)), 1u);
    auto it = nb.find(key("198.18.2.2", 1));
    ASSERT_NE(it, nb.end());
    EXPECT_EQ(it->second.mac, ToFastPath(Mac48Address::ConvertFrom(line.bc.Get(1)->GetAddress())));
}

namespace
{

/// Echo traffic A -> C from 1 s (so that B resolves C on a miss), then C's interface goes
/// down at 3 s: the protocol loses the route.
void
StartEchoThenTakeCDown(Line& line)
{
    Echo(line.nodes.Get(0), line.nodes.Get(2), Ipv4Address("198.18.2.2"), 10, 1);
    Simulator::Schedule(Seconds(3),
                        [&line]() { line.nodes.Get(2)->GetObject<Ipv4>()->SetDown(1); });
}

} // namespace

TEST_F(RouteMirrorTest, ResolveOnMissEntryIsWithdrawnWhenTheProtocolLosesTheRoute)
{
    Line line;
    AodvHelper aodv;
    line.Build(aodv);
    line.mirror->SetAttribute("RevalidateInterval", TimeValue(MilliSeconds(500)));
    StartEchoThenTakeCDown(line);
    bool learned = false;
    Simulator::Schedule(Seconds(2.9), [&]() {
        learned = Has(line.mirror->GetSentRoutes(), R("198.18.2.2/32", "", 1));
    });
    // C disappears at 3 s: AODV notices through missing HELLOs and invalidates the route; the
    // next revalidation withdraws the fast-path entry even though no packet asks.
    Time withdrawnAt;
    Every(Seconds(3), MilliSeconds(50), [&]() {
        if (withdrawnAt.IsZero() && !Has(line.mirror->GetSentRoutes(), R("198.18.2.2/32", "", 1)))
        {
            withdrawnAt = Simulator::Now();
        }
    });
    Simulator::Stop(Seconds(12));
    Simulator::Run();
    EXPECT_TRUE(learned);
    ASSERT_FALSE(withdrawnAt.IsZero()) << "stale resolve-on-miss entry never withdrawn";
    EXPECT_FALSE(Has(line.applied, R("198.18.2.2/32", "", 1)));
    std::cout << "withdrawn " << (withdrawnAt - Seconds(3)).GetMilliSeconds()
              << " ms after the neighbour went down\n";
}

// How long a route the protocol dropped stays in fastpathd, counted from the moment the
// protocol itself stops answering for it (sampled every millisecond of simulated time).
TEST_F(RouteMirrorTest, ResolveOnMissWithdrawalFollowsTheProtocolWithin50Ms)
{
    Line line;
    AodvHelper aodv;
    line.Build(aodv); // default RevalidateInterval
    StartEchoThenTakeCDown(line);
    Ptr<Ipv4> b = line.nodes.Get(1)->GetObject<Ipv4>();
    auto protocolRoutes = [b]() {
        Ipv4Header h;
        h.SetDestination(Ipv4Address("198.18.2.2"));
        h.SetProtocol(17);
        Socket::SocketErrno err;
        Ptr<Ipv4Route> r = b->GetRoutingProtocol()->RouteOutput(Create<Packet>(), h, nullptr, err);
        // AODV answers a destination it has no route for with a loopback ("deferred") route.
        return r && r->GetOutputDevice() && r->GetOutputDevice() != b->GetNetDevice(0);
    };
    bool learned = false;
    Time protocolDropped;
    Time withdrawn;
    Every(Seconds(2.9), MilliSeconds(1), [&]() {
        const bool sent = Has(line.mirror->GetSentRoutes(), R("198.18.2.2/32", "", 1));
        learned |= sent;
        if (learned && protocolDropped.IsZero() && !protocolRoutes())
        {
            protocolDropped = Simulator::Now();
        }
        if (!protocolDropped.IsZero() && withdrawn.IsZero() && !sent)
        {
            withdrawn = Simulator::Now();
        }
    });
    Simulator::Stop(Seconds(12));
    Simulator::Run();
    ASSERT_TRUE(learned);
    ASSERT_FALSE(protocolDropped.IsZero()) << "AODV never dropped the route";
    ASSERT_FALSE(withdrawn.IsZero()) << "the resolve-on-miss entry was never withdrawn";
    EXPECT_LE((withdrawn - protocolDropped).GetMilliSeconds(), 50);
    std::cout << "withdrawn " << (withdrawn - protocolDropped).GetMilliSeconds()
              << " ms after the protocol dropped the route\n";
}

TEST_F(RouteMirrorTest, ResolveOnMissLearnsRipngDecisionsWithLinkLocalNextHop)
{
    Config::SetDefault("ns3::Icmpv6L4Protocol::DAD", BooleanValue(false));
    Config::SetDefault("ns3::RipNg::StartupDelay", TimeValue(MilliSeconds(10)));
    Config::SetDefault("ns3::RipNg::UnsolicitedRoutingUpdate", TimeValue(Seconds(1)));
    // C's extra prefix is on the interface facing B: ns-3's split horizon would poison it.
    Config::SetDefault("ns3::RipNg::SplitHorizon", EnumValue(RipNg::NO_SPLIT_HORIZON));
    Line6 line;
    line.Build(true);
    // From t = 3 s, past RIPng's first exchanges: 2001:2:0:30::/64 is known to B only
    // through RIPng.
    Echo(line.nodes.Get(0), line.nodes.Get(2), Ipv6Address("2001:2:0:30::1"), 5, 3);
    Simulator::Stop(Seconds(4));
    Simulator::Run();

    EXPECT_TRUE(line.mirror->HasOpaqueProtocol());
    EXPECT_EQ(line.mirror->GetSentRoutes().Find(Ipv6Address("2001:2:0:30::"), 64), nullptr)
        << "RIPng's table is private: no exact route expected";
    EXPECT_EQ(line.mirror->GetResolvedCount(), 1u);
    const fastpath::Route* r =
        line.mirror->GetSentRoutes().Find(Ipv6Address("2001:2:0:30::1"), 128);
    ASSERT_NE(r, nullptr) << "RIPng's decision for 2001:2:0:30::1 not installed";
    EXPECT_EQ(r->port, 1u);
    // RIPng routes via the neighbour's link-local address; that NDP entry is mirrored.
    Ptr<Ipv6> c = line.nodes.Get(2)->GetObject<Ipv6>();
    uint32_t ci = line.bcIf.GetInterfaceIndex(1);
    fastpath::IpAddress cLinkLocal;
    for (uint32_t i = 0; i < c->GetNAddresses(ci); ++i)
    {
        if (c->GetAddress(ci, i).GetAddress().IsLinkLocal())
        {
            cLinkLocal = ToFastPath(c->GetAddress(ci, i).GetAddress());
        }
    }
    EXPECT_EQ(r->next_hop.toString(), cLinkLocal.toString());
    const auto& nb = line.mirror->GetSentNeighbours().Entries();
    auto it = nb.find(FastPathNeighbours::KeyOf(cLinkLocal, 1));
    ASSERT_NE(it, nb.end()) << "C's link-local NDP entry not mirrored";
    EXPECT_EQ(it->second.mac, line.Mac(line.bc.Get(1)));
}
