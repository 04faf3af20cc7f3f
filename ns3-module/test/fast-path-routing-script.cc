// SPDX-License-Identifier: GPL-2.0-only
//
// The topology of ns-3's examples/routing/simple-global-routing.cc, built with
// FastPathPointToPointHelper, for fast-path-routing-veth-test: the same script runs
// simulated (--FastPathEmulation=0) and emulated (=1), with the routing chosen by
// --routing, and writes the routing tables ns-3 built (Ipv4RoutingHelper's printout) and
// FlowMonitor's numbers, for the test to compare.
//
//   n0 ──5 Mbit/s 2 ms── n2 ──1.5 Mbit/s 10 ms── n3      10.1.1.0/24 n0-n2
//                         │                              10.1.2.0/24 n1-n2
//   n1 ──5 Mbit/s 2 ms────┘                              10.1.3.0/24 n3-n2
//
// Two OnOff UDP flows (210-byte datagrams at 448 kbit/s): n0 -> n3 and n3 -> n1.
// --routing: global (Ipv4GlobalRoutingHelper::PopulateRoutingTables, as the example),
// recompute (populated, then RecomputeRoutingTables after n3's link to n2 had its
// interface metric raised), nix (Ipv4NixVectorHelper), static (Ipv4ListRoutingHelper: a
// static routing at priority 10 with the flows' host routes from Ipv4StaticRoutingHelper,
// global routing at 0 for the rest). --plain-link adds a link of a plain PointToPointHelper,
// which an emulated run refuses at start.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/fast-path-point-to-point-helper.h"
#include "ns3/flow-monitor-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/nix-vector-helper.h"
#include "ns3/point-to-point-module.h"

#include <fstream>

using namespace ns3;

namespace
{

/// A host route to `dest` via `gateway` on interface `iface` of `node`'s static routing.
void
AddHostRoute(Ptr<Node> node, Ipv4Address dest, Ipv4Address gateway, uint32_t iface)
{
    Ipv4StaticRoutingHelper helper;
    Ptr<Ipv4StaticRouting> s = helper.GetStaticRouting(node->GetObject<Ipv4>());
    s->AddHostRouteTo(dest, gateway, iface);
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string routing = "global";
    std::string report;
    std::string tables;
    double trafficStop = 4;
    bool plainLink = false;
    CommandLine cmd(__FILE__);
    cmd.AddValue("routing", "global, recompute, nix or static", routing);
    cmd.AddValue("report", "write key=value results to this file", report);
    cmd.AddValue("tables", "write the routing tables to this file", tables);
    cmd.AddValue("plain-link", "also join n0 and n1 with a plain PointToPointHelper", plainLink);
    cmd.AddValue("traffic-stop", "the flows stop then (they start at 1 s and 1.1 s)", trafficStop);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(routing != "global" && routing != "recompute" && routing != "nix" &&
                        routing != "static",
                    "--routing: global, recompute, nix or static");

    Config::SetDefault("ns3::OnOffApplication::PacketSize", UintegerValue(210));
    Config::SetDefault("ns3::OnOffApplication::DataRate", StringValue("448kb/s"));

    NodeContainer c;
    c.Create(4);
    InternetStackHelper internet;
    Ipv4NixVectorHelper nix;
    Ipv4StaticRoutingHelper staticRouting;
    Ipv4GlobalRoutingHelper globalRouting;
    Ipv4ListRoutingHelper list;
    if (routing == "nix")
    {
        internet.SetRoutingHelper(nix);
    }
    else if (routing == "static")
    {
        list.Add(staticRouting, 10);
        list.Add(globalRouting, 0);
        internet.SetRoutingHelper(list);
    }
    internet.Install(c);

    FastPathPointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("5Mbps"));
    p2p.SetChannelAttribute("Delay", StringValue("2ms"));
    NetDeviceContainer d0d2 = p2p.Install(NodeContainer(c.Get(0), c.Get(2)));
    NetDeviceContainer d1d2 = p2p.Install(NodeContainer(c.Get(1), c.Get(2)));
    p2p.SetDeviceAttribute("DataRate", StringValue("1500kbps"));
    p2p.SetChannelAttribute("Delay", StringValue("10ms"));
    NetDeviceContainer d3d2 = p2p.Install(NodeContainer(c.Get(3), c.Get(2)));

    if (plainLink)
    {
        PointToPointHelper().Install(c.Get(0), c.Get(1));
    }

    Ipv4AddressHelper ipv4;
    ipv4.SetBase("10.1.1.0", "255.255.255.0");
    Ipv4InterfaceContainer i0i2 = ipv4.Assign(d0d2);
    ipv4.SetBase("10.1.2.0", "255.255.255.0");
    Ipv4InterfaceContainer i1i2 = ipv4.Assign(d1d2);
    ipv4.SetBase("10.1.3.0", "255.255.255.0");
    Ipv4InterfaceContainer i3i2 = ipv4.Assign(d3d2);

    if (routing != "nix")
    {
        Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    }
    if (routing == "static")
    {
        // The flows' destinations by host routes, which win over global routing's.
        AddHostRoute(c.Get(0), i3i2.GetAddress(0), i0i2.GetAddress(1), 1);
        AddHostRoute(c.Get(3), i1i2.GetAddress(0), i3i2.GetAddress(1), 1);
    }
    if (routing == "recompute")
    {
        // n3's link costs more: the recomputed tables carry the new metric.
        Simulator::Schedule(Seconds(0.5), []() {
            Ptr<Node> n3 = NodeList::GetNode(3);
            n3->GetObject<Ipv4>()->SetMetric(1, 5);
            NodeList::GetNode(2)->GetObject<Ipv4>()->SetMetric(3, 5);
            Ipv4GlobalRoutingHelper::RecomputeRoutingTables();
        });
    }

    uint16_t port = 9;
    OnOffHelper onoff("ns3::UdpSocketFactory", Address(InetSocketAddress(i3i2.GetAddress(0), port)));
    onoff.SetConstantRate(DataRate("448kb/s"));
    ApplicationContainer apps = onoff.Install(c.Get(0));
    apps.Start(Seconds(1.0));
    apps.Stop(Seconds(trafficStop));
    PacketSinkHelper sink("ns3::UdpSocketFactory",
                          Address(InetSocketAddress(Ipv4Address::GetAny(), port)));
    apps = sink.Install(c.Get(3));
    apps.Start(Seconds(1.0));
    onoff.SetAttribute("Remote", AddressValue(InetSocketAddress(i1i2.GetAddress(0), port)));
    apps = onoff.Install(c.Get(3));
    apps.Start(Seconds(1.1));
    apps.Stop(Seconds(trafficStop));
    apps = sink.Install(c.Get(1));
    apps.Start(Seconds(1.1));

    Ptr<OutputStreamWrapper> out;
    if (!tables.empty())
    {
        out = Create<OutputStreamWrapper>(tables, std::ios::out);
        // Before the traffic, and at its end (Nix-vector routing builds its cache then).
        Ipv4RoutingHelper::PrintRoutingTableAllAt(Seconds(0.9), out);
        Ipv4RoutingHelper::PrintRoutingTableAllAt(Seconds(trafficStop), out);
    }

    FlowMonitorHelper flowmonHelper;
    Ptr<FlowMonitor> monitor = flowmonHelper.InstallAll();

    Simulator::Stop(Seconds(trafficStop + 1));
    Simulator::Run();

    monitor->CheckForLostPackets();
    auto classifier = DynamicCast<Ipv4FlowClassifier>(flowmonHelper.GetClassifier());
    std::ofstream r(report.empty() ? "/dev/null" : report);
    uint64_t sent = 0, received = 0;
    r << "emulated=" << (FastPathPointToPointHelper::IsEmulated() ? 1 : 0) << "\n";
    for (const auto& [id, st] : monitor->GetFlowStats())
    {
        Ipv4FlowClassifier::FiveTuple t = classifier->FindFlow(id);
        const std::string k = "flow." + std::to_string(id) + ".";
        r << k << "src=" << t.sourceAddress << "\n" << k << "dst=" << t.destinationAddress << "\n";
        r << k << "tx_packets=" << st.txPackets << "\n" << k << "rx_packets=" << st.rxPackets << "\n";
        r << k << "rx_bytes=" << st.rxBytes << "\n";
        r << k << "mean_delay_ms="
          << (st.rxPackets ? st.delaySum.GetSeconds() * 1000 / st.rxPackets : 0) << "\n";
        sent += st.txPackets;
        received += st.rxPackets;
        std::cout << "flow " << id << " " << t.sourceAddress << " -> " << t.destinationAddress
                  << ": " << st.rxPackets << "/" << st.txPackets << " packets, mean delay "
                  << (st.rxPackets ? st.delaySum.GetSeconds() * 1000 / st.rxPackets : 0)
                  << " ms" << std::endl;
    }
    r << "flows=" << monitor->GetFlowStats().size() << "\n";
    r << "udp_sent=" << sent << "\nudp_received=" << received << "\n";
    r.close();
    Simulator::Destroy();
    return 0;
}
