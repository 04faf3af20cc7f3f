// SPDX-License-Identifier: GPL-2.0-only
// The route mirror against pure ns-3 simulations (no fastpathd): OLSR and connected routes
// are mirrored exactly, link failures withdraw routes, a port fastpathd reports down takes its
// interface down (IPv4 and IPv6), and a point-to-point peer stays known when the device's link
// comes up. Resolve-on-miss and IPv6 mirroring have files of their own.
#include "fast-path-route-mirror-fixture.h"

#include "ns3/olsr-routing-protocol.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace ns3;
using namespace ns3::route_mirror_test;

TEST_F(RouteMirrorTest, OlsrAndConnectedRoutesAreMirroredExactly)
{
    Line line;
    line.Build(StaticThenOlsr());
    Simulator::Stop(Seconds(5));
    Simulator::Run();

    const FastPathTable& sent = line.mirror->GetSentRoutes();
    EXPECT_TRUE(Has(sent, R("198.18.1.0/24", "", 0)));
    EXPECT_TRUE(Has(sent, R("198.18.2.0/24", "", 1)));
    // OLSR's one-hop neighbours: on-link host routes.
    EXPECT_TRUE(Has(sent, R("198.18.1.1/32", "", 0)));
    EXPECT_TRUE(Has(sent, R("198.18.2.2/32", "", 1)));
    EXPECT_EQ(line.mirror->GetResolvedCount(), 0u);
    // The diffs the sink received rebuild exactly the sent table.
    EXPECT_EQ(FastPathTable::Diff(line.applied, sent).add.size(), 0u);
    EXPECT_EQ(FastPathTable::Diff(line.applied, sent).remove.size(), 0u);
    ASSERT_GE(line.updates.size(), 2u); // connected first, OLSR later
    for (size_t i = 0; i < line.updates.size(); ++i)
    {
        EXPECT_EQ(line.updates[i].sequence, i + 1);
    }
}

TEST_F(RouteMirrorTest, OlsrTwoHopRouteUsesGateway)
{
    Line line;
    OlsrHelper olsr;
    line.Build(olsr); // OLSR alone
    // A second mirror on A: C's network is two hops away, via B.
    Ptr<FastPathRouteMirror> onA = CreateObject<FastPathRouteMirror>();
    onA->SetNode(line.nodes.Get(0));
    onA->AddPort(line.ab.Get(0), 7);
    Simulator::Schedule(Seconds(0), &FastPathRouteMirror::Start, onA);
    Simulator::Stop(Seconds(5));
    Simulator::Run();
    EXPECT_TRUE(Has(onA->GetSentRoutes(), R("198.18.2.2/32", "198.18.1.2", 7)));
    EXPECT_TRUE(Has(onA->GetSentRoutes(), R("198.18.1.2/32", "", 7)));
    onA->Dispose();
}

TEST_F(RouteMirrorTest, LinkFailureWithdrawsOlsrRoute)
{
    Line line;
    OlsrHelper olsr;
    line.Build(olsr);
    Simulator::Schedule(Seconds(3), [&line]() {
        Ptr<Ipv4> c = line.nodes.Get(2)->GetObject<Ipv4>();
        c->SetDown(1);
    });
    bool hadRouteBefore = false;
    Simulator::Schedule(Seconds(2.9), [&]() {
        hadRouteBefore = Has(line.mirror->GetSentRoutes(), R("198.18.2.2/32", "", 1));
    });
    Simulator::Stop(Seconds(6)); // neighbour hold time = 3 x 200 ms
    Simulator::Run();
    EXPECT_TRUE(hadRouteBefore);
    EXPECT_FALSE(Has(line.mirror->GetSentRoutes(), R("198.18.2.2/32", "", 1)));
    EXPECT_FALSE(Has(line.applied, R("198.18.2.2/32", "", 1)));
    bool sawRemove = false;
    for (const auto& u : line.updates)
    {
        for (const auto& p : u.routes.remove)
        {
            sawRemove |= p.toString() == "198.18.2.2/32";
        }
    }
    EXPECT_TRUE(sawRemove);
}

// fastpathd reports B's port 1 down (an internal link or an interface set down):
// B's interface on it goes down, the connected route leaves at once, OLSR drops C after its
// neighbour hold time; up again, everything comes back. An interface the script itself
// set down stays down.
TEST_F(RouteMirrorTest, PortDownTakesTheInterfaceDownAndUpBringsItBack)
{
    Line line;
    line.Build(StaticThenOlsr());
    Ptr<Ipv4> b = line.nodes.Get(1)->GetObject<Ipv4>();
    const uint32_t bc = b->GetInterfaceForDevice(line.bc.Get(0));
    const uint32_t ab = b->GetInterfaceForDevice(line.ab.Get(1));
    bool before = false, downAtOnce = false, interfaceDown = false, olsrGone = false;
    Simulator::Schedule(Seconds(2.9), [&]() {
        before = Has(line.mirror->GetSentRoutes(), R("198.18.2.0/24", "", 1)) &&
                 Has(line.mirror->GetSentRoutes(), R("198.18.2.2/32", "", 1));
    });
    Simulator::Schedule(Seconds(3), [&]() {
        line.mirror->SetPortState(1, false);
        line.mirror->SetPortState(1, false); // repeated: no effect
        interfaceDown = !b->IsUp(bc) && b->IsUp(ab) && line.mirror->IsPortDown(1);
        // The script's own decision is not the mirror's to undo.
        b->SetDown(ab);
        line.mirror->SetPortState(0, false);
    });
    Simulator::Schedule(Seconds(3.05), [&]() {
        downAtOnce = !Has(line.applied, R("198.18.2.0/24", "", 1));
    });
    Simulator::Schedule(Seconds(4.5), [&]() {
        olsrGone = !Has(line.applied, R("198.18.2.2/32", "", 1));
        line.mirror->SetPortState(1, true);
        line.mirror->SetPortState(0, true);
    });
    Simulator::Stop(Seconds(7));
    Simulator::Run();
    EXPECT_TRUE(before);
    EXPECT_TRUE(interfaceDown);
    EXPECT_TRUE(downAtOnce) << "the connected route stayed after the port went down";
    EXPECT_TRUE(olsrGone) << "OLSR kept C after its neighbour hold time";
    EXPECT_TRUE(b->IsUp(bc));
    EXPECT_FALSE(b->IsUp(ab)) << "the mirror brought up an interface the script set down";
    EXPECT_FALSE(line.mirror->IsPortDown(1));
    EXPECT_TRUE(Has(line.applied, R("198.18.2.0/24", "", 1)));
    EXPECT_TRUE(Has(line.applied, R("198.18.2.2/32", "", 1))) << "OLSR did not find C again";
}

/// The emulated point-to-point device as ns-3 sees it: point to point, yet resolving with
/// ARP (an FdNetDevice carries Ethernet frames), and its link comes up when it starts,
/// after the script's first events, which makes ns-3 flush the interface's ARP cache.
class LinkUpDevice : public SimpleNetDevice
{
  public:
    bool NeedsArp() const override
    {
        return true;
    }

    void AddLinkChangeCallback(Callback<void> callback) override
    {
        m_linkChange.ConnectWithoutContext(callback);
    }

    void LinkUp()
    {
        m_linkChange();
    }

  private:
    TracedCallback<> m_linkChange;
};

/// Two nodes with IPv4 on LinkUpDevices sharing one channel (198.18.1.0/24): a
/// point-to-point link (the mirror adds the peer as a static entry) or a segment (only
/// ARP teaches the peer).
struct TwoLinkUpNodes
{
    NodeContainer nodes;
    NetDeviceContainer devices;
    Ipv4InterfaceContainer ifs;

    explicit TwoLinkUpNodes(bool pointToPoint)
    {
        nodes.Create(2);
        Ptr<SimpleChannel> channel = CreateObject<SimpleChannel>();
        for (uint32_t i = 0; i < 2; ++i)
        {
            Ptr<LinkUpDevice> d = CreateObject<LinkUpDevice>();
            d->SetAttribute("PointToPointMode", BooleanValue(pointToPoint));
            d->SetAddress(Mac48Address::Allocate());
            d->SetQueue(CreateObject<DropTailQueue<Packet>>());
            d->SetChannel(channel);
            nodes.Get(i)->AddDevice(d);
            devices.Add(d);
        }
        InternetStackHelper stack;
        stack.Install(nodes);
        Ipv4AddressHelper addr;
        addr.SetBase("198.18.1.0", "255.255.255.0");
        ifs = addr.Assign(devices);
    }
};

// A's device link comes up (as an FdNetDevice's at its start): ns-3 flushes A's ARP cache,
// the mirror gives the peer's static entry back at once, and a burst sent right then
// leaves whole, as from a PointToPointNetDevice (without it: ARP, 3 kept, the rest lost).
TEST_F(RouteMirrorTest, APointToPointPeerStaysKnownWhenTheDeviceLinkComesUp)
{
    TwoLinkUpNodes two(true);
    NodeContainer& nodes = two.nodes;
    NetDeviceContainer& devices = two.devices;
    Ipv4InterfaceContainer& ifs = two.ifs;
    Ptr<FastPathRouteMirror> mirror = CreateObject<FastPathRouteMirror>();
    mirror->SetNode(nodes.Get(0));
    mirror->AddPort(devices.Get(0), 0);
    mirror->SetSink([](const FastPathUpdate&) {});
    Simulator::Schedule(Seconds(0), &FastPathRouteMirror::Start, mirror);
    PacketSinkHelper sinkHelper("ns3::UdpSocketFactory",
                                InetSocketAddress(Ipv4Address::GetAny(), 9));
    Ptr<PacketSink> sink = DynamicCast<PacketSink>(sinkHelper.Install(nodes.Get(1)).Get(0));
    Ptr<Socket> socket = Socket::CreateSocket(nodes.Get(0), UdpSocketFactory::GetTypeId());
    Ptr<ArpCache> cache = nodes.Get(0)
                              ->GetObject<Ipv4L3Protocol>()
                              ->GetInterface(ifs.Get(0).second)
                              ->GetArpCache();
    auto known = [&]() {
        ArpCache::Entry* e = cache->Lookup(ifs.GetAddress(1));
        return e && e->IsAutoGenerated() &&
               e->GetMacAddress() == Address(devices.Get(1)->GetAddress());
    };
    bool before = false, after = false;
    Simulator::Schedule(Seconds(1), [&]() {
        before = known();
        DynamicCast<LinkUpDevice>(devices.Get(0))->LinkUp();
        after = known();
        for (int i = 0; i < 10; ++i)
        {
            socket->SendTo(Create<Packet>(100), 0, InetSocketAddress(ifs.GetAddress(1), 9));
        }
    });
    Simulator::Stop(Seconds(3));
    Simulator::Run();
    EXPECT_TRUE(before) << "no static entry for the peer from time 0";
    EXPECT_TRUE(after) << "the peer's static entry went with ns-3's flush";
    EXPECT_EQ(sink->GetTotalRx(), 10u * 100u) << "the burst waited for ARP";
    mirror->Dispose();
}

// ns-3 forgets an IPv6 interface's addresses when it goes down: they come back with it.
TEST_F(RouteMirrorTest, PortDownAndUpKeepsTheIpv6Addresses)
{
    Config::SetDefault("ns3::Icmpv6L4Protocol::DAD", BooleanValue(false));
    Line6 line;
    line.Build();
    Ptr<Ipv6> b = line.nodes.Get(1)->GetObject<Ipv6>();
    const uint32_t bc = line.bcIf.GetInterfaceIndex(0);
    bool down = false, routeGone = false;
    Simulator::Schedule(Seconds(1), [&]() { line.mirror->SetPortState(1, false); });
    Simulator::Schedule(Seconds(1.05), [&]() {
        down = !b->IsUp(bc);
        routeGone = !Has(line.applied, R("2001:2:0:2::/64", "", 1));
    });
    Simulator::Schedule(Seconds(2), [&]() { line.mirror->SetPortState(1, true); });
    Simulator::Stop(Seconds(3));
    Simulator::Run();
    EXPECT_TRUE(down);
    EXPECT_TRUE(routeGone);
    ASSERT_TRUE(b->IsUp(bc));
    bool global = false, linkLocal = false;
    for (uint32_t a = 0; a < b->GetNAddresses(bc); ++a)
    {
        global |= b->GetAddress(bc, a).GetAddress() == Ipv6Address("2001:2:0:2::1");
        linkLocal |= b->GetAddress(bc, a).GetAddress().IsLinkLocal();
    }
    EXPECT_TRUE(global) << "the global address did not come back";
    EXPECT_TRUE(linkLocal);
    EXPECT_TRUE(Has(line.applied, R("2001:2:0:2::/64", "", 1)));
}

// The mirror reads a watched OLSR table again only after its RoutingTableChanged trace (or a
// port added): what it computes stays what OLSR's table holds at every instant, while OLSR
// learns C two hops away and, once C's interface goes down, withdraws it.
TEST_F(RouteMirrorTest, OlsrRoutesReadOnTheTraceMatchTheTableAtEveryInstant)
{
    Line line;
    OlsrHelper olsr;
    line.Build(olsr); // OLSR alone: the mirror's routes are OLSR's table
    Ptr<FastPathRouteMirror> onA = CreateObject<FastPathRouteMirror>();
    onA->SetNode(line.nodes.Get(0));
    onA->AddPort(line.ab.Get(0), 7);
    Simulator::Schedule(Seconds(0), &FastPathRouteMirror::Start, onA);
    Simulator::Schedule(Seconds(3), [&line]() {
        line.nodes.Get(2)->GetObject<Ipv4>()->SetDown(1);
    });
    Ptr<olsr::RoutingProtocol> table = DynamicCast<olsr::RoutingProtocol>(
        line.nodes.Get(0)->GetObject<Ipv4>()->GetRoutingProtocol());
    ASSERT_TRUE(table);
    int checks = 0;
    int mismatches = 0;
    bool sawC = false;
    Every(MilliSeconds(10), MilliSeconds(10), [&]() {
        FastPathTable computed = onA->ComputeExactRoutes();
        std::vector<olsr::RoutingTableEntry> entries = table->GetRoutingTableEntries();
        bool same = computed.Size() == entries.size();
        for (const auto& e : entries)
        {
            std::ostringstream dest;
            std::ostringstream next;
            dest << e.destAddr << "/32";
            if (e.nextAddr != e.destAddr)
            {
                next << e.nextAddr;
            }
            same = same && Has(computed, R(dest.str(), next.str(), 7));
        }
        ++checks;
        mismatches += !same;
        sawC |= Has(computed, R("198.18.2.2/32", "198.18.1.2", 7));
    });
    Simulator::Stop(Seconds(6)); // neighbour hold time = 3 x 200 ms
    Simulator::Run();
    EXPECT_GT(checks, 500);
    EXPECT_EQ(mismatches, 0);
    EXPECT_TRUE(sawC);
    EXPECT_FALSE(Has(onA->GetSentRoutes(), R("198.18.2.2/32", "198.18.1.2", 7)));
    onA->Dispose();
}

// OLSR fires its change trace after every route computation, i.e. after every OLSR packet a
// node receives. Once the table is stable none of them costs a comparison (the mirror
// compares on its own period only), and a real change still reaches the sink.
TEST_F(RouteMirrorTest, OlsrComputationsThatKeepTheTableCostNoComparison)
{
    Line line;
    OlsrHelper olsr;
    line.Build(olsr); // OLSR alone
    line.mirror->SetAttribute("PollInterval", TimeValue(Seconds(1)));
    line.mirror->SetAttribute("NeighbourPollInterval", TimeValue(Seconds(10)));
    uint64_t traces = 0;
    line.nodes.Get(1)->GetObject<Ipv4>()->GetRoutingProtocol()->TraceConnectWithoutContext(
        "RoutingTableChanged",
        Callback<void, uint32_t>([&traces](uint32_t) { ++traces; }));
    uint64_t tracesAt3 = 0;
    uint64_t comparisonsAt3 = 0;
    uint64_t tracesInWindow = 0;
    uint64_t comparisonsInWindow = 0;
    bool hadC = false;
    Simulator::Schedule(Seconds(3), [&]() {
        tracesAt3 = traces;
        comparisonsAt3 = line.mirror->GetComparisons();
    });
    Simulator::Schedule(Seconds(5.5), [&]() {
        tracesInWindow = traces - tracesAt3;
        comparisonsInWindow = line.mirror->GetComparisons() - comparisonsAt3;
        hadC = Has(line.mirror->GetSentRoutes(), R("198.18.2.2/32", "", 1));
        line.nodes.Get(2)->GetObject<Ipv4>()->SetDown(1);
    });
    Simulator::Stop(Seconds(7)); // neighbour hold time = 3 x 200 ms
    Simulator::Run();
    // A HELLO from each neighbour every 200 ms, TCs every 500 ms: tens of computations.
    EXPECT_GE(tracesInWindow, 15u);
    // The periodic comparisons of the 2.5 s (PollInterval 1 s), nothing for the traces.
    EXPECT_LE(comparisonsInWindow, 3u);
    EXPECT_TRUE(hadC);
    EXPECT_FALSE(Has(line.mirror->GetSentRoutes(), R("198.18.2.2/32", "", 1)))
        << "C's route stayed after OLSR dropped it";
    EXPECT_FALSE(Has(line.applied, R("198.18.2.2/32", "", 1)));
}

// A port added to a started mirror: the OLSR routes on its interface are mirrored at once,
// not when OLSR next recomputes its table.
TEST_F(RouteMirrorTest, APortAddedAfterStartGetsItsOlsrRoutesAtOnce)
{
    Line line;
    OlsrHelper olsr;
    line.Build(olsr);
    Ptr<FastPathRouteMirror> onB = CreateObject<FastPathRouteMirror>();
    onB->SetNode(line.nodes.Get(1));
    onB->AddPort(line.ab.Get(1), 5);
    Simulator::Schedule(Seconds(0), &FastPathRouteMirror::Start, onB);
    bool before = true;
    bool after = false;
    Simulator::Schedule(Seconds(3), [&]() {
        // Read (and so cached) without the port; then the port, then read again at once.
        before = Has(onB->ComputeExactRoutes(), R("198.18.2.2/32", "", 6));
        onB->AddPort(line.bc.Get(0), 6);
        after = Has(onB->ComputeExactRoutes(), R("198.18.2.2/32", "", 6));
    });
    Simulator::Stop(Seconds(3.5));
    Simulator::Run();
    EXPECT_FALSE(before);
    EXPECT_TRUE(after);
    EXPECT_TRUE(Has(onB->GetSentRoutes(), R("198.18.2.2/32", "", 6)));
    EXPECT_TRUE(Has(onB->GetSentRoutes(), R("198.18.1.1/32", "", 5)));
    onB->Dispose();
}

// Neighbours follow the ARP cache by notification, not by the periodic comparison (here
// 10 s away): the neighbour an ARP reply taught reaches the sink within BatchDelay of the
// reply, and the neighbours ns-3 flushes when the device's link changes leave it as soon.
TEST_F(RouteMirrorTest, ArpChangesReachTheSinkWithinTheBatchDelay)
{
    TwoLinkUpNodes two(false); // a segment: ARP, no static entry;
    NodeContainer& nodes = two.nodes;
    NetDeviceContainer& devices = two.devices;
    Ipv4InterfaceContainer& ifs = two.ifs;
    Ptr<FastPathRouteMirror> mirror = CreateObject<FastPathRouteMirror>();
    mirror->SetAttribute("NeighbourPollInterval", TimeValue(Seconds(10)));
    mirror->SetNode(nodes.Get(0));
    mirror->AddPort(devices.Get(0), 0);
    const auto peerKey = FastPathNeighbours::KeyOf(ToFastPath(ifs.GetAddress(1)), 0);
    Time added, removed;
    mirror->SetSink([&](const FastPathUpdate& u) {
        for (const auto& n : u.neighboursAdd)
        {
            if (FastPathNeighbours::KeyOf(n.ip, n.port) == peerKey && added.IsZero())
            {
                added = Simulator::Now();
            }
        }
        for (const auto& n : u.neighboursRemove)
        {
            if (FastPathNeighbours::KeyOf(n.ip, n.port) == peerKey && removed.IsZero())
            {
                removed = Simulator::Now();
            }
        }
    });
    Simulator::Schedule(Seconds(0), &FastPathRouteMirror::Start, mirror);
    Time reply; // the first ARP reply A received
    nodes.Get(0)->RegisterProtocolHandler(
        MakeCallback(
            +[](Time* at, Ptr<NetDevice>, Ptr<const Packet> p, uint16_t, const Address&,
                const Address&, NetDevice::PacketType) {
                ArpHeader arp;
                if (p->PeekHeader(arp) && arp.IsReply() && at->IsZero())
                {
                    *at = Simulator::Now();
                }
            })
            .Bind(&reply),
        ArpL3Protocol::PROT_NUMBER,
        devices.Get(0));
    Ptr<Socket> socket = Socket::CreateSocket(nodes.Get(0), UdpSocketFactory::GetTypeId());
    Simulator::Schedule(Seconds(1), [&]() {
        socket->SendTo(Create<Packet>(100), 0, InetSocketAddress(ifs.GetAddress(1), 9));
    });
    Time replyBeforeFlush;
    Simulator::Schedule(Seconds(2), [&]() {
        replyBeforeFlush = reply;
        DynamicCast<LinkUpDevice>(devices.Get(0))->LinkUp(); // ns-3 flushes A's ARP cache
    });
    Simulator::Stop(Seconds(3));
    Simulator::Run();
    ASSERT_GE(replyBeforeFlush, Seconds(1)) << "A never got an ARP reply";
    ASSERT_FALSE(added.IsZero()) << "the neighbour never reached the sink";
    EXPECT_GE(added, replyBeforeFlush);
    EXPECT_LE(added - replyBeforeFlush, MilliSeconds(1)) << "not within BatchDelay (1 ms)";
    ASSERT_FALSE(removed.IsZero()) << "the flushed neighbour stayed in the sink";
    EXPECT_GE(removed, Seconds(2));
    EXPECT_LE(removed - Seconds(2), MilliSeconds(1)) << "not within BatchDelay (1 ms)";
    EXPECT_EQ(mirror->GetSentNeighbours().Entries().count(peerKey), 0u);
    mirror->Dispose();
}
