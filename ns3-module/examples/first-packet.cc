// SPDX-License-Identifier: GPL-2.0-only
//
// first-packet: what a script that sends one packet sees, simulated or emulated. Three
// routers in a line of point-to-point links (5 Mbit/s, 2 ms, as ns-3's tutorial "first")
// and a CSMA segment behind the last one, global routing, IPv4 and IPv6 addresses, one UDP
// echo from n0 to n2 at 2 s. The same script runs
//
//   simulated:   first-packet
//   emulated:    first-packet --FastPathEmulation=1   (fastpathd --socket-uid UID running)
//
//   n0 ── n1 ── n2 ══ n3      10.1.1.0/24, 10.1.2.0/24, LAN 10.1.3.0/24; 2001:2:0:k::/64
//
// --report=FILE writes key=value lines: the echo's first packet delay (client Tx to server
// Rx) and round trip, how far the simulator ran behind real time when n0 sent it (realtime
// simulator only; -1 otherwise), and each device's MAC and IPv6 link-local address
// (dev.nN.I.mac, dev.nN.I.ll), which emulated must be those of the simulated run.
#include "example-scenario.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/csma-module.h"
#include "ns3/fast-path-csma-helper.h"           // fast path
#include "ns3/fast-path-point-to-point-helper.h" // fast path
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/realtime-simulator-impl.h"

#include <sstream>

using namespace ns3;
using namespace ns3::fastpathexamples;

NS_LOG_COMPONENT_DEFINE("FastPathFirstPacket");

namespace
{

Time g_sent = Seconds(-1);
Time g_sentLag = Seconds(-1); // how far the realtime simulator ran behind the wall clock then
Time g_received = Seconds(-1);
Time g_echoed = Seconds(-1);
uint32_t g_sentCount = 0;
uint32_t g_receivedCount = 0;

void
Sent(Ptr<const Packet>)
{
    ++g_sentCount;
    g_sent = Simulator::Now();
    if (auto rt = DynamicCast<RealtimeSimulatorImpl>(Simulator::GetImplementation()))
    {
        g_sentLag = rt->RealtimeNow() - g_sent;
    }
}

void
Echoed(Ptr<const Packet>)
{
    g_echoed = Simulator::Now();
}

void
Received(Ptr<const Packet>)
{
    ++g_receivedCount;
    g_received = Simulator::Now();
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string report;
    double start = 2;
    CommandLine cmd(__FILE__);
    cmd.AddValue("report", "write key=value results to this file", report);
    cmd.AddValue("start", "when n0 sends its one echo request (s)", start);
    cmd.Parse(argc, argv);

    NodeContainer nodes;
    nodes.Create(4);
    InternetStackHelper stack;
    stack.Install(nodes);

    FastPathPointToPointHelper p2p; // fast path (was: PointToPointHelper p2p;)
    p2p.SetDeviceAttribute("DataRate", StringValue("5Mbps"));
    p2p.SetChannelAttribute("Delay", StringValue("2ms"));
    FastPathCsmaHelper csma; // fast path (was: CsmaHelper csma;)
    csma.SetChannelAttribute("DataRate", StringValue("100Mbps"));
    csma.SetChannelAttribute("Delay", TimeValue(NanoSeconds(6560)));
    std::vector<NetDeviceContainer> links = {p2p.Install(nodes.Get(0), nodes.Get(1)),
                                             p2p.Install(nodes.Get(1), nodes.Get(2)),
                                             csma.Install(NodeContainer(nodes.Get(2), nodes.Get(3)))};
    Ipv4AddressHelper address4;
    Ipv6AddressHelper address6;
    std::vector<Ipv4InterfaceContainer> interfaces;
    for (size_t k = 0; k < links.size(); ++k)
    {
        address4.SetBase(Ipv4Address(("10.1." + std::to_string(k + 1) + ".0").c_str()),
                         "255.255.255.0");
        interfaces.push_back(address4.Assign(links[k]));
        address6.SetBase(Ipv6Address(("2001:2:0:" + std::to_string(k + 1) + "::").c_str()),
                         Ipv6Prefix(64));
        address6.Assign(links[k]);
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    UdpEchoServerHelper server(9);
    ApplicationContainer serverApp = server.Install(nodes.Get(2));
    // Listening from time 0, so that a request sent at time 0 is answered too.
    serverApp.Start(Seconds(0));
    UdpEchoClientHelper client(interfaces[1].GetAddress(1), 9);
    client.SetAttribute("MaxPackets", UintegerValue(1));
    client.SetAttribute("PacketSize", UintegerValue(1024));
    ApplicationContainer clientApp = client.Install(nodes.Get(0));
    clientApp.Start(Seconds(start));
    clientApp.Get(0)->TraceConnectWithoutContext("Tx", MakeCallback(&Sent));
    clientApp.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&Echoed));
    serverApp.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&Received));

    Simulator::Stop(Seconds(start + 1));
    Simulator::Run();

    std::ostringstream out;
    out << "emulated=" << (FastPathPointToPointHelper::IsEmulated() ? 1 : 0) << "\n"
        << "udp_sent=" << g_sentCount << "\n"
        << "udp_received=" << g_receivedCount << "\n"
        << "first_delay_ms="
        << (g_received < g_sent ? -1 : (g_received - g_sent).GetSeconds() * 1000) << "\n"
        << "first_rtt_ms=" << (g_echoed < g_sent ? -1 : (g_echoed - g_sent).GetSeconds() * 1000)
        << "\n"
        << "sent_lag_ms=" << g_sentLag.GetSeconds() * 1000 << "\n";
    for (uint32_t n = 0; n < nodes.GetN(); ++n)
    {
        Ptr<Node> node = nodes.Get(n);
        Ptr<Ipv6> ipv6 = node->GetObject<Ipv6>();
        for (uint32_t i = 0; i < node->GetNDevices(); ++i)
        {
            Ptr<NetDevice> dev = node->GetDevice(i);
            if (DynamicCast<LoopbackNetDevice>(dev) ||
                !Mac48Address::IsMatchingType(dev->GetAddress()))
            {
                continue;
            }
            const std::string key = "dev.n" + std::to_string(n) + "." + std::to_string(i);
            out << key << ".mac=" << Mac48Address::ConvertFrom(dev->GetAddress()) << "\n";
            const int32_t iface = ipv6 ? ipv6->GetInterfaceForDevice(dev) : -1;
            for (uint32_t a = 0; iface >= 0 && a < ipv6->GetNAddresses(iface); ++a)
            {
                if (ipv6->GetAddress(iface, a).GetAddress().IsLinkLocal())
                {
                    out << key << ".ll=" << ipv6->GetAddress(iface, a).GetAddress() << "\n";
                }
            }
        }
    }
    WriteReport(report, out.str());
    Simulator::Destroy();
    return 0;
}
