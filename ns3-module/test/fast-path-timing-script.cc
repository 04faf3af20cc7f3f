// SPDX-License-Identifier: GPL-2.0-only
//
// fast-path-timing-script: a UDP flow each way (100-byte packets every 5 ms) between two
// nodes, every packet's one-way delay in simulator time (server Rx time minus the client's
// SeqTs stamp) against the channel model's. Emulated, each frame must arrive at exactly its
// model time or be counted late by the receiving FastPathNetDevice (its timed channel).
//
// --channel=p2p (default): two nodes on one point-to-point link (10 Gbit/s, 2 ms); the model
//   delay is the link's plus fastpathd's serialization of the Ethernet frame and the link's
//   2 bytes. A point-to-point device needs no address resolution: no packet is counted apart.
// --channel=csma: three nodes on one CSMA segment (100 Mbit/s, 0.5 ms; the medium stays busy
//   for the delay, as ns-3's CsmaChannel does, and the flows never meet on it), the flows
//   between nodes 0 and 2 (node 1 hears only the broadcasts); the model delay is the
//   segment's plus the serialization of the Ethernet frame with its FCS. The first four
//   packets of each flow also wait for ARP (its request jitter is up to 10 ms) and are
//   counted apart (warmup).
//
// --report=FILE writes key=value lines (fast-path-timing-tally.h).
#include "fast-path-timing-tally.h"

#include "ns3/applications-module.h"
#include "ns3/fast-path-csma-helper.h"
#include "ns3/fast-path-point-to-point-helper.h"
#include "ns3/internet-module.h"

#include <optional>

using namespace ns3;

namespace
{

constexpr uint32_t kPacketBytes = 100;

namespace p2p
{
constexpr double kRateBps = 10e9;
constexpr int64_t kDelayNs = 2000000;
// fastpathd's link: the Ethernet frame (14 + 20 + 8 + payload) plus 2 bytes, at the rate.
constexpr double kFrameBits = (14 + 20 + 8 + kPacketBytes + 2) * 8.0;
constexpr int64_t kModelNs = kDelayNs + int64_t(kFrameBits / kRateBps * 1e9);
} // namespace p2p

namespace csma
{
constexpr uint64_t kRateBps = 100000000;
constexpr int64_t kDelayNs = 500000;
// The Ethernet frame (14 + 20 + 8 + payload, above the 60-byte minimum) and its FCS.
constexpr uint64_t kFrameBits = (14 + 20 + 8 + kPacketBytes + 4) * 8;
constexpr int64_t kModelNs = kDelayNs + int64_t(kFrameBits * 1000000000 / kRateBps);
} // namespace csma

std::optional<fastpath_ns3_test::TimingTally> g_tally;

void
Received(Ptr<const Packet> packet)
{
    g_tally->Received(packet);
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string report;
    std::string channel = "p2p";
    uint32_t packets = 0;
    CommandLine cmd(__FILE__);
    cmd.AddValue("channel", "p2p (two nodes, one link) or csma (three nodes, one segment)",
                 channel);
    cmd.AddValue("report", "write key=value results to this file", report);
    cmd.AddValue("packets", "packets each way (0: 400 on p2p, 300 on csma)", packets);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(channel != "p2p" && channel != "csma",
                    "--channel=" << channel << ": unknown channel; use p2p or csma");
    const bool isCsma = channel == "csma";
    if (packets == 0)
    {
        packets = isCsma ? 300 : 400;
    }

    NodeContainer nodes;
    nodes.Create(isCsma ? 3 : 2);
    InternetStackHelper stack;
    stack.Install(nodes);
    NetDeviceContainer devices;
    if (isCsma)
    {
        g_tally.emplace(csma::kModelNs, 4);
        FastPathCsmaHelper helper;
        helper.SetChannelAttribute("DataRate", DataRateValue(DataRate(csma::kRateBps)));
        helper.SetChannelAttribute("Delay", TimeValue(NanoSeconds(csma::kDelayNs)));
        devices = helper.Install(nodes);
    }
    else
    {
        g_tally.emplace(p2p::kModelNs, 0);
        FastPathPointToPointHelper helper;
        helper.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(p2p::kRateBps))));
        helper.SetChannelAttribute("Delay", TimeValue(NanoSeconds(p2p::kDelayNs)));
        devices = helper.Install(nodes);
    }
    Ipv4AddressHelper address;
    address.SetBase("10.1.1.0", "255.255.255.0");
    Ipv4InterfaceContainer ifs = address.Assign(devices);

    // The flows' two ends: the first and the last node.
    const uint32_t ends[2] = {0, nodes.GetN() - 1};
    uint32_t sent = 0;
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
    g_tally->Report(devices, FastPathEmulation::IsEnabled(), sent, report);
    Simulator::Destroy();
    return 0;
}
