// SPDX-License-Identifier: GPL-2.0-only
//
// rip-router: an ns-3 RIP router whose data plane is fastpathd. Its neighbours can be
// real RIP daemons (bird2 in run-rip-demo.sh): routes learned from them are installed in
// fastpathd by resolve-on-miss (ns-3's Rip does not expose its table).
//
//   rip-router --ports=r0,r1 --addresses=198.18.1.1/24,198.18.2.1/24 --duration=60
#include "emu-devices.h"
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
    std::string role = "router";
    std::string interfaces;
    std::string socketPath = "/run/fastpathd/fastpathd.sock";
    std::string ports = "r0,r1";
    std::string addresses = "198.18.1.1/24,198.18.2.1/24";
    std::string report;
    double duration = 60;
    double update = 2;
    double revalidate = 1;

    CommandLine cmd(__FILE__);
    cmd.AddValue("role", "router (fast path) or plain (ns-3 emulation baseline)", role);
    cmd.AddValue("interfaces", "interfaces for AF_PACKET devices (plain)", interfaces);
    cmd.AddValue("socket", "fastpathd's control socket", socketPath);
    cmd.AddValue("ports", "fastpathd port names, one ns-3 device each", ports);
    cmd.AddValue("addresses", "one address/len per port, in order", addresses);
    cmd.AddValue("duration", "seconds to run (0: until SIGINT/SIGTERM)", duration);
    cmd.AddValue("update", "RIP unsolicited update interval in seconds", update);
    cmd.AddValue("revalidate", "seconds between re-checks of resolve-on-miss routes",
                 revalidate);
    cmd.AddValue("report", "write key=value statistics to this file at exit", report);
    cmd.Parse(argc, argv);
    if (role == "router")
    {
        CheckFastPathd("rip-router", socketPath);
    }
    else if (role != "plain" || Split(interfaces).empty())
    {
        Fail("rip-router", "--role must be router, or plain with --interfaces");
    }

    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::RealtimeSimulatorImpl"));
    GlobalValue::Bind("ChecksumEnabled", BooleanValue(true));
    Config::SetDefault("ns3::Rip::UnsolicitedRoutingUpdate", TimeValue(Seconds(update)));
    Config::SetDefault("ns3::Rip::StartupDelay", TimeValue(MilliSeconds(100)));
    Config::SetDefault("ns3::Rip::MinTriggeredCooldown", TimeValue(MilliSeconds(100)));
    Config::SetDefault("ns3::Rip::MaxTriggeredCooldown", TimeValue(MilliSeconds(500)));

    Ptr<Node> node = CreateObject<Node>();
    Names::Add("R", node);

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
        devices = InstallEmulationDevices("rip-router", node, Split(interfaces));
    }

    RipHelper rip;
    Ipv4StaticRoutingHelper staticRouting;
    Ipv4ListRoutingHelper list;
    list.Add(rip, 0);
    list.Add(staticRouting, -10); // connected routes, mirrored exactly
    InternetStackHelper stack;
    stack.SetRoutingHelper(list);
    stack.Install(node);
    AssignAddresses("rip-router", node, devices, Split(addresses));

    StopOnSignals();
    if (duration > 0)
    {
        Simulator::Stop(Seconds(duration));
    }
    std::cout << "rip-router: running" << std::endl;
    Simulator::Schedule(Seconds(duration > 0 ? duration - 0.01 : 1e9), [node]() {
        node->GetObject<Ipv4>()->GetRoutingProtocol()->PrintRoutingTable(
            Create<OutputStreamWrapper>(&std::cout));
    });
    Simulator::Run();
    WriteReport(report, FastPathReport(fastPath, node));
    Simulator::Destroy();
    return 0;
}
