// SPDX-License-Identifier: GPL-2.0-only
//
// csma-lan: three OLSR routers r0, r1, r2 on one CSMA LAN, an end node on each side
// (a - r0 and r2 - b, point-to-point), UDP and ping from a to b. A plain ns-3 CsmaHelper +
// PointToPointHelper script; the two helpers are the fast path's (marked "fast path"), so
// the same script runs
//
//   simulated (ns-3's CsmaChannel, PointToPointChannel):  csma-lan
//   emulated (a fastpathd segment and links):             csma-lan --FastPathEmulation=1
//
// Emulated, fastpathd must be running with a socket this user may create nodes, links and
// segments on (fastpathd --socket-uid UID; --FastPathSocket=PATH if not the default):
//
//   a ── r0 ══ LAN 10.0.0.0/24 ══ r2 ── b        a - r0: 10.1.1.0/24, r2 - b: 10.1.2.0/24
//              (r0 .1, r1 .2, r2 .3)
//                    r1
//
// --report=FILE writes key=value lines (what the tests read): UDP sent/received, ping
// replies, when a first had a route to b, and per node the frames ns-3 received at its
// IPv4 layer: data (this UDP flow and the pings) and the others (OLSR). --rate-at=T sets
// the LAN's DataRate to --new-rate and --delay-at=T its Delay to --new-delay
// (Config::Set), --down-at=T takes r1's LAN interface down (Ipv4::SetDown; r1 is not on
// the path); emulated, the report says how long after the call fastpathd had them.
#include "example-scenario.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/csma-module.h"
#include "ns3/fast-path-csma-helper.h"           // fast path
#include "ns3/fast-path-point-to-point-helper.h" // fast path
#include "ns3/internet-apps-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/olsr-helper.h"
#include "ns3/point-to-point-module.h"

#include <algorithm>
#include <sstream>
#include <vector>

using namespace ns3;
using namespace ns3::fastpathexamples;

NS_LOG_COMPONENT_DEFINE("FastPathCsmaLan");

int
main(int argc, char* argv[])
{
    const uint16_t udpPort = 9;
    FlowOptions o(16, 8);
    double rateAt = 0;
    std::string newRate = "10Mbps";
    double delayAt = 0;
    std::string newDelay = "2ms";
    double downAt = 0;
    CommandLine cmd(__FILE__);
    o.AddValues(cmd, "a to b");
    cmd.AddValue("rate-at", "set the LAN's DataRate to --new-rate then (0: never)", rateAt);
    cmd.AddValue("new-rate", "the DataRate --rate-at sets", newRate);
    cmd.AddValue("delay-at", "set the LAN's Delay to --new-delay then (0: never)", delayAt);
    cmd.AddValue("new-delay", "the Delay --delay-at sets", newDelay);
    cmd.AddValue("down-at", "take r1's LAN interface down then (0: never)", downAt);
    cmd.Parse(argc, argv);
    o.olsr.SetDefaults();

    // Node ids: a 0, r0 1, r1 2, r2 3, b 4.
    NodeContainer nodes;
    nodes.Create(5);
    const char* names[] = {"a", "r0", "r1", "r2", "b"};
    for (uint32_t i = 0; i < 5; ++i)
    {
        Names::Add(names[i], nodes.Get(i));
    }
    NodeContainer lan(nodes.Get(1), nodes.Get(2), nodes.Get(3));
    OlsrHelper olsr;
    InternetStackHelper stack;
    stack.SetRoutingHelper(olsr);
    stack.Install(nodes);

    FastPathCsmaHelper csma; // fast path (was: CsmaHelper csma;)
    csma.SetChannelAttribute("DataRate", StringValue("100Mbps"));
    csma.SetChannelAttribute("Delay", StringValue("1ms"));
    FastPathPointToPointHelper p2p; // fast path (was: PointToPointHelper p2p;)
    p2p.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
    p2p.SetChannelAttribute("Delay", StringValue("1ms"));

    Ipv4AddressHelper address;
    NetDeviceContainer lanDevices = csma.Install(lan);
    address.SetBase("10.0.0.0", "255.255.255.0");
    address.Assign(lanDevices);
    address.SetBase("10.1.1.0", "255.255.255.0");
    address.Assign(p2p.Install(nodes.Get(0), nodes.Get(1)));
    address.SetBase("10.1.2.0", "255.255.255.0");
    Ipv4InterfaceContainer toB = address.Assign(p2p.Install(nodes.Get(3), nodes.Get(4)));
    Ipv4RxCounter seen(udpPort);

    // UDP and ping a -> b, and when a first has a route to b (OLSR converged across the LAN).
    FlowProbe probe(o, nodes.Get(0), nodes.Get(4), toB.GetAddress(1), udpPort);

    // Changes made the ns-3 way while the script runs; emulated, they reach fastpathd.
    FollowedChange rate, delay, down;
    rate.At(rateAt, [&]() {
        Config::Set("/ChannelList/*/$ns3::CsmaChannel/DataRate", StringValue(newRate));
    });
    delay.At(delayAt, [&]() {
        Config::Set("/ChannelList/*/$ns3::CsmaChannel/Delay", StringValue(newDelay));
    });
    down.At(downAt, [&]() {
        Ptr<Ipv4> ipv4 = nodes.Get(2)->GetObject<Ipv4>();
        ipv4->SetDown(ipv4->GetInterfaceForDevice(lanDevices.Get(1)));
    });

    Simulator::Stop(Seconds(o.duration));
    Simulator::Run();

    std::ostringstream out;
    out << "emulated=" << (FastPathCsmaHelper::IsEmulated() ? 1 : 0) << "\n";
    probe.Report(out);
    const std::vector<double>& rtts = probe.rtts;
    out << "ping_rtt_min_ms="
        << (rtts.empty() ? -1 : 1000 * *std::min_element(rtts.begin(), rtts.end())) << "\n"
        << "segment=" << FastPathCsmaHelper::GetFastPathSegmentName(lanDevices.Get(0)) << "\n"
        << "rate_latency_us=" << rate.latencyUs << "\n"
        << "delay_latency_us=" << delay.latencyUs << "\n"
        << "down_latency_us=" << down.latencyUs << "\n";
    for (uint32_t i = 0; i < 5; ++i)
    {
        ReportNode(out, names[i], seen.Of(i), nodes.Get(i));
    }
    WriteReport(o.report, out.str());
    Simulator::Destroy();
    return 0;
}
