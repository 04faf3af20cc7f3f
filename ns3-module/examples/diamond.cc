// SPDX-License-Identifier: GPL-2.0-only
//
// diamond: four OLSR routers in a diamond of 10 Mbit/s, 5 ms point-to-point links, built with
// FastPathPointToPointHelper, so that the same script runs simulated (--FastPathEmulation=0)
// and emulated by fastpathd (--FastPathEmulation=1), with ns-3's own applications in both:
//
//            b
//          /   \          link A-B 198.18.1.0/24, A-C 198.18.2.0/24,
//        a       d             B-D 198.18.3.0/24, C-D 198.18.4.0/24 (first node .1)
//          \   /
//            c            C-D: 1 % RateErrorModel (per packet) on c's device: D -> C loses
//
// The end nodes are the routers a and d themselves. After --traffic-start:
//   1. ping (V4Ping, every 0.2 s) a -> d, --pings of them: RTT p50 and minimum;
//   2. then a TCP bulk transfer (BulkSend -> PacketSink) a -> d for --tcp-seconds: goodput
//      over all but its first second;
//   3. from --traffic-start on, a UDP probe d -> c over the lossy direction (--probes
//      datagrams at --probe-rate per second): loss with its binomial 99 % interval (Wilson).
// The lossy direction carries no TCP data (a -> d), at most its acknowledgements.
// OLSR convergence: when a had a route to d's addresses and d to a's.
//
// --hosts=1 (emulated): real hosts instead of ns-3's applications - FastPathHostHelper
// attaches h1 (198.18.10.2/24) to a and h2 (198.18.20.2/24) to d, namespaces fp-TAG-h1 and
// fp-TAG-h2 made by fastpathd (the routers run OLSR with static routing below it, so that
// OLSR announces the hosts' subnets); the script runs --host-seconds and measures nothing
// itself: ping and iperf3 run in the namespaces (bench/fidelity/diamond_fidelity.py).
//
// Prints one JSON line (also written to --report=FILE), e.g.
//   {"scenario":"diamond","emulated":0,"converged_s":2.51,"tcp_goodput_mbps":9.61,...}
#include "example-scenario.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/fast-path-host-helper.h"
#include "ns3/fast-path-point-to-point-helper.h"
#include "ns3/internet-apps-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/ipv4-list-routing-helper.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/olsr-helper.h"
#include "ns3/point-to-point-module.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <vector>

using namespace ns3;
using namespace ns3::fastpathexamples;

NS_LOG_COMPONENT_DEFINE("FastPathDiamond");

namespace
{

const uint16_t kTcpPort = 5001;
const uint16_t kProbePort = 5002;

/// Wilson score interval of k successes in n trials at z (2.5758: 99 %).
std::pair<double, double>
Wilson(uint64_t k, uint64_t n, double z)
{
    if (n == 0)
    {
        return {0, 1};
    }
    const double p = double(k) / n;
    const double d = 1 + z * z / n;
    const double c = (p + z * z / (2 * n)) / d;
    const double h = z * std::sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / d;
    return {std::max(0.0, c - h), std::min(1.0, c + h)};
}

double
Percentile(std::vector<double> v, double q)
{
    if (v.empty())
    {
        return -1;
    }
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, size_t(q * (v.size() - 1) + 0.5))];
}

} // namespace

int
main(int argc, char* argv[])
{
    double trafficStart = 8;
    uint32_t pings = 100;
    double tcpSeconds = 30;
    uint32_t probes = 20000;
    double probeRate = 400;
    double loss = 0.01;
    std::string rate = "10Mbps";
    std::string delay = "5ms";
    OlsrTimers olsrTimers;
    uint32_t run = 1;
    std::string report;
    RealHosts hosts(60);
    CommandLine cmd(__FILE__);
    cmd.AddValue("traffic-start", "seconds before ping and probe start", trafficStart);
    cmd.AddValue("pings", "pings a -> d (one every 0.2 s), before the TCP transfer", pings);
    cmd.AddValue("tcp-seconds", "seconds of the TCP bulk transfer a -> d", tcpSeconds);
    cmd.AddValue("probes", "UDP probe datagrams d -> c over the lossy direction", probes);
    cmd.AddValue("probe-rate", "probe datagrams per second", probeRate);
    cmd.AddValue("loss", "RateErrorModel rate (per packet) of direction d -> c", loss);
    cmd.AddValue("rate", "every link's DataRate", rate);
    cmd.AddValue("delay", "every link's Delay", delay);
    olsrTimers.AddValues(cmd);
    cmd.AddValue("run", "ns-3 RngRun (the simulated error model's draws)", run);
    cmd.AddValue("report", "also write the JSON line to this file", report);
    hosts.AddValues(cmd, "h1 at a and h2 at d instead of ns-3's applications");
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(pings == 0 || tcpSeconds < 2 || probes == 0 || probeRate <= 0,
                    "--pings, --probes, --probe-rate > 0 and --tcp-seconds >= 2");
    RngSeedManager::SetRun(run);
    olsrTimers.SetDefaults();
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));

    NodeContainer nodes;
    nodes.Create(4);
    const char* names[] = {"a", "b", "c", "d"};
    for (uint32_t i = 0; i < 4; ++i)
    {
        Names::Add(names[i], nodes.Get(i));
    }
    Ptr<Node> a = nodes.Get(0), b = nodes.Get(1), c = nodes.Get(2), d = nodes.Get(3);
    OlsrHelper olsr;
    InternetStackHelper stack;
    SetOlsrRouting(stack, olsr, hosts.enabled); // OLSR announces the hosts' subnets (HNA)
    stack.Install(nodes);

    FastPathPointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(rate));
    p2p.SetChannelAttribute("Delay", StringValue(delay));
    Ipv4AddressHelper address;
    std::vector<Ipv4InterfaceContainer> ifs;
    std::vector<NetDeviceContainer> devs;
    const std::pair<Ptr<Node>, Ptr<Node>> links[] = {{a, b}, {a, c}, {b, d}, {c, d}};
    for (uint32_t k = 0; k < 4; ++k)
    {
        devs.push_back(p2p.Install(links[k].first, links[k].second));
        address.SetBase(Ipv4Address(("198.18." + std::to_string(k + 1) + ".0").c_str()),
                        "255.255.255.0");
        ifs.push_back(address.Assign(devs.back()));
    }
    // The lossy direction d -> c: ns-3 drops at the receiving device, c's on C-D. Emulated,
    // the device is an FdNetDevice with the PointToPointNetDevice holding the link's
    // parameters aggregated to it: the same object is found both ways.
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
    em->SetRate(loss);
    Ptr<PointToPointNetDevice> cOnCd = devs[3].Get(0)->GetObject<PointToPointNetDevice>();
    NS_ABORT_MSG_IF(!cOnCd, "c's device on C-D has no PointToPointNetDevice");
    if (loss > 0)
    {
        cOnCd->SetAttribute("ReceiveErrorModel", PointerValue(em));
    }

    hosts.Install(a, "198.18.10.2/24", d, "198.18.20.2/24");

    const Ipv4Address dAddr = ifs[2].GetAddress(1); // d on B-D
    const Ipv4Address cAddr = ifs[3].GetAddress(0); // c on C-D
    if (hosts.enabled)
    {
        // No ns-3 application: the hosts' programs measure. The applications below are
        // installed all the same but start after the end.
        trafficStart = hosts.seconds + 1;
    }
    const double pingEnd = trafficStart + 0.2 * pings;
    const double tcpStart = pingEnd + 0.5;
    const double tcpEnd = tcpStart + tcpSeconds;
    const double probeEnd = trafficStart + probes / probeRate;
    const double stop = hosts.enabled ? hosts.seconds : std::max(tcpEnd, probeEnd) + 1;

    // 1. ping a -> d.
    std::vector<double> rtts;
    InstallPing(a, dAddr, trafficStart, pingEnd, &rtts);

    // 2. TCP a -> d; bytes counted from its second second on.
    PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                InetSocketAddress(Ipv4Address::GetAny(), kTcpPort));
    ApplicationContainer sink = sinkHelper.Install(d);
    sink.Start(Seconds(0));
    BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(dAddr, kTcpPort));
    bulk.SetAttribute("MaxBytes", UintegerValue(0));
    bulk.SetAttribute("SendSize", UintegerValue(1448));
    ApplicationContainer sender = bulk.Install(a);
    sender.Start(Seconds(tcpStart));
    sender.Stop(Seconds(tcpEnd));
    struct Goodput
    {
        double from, to;
        uint64_t bytes = 0, total = 0;
    } goodput{tcpStart + 1, tcpEnd};
    DynamicCast<PacketSink>(sink.Get(0))->TraceConnectWithoutContext(
        "Rx",
        MakeCallback(+[](Goodput* g, Ptr<const Packet> p, const Address&) {
            double now = Simulator::Now().GetSeconds();
            g->total += p->GetSize();
            if (now >= g->from && now <= g->to)
            {
                g->bytes += p->GetSize();
            }
        }).Bind(&goodput));

    // 3. UDP probe d -> c (sequence-numbered by UdpClient).
    Ptr<UdpServer> probeSink =
        InstallUdpFlow(d, c, cAddr, kProbePort, probes, 1.0 / probeRate, 64, trafficStart);

    // OLSR convergence: a has a route to d's addresses and d to a's.
    double converged = -1;
    WhenTrue(
        MilliSeconds(10),
        [&]() {
            return HasRoute(a, ifs[2].GetAddress(1)) && HasRoute(a, ifs[3].GetAddress(1)) &&
                   HasRoute(d, ifs[0].GetAddress(0)) && HasRoute(d, ifs[1].GetAddress(0));
        },
        [&](double t) { converged = t; });

    Simulator::Stop(Seconds(stop));
    Simulator::Run();

    const uint64_t received = probeSink->GetReceived();
    const uint64_t lost = probes > received ? probes - received : 0;
    const auto ci = Wilson(lost, probes, 2.5758);
    std::ostringstream out;
    out << std::setprecision(6) << "{\"scenario\":\"diamond\""
        << ",\"emulated\":" << (FastPathPointToPointHelper::IsEmulated() ? 1 : 0)
        << ",\"rate\":\"" << rate << "\",\"delay\":\"" << delay << "\""
        << ",\"converged_s\":" << converged << ",\"traffic_start_s\":" << trafficStart
        << ",\"tcp_seconds\":" << goodput.to - goodput.from
        << ",\"tcp_bytes\":" << goodput.bytes << ",\"tcp_bytes_total\":" << goodput.total
        << ",\"tcp_goodput_mbps\":" << 8e-6 * goodput.bytes / (goodput.to - goodput.from)
        << ",\"pings\":" << pings << ",\"ping_replies\":" << rtts.size()
        << ",\"rtt_p50_ms\":" << 1000 * Percentile(rtts, 0.5)
        << ",\"rtt_min_ms\":"
        << (rtts.empty() ? -1 : 1000 * *std::min_element(rtts.begin(), rtts.end()))
        << ",\"rtt_max_ms\":"
        << (rtts.empty() ? -1 : 1000 * *std::max_element(rtts.begin(), rtts.end()))
        << ",\"loss_configured\":" << loss << ",\"probes_sent\":" << probes
        << ",\"probes_received\":" << received << ",\"loss\":" << double(lost) / probes
        << ",\"loss_ci99\":[" << ci.first << "," << ci.second << "]"
        << ",\"lossy_link\":\"" << FastPathPointToPointHelper::GetFastPathLinkName(devs[3].Get(0))
        << "\"";
    out << hosts.Json() << "}";
    out << "\n";
    WriteReport(report, out.str());
    Simulator::Destroy();
    return 0;
}
