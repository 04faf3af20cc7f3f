// SPDX-License-Identifier: GPL-2.0-only
// What the route mirror's tests share: A — B — C lines (IPv4, IPv6) on simple links with B's
// mirror feeding a sink, a route built from text, a check that a table holds a route, UDP
// echo traffic, and a periodic watch.
#ifndef FAST_PATH_ROUTE_MIRROR_FIXTURE_H
#define FAST_PATH_ROUTE_MIRROR_FIXTURE_H

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

#include <functional>
#include <string>
#include <vector>

namespace ns3
{
namespace route_mirror_test
{


/// UDP echo: a server on `server` from t = 0.5 s, `packets` requests from `client` to
/// `destination` every 100 ms from `start` on.
inline void
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

inline fastpath::Route
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

inline ::testing::AssertionResult
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
inline Ipv4ListRoutingHelper
StaticThenOlsr()
{
    Ipv4ListRoutingHelper list;
    list.Add(Ipv4StaticRoutingHelper(), 0);
    list.Add(OlsrHelper(), 10);
    return list;
}

/// Calls `check` at `start` and from then on every `every` until the simulation stops: a
/// watch on state that no trace source announces (a route sent, a route the protocol holds).
inline void
Every(Time start, Time every, std::function<void()> check)
{
    Simulator::Schedule(start, [every, check]() {
        check();
        Every(every, every, check);
    });
}

} // namespace route_mirror_test
} // namespace ns3

#endif // FAST_PATH_ROUTE_MIRROR_FIXTURE_H
