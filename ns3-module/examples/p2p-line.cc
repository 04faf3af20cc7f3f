// SPDX-License-Identifier: GPL-2.0-only
//
// p2p-line: a line of N OLSR routers joined by point-to-point links, UDP and ping from the
// first to the last. A plain ns-3 PointToPointHelper script; two lines make it
// FastPathPointToPointHelper's (marked "fast path"), so the same script runs
//
//   simulated (ns-3's PointToPointNetDevice/Channel):   p2p-line --nodes=4
//   emulated (fastpathd's nodes and links):             p2p-line --nodes=4 --FastPathEmulation=1
//
// Emulated, fastpathd must be running with a socket this user may create nodes and links
// on (fastpathd --socket-uid UID; --FastPathSocket=PATH if not the default socket):
//
//   n0 ── n1 ── n2 ── n3      link k: 10.1.k+1.0/24 (node k is .1, node k+1 .2)
//
// --report=FILE writes key=value lines (what the tests read): UDP sent/received, ping
// replies, when node 0 first had a route to the last node, and per node the frames ns-3
// received at its IPv4 layer: data (this UDP flow and the pings) and the others (OLSR).
// --down-at=T takes node 1's interface towards node 2 down at T seconds (Ipv4::SetDown);
// --delay-at=T sets every channel's Delay to --new-delay at T, --rate-at=T node 1's devices'
// DataRate to --new-rate (Config::Set). Emulated, these reach fastpathd (the link down, its
// delay and rate) and the report says how long after the call fastpathd had them.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/fast-path-point-to-point-helper.h" // fast path
#include "ns3/internet-apps-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/olsr-helper.h"
#include "ns3/point-to-point-module.h"

#include <chrono>
#include <fstream>
#include <algorithm>
#include <map>
#include <numeric>
#include <vector>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("FastPathP2pLine");

namespace
{

const uint16_t kUdpPort = 9;

struct Seen
{
    uint64_t data = 0;
    uint64_t other = 0;
};

std::map<uint32_t, Seen> g_seen;

/// Packets a node's IPv4 received: this flow's UDP and ICMP are data, the rest (OLSR)
/// control.
void
CountRx(std::string context, Ptr<const Packet> packet, Ptr<Ipv4>, uint32_t)
{
    uint32_t node = std::stoul(context.substr(10, context.find('/', 10) - 10));
    Ptr<Packet> p = packet->Copy();
    Ipv4Header ip;
    bool data = false;
    if (p->GetSize() >= 20 && p->PeekHeader(ip))
    {
        if (ip.GetProtocol() == 1)
        {
            data = true;
        }
        else if (ip.GetProtocol() == 17)
        {
            p->RemoveHeader(ip);
            UdpHeader udp;
            data = p->PeekHeader(udp) && udp.GetDestinationPort() == kUdpPort;
        }
    }
    (data ? g_seen[node].data : g_seen[node].other)++;
}

using Clock = std::chrono::steady_clock;

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t nNodes = 4;
    double duration = 20;
    double trafficStart = 10;
    uint32_t packets = 200;
    double interval = 0.02;
    double hello = 0.5;
    double tc = 1;
    std::string report;
    double downAt = 0;
    double delayAt = 0;
    std::string newDelay = "5ms";
    double rateAt = 0;
    std::string newRate = "10Mbps";
    CommandLine cmd(__FILE__);
    cmd.AddValue("nodes", "routers in the line", nNodes);
    cmd.AddValue("duration", "seconds to run", duration);
    cmd.AddValue("traffic-start", "seconds before UDP and ping start", trafficStart);
    cmd.AddValue("packets", "UDP datagrams sent from the first node to the last", packets);
    cmd.AddValue("interval", "seconds between UDP datagrams", interval);
    cmd.AddValue("hello", "OLSR HELLO interval, seconds", hello);
    cmd.AddValue("tc", "OLSR TC interval, seconds", tc);
    cmd.AddValue("report", "write key=value results to this file", report);
    cmd.AddValue("down-at", "take node 1's interface towards node 2 down then (0: never)", downAt);
    cmd.AddValue("delay-at", "set every channel's Delay to --new-delay then (0: never)", delayAt);
    cmd.AddValue("new-delay", "the Delay --delay-at sets", newDelay);
    cmd.AddValue("rate-at", "set node 1's devices' DataRate to --new-rate then (0: never)", rateAt);
    cmd.AddValue("new-rate", "the DataRate --rate-at sets", newRate);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(nNodes < 2, "--nodes: at least 2");
    Config::SetDefault("ns3::olsr::RoutingProtocol::HelloInterval", TimeValue(Seconds(hello)));
    Config::SetDefault("ns3::olsr::RoutingProtocol::TcInterval", TimeValue(Seconds(tc)));

    NodeContainer nodes;
    nodes.Create(nNodes);
    OlsrHelper olsr;
    InternetStackHelper stack;
    stack.SetRoutingHelper(olsr);
    stack.Install(nodes);

    FastPathPointToPointHelper p2p; // fast path (was: PointToPointHelper p2p;)
    p2p.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
    p2p.SetChannelAttribute("Delay", StringValue("1ms"));
    Ipv4AddressHelper address;
    std::vector<Ipv4InterfaceContainer> interfaces;
    for (uint32_t k = 0; k + 1 < nNodes; ++k)
    {
        NetDeviceContainer devices = p2p.Install(nodes.Get(k), nodes.Get(k + 1));
        address.SetBase(Ipv4Address(("10.1." + std::to_string(k + 1) + ".0").c_str()),
                        "255.255.255.0");
        interfaces.push_back(address.Assign(devices));
    }
    Config::Connect("/NodeList/*/$ns3::Ipv4L3Protocol/Rx", MakeCallback(&CountRx));

    const Ipv4Address last = interfaces.back().GetAddress(1);
    UdpServerHelper server(kUdpPort);
    ApplicationContainer sink = server.Install(nodes.Get(nNodes - 1));
    UdpClientHelper client(last, kUdpPort);
    client.SetAttribute("MaxPackets", UintegerValue(packets));
    client.SetAttribute("Interval", TimeValue(Seconds(interval)));
    client.SetAttribute("PacketSize", UintegerValue(512));
    ApplicationContainer source = client.Install(nodes.Get(0));
    V4PingHelper ping(last);
    ping.SetAttribute("Interval", TimeValue(Seconds(0.2)));
    ApplicationContainer pinger = ping.Install(nodes.Get(0));
    uint32_t pingReplies = 0;
    std::vector<double> rtts; // seconds: the first includes ARP resolution at every hop
    Config::ConnectWithoutContext("/NodeList/0/ApplicationList/*/$ns3::V4Ping/Rtt",
                                  MakeCallback(+[](uint32_t* n, std::vector<double>* all, Time rtt) {
                                      ++*n;
                                      all->push_back(rtt.GetSeconds());
                                  }).Bind(&pingReplies, &rtts));
    sink.Start(Seconds(0));
    source.Start(Seconds(trafficStart));
    pinger.Start(Seconds(trafficStart));
    pinger.Stop(Seconds(trafficStart + 2));

    // When node 0 first has a route to the last node (OLSR converged along the line).
    double converged = -1;
    Ptr<Ipv4> ipv4First = nodes.Get(0)->GetObject<Ipv4>();
    std::function<void()> watch = [&]() {
        Ipv4Header h;
        h.SetDestination(last);
        Socket::SocketErrno err;
        if (ipv4First->GetRoutingProtocol()->RouteOutput(nullptr, h, nullptr, err))
        {
            converged = Simulator::Now().GetSeconds();
            return;
        }
        Simulator::Schedule(MilliSeconds(50), watch);
    };
    Simulator::Schedule(Seconds(0), watch);

    // Changes made the ns-3 way while the script runs; emulated, they reach fastpathd.
    Clock::time_point changedAt;
    double downLatencyUs = -1, delayLatencyUs = -1, rateLatencyUs = -1;
    auto latencyOf = [&changedAt](uint64_t before, double* out) {
        // Emulated: how long after the call fastpathd acknowledged it (checked 50 ms later).
        Simulator::Schedule(MilliSeconds(50), [before, out, &changedAt]() {
            if (FastPathPointToPointHelper::GetFollowedChanges() > before)
            {
                *out = std::chrono::duration<double, std::micro>(
                           FastPathPointToPointHelper::GetLastFollowAck() - changedAt)
                           .count();
            }
        });
    };
    if (downAt > 0 && nNodes > 2)
    {
        Simulator::Schedule(Seconds(downAt), [&]() {
            Ptr<Ipv4> ipv4 = nodes.Get(1)->GetObject<Ipv4>();
            uint64_t before = FastPathPointToPointHelper::GetFollowedChanges();
            changedAt = Clock::now();
            ipv4->SetDown(ipv4->GetInterfaceForAddress(interfaces[1].GetAddress(0)));
            latencyOf(before, &downLatencyUs);
        });
    }
    if (delayAt > 0)
    {
        Simulator::Schedule(Seconds(delayAt), [&]() {
            uint64_t before = FastPathPointToPointHelper::GetFollowedChanges();
            changedAt = Clock::now();
            Config::Set("/ChannelList/*/$ns3::PointToPointChannel/Delay", StringValue(newDelay));
            latencyOf(before, &delayLatencyUs);
        });
    }

    if (rateAt > 0)
    {
        Simulator::Schedule(Seconds(rateAt), [&]() {
            uint64_t before = FastPathPointToPointHelper::GetFollowedChanges();
            changedAt = Clock::now();
            Config::Set("/NodeList/1/DeviceList/*/$ns3::PointToPointNetDevice/DataRate",
                        StringValue(newRate));
            latencyOf(before, &rateLatencyUs);
        });
    }

    Simulator::Stop(Seconds(duration));
    Simulator::Run();

    Ptr<UdpServer> udp = DynamicCast<UdpServer>(sink.Get(0));
    std::ostringstream out;
    out << "emulated=" << (FastPathPointToPointHelper::IsEmulated() ? 1 : 0) << "\n"
        << "nodes=" << nNodes << "\n"
        << "converged_s=" << converged << "\n"
        << "udp_sent=" << packets << "\n"
        << "udp_received=" << udp->GetReceived() << "\n"
        << "ping_replies=" << pingReplies << "\n"
        << "ping_rtt_ms=" << (rtts.empty() ? -1 : 1000 * std::accumulate(rtts.begin(), rtts.end(), 0.0) / rtts.size()) << "\n"
        << "ping_rtt_first_ms=" << (rtts.empty() ? -1 : 1000 * rtts.front()) << "\n"
        << "ping_rtt_min_ms=" << (rtts.empty() ? -1 : 1000 * *std::min_element(rtts.begin(), rtts.end())) << "\n"
        << "down_latency_us=" << downLatencyUs << "\n"
        << "delay_latency_us=" << delayLatencyUs << "\n"
        << "rate_latency_us=" << rateLatencyUs << "\n";
    for (uint32_t i = 0; i < nNodes; ++i)
    {
        out << "n" << i << ".ns3_rx_data=" << g_seen[i].data << "\n"
            << "n" << i << ".ns3_rx_other=" << g_seen[i].other << "\n"
            << "n" << i << ".fastpathd_node="
            << FastPathPointToPointHelper::GetFastPathNodeName(nodes.Get(i)) << "\n";
    }
    std::cout << out.str();
    if (!report.empty())
    {
        std::ofstream(report) << out.str();
    }
    Simulator::Destroy();
    return 0;
}
