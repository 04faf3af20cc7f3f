// SPDX-License-Identifier: GPL-2.0-only
//
// rip-router: an ns-3 RIP router whose data plane is fastpathd. Its neighbours can be
// real RIP daemons (bird2 in demo/rip.sh): routes learned from them are installed in
// fastpathd by resolve-on-miss (ns-3's Rip does not expose its table).
//
//   rip-router --ports=r0,r1 --addresses=198.18.1.1/24,198.18.2.1/24 --duration=60
#include "example-common.h"

#include "ns3/core-module.h"
#include "ns3/fast-path-helper.h"
#include "ns3/fd-net-device-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/rip-helper.h"

using namespace ns3;
using namespace ns3::fastpathexamples;

int
main(int argc, char* argv[])
{
    RouterOptions o;
    double update = 2;
    CommandLine cmd(__FILE__);
    AddRouterOptions(cmd,
                     o,
                     "router (fast path) or plain (ns-3 emulation baseline)",
                     "interfaces for AF_PACKET devices (plain)");
    cmd.AddValue("update", "RIP unsolicited update interval in seconds", update);
    cmd.Parse(argc, argv);
    CheckRouterOptions("rip-router", o, "plain");
    Config::SetDefault("ns3::Rip::UnsolicitedRoutingUpdate", TimeValue(Seconds(update)));
    Config::SetDefault("ns3::Rip::StartupDelay", TimeValue(MilliSeconds(100)));
    Config::SetDefault("ns3::Rip::MinTriggeredCooldown", TimeValue(MilliSeconds(100)));
    Config::SetDefault("ns3::Rip::MaxTriggeredCooldown", TimeValue(MilliSeconds(500)));

    Ptr<Node> node = CreateObject<Node>();
    Names::Add("R", node);
    FastPathHelper fastPath;
    NetDeviceContainer devices = InstallRouterDevices("rip-router", o, fastPath, node);

    RipHelper rip;
    Ipv4StaticRoutingHelper staticRouting;
    Ipv4ListRoutingHelper list;
    list.Add(rip, 0);
    list.Add(staticRouting, -10); // connected routes, mirrored exactly
    InternetStackHelper stack;
    stack.SetRoutingHelper(list);
    stack.Install(node);
    AssignAddresses("rip-router", node, devices, Split(o.addresses));

    Simulator::Schedule(Seconds(o.duration > 0 ? o.duration - 0.01 : 1e9), [node]() {
        node->GetObject<Ipv4>()->GetRoutingProtocol()->PrintRoutingTable(
            Create<OutputStreamWrapper>(&std::cout));
    });
    RunAndReport("rip-router", o, fastPath, node);
    return 0;
}
