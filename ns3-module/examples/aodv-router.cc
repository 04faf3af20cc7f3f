// SPDX-License-Identifier: GPL-2.0-only
//
// aodv-router: a reactive protocol on the fast path. ns-3 AODV runs on the router; the
// first packets of a flow are punted by fastpathd (no route), trigger AODV's route
// discovery in ns-3 and are forwarded by ns-3; resolve-on-miss then installs AODV's
// decision in fastpathd, which carries the rest. Entries are re-checked every
// --revalidate seconds (a check keeps AODV's route active while fastpathd uses it).
//
//   aodv-router --ports=r0,r1 --addresses=198.18.1.1/24,198.18.2.1/24 --duration=60
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
    std::string socketPath = "/run/fastpathd/fastpathd.sock";
    std::string ports = "r0,r1";
    std::string addresses = "198.18.1.1/24,198.18.2.1/24";
    std::string report;
    double duration = 60;
    double revalidate = 1;

    CommandLine cmd(__FILE__);
    cmd.AddValue("socket", "fastpathd's control socket", socketPath);
    cmd.AddValue("ports", "fastpathd port names, one ns-3 device each", ports);
    cmd.AddValue("addresses", "one address/len per port, in order", addresses);
    cmd.AddValue("duration", "seconds to run (0: until SIGINT/SIGTERM)", duration);
    cmd.AddValue("revalidate", "seconds between re-checks of resolve-on-miss routes",
                 revalidate);
    cmd.AddValue("report", "write key=value statistics to this file at exit", report);
    cmd.Parse(argc, argv);
    CheckFastPathd("aodv-router", socketPath);

    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::RealtimeSimulatorImpl"));
    GlobalValue::Bind("ChecksumEnabled", BooleanValue(true));

    Ptr<Node> node = CreateObject<Node>();
    Names::Add("R", node);

    FastPathHelper fastPath;
    fastPath.SetSocketPath(socketPath);
    fastPath.SetMirrorAttribute("RevalidateInterval", TimeValue(Seconds(revalidate)));
    NetDeviceContainer devices = fastPath.Install(node, Split(ports));

    AodvHelper aodv;
    InternetStackHelper stack;
    stack.SetRoutingHelper(aodv);
    stack.Install(node);
    AssignAddresses("aodv-router", node, devices, Split(addresses));

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
