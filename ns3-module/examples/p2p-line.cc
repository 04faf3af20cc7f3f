// SPDX-License-Identifier: GPL-2.0-only
//
// p2p-line: a line of N OLSR routers joined by point-to-point links, UDP and ping from the
// first to the last. A plain ns-3 PointToPointHelper script; two lines make it
// FastPathPointToPointHelper's (marked "fast path"), so the same script runs
//
//   simulated (ns-3's PointToPointNetDevice/Channel):   p2p-line --nodes=4
//   emulated (fastpathd's nodes and links):             p2p-line --nodes=4 --FastPathEmulation=1
//
// Emulated, fastpathd must be running with a socket this user may create nodes and links
// on (fastpathd --socket-uid UID; --FastPathSocket=PATH if not the default socket):
//
//   n0 ── n1 ── n2 ── n3      link k: 10.1.k+1.0/24 (node k is .1, node k+1 .2)
//
// --report=FILE writes key=value lines (what the tests read): UDP sent/received, ping
// replies, when node 0 first had a route to the last node, and per node the frames ns-3
// received at its IPv4 layer: data (this UDP flow and the pings) and the others (OLSR).
// --down-at=T takes node 1's interface towards node 2 down at T seconds (Ipv4::SetDown);
// --delay-at=T sets every channel's Delay to --new-delay at T, --rate-at=T node 1's devices'
// DataRate to --new-rate (Config::Set). Emulated, these reach fastpathd (the link down, its
// delay and rate) and the report says how long after the call fastpathd had them.
#include "example-scenario.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/fast-path-point-to-point-helper.h" // fast path
#include "ns3/internet-apps-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/olsr-helper.h"
#include "ns3/point-to-point-module.h"

#include <algorithm>
#include <numeric>
#include <sstream>
#include <vector>

using namespace ns3;
using namespace ns3::fastpathexamples;

NS_LOG_COMPONENT_DEFINE("FastPathP2pLine");

int
main(int argc, char* argv[])
{
    const uint16_t udpPort = 9;
    uint32_t nNodes = 4;
    FlowOptions o(20, 10);
    double downAt = 0;
    double delayAt = 0;
    std::string newDelay = "5ms";
    double rateAt = 0;
    std::string newRate = "10Mbps";
    CommandLine cmd(__FILE__);
    cmd.AddValue("nodes", "routers in the line", nNodes);
    o.AddValues(cmd, "the first node to the last");
    cmd.AddValue("down-at", "take node 1's interface towards node 2 down then (0: never)", downAt);
    cmd.AddValue("delay-at", "set every channel's Delay to --new-delay then (0: never)", delayAt);
    cmd.AddValue("new-delay", "the Delay --delay-at sets", newDelay);
    cmd.AddValue("rate-at", "set node 1's devices' DataRate to --new-rate then (0: never)", rateAt);
    cmd.AddValue("new-rate", "the DataRate --rate-at sets", newRate);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(nNodes < 2, "--nodes: at least 2");
    o.olsr.SetDefaults();

    NodeContainer nodes;
    nodes.Create(nNodes);
    OlsrHelper olsr;
    InternetStackHelper stack;
    stack.SetRoutingHelper(olsr);
    stack.Install(nodes);

    FastPathPointToPointHelper p2p; // fast path (was: PointToPointHelper p2p;)
    p2p.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
    p2p.SetChannelAttribute("Delay", StringValue("1ms"));
    Ipv4AddressHelper address;
    std::vector<Ipv4InterfaceContainer> interfaces;
    for (uint32_t k = 0; k + 1 < nNodes; ++k)
    {
        NetDeviceContainer devices = p2p.Install(nodes.Get(k), nodes.Get(k + 1));
        address.SetBase(Ipv4Address(("10.1." + std::to_string(k + 1) + ".0").c_str()),
                        "255.255.255.0");
        interfaces.push_back(address.Assign(devices));
    }
    Ipv4RxCounter seen(udpPort);

    // UDP and ping from node 0 to the last node, and when node 0 first has a route to it
    // (OLSR converged along the line).
    FlowProbe probe(o, nodes.Get(0), nodes.Get(nNodes - 1), interfaces.back().GetAddress(1),
                    udpPort);

    // Changes made the ns-3 way while the script runs; emulated, they reach fastpathd.
    FollowedChange down, delay, rate;
    if (nNodes > 2)
    {
        down.At(downAt, [&]() {
            Ptr<Ipv4> ipv4 = nodes.Get(1)->GetObject<Ipv4>();
            ipv4->SetDown(ipv4->GetInterfaceForAddress(interfaces[1].GetAddress(0)));
        });
    }
    delay.At(delayAt, [&]() {
        Config::Set("/ChannelList/*/$ns3::PointToPointChannel/Delay", StringValue(newDelay));
    });
    rate.At(rateAt, [&]() {
        Config::Set("/NodeList/1/DeviceList/*/$ns3::PointToPointNetDevice/DataRate",
                    StringValue(newRate));
    });

    Simulator::Stop(Seconds(o.duration));
    Simulator::Run();

    // The other end of the link node 1 took down keeps its interface up, as in ns-3.
    int peerUp = -1;
    if (nNodes > 2)
    {
        Ptr<Ipv4> ipv4 = nodes.Get(2)->GetObject<Ipv4>();
        peerUp = ipv4->IsUp(ipv4->GetInterfaceForAddress(interfaces[1].GetAddress(1))) ? 1 : 0;
    }
    std::ostringstream out;
    out << "emulated=" << (FastPathPointToPointHelper::IsEmulated() ? 1 : 0) << "\n"
        << "nodes=" << nNodes << "\n"
        << "peer_interface_up=" << peerUp << "\n";
    probe.Report(out);
    const std::vector<double>& rtts = probe.rtts;
    out << "ping_rtt_ms=" << (rtts.empty() ? -1 : 1000 * std::accumulate(rtts.begin(), rtts.end(), 0.0) / rtts.size()) << "\n"
        << "ping_rtt_first_ms=" << (rtts.empty() ? -1 : 1000 * rtts.front()) << "\n"
        << "ping_rtt_min_ms=" << (rtts.empty() ? -1 : 1000 * *std::min_element(rtts.begin(), rtts.end())) << "\n"
        << "down_latency_us=" << down.latencyUs << "\n"
        << "delay_latency_us=" << delay.latencyUs << "\n"
        << "rate_latency_us=" << rate.latencyUs << "\n"
        << "param_reads=" << FastPathPointToPointHelper::GetParameterReads() << "\n";
    for (uint32_t i = 0; i < nNodes; ++i)
    {
        ReportNode(out, "n" + std::to_string(i), seen.Of(i), nodes.Get(i));
    }
    WriteReport(o.report, out.str());
    Simulator::Destroy();
    return 0;
}
