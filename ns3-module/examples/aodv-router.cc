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
// becomes an AODV node for the router (run-aodv-demo.sh).
#include "emu-devices.h"
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
    std::string role = "router";
    std::string interfaces;
    std::string socketPath = "/run/fastpathd/fastpathd.sock";
    std::string ports = "r0,r1";
    std::string addresses = "198.18.1.1/24,198.18.2.1/24";
    std::string report;
    double duration = 60;
    double revalidate = 1;

    CommandLine cmd(__FILE__);
    cmd.AddValue("role", "router (fast path) or peer (plain emulation neighbour)", role);
    cmd.AddValue("interfaces", "interfaces for AF_PACKET devices (peer)", interfaces);
    cmd.AddValue("socket", "fastpathd's control socket", socketPath);
    cmd.AddValue("ports", "fastpathd port names, one ns-3 device each", ports);
    cmd.AddValue("addresses", "one address/len per port, in order", addresses);
    cmd.AddValue("duration", "seconds to run (0: until SIGINT/SIGTERM)", duration);
    cmd.AddValue("revalidate", "seconds between re-checks of resolve-on-miss routes",
                 revalidate);
    cmd.AddValue("report", "write key=value statistics to this file at exit", report);
    cmd.Parse(argc, argv);
    if (role == "router")
    {
        CheckFastPathd("aodv-router", socketPath);
    }
    else if (role != "peer" || Split(interfaces).empty())
    {
        Fail("aodv-router", "--role must be router, or peer with --interfaces");
    }

    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::RealtimeSimulatorImpl"));
    GlobalValue::Bind("ChecksumEnabled", BooleanValue(true));

    Ptr<Node> node = CreateObject<Node>();
    Names::Add(role == "router" ? "R" : "peer", node);

    FastPathHelper fastPath;
    NetDeviceContainer devices;
    if (role == "router")
    {
        fastPath.SetSocketPath(socketPath);
        fastPath.SetMirrorAttribute("RevalidateInterval", TimeValue(Seconds(revalidate)));
        devices = fastPath.Install(node, Split(ports));
    }
    else
    {
        devices = InstallEmulationDevices("aodv-router", node, Split(interfaces), 654);
    }

    AodvHelper aodv;
    InternetStackHelper stack;
    stack.SetRoutingHelper(aodv);
    stack.Install(node);
    AssignAddresses("aodv-router", node, devices, Split(addresses));
    if (role == "peer")
    {
        // The host's kernel owns the data on this interface: never forward its frames.
        Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
        for (uint32_t i = 1; i < ipv4->GetNInterfaces(); ++i)
        {
            ipv4->SetForwarding(i, false);
        }
    }

    StopOnSignals();
    if (duration > 0)
    {
        Simulator::Stop(Seconds(duration));
    }
    std::cout << "aodv-router: running" << std::endl;
    Simulator::Run();
    WriteReport(report, FastPathReport(fastPath, node));
    Simulator::Destroy();
    return 0;
}
