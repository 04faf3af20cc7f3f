// SPDX-License-Identifier: GPL-2.0-only
//
// grid: an 8x8 grid of 64 OLSR routers joined by point-to-point links (112 links), built
// with FastPathPointToPointHelper, so that it runs simulated (--FastPathEmulation=0) or
// emulated by fastpathd (--FastPathEmulation=1; run-grid.sh does that in one command), and
// two end nodes s and d attached to opposite corners:
//
//   s ── r0_0 ── r0_1 ── ... ── r0_7
//         │       │              │
//        ...     ...            ...
//         │       │              │
//        r7_0 ── r7_1 ── ... ── r7_7 ── d
//
// Links 198.18.K.0/24 (K = 1..112 router links, 113: s-r0_0, 114: r7_7-d; first node .1;
// from K = 256 on, as larger grids have, 198.19.(K - 256).0/24),
// --rate and --delay each. After --traffic-start: --pings pings s -> d (every 0.2 s) and,
// --warmup seconds later, a UDP flow s -> d of --udp-rate (--udp-size byte datagrams) for
// --udp-seconds. Emulated, the first packets to a next hop that fastpathd does not know yet
// are handed to the router's ns-3, which resolves it (ARP) and forwards them: the pings
// do that hop by hop at 5 packets/s, before the flow would at its full rate.
//
// --hosts=1: two real hosts instead of s and d's applications - FastPathHostHelper attaches
// h1 (198.18.200.2/24) to r0_0 and h2 (198.18.201.2/24) to r7_7 (emulated: namespaces
// fp-TAG-h1, fp-TAG-h2 made by fastpathd; the routers run OLSR over static routing so that
// OLSR announces the hosts' subnets); ping and iperf3 run there (run-grid.sh --hosts).
//
// Prints one JSON line (and --report=FILE): OLSR convergence (s and d have routes to each
// other: converged_s; every router has routes to s and d: all_converged_s), the UDP flow's
// sent and received datagrams and received rate, ping replies and RTT, and this process's
// CPU time (user + system) and wall time.
//
// Emulated, the script may run as several processes (mpirun -np K grid --FastPathEmulation=1;
// run-grid.sh --ranks K): each runs the routers METIS gave it (or --system-ids=1: one block
// of rows per process, the ns-3 convention). Each process then reports what its own nodes
// saw ("rank", "ranks"; --report=FILE.rankI): convergence of its own nodes, the flow's sent
// side where s runs and its received side where d runs (run-grid.sh merges them), and how
// many events of the other processes' nodes it dropped instead of running (inert_events).
#include "example-scenario.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/fast-path-host-helper.h"
#include "ns3/fast-path-point-to-point-helper.h"
#include "ns3/fast-path-ranks.h"
#include "ns3/fast-path-realtime-lag.h"
#include "ns3/internet-apps-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/ipv4-list-routing-helper.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/olsr-helper.h"
#include "ns3/point-to-point-module.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>
#include <vector>

using namespace ns3;
using namespace ns3::fastpathexamples;

NS_LOG_COMPONENT_DEFINE("FastPathGrid");

namespace
{

const uint16_t kUdpPort = 9;

double
CpuSeconds()
{
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
           1e-6 * (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t side = 8;
    std::string rate = "100Mbps";
    std::string delay = "1ms";
    uint32_t mtu = 1500;
    double trafficStart = 10;
    uint32_t pings = 150;
    double udpRateMbps = 10;
    uint32_t udpSize = 1000;
    double udpSeconds = 10;
    double warmup = 20;
    OlsrTimers olsrTimers;
    std::string report;
    RealHosts hosts(90);
    bool systemIds = false;
    double delayAt = -1;
    std::string delayThen = "2ms";
    // 66 nodes in one simulator thread: each node's route comparison (PollInterval, 100 ms
    // by default) would take more CPU than real time leaves; it is slower here (route
    // changes are still followed at once through OLSR's trace, neighbours as ARP frames
    // arrive). The command line overrides it.
    Config::SetDefault("ns3::FastPathRouteMirror::PollInterval", TimeValue(MilliSeconds(500)));
    CommandLine cmd(__FILE__);
    cmd.AddValue("side", "routers per row and column (8: 64 routers)", side);
    cmd.AddValue("rate", "every link's DataRate", rate);
    cmd.AddValue("delay", "every link's Delay", delay);
    cmd.AddValue("mtu", "every link's devices' Mtu", mtu);
    cmd.AddValue("traffic-start", "seconds before ping and UDP start", trafficStart);
    cmd.AddValue("pings", "pings s -> d, one every 0.2 s", pings);
    cmd.AddValue("udp-rate", "UDP flow s -> d, Mbit/s of datagrams", udpRateMbps);
    cmd.AddValue("udp-size", "UDP datagram payload, bytes", udpSize);
    cmd.AddValue("udp-seconds", "seconds of the UDP flow", udpSeconds);
    cmd.AddValue("warmup", "seconds between the first ping and the UDP flow", warmup);
    olsrTimers.AddValues(cmd);
    cmd.AddValue("report", "also write the JSON line to this file (.rankI added when run as "
                           "several processes)", report);
    cmd.AddValue("system-ids", "several processes: place the routers by system id, rows in "
                               "equal blocks (default: METIS places them)", systemIds);
    hosts.AddValues(cmd, "h1 at r0_0 and h2 at the far corner (emulated)");
    cmd.AddValue("delay-at", "at this time (s), every link's Delay becomes --delay-then "
                             "(Config::Set: an emulated run follows it; default never)", delayAt);
    cmd.AddValue("delay-then", "the Delay every link gets at --delay-at", delayThen);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(side < 2 || side > 16, "--side: 2..16");
    NS_ABORT_MSG_IF(udpRateMbps <= 0 || udpSize < 12 || udpSeconds <= 0, "bad UDP flow");
    olsrTimers.SetDefaults();
    const auto wall0 = std::chrono::steady_clock::now();
    const double cpu0 = CpuSeconds();

    const uint32_t ranks = FastPathEmulation::GetRanks();
    NodeContainer routers;
    NodeContainer ends;
    if (systemIds && ranks > 1)
    {
        // ns-3's convention for distributed runs: the system id says which process runs a
        // node. Rows in blocks; s with the first row, d with the last.
        for (uint32_t i = 0; i < side; ++i)
        {
            routers.Create(side, i * ranks / side);
        }
        ends.Create(1, 0);
        ends.Create(1, ranks - 1);
    }
    else
    {
        routers.Create(side * side);
        ends.Create(2);
    }
    for (uint32_t i = 0; i < side; ++i)
    {
        for (uint32_t j = 0; j < side; ++j)
        {
            Names::Add("r" + std::to_string(i) + "_" + std::to_string(j),
                       routers.Get(i * side + j));
        }
    }
    Names::Add("s", ends.Get(0));
    Names::Add("d", ends.Get(1));
    OlsrHelper olsr;
    InternetStackHelper stack;
    SetOlsrRouting(stack, olsr, hosts.enabled); // OLSR announces the hosts' subnets (HNA)
    stack.Install(routers);
    stack.Install(ends);

    FastPathPointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(rate));
    p2p.SetChannelAttribute("Delay", StringValue(delay));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(mtu));
    Ipv4AddressHelper address;
    uint32_t k = 0;
    auto join = [&](Ptr<Node> x, Ptr<Node> y) {
        ++k;
        NetDeviceContainer devices = p2p.Install(x, y);
        // 198.18.0.0/15 has 512 /24s: from the 256th link on, 198.19.x.0.
        address.SetBase(Ipv4Address(("198." + std::to_string(18 + k / 256) + "." +
                                     std::to_string(k % 256) + ".0")
                                        .c_str()),
                        "255.255.255.0");
        return address.Assign(devices);
    };
    for (uint32_t i = 0; i < side; ++i)
    {
        for (uint32_t j = 0; j < side; ++j)
        {
            if (j + 1 < side)
            {
                join(routers.Get(i * side + j), routers.Get(i * side + j + 1));
            }
            if (i + 1 < side)
            {
                join(routers.Get(i * side + j), routers.Get((i + 1) * side + j));
            }
        }
    }
    Ipv4InterfaceContainer sIf = join(ends.Get(0), routers.Get(0));
    Ipv4InterfaceContainer dIf = join(routers.Get(side * side - 1), ends.Get(1));
    const Ipv4Address sAddr = sIf.GetAddress(0);
    const Ipv4Address dAddr = dIf.GetAddress(1);
    hosts.Install(routers.Get(0), "198.18.200.2/24", routers.Get(side * side - 1),
                  "198.18.201.2/24");
    if (hosts.enabled)
    {
        // s and d stay idle: the hosts' programs measure.
        trafficStart = hosts.seconds + 1;
    }
    const double setupS =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

    // Ping and the UDP flow s -> d.
    std::vector<double> rtts;
    InstallPing(ends.Get(0), dAddr, trafficStart, trafficStart + 0.2 * pings, &rtts);
    const double interval = 8.0 * udpSize / (udpRateMbps * 1e6);
    const uint32_t datagrams = uint32_t(udpSeconds / interval);
    Ptr<UdpServer> udp = InstallUdpFlow(ends.Get(0), ends.Get(1), dAddr, kUdpPort, datagrams,
                                        interval, udpSize, trafficStart + warmup);
    struct Flow
    {
        double first = -1, last = -1;
        uint64_t bytes = 0;
    } flow;
    udp->TraceConnectWithoutContext(
        "Rx",
        MakeCallback(+[](Flow* f, Ptr<const Packet> p) {
            double now = Simulator::Now().GetSeconds();
            if (f->first < 0)
            {
                f->first = now;
            }
            f->last = now;
            f->bytes += p->GetSize();
        }).Bind(&flow));

    // What ns-3 dropped, by reason (Ipv4L3Protocol::DropReason), and ARP's drops.
    std::map<std::string, uint64_t> drops;
    Config::ConnectWithoutContext(
        "/NodeList/*/$ns3::Ipv4L3Protocol/Drop",
        MakeCallback(+[](std::map<std::string, uint64_t>* d,
                         const Ipv4Header&,
                         Ptr<const Packet>,
                         Ipv4L3Protocol::DropReason reason,
                         Ptr<Ipv4>,
                         uint32_t) {
            static const char* names[] = {"", "ttl_expired", "no_route", "bad_checksum",
                                          "interface_down", "route_error", "fragment_timeout",
                                          "duplicate"};
            ++(*d)[reason < 8 ? names[reason] : "other"];
        }).Bind(&drops));
    Config::ConnectWithoutContext(
        "/NodeList/*/$ns3::ArpL3Protocol/Drop",
        MakeCallback(+[](std::map<std::string, uint64_t>* d, Ptr<const Packet>) {
            ++(*d)["arp"];
        }).Bind(&drops));

    // Convergence: s and d have routes to each other; every router has routes to both.
    double converged = -1, allConverged = -1;
    // Several processes: each watches its own nodes (the others' routing does not run here).
    auto mine = [](Ptr<Node> n) { return FastPathEmulation::IsLocalNode(n); };
    WhenTrue(
        MilliSeconds(50),
        [&]() {
            return (!mine(ends.Get(0)) || HasRoute(ends.Get(0), dAddr)) &&
                   (!mine(ends.Get(1)) || HasRoute(ends.Get(1), sAddr));
        },
        [&](double t) { converged = t; });
    WhenTrue(
        MilliSeconds(50),
        [&]() {
            for (uint32_t i = 0; i < routers.GetN(); ++i)
            {
                if (!mine(routers.Get(i)))
                {
                    continue;
                }
                if (!HasRoute(routers.Get(i), sAddr) || !HasRoute(routers.Get(i), dAddr))
                {
                    return false;
                }
            }
            return true;
        },
        [&](double t) { allConverged = t; });

    const double stop =
        hosts.enabled ? hosts.seconds : trafficStart + std::max(warmup + udpSeconds, 0.2 * pings) + 1;
    const double cpuRun0 = CpuSeconds();
    const auto wallRun0 = std::chrono::steady_clock::now();
    if (delayAt >= 0)
    {
        // A script's own event: it runs in every process, as a script's changes do.
        Simulator::Schedule(Seconds(delayAt), [delayThen]() {
            Config::Set("/ChannelList/*/$ns3::PointToPointChannel/Delay",
                        TimeValue(Time(delayThen)));
        });
    }
    Simulator::Stop(Seconds(stop));
    Simulator::Run();
    const double cpuRun = CpuSeconds() - cpuRun0;
    const double wallRun =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallRun0).count();

    std::vector<double> sorted = rtts;
    std::sort(sorted.begin(), sorted.end());
    const double span = flow.last > flow.first ? flow.last - flow.first : 0;
    // Several processes: the events of the other processes' nodes that were dropped here.
    auto sim = DynamicCast<FastPathRealtimeSimulatorImpl>(Simulator::GetImplementation());
    const uint64_t inertEvents = sim ? sim->GetInertEvents() : 0;
    // Emulated: how far this process's simulator ran behind real time (it falls behind when
    // its control plane needs more CPU than it gets; see cpu_per_sim_s of a simulated run).
    const FastPathRealtimeLag::Summary lag = FastPathRealtimeLag::Get();
    uint32_t localRouters = 0;
    for (uint32_t i = 0; i < routers.GetN(); ++i)
    {
        localRouters += FastPathEmulation::IsLocalNode(routers.Get(i));
    }
    std::ostringstream out;
    out << std::setprecision(6) << "{\"scenario\":\"grid\""
        << ",\"emulated\":" << (FastPathPointToPointHelper::IsEmulated() ? 1 : 0)
        << ",\"rank\":" << FastPathEmulation::GetRank() << ",\"ranks\":" << ranks
        << ",\"local_routers\":" << localRouters << ",\"inert_events\":" << inertEvents
        << ",\"lag_max_s\":" << lag.maxS << ",\"lag_behind_from_s\":" << lag.behindFromS
        << ",\"has_s\":" << FastPathEmulation::IsLocalNode(ends.Get(0))
        << ",\"has_d\":" << FastPathEmulation::IsLocalNode(ends.Get(1))
        << ",\"routers\":" << routers.GetN() << ",\"links\":" << k << ",\"rate\":\"" << rate
        << "\",\"delay\":\"" << delay << "\""
        << ",\"converged_s\":" << converged << ",\"all_converged_s\":" << allConverged
        << ",\"udp_sent\":" << datagrams << ",\"udp_received\":" << udp->GetReceived()
        << ",\"udp_offered_mbps\":" << udpRateMbps << ",\"udp_received_mbps\":"
        << (span > 0 ? 8e-6 * flow.bytes / span : 0) << ",\"udp_received_pps\":"
        << (span > 0 ? udp->GetReceived() / span : 0) << ",\"pings\":" << pings
        << ",\"ping_replies\":" << rtts.size() << ",\"rtt_p50_ms\":"
        << (sorted.empty() ? -1 : 1000 * sorted[sorted.size() / 2]) << ",\"rtt_min_ms\":"
        << (sorted.empty() ? -1 : 1000 * sorted.front()) << ",\"setup_s\":" << setupS
        << ",\"run_wall_s\":" << wallRun << ",\"run_cpu_s\":" << cpuRun
        << ",\"cpu_per_sim_s\":" << cpuRun / stop
        << ",\"cpu_total_s\":" << CpuSeconds() - cpu0 << ",\"ns3_drops\":{";
    for (auto it = drops.begin(); it != drops.end(); ++it)
    {
        out << (it == drops.begin() ? "" : ",") << "\"" << it->first << "\":" << it->second;
    }
    out << "}";
    out << hosts.Json() << "}";
    out << "\n";
    WriteReport(report.empty() || ranks == 1
                    ? report
                    : report + ".rank" + std::to_string(FastPathEmulation::GetRank()),
                out.str());
    Simulator::Destroy();
    return 0;
}
