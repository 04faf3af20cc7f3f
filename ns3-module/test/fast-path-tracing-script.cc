// SPDX-License-Identifier: GPL-2.0-only
//
// A traced script for fast-path-tracing-veth-test: three nodes, UDP echoes from n0 to n2,
// every device traced with EnablePcapAll and EnableAsciiAll (one shared stream), run
// simulated (--FastPathEmulation=0) and emulated (=1) so that the test compares the files.
//
//   --csma=0:  n0 ──5 Mbit/s 2 ms── n1 ──5 Mbit/s 2 ms── n2   (FastPathPointToPointHelper,
//              10.1.1.0/24, 10.1.2.0/24, global routing)
//   --csma=1:  n0, n1, n2 on one 10 Mbit/s 1 ms segment (FastPathCsmaHelper, 10.1.1.0/24;
//              n1 only sees the broadcasts: its files hold the ARP requests)
//
// --trace=PREFIX: the files' prefix (PREFIX-N-I.pcap, PREFIX.tr); --promiscuous: pcap in
// promiscuous mode; --report=FILE: udp_sent, udp_received, the taps' counters and, with
// point-to-point links, what n0's device presents as a PointToPointNetDevice: the frames its
// TxQueue (GetQueue()) took and what it holds at the end.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/fast-path-csma-helper.h"
#include "ns3/fast-path-point-to-point-helper.h"
#include "ns3/fast-path-trace-taps.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <fstream>

using namespace ns3;

namespace
{

uint32_t g_received = 0;

void
Received(Ptr<const Packet>)
{
    ++g_received;
}

} // namespace

int
main(int argc, char* argv[])
{
    bool csma = false;
    bool promiscuous = false;
    std::string trace = "tracing";
    std::string report;
    uint32_t packets = 20;
    CommandLine cmd(__FILE__);
    cmd.AddValue("csma", "one CSMA segment instead of two point-to-point links", csma);
    cmd.AddValue("promiscuous", "pcap files in promiscuous mode", promiscuous);
    cmd.AddValue("trace", "prefix of the trace files", trace);
    cmd.AddValue("report", "write key=value results to this file", report);
    cmd.AddValue("packets", "UDP echo requests n0 sends (every 50 ms from 1 s)", packets);
    cmd.Parse(argc, argv);

    NodeContainer n;
    n.Create(3);
    InternetStackHelper().Install(n);
    Ipv4AddressHelper ipv4;
    Ipv4Address server;
    FastPathPointToPointHelper p2p;
    FastPathCsmaHelper lan;
    NetDeviceContainer d01;
    if (csma)
    {
        lan.SetChannelAttribute("DataRate", StringValue("10Mbps"));
        lan.SetChannelAttribute("Delay", StringValue("1ms"));
        NetDeviceContainer d = lan.Install(n);
        ipv4.SetBase("10.1.1.0", "255.255.255.0");
        server = ipv4.Assign(d).GetAddress(2);
    }
    else
    {
        p2p.SetDeviceAttribute("DataRate", StringValue("5Mbps"));
        p2p.SetChannelAttribute("Delay", StringValue("2ms"));
        d01 = p2p.Install(n.Get(0), n.Get(1));
        NetDeviceContainer d12 = p2p.Install(n.Get(1), n.Get(2));
        ipv4.SetBase("10.1.1.0", "255.255.255.0");
        ipv4.Assign(d01);
        ipv4.SetBase("10.1.2.0", "255.255.255.0");
        server = ipv4.Assign(d12).GetAddress(1);
        Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    }

    UdpEchoServerHelper echoServer(9);
    echoServer.Install(n.Get(2)).Start(Seconds(0.5));
    UdpEchoClientHelper echoClient(server, 9);
    echoClient.SetAttribute("MaxPackets", UintegerValue(packets));
    echoClient.SetAttribute("Interval", TimeValue(MilliSeconds(50)));
    echoClient.SetAttribute("PacketSize", UintegerValue(512));
    ApplicationContainer client = echoClient.Install(n.Get(0));
    client.Start(Seconds(1));
    client.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&Received));

    AsciiTraceHelper ascii;
    if (csma)
    {
        lan.EnablePcapAll(trace, promiscuous);
        lan.EnableAsciiAll(ascii.CreateFileStream(trace + ".tr"));
    }
    else
    {
        p2p.EnablePcapAll(trace, promiscuous);
        p2p.EnableAsciiAll(ascii.CreateFileStream(trace + ".tr"));
    }

    Simulator::Stop(Seconds(1.5 + packets * 0.05));
    Simulator::Run();
    // As a script reaches a simulated device's queue (traffic-control.cc does so).
    Ptr<PointToPointNetDevice> p2pDevice =
        csma ? nullptr : DynamicCast<PointToPointNetDevice>(d01.Get(0));
    Ptr<Queue<Packet>> txQueue = p2pDevice ? p2pDevice->GetQueue() : nullptr;
    const uint32_t queueTook = txQueue ? txQueue->GetTotalReceivedPackets() : 0;
    const uint32_t queueHolds = txQueue ? txQueue->GetNPackets() : 0;
    Simulator::Destroy();

    if (!report.empty())
    {
        const FastPathTraceTaps::Counters c = FastPathTraceTaps::GetCounters();
        std::ofstream out(report);
        out << "udp_sent=" << packets << "\n"
            << "udp_received=" << g_received << "\n"
            << "taps.devices=" << c.devices << "\n"
            << "taps.frames=" << c.frames << "\n"
            << "taps.written=" << c.written << "\n"
            << "taps.unrepresentable=" << c.unrepresentable << "\n"
            << "taps.outside_run=" << c.outsideRun << "\n"
            << "taps.dropped_reader_slow=" << c.droppedReaderSlow << "\n";
        if (!csma)
        {
            out << "n0.p2p_device=" << (p2pDevice ? 1 : 0) << "\n"
                << "n0.tx_queue=" << (txQueue ? 1 : 0) << "\n"
                << "n0.tx_queue.received=" << queueTook << "\n"
                << "n0.tx_queue.held=" << queueHolds << "\n";
        }
    }
    return 0;
}
