// SPDX-License-Identifier: GPL-2.0-only
//
// fast-path-csma-timing-script: three nodes on one CSMA segment (100 Mbit/s, 0.5 ms; the
// medium stays busy for the delay, as ns-3's CsmaChannel does, and the flows never meet on
// it), a UDP flow each way between nodes 0 and 2 (100-byte packets every 5 ms; node 1
// hears only the broadcasts), every packet's one-way delay in simulator time against the
// segment model's: the delay plus the serialization of the Ethernet frame with its FCS.
// The first four packets of each flow also wait for ARP (its request jitter is up to
// 10 ms) and are counted apart (warmup). Emulated, each frame must arrive at exactly its
// model time or be counted late by the receiving FastPathNetDevice (its timed channel).
//
// --report=FILE writes key=value lines (fast-path-timing-tally.h).
#include "fast-path-timing-tally.h"

#include "ns3/applications-module.h"
#include "ns3/fast-path-csma-helper.h"
#include "ns3/internet-module.h"

using namespace ns3;

namespace
{

constexpr uint32_t kPacketBytes = 100;
constexpr uint64_t kRateBps = 100000000;
constexpr int64_t kDelayNs = 500000;
// The Ethernet frame (14 + 20 + 8 + payload, above the 60-byte minimum) and its FCS.
constexpr uint64_t kFrameBits = (14 + 20 + 8 + kPacketBytes + 4) * 8;

fastpath_ns3_test::TimingTally g_tally(kDelayNs + int64_t(kFrameBits * 1000000000 / kRateBps),
                                       4);

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
    uint32_t packets = 300;
    CommandLine cmd(__FILE__);
    cmd.AddValue("report", "write key=value results to this file", report);
    cmd.AddValue("packets", "packets each way", packets);
    cmd.Parse(argc, argv);

    NodeContainer nodes;
    nodes.Create(3);
    InternetStackHelper stack;
    stack.Install(nodes);
    FastPathCsmaHelper csma;
    csma.SetChannelAttribute("DataRate", DataRateValue(DataRate(kRateBps)));
    csma.SetChannelAttribute("Delay", TimeValue(NanoSeconds(kDelayNs)));
    NetDeviceContainer devices = csma.Install(nodes);
    Ipv4AddressHelper address;
    address.SetBase("10.1.1.0", "255.255.255.0");
    Ipv4InterfaceContainer ifs = address.Assign(devices);

    uint32_t sent = 0;
    const uint32_t ends[2] = {0, 2};
    for (uint32_t k = 0; k < 2; ++k)
    {
        UdpServerHelper server(9);
        ApplicationContainer s = server.Install(nodes.Get(ends[1 - k]));
        s.Start(Seconds(0.5));
        s.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&Received));
        UdpClientHelper client(ifs.GetAddress(ends[1 - k]), 9);
        client.SetAttribute("MaxPackets", UintegerValue(packets));
        client.SetAttribute("Interval", TimeValue(MilliSeconds(5)));
        client.SetAttribute("PacketSize", UintegerValue(kPacketBytes));
        ApplicationContainer c = client.Install(nodes.Get(ends[k]));
        c.Start(Seconds(1 + 0.0013 * k));
        sent += packets;
    }
    Simulator::Stop(Seconds(1.5 + packets * 0.005));
    Simulator::Run();
    g_tally.Report(devices, FastPathCsmaHelper::IsEmulated(), sent, report);
    Simulator::Destroy();
    return 0;
}
