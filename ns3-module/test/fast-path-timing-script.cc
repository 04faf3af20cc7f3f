// SPDX-License-Identifier: GPL-2.0-only
//
// fast-path-timing-script: two nodes on one point-to-point link (10 Gbit/s, 2 ms), a UDP
// flow each way (100-byte packets every 5 ms), every packet's one-way delay in simulator
// time (server Rx time minus the client's SeqTs stamp) against the link model's (the delay
// plus fastpathd's serialization of the Ethernet frame and the link's 2 bytes). Emulated,
// each frame must arrive at exactly its model time or be counted late by the receiving
// FastPathNetDevice (its timed channel).
//
// --report=FILE writes key=value lines: emulated, timed (every device's channel is timed),
// udp_sent, udp_received, exact (within 1 us of the model), early, late, device_on_time,
// device_late, device_max_late_us, max_late_us, late_frames (each late packet as
// seq@send_ns:+ns_late, for the reader of a failure).
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/fast-path-net-device.h"
#include "ns3/fast-path-point-to-point-helper.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>

using namespace ns3;

namespace
{

constexpr uint32_t kPacketBytes = 100;
constexpr double kRateBps = 10e9;
constexpr int64_t kDelayNs = 2000000;
constexpr int64_t kToleranceNs = 1000;

struct Tally
{
    uint32_t received = 0;
    uint32_t exact = 0;
    uint32_t early = 0;
    uint32_t late = 0;
    int64_t maxLateNs = 0;
    std::ostringstream lateList;
} g_tally;

int64_t
ModelDelayNs()
{
    // fastpathd's link: the Ethernet frame (14 + 20 + 8 + payload) plus 2 bytes, at the rate.
    const double bits = (14 + 20 + 8 + kPacketBytes + 2) * 8.0;
    return kDelayNs + int64_t(bits / kRateBps * 1e9);
}

void
Received(Ptr<const Packet> packet)
{
    Ptr<Packet> copy = packet->Copy();
    SeqTsHeader ts;
    copy->RemoveHeader(ts);
    const int64_t d = (Simulator::Now() - ts.GetTs()).GetNanoSeconds();
    const int64_t err = d - ModelDelayNs();
    ++g_tally.received;
    if (err < -kToleranceNs)
    {
        ++g_tally.early;
    }
    else if (err > kToleranceNs)
    {
        ++g_tally.late;
        g_tally.maxLateNs = std::max(g_tally.maxLateNs, err);
        g_tally.lateList << " " << ts.GetSeq() << "@" << ts.GetTs().GetNanoSeconds() << ":+"
                         << err;
    }
    else
    {
        ++g_tally.exact;
    }
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

    uint64_t onTime = 0, late = 0;
    int64_t deviceMaxLate = 0;
    bool timed = true;
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ptr<FastPathNetDevice> dev = DynamicCast<FastPathNetDevice>(devices.Get(i));
        if (!dev)
        {
            timed = false;
            continue;
        }
        timed = timed && dev->IsChannelTimed();
        onTime += dev->GetOnTimeReceived();
        late += dev->GetLateReceived();
        deviceMaxLate = std::max(deviceMaxLate, dev->GetMaxLateness().GetNanoSeconds());
    }
    std::ostringstream out;
    out << "emulated=" << (FastPathPointToPointHelper::IsEmulated() ? 1 : 0) << "\n"
        << "timed=" << (timed ? 1 : 0) << "\n"
        << "udp_sent=" << sent << "\n"
        << "udp_received=" << g_tally.received << "\n"
        << "exact=" << g_tally.exact << "\n"
        << "early=" << g_tally.early << "\n"
        << "late=" << g_tally.late << "\n"
        << "max_late_us=" << g_tally.maxLateNs / 1000.0 << "\n"
        << "late_frames=" << g_tally.lateList.str() << "\n"
        << "device_on_time=" << onTime << "\n"
        << "device_late=" << late << "\n"
        << "device_max_late_us=" << deviceMaxLate / 1000.0 << "\n";
    Simulator::Destroy();
    if (!report.empty())
    {
        std::ofstream(report) << out.str();
    }
    std::cout << out.str();
    return 0;
}
