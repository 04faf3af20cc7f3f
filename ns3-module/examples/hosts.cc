// SPDX-License-Identifier: GPL-2.0-only
//
// hosts: two OLSR routers and a host on each, simulated or emulated with real hosts.
//
//   h1 ── r1 ── r2 ── h2      h1 198.18.1.2/24 (r1 .1), h2 198.18.2.2/24 (r2 .1),
//                            r1-r2 198.18.0.0/24
//
//   simulated:   hosts                      ns-3 nodes stand in for h1 and h2; an ns-3 ping
//                                          h1 -> h2 runs from --ping-at for --pings
//   emulated:    hosts --FastPathEmulation=1
//                fastpathd makes the namespaces fp-TAG-h1 and fp-TAG-h2 (TAG: FastPathTag,
//                default "hosts"); run real programs in them while the script runs:
//                  ip netns exec fp-hosts-h1 ping 198.18.2.2
//
// Emulated, fastpathd must be running with a socket this user may create nodes, links and
// hosts on (fastpathd --socket-uid UID; --FastPathSocket=PATH if not the default socket).
// Ctrl-C stops the run early, and what it created in fastpathd is deleted all the same.
// --attach=IFNAME (emulated) also gives r1 a real interface of fastpathd's namespace
// (FastPathHelper::Install(r1, {IFNAME}) attaches it to r1's fastpathd node, and detaches it
// at the end), addressed --attach-address (default 198.18.3.1/24) and announced by OLSR;
// fastpathd must allow it (--attachable IFNAME: the script is an operator, not root).
// --report=FILE writes key=value lines as they become known: the namespaces, when r1
// first had a route to h2's subnet (OLSR converged, with the hosts' networks as HNA), and
// simulated, the ping's replies.
#include "example-scenario.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/fast-path-emulation.h"
#include "ns3/fast-path-host-helper.h"
#include "ns3/fast-path-point-to-point-helper.h"
#include "ns3/internet-apps-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/olsr-helper.h"
#include "ns3/olsr-routing-protocol.h"

#include <fstream>
#include <iostream>

using namespace ns3;
using namespace ns3::fastpathexamples;

NS_LOG_COMPONENT_DEFINE("FastPathHosts");

int
main(int argc, char* argv[])
{
    double duration = 30;
    double pingAt = 10;
    uint32_t pings = 5;
    OlsrTimers olsrTimers{1, 2};
    std::string report;
    std::string attach;
    std::string attachAddress = "198.18.3.1/24";
    CommandLine cmd(__FILE__);
    cmd.AddValue("attach", "emulated: a real interface of fastpathd's namespace for r1", attach);
    cmd.AddValue("attach-address", "r1's address on --attach, A.B.C.D/LEN", attachAddress);
    cmd.AddValue("duration", "seconds to run", duration);
    cmd.AddValue("ping-at", "simulated: when h1 starts pinging h2 (seconds)", pingAt);
    cmd.AddValue("pings", "simulated: pings h1 sends to h2", pings);
    olsrTimers.AddValues(cmd);
    cmd.AddValue("report", "write key=value results to this file (as they are known)", report);
    cmd.Parse(argc, argv);
    olsrTimers.SetDefaults();

    std::ofstream out;
    if (!report.empty())
    {
        out.open(report);
    }
    auto say = [&out](const std::string& line) {
        std::cout << line << std::endl;
        if (out.is_open())
        {
            out << line << std::endl;
        }
    };

    NodeContainer routers;
    routers.Create(2);
    Names::Add("r1", routers.Get(0));
    Names::Add("r2", routers.Get(1));
    // OLSR for the routers' routes, static routing for the hosts' subnets (connected): OLSR
    // announces them (HNA) but routes only to OLSR nodes itself.
    InternetStackHelper stack;
    stack.SetRoutingHelper(StaticThenOlsr(OlsrHelper()));
    stack.Install(routers);

    FastPathPointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
    p2p.SetChannelAttribute("Delay", StringValue("1ms"));
    Ipv4AddressHelper address("198.18.0.0", "255.255.255.0");
    address.Assign(p2p.Install(routers.Get(0), routers.Get(1)));

    FastPathHostHelper hosts;
    FastPathHostHelper::Host h1 = hosts.Install(routers.Get(0), "h1", "198.18.1.2/24");
    FastPathHostHelper::Host h2 = hosts.Install(routers.Get(1), "h2", "198.18.2.2/24");
    if (!h1.netns.empty())
    {
        say("netns_h1=" + h1.netns);
        say("netns_h2=" + h2.netns);
        std::cout << "real hosts: ip netns exec " << h1.netns << " ping 198.18.2.2" << std::endl;
    }

    if (!attach.empty() && !h1.netns.empty())
    {
        // The same FastPathHelper the emulation attached r1 with (one connection per node).
        const std::string fpNode = FastPathEmulation::Get("hosts").NodeOf(routers.Get(0));
        NetDeviceContainer d =
            FastPathEmulation::Get("hosts").Attach().Install(routers.Get(0), fpNode, {attach});
        Ptr<Ipv4> ipv4 = routers.Get(0)->GetObject<Ipv4>();
        const auto slash = attachAddress.find('/');
        const Ipv4Address a(attachAddress.substr(0, slash).c_str());
        const Ipv4Mask m(("/" + attachAddress.substr(slash + 1)).c_str());
        const int32_t i = ipv4->AddInterface(d.Get(0));
        ipv4->AddAddress(i, Ipv4InterfaceAddress(a, m));
        ipv4->SetUp(i);
        Ptr<Ipv4ListRouting> routing = DynamicCast<Ipv4ListRouting>(ipv4->GetRoutingProtocol());
        for (uint32_t k = 0; k < routing->GetNRoutingProtocols(); ++k)
        {
            int16_t priority;
            if (auto o = DynamicCast<olsr::RoutingProtocol>(routing->GetRoutingProtocol(k, priority)))
            {
                o->AddHostNetworkAssociation(a.CombineMask(m), m);
            }
        }
        say("attached=" + attach);
    }

    std::vector<double> rtts;
    if (h1.node)
    {
        InstallPing(h1.node, h2.address, pingAt, pingAt + 0.2 * pings - 0.1, &rtts);
    }

    // When r1 first has a route to h2 (OLSR converged, h2's subnet announced by r2).
    WhenTrue(
        MilliSeconds(50),
        [&]() { return HasRoute(routers.Get(0), h2.address); },
        [&](double t) { say("converged=" + std::to_string(t)); });

    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    if (h1.node)
    {
        say("ping_replies=" + std::to_string(rtts.size()));
    }
    say("stopped_at=" + std::to_string(Simulator::Now().GetSeconds()));
    Simulator::Destroy();
    say("destroyed=1");
    return 0;
}
