// SPDX-License-Identifier: GPL-2.0-only
// The steps every fastpath example scenario takes the same way: OLSR's timers from the
// command line, static routing before OLSR, a ping and a UDP flow between two nodes,
// waiting for a route, counting what IPv4 received, timing how long fastpathd took to
// follow a change, writing the report. Header-only; not part of the library.
#pragma once

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/fast-path-host-helper.h"
#include "ns3/fast-path-point-to-point-helper.h"
#include "ns3/internet-apps-module.h"
#include "ns3/internet-module.h"
#include "ns3/ipv4-list-routing-helper.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/olsr-helper.h"

#include <chrono>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace ns3
{
namespace fastpathexamples
{

/// OLSR's HELLO and TC intervals, from --hello and --tc.
struct OlsrTimers
{
    double hello = 0.5;
    double tc = 1;

    void AddValues(CommandLine& cmd)
    {
        cmd.AddValue("hello", "OLSR HELLO interval, seconds", hello);
        cmd.AddValue("tc", "OLSR TC interval, seconds", tc);
    }

    /// After CommandLine::Parse, before the OLSR helper is installed.
    void SetDefaults() const
    {
        Config::SetDefault("ns3::olsr::RoutingProtocol::HelloInterval", TimeValue(Seconds(hello)));
        Config::SetDefault("ns3::olsr::RoutingProtocol::TcInterval", TimeValue(Seconds(tc)));
    }
};

/// The command line of a scenario with one UDP flow and a ping between two of its nodes
/// (`flow` says which, e.g. "a to b"), OLSR's timers and a key=value report.
struct FlowOptions
{
    double duration;
    double trafficStart;
    uint32_t packets = 200;
    double interval = 0.02;
    OlsrTimers olsr;
    std::string report;

    FlowOptions(double defaultDuration, double defaultTrafficStart)
        : duration(defaultDuration),
          trafficStart(defaultTrafficStart)
    {
    }

    void AddValues(CommandLine& cmd, const std::string& flow)
    {
        cmd.AddValue("duration", "seconds to run", duration);
        cmd.AddValue("traffic-start", "seconds before UDP and ping start", trafficStart);
        cmd.AddValue("packets", "UDP datagrams sent from " + flow, packets);
        cmd.AddValue("interval", "seconds between UDP datagrams", interval);
        olsr.AddValues(cmd);
        cmd.AddValue("report", "write key=value results to this file", report);
    }
};

/// --hosts and --host-seconds: two real hosts, h1 and h2 (FastPathHostHelper, emulated),
/// instead of the scenario's own applications, for --host-seconds; programs run in their
/// namespaces measure. Their part of the scenario's JSON line names the namespaces.
struct RealHosts
{
    bool enabled = false;
    double seconds;
    FastPathHostHelper::Host h1;
    FastPathHostHelper::Host h2;

    explicit RealHosts(double defaultSeconds)
        : seconds(defaultSeconds)
    {
    }

    /// `where`: where h1 and h2 stand, e.g. "h1 at a and h2 at d".
    void AddValues(CommandLine& cmd, const std::string& where)
    {
        cmd.AddValue("hosts", "real hosts " + where, enabled);
        cmd.AddValue("host-seconds", "with --hosts: seconds to run", seconds);
    }

    /// With --hosts: h1 (`prefix1`, e.g. "198.18.10.2/24") on `router1`, h2 on `router2`.
    void Install(Ptr<Node> router1,
                 const std::string& prefix1,
                 Ptr<Node> router2,
                 const std::string& prefix2)
    {
        if (enabled)
        {
            FastPathHostHelper hosts;
            h1 = hosts.Install(router1, "h1", prefix1);
            h2 = hosts.Install(router2, "h2", prefix2);
        }
    }

    /// With --hosts, the JSON line's `,"hosts":{...}` member; "" without.
    std::string Json() const
    {
        if (!enabled)
        {
            return "";
        }
        std::ostringstream out;
        out << ",\"hosts\":{\"h1\":{\"netns\":\"" << h1.netns << "\",\"address\":\"" << h1.address
            << "\"},\"h2\":{\"netns\":\"" << h2.netns << "\",\"address\":\"" << h2.address
            << "\"}}";
        return out.str();
    }
};

/// Static routing (connected subnets, e.g. a host's) before OLSR, which announces those
/// subnets (HNA) but routes only to OLSR nodes itself. `olsr` is copied: configure it first.
inline Ipv4ListRoutingHelper
StaticThenOlsr(const OlsrHelper& olsr)
{
    Ipv4StaticRoutingHelper staticRouting;
    Ipv4ListRoutingHelper list;
    list.Add(staticRouting, 0);
    list.Add(olsr, 10);
    return list;
}

/// OLSR alone, or (`hosts`: real hosts whose subnets OLSR announces) StaticThenOlsr.
inline void
SetOlsrRouting(InternetStackHelper& stack, const OlsrHelper& olsr, bool hosts)
{
    if (hosts)
    {
        stack.SetRoutingHelper(StaticThenOlsr(olsr));
    }
    else
    {
        stack.SetRoutingHelper(olsr);
    }
}

/// Whether `from`'s routing protocol has a route to `to` now.
inline bool
HasRoute(Ptr<Node> from, Ipv4Address to)
{
    Ipv4Header h;
    h.SetDestination(to);
    Socket::SocketErrno err;
    return bool(
        from->GetObject<Ipv4>()->GetRoutingProtocol()->RouteOutput(nullptr, h, nullptr, err));
}

inline void
CheckUntilTrue(Time every, std::function<bool()> condition, std::function<void(double)> then)
{
    if (condition())
    {
        then(Simulator::Now().GetSeconds());
        return;
    }
    Simulator::Schedule(every, [=]() { CheckUntilTrue(every, condition, then); });
}

/// Checks `condition` from time 0 on, every `every`, and calls `then` with the simulation
/// time in seconds the first time it holds (e.g. when a routing protocol converged).
inline void
WhenTrue(Time every, std::function<bool()> condition, std::function<void(double)> then)
{
    Simulator::Schedule(Seconds(0), [=]() { CheckUntilTrue(every, condition, then); });
}

/// A ping from `from` to `to` every 0.2 s between `start` and `stop`; each RTT (seconds)
/// is appended to `rtts` (the first includes ARP resolution at every hop).
inline ApplicationContainer
InstallPing(Ptr<Node> from, Ipv4Address to, double start, double stop, std::vector<double>* rtts)
{
    V4PingHelper ping(to);
    ping.SetAttribute("Interval", TimeValue(Seconds(0.2)));
    ApplicationContainer app = ping.Install(from);
    app.Start(Seconds(start));
    app.Stop(Seconds(stop));
    app.Get(0)->TraceConnectWithoutContext(
        "Rtt",
        MakeCallback(+[](std::vector<double>* all, Time rtt) {
            all->push_back(rtt.GetSeconds());
        }).Bind(rtts));
    return app;
}

/// `packets` UDP datagrams of `size` bytes every `interval` seconds from `from`, starting
/// at `start`, to a UdpServer on `to` (address `toAddress`) running from 0; returns it.
inline Ptr<UdpServer>
InstallUdpFlow(Ptr<Node> from,
               Ptr<Node> to,
               Ipv4Address toAddress,
               uint16_t port,
               uint32_t packets,
               double interval,
               uint32_t size,
               double start)
{
    UdpServerHelper server(port);
    ApplicationContainer sink = server.Install(to);
    sink.Start(Seconds(0));
    UdpClientHelper client(toAddress, port);
    client.SetAttribute("MaxPackets", UintegerValue(packets));
    client.SetAttribute("Interval", TimeValue(Seconds(interval)));
    client.SetAttribute("PacketSize", UintegerValue(size));
    client.Install(from).Start(Seconds(start));
    return DynamicCast<UdpServer>(sink.Get(0));
}

/// What a FlowOptions scenario measures from `from` to `to` (address `toAddress`): the UDP
/// flow of 512-byte datagrams, two seconds of pings from the traffic start, and when `from`
/// first had a route to `toAddress` (the routing protocol converged). Installs all three;
/// the numbers are there after Simulator::Run.
class FlowProbe
{
  public:
    std::vector<double> rtts; ///< seconds; the first includes ARP resolution at every hop
    double converged = -1;    ///< simulation seconds; -1: never

    FlowProbe(const FlowOptions& o,
              Ptr<Node> from,
              Ptr<Node> to,
              Ipv4Address toAddress,
              uint16_t port)
        : m_sent(o.packets)
    {
        m_udp = InstallUdpFlow(from, to, toAddress, port, o.packets, o.interval, 512,
                               o.trafficStart);
        InstallPing(from, toAddress, o.trafficStart, o.trafficStart + 2, &rtts);
        WhenTrue(
            MilliSeconds(50),
            [from, toAddress]() { return HasRoute(from, toAddress); },
            [this](double t) { converged = t; });
    }

    FlowProbe(const FlowProbe&) = delete; // the scheduled checks hold `this`
    FlowProbe& operator=(const FlowProbe&) = delete;

    /// The report's converged_s, udp_sent, udp_received and ping_replies lines.
    void Report(std::ostream& out) const
    {
        out << "converged_s=" << converged << "\n"
            << "udp_sent=" << m_sent << "\n"
            << "udp_received=" << m_udp->GetReceived() << "\n"
            << "ping_replies=" << rtts.size() << "\n";
    }

  private:
    uint32_t m_sent;
    Ptr<UdpServer> m_udp;
};

/// Per node, the packets its IPv4 layer received: data (ICMP, and UDP to `dataPort`) and
/// the others (the routing protocol's). Emulated, only what fastpathd punted to ns-3.
class Ipv4RxCounter
{
  public:
    struct Seen
    {
        uint64_t data = 0;
        uint64_t other = 0;
    };

    explicit Ipv4RxCounter(uint16_t dataPort)
        : m_dataPort(dataPort)
    {
        Config::Connect("/NodeList/*/$ns3::Ipv4L3Protocol/Rx",
                        MakeCallback(&Ipv4RxCounter::Count, this));
    }

    Seen Of(uint32_t node) const
    {
        auto it = m_seen.find(node);
        return it == m_seen.end() ? Seen{} : it->second;
    }

  private:
    void Count(std::string context, Ptr<const Packet> packet, Ptr<Ipv4>, uint32_t)
    {
        // context: /NodeList/<id>/$ns3::Ipv4L3Protocol/Rx
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
                data = p->PeekHeader(udp) && udp.GetDestinationPort() == m_dataPort;
            }
        }
        (data ? m_seen[node].data : m_seen[node].other)++;
    }

    uint16_t m_dataPort;
    std::map<uint32_t, Seen> m_seen;
};

/// A node's lines of a key=value report, `name`.KEY: what its IPv4 layer received (data,
/// other) and the fastpathd node it is (emulated).
inline void
ReportNode(std::ostream& out, const std::string& name, Ipv4RxCounter::Seen seen, Ptr<Node> node)
{
    out << name << ".ns3_rx_data=" << seen.data << "\n"
        << name << ".ns3_rx_other=" << seen.other << "\n"
        << name << ".fastpathd_node=" << FastPathPointToPointHelper::GetFastPathNodeName(node)
        << "\n";
}

/// A change made the ns-3 way at a given time (Config::Set, Ipv4::SetDown), and, emulated,
/// how long after the call fastpathd acknowledged it (checked 50 ms later; -1 if it did
/// not, or simulated).
class FollowedChange
{
  public:
    double latencyUs = -1;

    /// Schedules `change` at `at` seconds (never if `at` <= 0).
    void At(double at, std::function<void()> change)
    {
        if (at <= 0)
        {
            return;
        }
        Simulator::Schedule(Seconds(at), [this, change]() {
            const uint64_t before = FastPathPointToPointHelper::GetFollowedChanges();
            const auto changedAt = std::chrono::steady_clock::now();
            change();
            Simulator::Schedule(MilliSeconds(50), [this, before, changedAt]() {
                if (FastPathPointToPointHelper::GetFollowedChanges() > before)
                {
                    latencyUs = std::chrono::duration<double, std::micro>(
                                    FastPathPointToPointHelper::GetLastFollowAck() - changedAt)
                                    .count();
                }
            });
        });
    }
};

/// Prints `text` and, if `path` is set, writes it there too.
inline void
WriteReport(const std::string& path, const std::string& text)
{
    std::cout << text;
    if (!path.empty())
    {
        std::ofstream(path) << text;
    }
}

} // namespace fastpathexamples
} // namespace ns3
