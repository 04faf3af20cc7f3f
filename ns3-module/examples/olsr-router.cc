// SPDX-License-Identifier: GPL-2.0-only
//
// olsr-router: one ns-3 OLSR node attached to real interfaces.
//
//   --role=router  the node's data plane is fastpathd (FastPathHelper); unprivileged.
//   --role=plain   the same router as plain ns-3 emulation (FdNetDevice on AF_PACKET
//                  sockets): the baseline. Needs CAP_NET_RAW.
//   --role=peer    an OLSR neighbour (plain emulation, IP forwarding off) that shares its
//                  interface with the host's kernel and can announce the host's networks
//                  as OLSR HNA: the real host behind it becomes reachable through OLSR.
//
// Topology used by demo/olsr.sh and the veth test:
//
//   [S: kernel + ns-3 peer] s0 --- r0 [R: fastpathd + ns-3 router] r1 --- d0 [D: same as S]
//
// Example (inside namespace R, fastpathd already running on r0,r1):
//   olsr-router --role=router --ports=r0,r1 --addresses=198.18.1.1/24,198.18.2.1/24
#include "emu-devices.h"
#include "example-common.h"

#include "ns3/core-module.h"
#include "ns3/fast-path-helper.h"
#include "ns3/fd-net-device-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/olsr-helper.h"
#include "ns3/olsr-routing-protocol.h"

using namespace ns3;
using namespace ns3::fastpathexamples;

NS_LOG_COMPONENT_DEFINE("FastPathOlsrRouter");

namespace
{

uint64_t g_ns3RxFrames = 0;

void
CountRx(Ptr<const Packet>)
{
    ++g_ns3RxFrames;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string role = "router";
    std::string socketPath = "/run/fastpathd/fastpathd.sock";
    std::string ports = "r0,r1";
    std::string interfaces;
    std::string addresses = "198.18.1.1/24,198.18.2.1/24";
    std::string hna;
    std::string report;
    std::string name = "R";
    double duration = 30;
    OlsrTimers olsrTimers;
    double status = 0;

    CommandLine cmd(__FILE__);
    cmd.AddValue("role", "router (fast path), plain (ns-3 emulation baseline) or peer", role);
    cmd.AddValue("socket", "fastpathd's control socket (router)", socketPath);
    cmd.AddValue("ports", "fastpathd port names, one ns-3 device each (router)", ports);
    cmd.AddValue("interfaces", "interfaces for AF_PACKET devices (plain, peer)", interfaces);
    cmd.AddValue("addresses", "one address/len per device, in order", addresses);
    cmd.AddValue("hna", "networks to announce as OLSR HNA, e.g. 198.18.10.0/24", hna);
    cmd.AddValue("duration", "seconds to run (0: until SIGINT/SIGTERM)", duration);
    olsrTimers.AddValues(cmd);
    cmd.AddValue("name", "node name (shown by fastpathd)", name);
    cmd.AddValue("report", "write key=value statistics to this file at exit", report);
    cmd.AddValue("status", "print a status line every this many seconds (0: never)", status);
    cmd.Parse(argc, argv);

    if (role != "router" && role != "plain" && role != "peer")
    {
        Fail("olsr-router", "--role must be router, plain or peer (got '" + role + "')");
    }
    std::vector<std::string> addrList = Split(addresses);
    std::vector<std::string> ifList = Split(role == "router" ? ports : interfaces);
    if (ifList.empty())
    {
        Fail("olsr-router",
             role == "router" ? "--ports is empty" : "--interfaces is required for " + role);
    }
    if (addrList.size() != ifList.size())
    {
        Fail("olsr-router",
             "--addresses needs one address/len per " +
                 std::string(role == "router" ? "port" : "interface"));
    }
    if (role == "router")
    {
        CheckFastPathd("olsr-router", socketPath);
    }

    // --- plain ns-3 emulation setup ---------------------------------------------------
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::RealtimeSimulatorImpl"));
    GlobalValue::Bind("ChecksumEnabled", BooleanValue(true));
    olsrTimers.SetDefaults();

    Ptr<Node> node = CreateObject<Node>();
    Names::Add(name, node);
    NetDeviceContainer devices;

    FastPathHelper fastPath;
    if (role == "router")
    {
        // The fast path: these two lines replace the raw-socket devices below.
        fastPath.SetSocketPath(socketPath);
        devices = fastPath.Install(node, ifList);
    }
    else
    {
        devices = InstallEmulationDevices("olsr-router", node, ifList, role == "peer" ? 698 : 0);
    }

    OlsrHelper olsr;
    InternetStackHelper stack;
    stack.SetRoutingHelper(StaticThenOlsr(olsr));
    stack.Install(node);

    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ipv4Address a;
        Ipv4Mask m;
        if (!ParsePrefix(addrList[i], a, m))
        {
            Fail("olsr-router", "bad address '" + addrList[i] + "': want a.b.c.d/len");
        }
        int32_t iface = ipv4->AddInterface(devices.Get(i));
        ipv4->AddAddress(iface, Ipv4InterfaceAddress(a, m));
        ipv4->SetMetric(iface, 1);
        ipv4->SetUp(iface);
        if (role == "peer")
        {
            // The host's kernel owns the data on this interface: never forward its frames.
            ipv4->SetForwarding(iface, false);
        }
        devices.Get(i)->TraceConnectWithoutContext("MacRx", MakeCallback(&CountRx));
    }

    Ptr<olsr::RoutingProtocol> olsrProtocol;
    {
        Ptr<Ipv4ListRouting> lr = DynamicCast<Ipv4ListRouting>(ipv4->GetRoutingProtocol());
        for (uint32_t i = 0; lr && i < lr->GetNRoutingProtocols(); ++i)
        {
            int16_t prio;
            if (auto o = DynamicCast<olsr::RoutingProtocol>(lr->GetRoutingProtocol(i, prio)))
            {
                olsrProtocol = o;
            }
        }
    }
    for (const auto& net : Split(hna))
    {
        Ipv4Address a;
        Ipv4Mask m;
        if (!ParsePrefix(net, a, m))
        {
            Fail("olsr-router", "bad --hna network '" + net + "': want a.b.c.d/len");
        }
        olsrProtocol->AddHostNetworkAssociation(a, m);
    }

    StopOnSignals();
    if (duration > 0)
    {
        Simulator::Stop(Seconds(duration));
    }
    Ptr<FastPathRouteMirror> mirror = fastPath.GetMirror(node);
    std::function<void()> tick; // outlives Simulator::Run(): the events refer to it
    if (status > 0)
    {
        tick = [&]() {
            std::cout << "t=" << Simulator::Now().GetSeconds() << " role=" << role
                      << " olsr_routes=" << olsrProtocol->GetRoutingTableEntries().size()
                      << " ns3_rx_frames=" << g_ns3RxFrames;
            if (mirror)
            {
                std::cout << " fastpath_routes=" << mirror->GetSentRoutes().Size()
                          << " neighbours=" << mirror->GetSentNeighbours().Size()
                          << " resolved=" << mirror->GetResolvedCount();
            }
            std::cout << std::endl;
            Simulator::Schedule(Seconds(status), tick);
        };
        Simulator::Schedule(Seconds(status), tick);
    }
    std::cout << "olsr-router: " << role << " " << name << " running" << std::endl;
    Simulator::Run();

    std::ostringstream out;
    out << "role=" << role << "\n";
    out << "ns3_rx_frames=" << g_ns3RxFrames << "\n";
    out << "olsr_routes=" << olsrProtocol->GetRoutingTableEntries().size() << "\n";
    if (mirror)
    {
        out << FastPathReport(fastPath, node);
    }
    WriteReport(report, out.str());
    Simulator::Destroy();
    return 0;
}
