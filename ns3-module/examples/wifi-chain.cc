// SPDX-License-Identifier: GPL-2.0-only
//
// wifi-chain: five ad hoc Wi-Fi nodes running AODV, a UDP flow from n0 to n3, and a relay
// that walks out of range. A plain ns-3 WifiHelper script; two lines make it
// FastPathWifiHelper's (marked "fast path"), so the same script runs
//
//   simulated (ns-3's WifiNetDevice, YansWifiChannel):  wifi-chain
//   emulated (a fastpathd radio medium):                 wifi-chain --FastPathEmulation=1
//
//   n0 (0,0) ── n1 (100,0) ── n2 (200,0) ── n3 (300,0)        range 150 m (Range loss)
//                        n4 starts at (200,400), out of everyone's range
//
// At --join-at n4 moves to (200,90), in range of n1 and n3 (134.5 m) and not of n0; at
// --leave-at n2 moves away to (200,-1000). n0's route to n3 then breaks at n1 (its unicast
// frames to n2 are no longer acknowledged: AODV's link-layer breakage detection) and AODV
// finds the way through n4. Positions change by SetPosition (CourseChange).
//
// --report=FILE writes key=value lines: udp_sent, udp_received, received_before (before
// --leave-at), received_after (after it), first_after_s (the first datagram received after
// it, seconds after it), n1_via_n4 (1 when n1's route to n3 goes through n4 at the end).
#include "ns3/aodv-helper.h"
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/fast-path-emulation.h"
#include "ns3/fast-path-wifi-helper.h" // fast path
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/wifi-module.h"

#include <fstream>
#include <iostream>
#include <sstream>

using namespace ns3;

namespace
{

struct Counts
{
    uint64_t before = 0;
    uint64_t after = 0;
    double firstAfter = -1;
    double leaveAt = 0;
};

void
Received(Counts* c, Ptr<const Packet>, const Address&)
{
    const double now = Simulator::Now().GetSeconds();
    if (now < c->leaveAt)
    {
        ++c->before;
        return;
    }
    ++c->after;
    if (c->firstAfter < 0)
    {
        c->firstAfter = now - c->leaveAt;
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    double joinAt = 4;
    double leaveAt = 10;
    double duration = 20;
    double trafficStart = 2;
    uint32_t rate = 20; // datagrams per second
    std::string report;
    CommandLine cmd(__FILE__);
    cmd.AddValue("join-at", "when n4 moves into range of n1 and n3 (s)", joinAt);
    cmd.AddValue("leave-at", "when n2 walks away (s)", leaveAt);
    cmd.AddValue("duration", "simulation time (s)", duration);
    cmd.AddValue("traffic-start", "when the UDP flow n0 -> n3 starts (s)", trafficStart);
    cmd.AddValue("rate", "UDP datagrams per second", rate);
    cmd.AddValue("report", "write key=value results to this file", report);
    cmd.Parse(argc, argv);

    NodeContainer nodes;
    nodes.Create(5);
    MobilityHelper mobility;
    Ptr<ListPositionAllocator> at = CreateObject<ListPositionAllocator>();
    for (Vector v : {Vector(0, 0, 0),
                     Vector(100, 0, 0),
                     Vector(200, 0, 0),
                     Vector(300, 0, 0),
                     Vector(200, 400, 0)})
    {
        at->Add(v);
    }
    mobility.SetPositionAllocator(at);
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mobility.Install(nodes);

    FastPathWifiHelper wifi; // fast path (was: WifiHelper wifi;)
    wifi.SetStandard(WIFI_STANDARD_80211b);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode",
                                 StringValue("DsssRate11Mbps"),
                                 "ControlMode",
                                 StringValue("DsssRate1Mbps"));
    YansWifiChannelHelper channel;
    channel.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel");
    channel.AddPropagationLoss("ns3::RangePropagationLossModel", "MaxRange", DoubleValue(150));
    YansWifiPhyHelper phy;
    phy.SetChannel(channel.Create());
    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac");
    NetDeviceContainer devices = wifi.Install(phy, mac, nodes);

    InternetStackHelper internet;
    internet.SetRoutingHelper(AodvHelper());
    internet.Install(nodes);
    Ipv4AddressHelper addresses;
    addresses.SetBase("198.18.0.0", "255.255.255.0");
    Ipv4InterfaceContainer ifs = addresses.Assign(devices);

    PacketSinkHelper sink("ns3::UdpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 9));
    ApplicationContainer sinks = sink.Install(nodes.Get(3));
    Counts counts;
    counts.leaveAt = leaveAt;
    sinks.Get(0)->TraceConnectWithoutContext("Rx", MakeBoundCallback(&Received, &counts));
    OnOffHelper onoff("ns3::UdpSocketFactory", InetSocketAddress(ifs.GetAddress(3), 9));
    onoff.SetConstantRate(DataRate(rate * 200 * 8), 200);
    ApplicationContainer source = onoff.Install(nodes.Get(0));
    source.Start(Seconds(trafficStart));
    source.Stop(Seconds(duration - 0.5));

    Simulator::Schedule(Seconds(joinAt), [&nodes]() {
        nodes.Get(4)->GetObject<MobilityModel>()->SetPosition(Vector(200, 90, 0));
    });
    Simulator::Schedule(Seconds(leaveAt), [&nodes]() {
        nodes.Get(2)->GetObject<MobilityModel>()->SetPosition(Vector(200, -1000, 0));
    });
    bool viaN4 = false;
    Simulator::Schedule(Seconds(duration - 0.1), [&]() {
        // n1's route to n3 as its routing protocol gives it for a new packet now.
        Ptr<Ipv4> ipv4 = nodes.Get(1)->GetObject<Ipv4>();
        Ipv4Header h;
        h.SetDestination(ifs.GetAddress(3));
        h.SetSource(ifs.GetAddress(1));
        Socket::SocketErrno err;
        Ptr<Packet> p = Create<Packet>(10);
        Ptr<Ipv4Route> r = ipv4->GetRoutingProtocol()->RouteOutput(p, h, nullptr, err);
        viaN4 = r && r->GetGateway() == ifs.GetAddress(4);
    });
    Simulator::Stop(Seconds(duration));
    Simulator::Run();

    const uint64_t received = DynamicCast<PacketSink>(sinks.Get(0))->GetTotalRx() / 200;
    const auto sent = static_cast<uint64_t>((duration - 0.5 - trafficStart) * rate);
    std::ostringstream out;
    out << "emulated=" << (FastPathEmulation::IsEnabled() ? 1 : 0) << "\n"
        << "udp_sent=" << sent << "\n"
        << "udp_received=" << received << "\n"
        << "received_before=" << counts.before << "\n"
        << "received_after=" << counts.after << "\n"
        << "first_after_s=" << counts.firstAfter << "\n"
        << "n1_via_n4=" << (viaN4 ? 1 : 0) << "\n";
    std::cout << out.str();
    if (!report.empty())
    {
        std::ofstream(report) << out.str();
    }
    Simulator::Destroy();
    return 0;
}
