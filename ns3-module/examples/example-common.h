// SPDX-License-Identifier: GPL-2.0-only
// Small shared parts of the fastpath examples: argument parsing, stop on SIGINT/SIGTERM,
// the statistics report, the common frame of the single-node routers. Not part of the library.
#pragma once

#include "emu-devices.h"
#include "example-scenario.h"

#include "ns3/core-module.h"
#include "ns3/fast-path-helper.h"
#include "ns3/internet-module.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace ns3
{
namespace fastpathexamples
{

inline std::atomic<bool> g_stop{false};

inline void
PollStop()
{
    if (g_stop)
    {
        Simulator::Stop();
        return;
    }
    Simulator::Schedule(MilliSeconds(100), &PollStop);
}

/// Stops the simulation on SIGINT/SIGTERM (checked every 100 ms of wall clock time).
inline void
StopOnSignals()
{
    std::signal(SIGINT, [](int) { g_stop = true; });
    std::signal(SIGTERM, [](int) { g_stop = true; });
    Simulator::Schedule(MilliSeconds(100), &PollStop);
}

inline std::vector<std::string>
Split(const std::string& s)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        if (!item.empty())
        {
            out.push_back(item);
        }
    }
    return out;
}

[[noreturn]] inline void
Fail(const std::string& program, const std::string& why)
{
    std::cerr << program << ": " << why << std::endl;
    std::exit(2);
}

inline bool
ParsePrefix(const std::string& text, Ipv4Address& addr, Ipv4Mask& mask)
{
    auto slash = text.find('/');
    if (slash == std::string::npos)
    {
        return false;
    }
    addr = Ipv4Address(text.substr(0, slash).c_str());
    mask = Ipv4Mask(("/" + text.substr(slash + 1)).c_str());
    return true;
}

/// Adds `devices` to the node's IPv4 with one "a.b.c.d/len" each, up.
inline void
AssignAddresses(const std::string& program,
                Ptr<Node> node,
                const NetDeviceContainer& devices,
                const std::vector<std::string>& addresses)
{
    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ipv4Address a;
        Ipv4Mask m;
        if (i >= addresses.size() || !ParsePrefix(addresses[i], a, m))
        {
            Fail(program, "need one a.b.c.d/len address per device (device " +
                              std::to_string(i) + ")");
        }
        int32_t iface = ipv4->AddInterface(devices.Get(i));
        ipv4->AddAddress(iface, Ipv4InterfaceAddress(a, m));
        ipv4->SetUp(iface);
    }
}

/// The fastpathd socket must exist before FastPathHelper::Install (clear message if not).
inline void
CheckFastPathd(const std::string& program, const std::string& socketPath)
{
    if (access(socketPath.c_str(), F_OK) != 0)
    {
        Fail(program, "fastpathd's control socket " + socketPath +
                          " does not exist: start fastpathd first, or pass --socket");
    }
}

inline double
Percentile(std::vector<double> v, double p)
{
    if (v.empty())
    {
        return 0;
    }
    std::sort(v.begin(), v.end());
    size_t i = static_cast<size_t>(p / 100.0 * (v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

/// key=value statistics of the fast path for `node` (mirror and connection).
inline std::string
FastPathReport(FastPathHelper& fastPath, Ptr<Node> node)
{
    std::ostringstream out;
    Ptr<FastPathRouteMirror> mirror = fastPath.GetMirror(node);
    Ptr<FastPathConnection> conn = fastPath.GetConnection(node);
    if (!mirror || !conn)
    {
        return "";
    }
    fastPath.Flush();
    auto lat = conn->GetRouteLatenciesUs();
    out << "fastpath_routes=" << mirror->GetSentRoutes().Size() << "\n";
    out << "fastpath_neighbours=" << mirror->GetSentNeighbours().Size() << "\n";
    out << "resolved_routes=" << mirror->GetResolvedCount() << "\n";
    out << "updates_applied=" << conn->GetAppliedUpdates() << "\n";
    out << "updates_failed=" << conn->GetFailedUpdates() << "\n";
    out << "reconnects=" << conn->GetReconnects() << "\n";
    out << "route_latency_samples=" << lat.size() << "\n";
    out << "route_latency_p50_us=" << Percentile(lat, 50) << "\n";
    out << "route_latency_p99_us=" << Percentile(lat, 99) << "\n";
    for (const auto& r : mirror->GetSentRoutes().ToVector())
    {
        out << "route=" << r.prefix.toString() << " via "
            << (r.next_hop.isUnspecified() ? std::string("on-link") : r.next_hop.toString())
            << " port " << r.port << "\n";
    }
    return out.str();
}

/// The options aodv-router and rip-router share: a fast-path router on fastpathd's ports,
/// or (`otherRole`) plain emulation devices on host interfaces.
struct RouterOptions
{
    std::string role = "router";
    std::string interfaces;
    std::string socketPath = "/run/fastpathd/fastpathd.sock";
    std::string ports = "r0,r1";
    std::string addresses = "198.18.1.1/24,198.18.2.1/24";
    std::string report;
    double duration = 60;
    double revalidate = 1;
};

/// Adds the RouterOptions to `cmd`; `roleHelp`/`interfacesHelp` name the other role.
inline void
AddRouterOptions(CommandLine& cmd,
                 RouterOptions& o,
                 const std::string& roleHelp,
                 const std::string& interfacesHelp)
{
    cmd.AddValue("role", roleHelp, o.role);
    cmd.AddValue("interfaces", interfacesHelp, o.interfaces);
    cmd.AddValue("socket", "fastpathd's control socket", o.socketPath);
    cmd.AddValue("ports", "fastpathd port names, one ns-3 device each", o.ports);
    cmd.AddValue("addresses", "one address/len per port, in order", o.addresses);
    cmd.AddValue("duration", "seconds to run (0: until SIGINT/SIGTERM)", o.duration);
    cmd.AddValue("revalidate", "seconds between re-checks of resolve-on-miss routes",
                 o.revalidate);
    cmd.AddValue("report", "write key=value statistics to this file at exit", o.report);
}

/// After parsing: the role must be "router" (fastpathd's socket must exist) or
/// `otherRole` with --interfaces. Also selects ns-3's real-time simulator with checksums
/// (the peers are real hosts).
inline void
CheckRouterOptions(const std::string& program, const RouterOptions& o, const std::string& otherRole)
{
    if (o.role == "router")
    {
        CheckFastPathd(program, o.socketPath);
    }
    else if (o.role != otherRole || Split(o.interfaces).empty())
    {
        Fail(program, "--role must be router, or " + otherRole + " with --interfaces");
    }
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::RealtimeSimulatorImpl"));
    GlobalValue::Bind("ChecksumEnabled", BooleanValue(true));
}

/// The node's devices: one per fastpathd port (role router, resolve-on-miss entries
/// re-checked every --revalidate seconds) or emulation devices on --interfaces.
inline NetDeviceContainer
InstallRouterDevices(const std::string& program,
                     const RouterOptions& o,
                     FastPathHelper& fastPath,
                     Ptr<Node> node,
                     uint16_t onlyUdpPort = 0)
{
    if (o.role == "router")
    {
        fastPath.SetSocketPath(o.socketPath);
        fastPath.SetMirrorAttribute("RevalidateInterval", TimeValue(Seconds(o.revalidate)));
        return fastPath.Install(node, Split(o.ports));
    }
    return InstallEmulationDevices(program, node, Split(o.interfaces), onlyUdpPort);
}

/// Runs the simulation for --duration (or until SIGINT/SIGTERM), then writes the report.
inline void
RunAndReport(const std::string& program,
             const RouterOptions& o,
             FastPathHelper& fastPath,
             Ptr<Node> node)
{
    StopOnSignals();
    if (o.duration > 0)
    {
        Simulator::Stop(Seconds(o.duration));
    }
    std::cout << program << ": running" << std::endl;
    Simulator::Run();
    WriteReport(o.report, FastPathReport(fastPath, node));
    Simulator::Destroy();
}

} // namespace fastpathexamples
} // namespace ns3
