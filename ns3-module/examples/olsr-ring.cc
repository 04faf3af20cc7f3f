// SPDX-License-Identifier: GPL-2.0-only
//
// olsr-ring: several ns-3 OLSR routers in one unprivileged process, each attached to its own
// node of one fastpathd (the nodes of fastpathd's --topology file, joined by its internal
// links). The routers find each other with OLSR over those links; fastpathd forwards the
// data between the hosts behind them.
//
//   --nodes   one spec per router, ';' between them: NAME=PORT:ADDRESS/LEN,PORT:ADDRESS/LEN...
//             NAME is the fastpathd node (and the ns-3 node's name), each PORT one of its
//             ports (interface or link port), one ns-3 device each.
//   --hosts   ports facing plain hosts rather than other routers: OLSR does not run there and
//             their networks are announced as OLSR HNA.
//
// The default is the ring of docs/guides/ns3-router.md and fp_ns3_ring_veth_test:
//
//          S ── r1-s [r1] r1-r2 ──── r2-r1 [r2]
//                    r1-r4            r2-r3
//                     │                 │
//                    r4-r1            r3-r2
//                    [r4] r4-r3 ──── r3-r4 [r3] r3-d ── D
//
// Example (fastpathd already running with that topology, socket readable by the user):
//   olsr-ring --socket=/run/fastpathd/fastpathd.sock --hello=0.2 --tc=0.5 --status=1
#include "example-common.h"

#include "ns3/core-module.h"
#include "ns3/fast-path-helper.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/olsr-helper.h"
#include "ns3/olsr-routing-protocol.h"

#include <map>
#include <set>

using namespace ns3;
using namespace ns3::fastpathexamples;

NS_LOG_COMPONENT_DEFINE("FastPathOlsrRing");

namespace
{

const char* kRing = "r1=r1-s:198.18.1.1/24,r1-r2:198.18.12.1/24,r1-r4:198.18.41.1/24;"
                    "r2=r2-r1:198.18.12.2/24,r2-r3:198.18.23.2/24;"
                    "r3=r3-d:198.18.3.1/24,r3-r2:198.18.23.3/24,r3-r4:198.18.34.3/24;"
                    "r4=r4-r3:198.18.34.4/24,r4-r1:198.18.41.4/24";

struct PortSpec
{
    std::string port;
    std::string address;
};

struct Router
{
    std::string name;
    std::vector<PortSpec> ports;
    Ptr<Node> node;
    NetDeviceContainer devices;
    Ptr<olsr::RoutingProtocol> olsr;
    // What ns-3 received from fastpathd (all of it punted or control) and what it forwarded.
    uint64_t rxFrames = 0;
    uint64_t rxOlsr = 0;
    uint64_t rxArp = 0;
    uint64_t rxOther = 0;
    uint64_t forwarded = 0;
};

std::vector<std::string>
SplitOn(const std::string& s, char sep)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, sep))
    {
        if (!item.empty())
        {
            out.push_back(item);
        }
    }
    return out;
}

std::vector<Router>
ParseNodes(const std::string& text)
{
    std::vector<Router> routers;
    for (const auto& spec : SplitOn(text, ';'))
    {
        auto eq = spec.find('=');
        if (eq == std::string::npos || eq == 0)
        {
            Fail("olsr-ring", "bad --nodes entry '" + spec + "': want NAME=PORT:A.B.C.D/LEN,...");
        }
        Router r;
        r.name = spec.substr(0, eq);
        for (const auto& p : Split(spec.substr(eq + 1)))
        {
            auto colon = p.find(':');
            if (colon == std::string::npos)
            {
                Fail("olsr-ring",
                     "bad port '" + p + "' of node " + r.name + ": want PORT:A.B.C.D/LEN");
            }
            r.ports.push_back({p.substr(0, colon), p.substr(colon + 1)});
        }
        if (r.ports.empty())
        {
            Fail("olsr-ring", "node " + r.name + " has no port");
        }
        routers.push_back(r);
    }
    if (routers.empty())
    {
        Fail("olsr-ring", "--nodes is empty");
    }
    return routers;
}

/// Sorts a frame ns-3 received: OLSR (UDP 698), ARP, or anything else (punted data, ICMP
/// for the router's own addresses).
void
CountRx(Router* r, Ptr<const Packet> packet)
{
    uint8_t b[38] = {};
    uint32_t n = packet->CopyData(b, sizeof(b));
    ++r->rxFrames;
    if (n >= 14 && b[12] == 0x08 && b[13] == 0x06)
    {
        ++r->rxArp;
        return;
    }
    uint32_t l4 = 14 + uint32_t(b[14] & 0xf) * 4;
    if (n >= 38 && b[12] == 0x08 && b[13] == 0x00 && b[23] == 17 && l4 + 4 <= n &&
        (uint32_t(b[l4 + 2]) << 8 | b[l4 + 3]) == 698)
    {
        ++r->rxOlsr;
        return;
    }
    ++r->rxOther;
}

void
CountForward(Router* r, const Ipv4Header&, Ptr<const Packet>, uint32_t)
{
    ++r->forwarded;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string socketPath = "/run/fastpathd/fastpathd.sock";
    std::string nodes = kRing;
    std::string hosts = "r1-s,r3-d";
    std::string report;
    double duration = 0;
    OlsrTimers olsrTimers;
    double status = 0;

    CommandLine cmd(__FILE__);
    cmd.AddValue("socket", "fastpathd's control socket", socketPath);
    cmd.AddValue("nodes", "NAME=PORT:A.B.C.D/LEN,...;NAME=... (fastpathd nodes and ports)", nodes);
    cmd.AddValue("hosts", "ports facing plain hosts (no OLSR there; networks announced as HNA)",
                 hosts);
    cmd.AddValue("duration", "seconds to run (0: until SIGINT/SIGTERM)", duration);
    olsrTimers.AddValues(cmd);
    cmd.AddValue("report", "write key=value statistics to this file at exit", report);
    cmd.AddValue("status", "print a status line every this many seconds (0: never)", status);
    cmd.Parse(argc, argv);

    std::vector<Router> routers = ParseNodes(nodes);
    std::vector<std::string> hostList = Split(hosts);
    std::set<std::string> hostPorts(hostList.begin(), hostList.end());
    CheckFastPathd("olsr-ring", socketPath);

    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::RealtimeSimulatorImpl"));
    GlobalValue::Bind("ChecksumEnabled", BooleanValue(true));
    olsrTimers.SetDefaults();

    // One ns-3 node per fastpathd node, one connection each.
    FastPathHelper fastPath;
    fastPath.SetSocketPath(socketPath);
    OlsrHelper olsr;
    for (auto& r : routers)
    {
        r.node = CreateObject<Node>();
        Names::Add(r.name, r.node);
        std::vector<std::string> ports;
        for (const auto& p : r.ports)
        {
            ports.push_back(p.port);
        }
        r.devices = fastPath.Install(r.node, r.name, ports);
        for (uint32_t i = 0; i < r.ports.size(); ++i)
        {
            if (hostPorts.count(r.ports[i].port))
            {
                // Device i becomes IPv4 interface i + 1 (0 is the loopback).
                olsr.ExcludeInterface(r.node, i + 1);
            }
        }
    }

    InternetStackHelper stack;
    stack.SetRoutingHelper(StaticThenOlsr(olsr));
    for (auto& r : routers)
    {
        stack.Install(r.node);
        Ptr<Ipv4> ipv4 = r.node->GetObject<Ipv4>();
        for (uint32_t i = 0; i < r.devices.GetN(); ++i)
        {
            Ipv4Address a;
            Ipv4Mask m;
            if (!ParsePrefix(r.ports[i].address, a, m))
            {
                Fail("olsr-ring",
                     "bad address '" + r.ports[i].address + "' of " + r.name +
                         ": want a.b.c.d/len");
            }
            int32_t iface = ipv4->AddInterface(r.devices.Get(i));
            ipv4->AddAddress(iface, Ipv4InterfaceAddress(a, m));
            ipv4->SetMetric(iface, 1);
            ipv4->SetUp(iface);
            r.devices.Get(i)->TraceConnectWithoutContext("MacRx", MakeBoundCallback(&CountRx, &r));
        }
        ipv4->TraceConnectWithoutContext("UnicastForward", MakeBoundCallback(&CountForward, &r));
        Ptr<Ipv4ListRouting> lr = DynamicCast<Ipv4ListRouting>(ipv4->GetRoutingProtocol());
        for (uint32_t i = 0; lr && i < lr->GetNRoutingProtocols(); ++i)
        {
            int16_t prio;
            if (auto o = DynamicCast<olsr::RoutingProtocol>(lr->GetRoutingProtocol(i, prio)))
            {
                r.olsr = o;
            }
        }
        for (const auto& p : r.ports)
        {
            Ipv4Address a;
            Ipv4Mask m;
            if (hostPorts.count(p.port) && ParsePrefix(p.address, a, m))
            {
                r.olsr->AddHostNetworkAssociation(a.CombineMask(m), m);
            }
        }
    }

    StopOnSignals();
    if (duration > 0)
    {
        Simulator::Stop(Seconds(duration));
    }
    std::function<void()> tick; // outlives Simulator::Run(): the events refer to it
    if (status > 0)
    {
        tick = [&]() {
            std::cout << "t=" << Simulator::Now().GetSeconds();
            for (const auto& r : routers)
            {
                std::cout << " " << r.name
                          << ": olsr_routes=" << r.olsr->GetRoutingTableEntries().size()
                          << " fastpath_routes="
                          << fastPath.GetMirror(r.node)->GetSentRoutes().Size()
                          << " rx=" << r.rxFrames << " forwarded=" << r.forwarded;
            }
            std::cout << std::endl;
            Simulator::Schedule(Seconds(status), tick);
        };
        Simulator::Schedule(Seconds(status), tick);
    }
    std::cout << "olsr-ring: " << routers.size() << " routers running" << std::endl;
    Simulator::Run();

    fastPath.Flush();
    std::ostringstream out;
    for (const auto& r : routers)
    {
        const std::string k = r.name + ".";
        Ptr<FastPathConnection> conn = fastPath.GetConnection(r.node);
        Ptr<FastPathRouteMirror> mirror = fastPath.GetMirror(r.node);
        out << k << "ns3_rx_frames=" << r.rxFrames << "\n";
        out << k << "ns3_rx_olsr=" << r.rxOlsr << "\n";
        out << k << "ns3_rx_arp=" << r.rxArp << "\n";
        out << k << "ns3_rx_other=" << r.rxOther << "\n";
        out << k << "ns3_forwarded=" << r.forwarded << "\n";
        out << k << "olsr_routes=" << r.olsr->GetRoutingTableEntries().size() << "\n";
        out << k << "fastpath_routes=" << mirror->GetSentRoutes().Size() << "\n";
        out << k << "resolved_routes=" << mirror->GetResolvedCount() << "\n";
        out << k << "updates_applied=" << conn->GetAppliedUpdates() << "\n";
        out << k << "updates_failed=" << conn->GetFailedUpdates() << "\n";
        out << k << "reconnects=" << conn->GetReconnects() << "\n";
        out << k << "port_events=" << conn->GetPortEvents() << "\n";
        for (uint32_t i = 0; i < r.devices.GetN(); ++i)
        {
            out << k << "mac." << r.ports[i].port << "="
                << Mac48Address::ConvertFrom(r.devices.Get(i)->GetAddress()) << "\n";
        }
    }
    WriteReport(report, out.str());
    Simulator::Destroy();
    return 0;
}
