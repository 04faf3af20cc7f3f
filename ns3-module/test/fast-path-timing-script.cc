// SPDX-License-Identifier: GPL-2.0-only
//
// fast-path-timing-script: two nodes on one point-to-point link (10 Gbit/s, 2 ms), a UDP
// flow each way (100-byte packets every 5 ms), every packet's one-way delay in simulator
// time (server Rx time minus the client's SeqTs stamp) against the link model's (the delay
// plus fastpathd's serialization of the Ethernet frame and the link's 2 bytes). Emulated,
// each frame must arrive at exactly its model time or be counted late by the receiving
// FastPathNetDevice (its timed channel).
//
// --report=FILE writes key=value lines (fast-path-timing-tally.h).
#include "fast-path-timing-tally.h"

#include "ns3/applications-module.h"
#include "ns3/fast-path-point-to-point-helper.h"
#include "ns3/internet-module.h"

using namespace ns3;

namespace
{

constexpr uint32_t kPacketBytes = 100;
constexpr double kRateBps = 10e9;
constexpr int64_t kDelayNs = 2000000;
// fastpathd's link: the Ethernet frame (14 + 20 + 8 + payload) plus 2 bytes, at the rate.
constexpr double kFrameBits = (14 + 20 + 8 + kPacketBytes + 2) * 8.0;

// A point-to-point device needs no address resolution: no packet is counted apart.
fastpath_ns3_test::TimingTally g_tally(kDelayNs + int64_t(kFrameBits / kRateBps * 1e9), 0);

void
Received(Ptr<const Packet> packet)
{
    g_tally.Received(packet);
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string report;
    uint32_t packets = 400;
    CommandLine cmd(__FILE__);
    cmd.AddValue("report", "write key=value results to this file", report);
    cmd.AddValue("packets", "packets each way", packets);
    cmd.Parse(argc, argv);

    NodeContainer nodes;
    nodes.Create(2);
    InternetStackHelper stack;
    stack.Install(nodes);
    FastPathPointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(kRateBps))));
    p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(kDelayNs)));
    NetDeviceContainer devices = p2p.Install(nodes);
    Ipv4AddressHelper address;
    address.SetBase("10.1.1.0", "255.255.255.0");
    Ipv4InterfaceContainer ifs = address.Assign(devices);

    uint32_t sent = 0;
    for (uint32_t k = 0; k < 2; ++k)
    {
        UdpServerHelper server(9);
        ApplicationContainer s = server.Install(nodes.Get(1 - k));
        s.Start(Seconds(0.5));
        s.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&Received));
        UdpClientHelper client(ifs.GetAddress(1 - k), 9);
        client.SetAttribute("MaxPackets", UintegerValue(packets));
        client.SetAttribute("Interval", TimeValue(MilliSeconds(5)));
        client.SetAttribute("PacketSize", UintegerValue(kPacketBytes));
        ApplicationContainer c = client.Install(nodes.Get(k));
        c.Start(Seconds(1 + 0.0013 * k));
        sent += packets;
    }
    Simulator::Stop(Seconds(1.5 + packets * 0.005));
    Simulator::Run();
    g_tally.Report(devices, FastPathPointToPointHelper::IsEmulated(), sent, report);
    Simulator::Destroy();
    return 0;
}
