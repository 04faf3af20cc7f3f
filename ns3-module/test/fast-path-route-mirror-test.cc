// SPDX-License-Identifier: GPL-2.0-only
// The route mirror against pure ns-3 simulations (no fastpathd): OLSR, static and
// connected routes are mirrored exactly (IPv4 and IPv6), diffs compose to the table, link
// failures withdraw routes, NDP entries become neighbours, resolve-on-miss learns AODV's
// and RIPng's decisions, a port fastpathd reports down takes its interface down, and a
// point-to-point peer stays known when the device's link comes up.
#include "ns3/fast-path-route-mirror.h"

#include "ns3/aodv-helper.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/olsr-helper.h"
#include "ns3/packet-sink-helper.h"
#include "ns3/packet-sink.h"
#include "ns3/ripng-helper.h"
#include "ns3/simple-net-device-helper.h"
#include "ns3/udp-echo-helper.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

/// UDP echo: a server on `server` from t = 0.5 s, `packets` requests from `client` to
/// `destination` every 100 ms from `start` on.
void
Echo(Ptr<Node> client, Ptr<Node> server, const Address& destination, uint32_t packets, double start)
{
    UdpEchoServerHelper echoServer(9);
    echoServer.Install(server).Start(Seconds(0.5));
    UdpEchoClientHelper echoClient(destination, 9);
    echoClient.SetAttribute("MaxPackets", UintegerValue(packets));
    echoClient.SetAttribute("Interval", TimeValue(MilliSeconds(100)));
    echoClient.Install(client).Start(Seconds(start));
}

/// A — B — C: three nodes on two simple links, B's route mirror (ports 0 towards A, 1
/// towards C) feeding a sink that records the updates and the table they build up.
struct MirroredLine
{
    NodeContainer nodes;
    NetDeviceContainer ab;
    NetDeviceContainer bc;
    Ptr<FastPathRouteMirror> mirror; // on B
    FastPathTable applied;           // what the sink's diffs build up
    std::vector<FastPathUpdate> updates;

    void StartMirror()
    {
        mirror = CreateObject<FastPathRouteMirror>();
        mirror->SetNode(nodes.Get(1));
        mirror->AddPort(ab.Get(1), 0);
        mirror->AddPort(bc.Get(0), 1);
        mirror->SetSink([this](const FastPathUpdate& u) {
            updates.push_back(u);
            applied.Apply(u.routes);
        });
        Simulator::Schedule(Seconds(0), &FastPathRouteMirror::Start, mirror);
    }
};

/// A — B — C on two simple links: 198.18.1.0/24 (A .1, B .2), 198.18.2.0/24 (B .1, C .2).
struct Line : MirroredLine
{

    void Build(const Ipv4RoutingHelper& routing)
    {
        nodes.Create(3);
        SimpleNetDeviceHelper simple;
        ab = simple.Install(NodeContainer(nodes.Get(0), nodes.Get(1)));
        bc = simple.Install(NodeContainer(nodes.Get(1), nodes.Get(2)));
        InternetStackHelper stack;
        stack.SetRoutingHelper(routing);
        stack.Install(nodes);
        Ipv4AddressHelper addr;
        addr.SetBase("198.18.1.0", "255.255.255.0");
        addr.Assign(ab);
        addr.SetBase("198.18.2.0", "255.255.255.0", "0.0.0.1");
        addr.Assign(bc);

        StartMirror();
    }
};

fastpath::Route
R(const std::string& prefix, const std::string& nextHop, fastpath::PortId port)
{
    fastpath::Route r;
    r.prefix = fastpath::IpPrefix::parse(prefix).value();
    if (!nextHop.empty())
    {
        r.next_hop = fastpath::IpAddress::parse(nextHop).value();
    }
    r.port = port;
    return r;
}

::testing::AssertionResult
Has(const FastPathTable& t, const fastpath::Route& want)
{
    auto key = FastPathTable::KeyOf(want.prefix);
    auto it = t.Routes().find(key);
    if (it == t.Routes().end())
    {
        return ::testing::AssertionFailure() << want.prefix.toString() << " missing";
    }
    if (it->second.next_hop != want.next_hop || it->second.port != want.port)
    {
        return ::testing::AssertionFailure()
               << want.prefix.toString() << " is via " << it->second.next_hop.toString()
               << " port " << it->second.port << ", want via " << want.next_hop.toString()
               << " port " << want.port;
    }
    return ::testing::AssertionSuccess();
}

/// IPv6 A — B — C on two simple links: 2001:2:0:1::/64 (A ::1, B ::2) and 2001:2:0:2::/64
/// (B ::1, C ::2); C also holds 2001:2:0:30::1/64. A and C route everything else via B.
/// B runs Ipv6StaticRouting (the default Ipv6ListRouting) with a static route
/// 2001:2:0:30::/64 via C, or (ripng) RIPng next to static routing on B and C, B learning
/// 2001:2:0:30::/64 from C.
struct Line6 : MirroredLine
{
    Ipv6InterfaceContainer abIf;
    Ipv6InterfaceContainer bcIf;

    void Build(bool ripng = false)
    {
        nodes.Create(3);
        SimpleNetDeviceHelper simple;
        ab = simple.Install(NodeContainer(nodes.Get(0), nodes.Get(1)));
        bc = simple.Install(NodeContainer(nodes.Get(1), nodes.Get(2)));
        InternetStackHelper stack;
        if (!ripng)
        {
            stack.Install(nodes);
        }
        else
        {
            stack.Install(nodes.Get(0));
            RipNgHelper rip;
            Ipv6StaticRoutingHelper st;
            Ipv6ListRoutingHelper list;
            list.Add(rip, 0);
            list.Add(st, 5);
            InternetStackHelper withRip;
            withRip.SetRoutingHelper(list);
            withRip.Install(NodeContainer(nodes.Get(1), nodes.Get(2)));
        }
        // Explicit addresses (Ipv6AddressHelper would derive them from the MACs).
        abIf.Add(Assign(ab.Get(0), "2001:2:0:1::1"));
        abIf.Add(Assign(ab.Get(1), "2001:2:0:1::2"));
        bcIf.Add(Assign(bc.Get(0), "2001:2:0:2::1"));
        bcIf.Add(Assign(bc.Get(1), "2001:2:0:2::2"));
        abIf.SetForwarding(1, true);
        bcIf.SetForwarding(0, true);
        Ptr<Ipv6> c = nodes.Get(2)->GetObject<Ipv6>();
        c->AddAddress(bcIf.GetInterfaceIndex(1),
                      Ipv6InterfaceAddress(Ipv6Address("2001:2:0:30::1"), Ipv6Prefix(64)));

        Ipv6StaticRoutingHelper helper;
        helper.GetStaticRouting(nodes.Get(0)->GetObject<Ipv6>())
            ->SetDefaultRoute(Ipv6Address("2001:2:0:1::2"), abIf.GetInterfaceIndex(0));
        helper.GetStaticRouting(c)->AddNetworkRouteTo(Ipv6Address("2001:2:0:1::"),
                                                      Ipv6Prefix(64),
                                                      Ipv6Address("2001:2:0:2::1"),
                                                      bcIf.GetInterfaceIndex(1));
        if (!ripng)
        {
            helper.GetStaticRouting(nodes.Get(1)->GetObject<Ipv6>())
                ->AddNetworkRouteTo(Ipv6Address("2001:2:0:30::"),
                                    Ipv6Prefix(64),
                                    Ipv6Address("2001:2:0:2::2"),
                                    bcIf.GetInterfaceIndex(0));
        }

        StartMirror();
    }

    static Ipv6InterfaceContainer Assign(Ptr<NetDevice> device, const char* address)
    {
        Ptr<Ipv6> ipv6 = device->GetNode()->GetObject<Ipv6>();
        int32_t iface = ipv6->AddInterface(device);
        ipv6->AddAddress(iface, Ipv6InterfaceAddress(Ipv6Address(address), Ipv6Prefix(64)));
        ipv6->SetUp(iface);
        Ipv6InterfaceContainer out;
        out.Add(ipv6, iface);
        return out;
    }

    /// UDP echo from A to `destination` (5 packets from t = 1 s).
    void Ping(const char* destination)
    {
        Echo(nodes.Get(0), nodes.Get(2), Ipv6Address(destination), 5, 1);
    }

    fastpath::MacAddress Mac(Ptr<NetDevice> device) const
    {
        return ToFastPath(Mac48Address::ConvertFrom(device->GetAddress()));
    }
};

class RouteMirrorTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        Config::SetDefault("ns3::olsr::RoutingProtocol::HelloInterval",
                           TimeValue(MilliSeconds(200)));
        Config::SetDefault("ns3::olsr::RoutingProtocol::TcInterval",
                           TimeValue(MilliSeconds(500)));
    }

    void TearDown() override
    {
        Simulator::Destroy();
    }
};

/// Static routing (the connected routes) before OLSR, as the examples route.
Ipv4ListRoutingHelper
StaticThenOlsr()
{
    Ipv4ListRoutingHelper list;
    list.Add(Ipv4StaticRoutingHelper(), 0);
    list.Add(OlsrHelper(), 10);
    return list;
}

/// Calls `check` at `start` and from then on every `every` until the simulation stops: a
/// watch on state that no trace source announces (a route sent, a route the protocol holds).
void
Every(Time start, Time every, std::function<void()> check)
{
    Simulator::Schedule(start, [every, check]() {
        check();
        Every(every, every, check);
    });
}

} // namespace

TEST(FastPathTableTest, DiffComposesAndLookupIsLongestPrefix)
{
    FastPathTable a;
    a.Add(R("198.18.1.0/24", "", 0));
    a.Add(R("198.18.9.0/24", "198.18.1.1", 0));
    FastPathTable b;
    b.Add(R("198.18.1.0/24", "", 0));
    b.Add(R("198.18.9.0/24", "198.18.2.2", 1)); // changed
    b.Add(R("198.18.9.7/32", "198.18.1.1", 0)); // new
    b.Add(R("198.18.3.0/24", "", 1));           // new
    fastpath::RouteBatch d = FastPathTable::Diff(a, b);
    EXPECT_EQ(d.add.size(), 3u);
    EXPECT_EQ(d.remove.size(), 0u);
    FastPathTable c = a;
    c.Apply(d);
    EXPECT_EQ(FastPathTable::Diff(c, b).add.size(), 0u);
    fastpath::RouteBatch back = FastPathTable::Diff(b, a);
    EXPECT_EQ(back.remove.size(), 2u);
    EXPECT_EQ(back.add.size(), 1u);
    ASSERT_NE(b.Lookup(Ipv4Address("198.18.9.7")), nullptr);
    EXPECT_EQ(b.Lookup(Ipv4Address("198.18.9.7"))->prefix.length, 32);
    EXPECT_EQ(b.Lookup(Ipv4Address("198.18.9.8"))->prefix.length, 24);
    EXPECT_EQ(b.Lookup(Ipv4Address("198.19.0.1")), nullptr);
}

TEST(FastPathTableTest, Ipv6DiffAndLookupAndFamiliesStayApart)
{
    FastPathTable a;
    a.Add(R("2001:2:0:1::/64", "", 0));
    a.Add(R("2001:2:0:20::/64", "2001:2:0:2::2", 1));
    a.Add(R("198.18.0.0/16", "", 2)); // same leading bytes as c612::/16 below
    FastPathTable b = a;
    b.Add(R("2001:2:0:20::/64", "fe80::2", 1)); // changed next hop
    b.Add(R("2001:2:0:20::7/128", "", 0));      // new host route
    b.Add(R("c612::/16", "", 3));               // IPv6, not the IPv4 /16
    b.Remove(R("2001:2:0:1::/64", "", 0).prefix);
    fastpath::RouteBatch d = FastPathTable::Diff(a, b);
    EXPECT_EQ(d.add.size(), 3u);
    ASSERT_EQ(d.remove.size(), 1u);
    EXPECT_EQ(d.remove[0].toString(), "2001:2:0:1::/64");
    FastPathTable c = a;
    c.Apply(d);
    EXPECT_TRUE(FastPathTable::Diff(c, b).add.empty());
    EXPECT_TRUE(FastPathTable::Diff(c, b).remove.empty());
    EXPECT_EQ(c.Size(), 4u);
    EXPECT_TRUE(Has(c, R("198.18.0.0/16", "", 2)));
    EXPECT_TRUE(Has(c, R("c612::/16", "", 3)));
    // Longest prefix within the family; host bits of added prefixes are cleared.
    ASSERT_NE(c.Lookup(Ipv6Address("2001:2:0:20::7")), nullptr);
    EXPECT_EQ(c.Lookup(Ipv6Address("2001:2:0:20::7"))->prefix.length, 128);
    EXPECT_EQ(c.Lookup(Ipv6Address("2001:2:0:20::8"))->prefix.length, 64);
    EXPECT_EQ(c.Lookup(Ipv6Address("2001:2:0:1::1")), nullptr);
    EXPECT_EQ(c.Lookup(Ipv4Address("198.18.3.3"))->port, 2u);
    EXPECT_EQ(c.Lookup(Ipv6Address("c612::1"))->port, 3u);
    c.Add(R("2001:2:0:40::/62", "", 1));
    ASSERT_NE(c.Find(Ipv6Address("2001:2:0:43::"), 62), nullptr);
    EXPECT_EQ(c.Find(Ipv6Address("2001:2:0:43::"), 62)->prefix.toString(), "2001:2:0:40::/62");

    FastPathNeighbours n1;
    FastPathNeighbours n2;
    fastpath::Neighbour v6{fastpath::IpAddress::parse("fe80::2").value(), 1, {}};
    v6.mac.bytes = {2, 0, 0, 0, 0, 2};
    n2.Add(v6);
    v6.port = 0; // the same link-local address on another port is another neighbour
    n2.Add(v6);
    std::vector<fastpath::Neighbour> add;
    std::vector<fastpath::Neighbour> remove;
    FastPathNeighbours::Diff(n1, n2, add, remove);
    EXPECT_EQ(add.size(), 2u);
    EXPECT_TRUE(remove.empty());
}

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

// A's device link comes up (as an FdNetDevice's at its start): ns-3 flushes A's ARP cache,
// the mirror gives the peer's static entry back at once, and a burst sent right then
// leaves whole, as from a PointToPointNetDevice (without it: ARP, 3 kept, the rest lost).
TEST_F(RouteMirrorTest, APointToPointPeerStaysKnownWhenTheDeviceLinkComesUp)
{
    NodeContainer nodes;
    nodes.Create(2);
    Ptr<SimpleChannel> channel = CreateObject<SimpleChannel>();
    NetDeviceContainer devices;
    for (uint32_t i = 0; i < 2; ++i)
    {
        Ptr<LinkUpDevice> d = CreateObject<LinkUpDevice>();
        d->SetAttribute("PointToPointMode", BooleanValue(true));
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
    Ipv4InterfaceContainer ifs = addr.Assign(devices);
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

/// Echo traffic A -> C from 1 s (so that B resolves C on a miss), then C's interface goes
/// down at 3 s: the protocol loses the route.
void
StartEchoThenTakeCDown(Line& line)
{
    Echo(line.nodes.Get(0), line.nodes.Get(2), Ipv4Address("198.18.2.2"), 10, 1);
    Simulator::Schedule(Seconds(3),
                        [&line]() { line.nodes.Get(2)->GetObject<Ipv4>()->SetDown(1); });
}

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
