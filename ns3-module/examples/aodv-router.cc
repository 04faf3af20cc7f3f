// SPDX-License-Identifier: GPL-2.0-only
//
// aodv-router: a reactive protocol on the fast path. ns-3 AODV runs on the router; the
// first packets of a flow are punted by fastpathd (no route), trigger AODV's route
// discovery in ns-3 and are forwarded by ns-3; resolve-on-miss then installs AODV's
// decision in fastpathd, which carries the rest. Entries are re-checked every
// --revalidate seconds (a check keeps AODV's route active while fastpathd uses it).
//
//   aodv-router --ports=r0,r1 --addresses=198.18.1.1/24,198.18.2.1/24 --duration=60
//
// --role=peer runs an AODV neighbour as plain emulation on a host interface, sharing the
// host's address and MAC (it only sees ARP and AODV, never the host's data), so the host
// becomes an AODV node for the router (demo/aodv.sh).
#include "example-common.h"

#include "ns3/aodv-helper.h"
#include "ns3/core-module.h"
#include "ns3/fast-path-helper.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"

using namespace ns3;
using namespace ns3::fastpathexamples;

int
main(int argc, char* argv[])
{
    RouterOptions o;
    CommandLine cmd(__FILE__);
    AddRouterOptions(cmd,
                     o,
                     "router (fast path) or peer (plain emulation neighbour)",
                     "interfaces for AF_PACKET devices (peer)");
    cmd.Parse(argc, argv);
    CheckRouterOptions("aodv-router", o, "peer");

    Ptr<Node> node = CreateObject<Node>();
    Names::Add(o.role == "router" ? "R" : "peer", node);
    FastPathHelper fastPath;
    NetDeviceContainer devices = InstallRouterDevices("aodv-router", o, fastPath, node, 654);

    AodvHelper aodv;
    InternetStackHelper stack;
    stack.SetRoutingHelper(aodv);
    stack.Install(node);
    AssignAddresses("aodv-router", node, devices, Split(o.addresses));
    if (o.role == "peer")
    {
        // The host's kernel owns the data on this interface: never forward its frames.
        Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
        for (uint32_t i = 1; i < ipv4->GetNInterfaces(); ++i)
        {
            ipv4->SetForwarding(i, false);
        }
    }

    RunAndReport("aodv-router", o, fastPath, node);
    return 0;
}
