// SPDX-License-Identifier: GPL-2.0-only
//
// static6-router: an ns-3 IPv6 router with static routes (Ipv6StaticRouting inside the
// default Ipv6ListRouting) whose data plane is fastpathd. The connected prefixes, the
// static routes and the NDP neighbours ns-3 resolves are mirrored into fastpathd exactly.
//
//   static6-router --ports=r0,r1 --addresses6=2001:2:0:1::1/64,2001:2:0:2::1/64
//                  --routes6=2001:2:0:20::/64=2001:2:0:2::2%1 --duration=0
//
// --routes6: PREFIX=GATEWAY%PORT, comma-separated; PORT is the index in --ports (0, 1, ...),
// GATEWAY :: means on-link. IPv4 addresses (--addresses) are optional.
//
// The report counts what reached ns-3's IPv6 layer: neighbour discovery, UDP (data that
// fastpathd punted) and anything else.
#include "example-common.h"

#include "ns3/core-module.h"
#include "ns3/fast-path-helper.h"
#include "ns3/icmpv6-header.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"

using namespace ns3;
using namespace ns3::fastpathexamples;

namespace
{

uint64_t g_ns3RxFrames = 0;
uint64_t g_rxNd = 0;
uint64_t g_rxUdp = 0;
uint64_t g_rxOther = 0;

void
CountFrame(Ptr<const Packet>)
{
    ++g_ns3RxFrames;
}

void
CountIpv6(Ptr<const Packet> packet, Ptr<Ipv6>, uint32_t)
{
    Ptr<Packet> p = packet->Copy();
    Ipv6Header ip;
    p->RemoveHeader(ip);
    uint8_t type = 0;
    if (ip.GetNextHeader() == 58 && p->CopyData(&type, 1) == 1 && type >= 133 && type <= 137)
    {
        ++g_rxNd;
    }
    else if (ip.GetNextHeader() == 17)
    {
        ++g_rxUdp;
    }
    else
    {
        ++g_rxOther;
    }
}

struct StaticRoute6
{
    Ipv6Address network;
    Ipv6Prefix prefix;
    Ipv6Address gateway;
    uint32_t port = 0;
};

/// "2001:2:0:20::/64=2001:2:0:2::2%1"
bool
ParseRoute6(const std::string& text, StaticRoute6& out)
{
    auto slash = text.find('/');
    auto eq = text.find('=');
    auto pct = text.find('%');
    if (slash == std::string::npos || eq == std::string::npos || pct == std::string::npos ||
        !(slash < eq && eq < pct))
    {
        return false;
    }
    out.network = Ipv6Address(text.substr(0, slash).c_str());
    out.prefix = Ipv6Prefix(static_cast<uint8_t>(std::stoi(text.substr(slash + 1, eq - slash - 1))));
    out.gateway = Ipv6Address(text.substr(eq + 1, pct - eq - 1).c_str());
    out.port = static_cast<uint32_t>(std::stoul(text.substr(pct + 1)));
    return true;
}

} // namespace

int
main(int argc, char* argv[])
{
    RouterOptions o;
    o.addresses = "";
    std::string addresses6 = "2001:2:0:1::1/64,2001:2:0:2::1/64";
    std::string routes6;
    bool dad = false;
    CommandLine cmd(__FILE__);
    AddRouterOptions(cmd,
                     o,
                     "router (fast path) or plain (ns-3 emulation baseline)",
                     "interfaces for AF_PACKET devices (plain)");
    cmd.AddValue("addresses6", "one IPv6 address/len per port, in order", addresses6);
    cmd.AddValue("routes6", "static IPv6 routes PREFIX=GATEWAY%PORT, comma-separated", routes6);
    cmd.AddValue("dad", "duplicate address detection on ns-3's addresses", dad);
    cmd.Parse(argc, argv);
    CheckRouterOptions("static6-router", o, "plain");
    Config::SetDefault("ns3::Icmpv6L4Protocol::DAD", BooleanValue(dad));

    Ptr<Node> node = CreateObject<Node>();
    Names::Add("R", node);
    FastPathHelper fastPath;
    NetDeviceContainer devices = InstallRouterDevices("static6-router", o, fastPath, node);
    InternetStackHelper stack; // IPv6: Ipv6ListRouting with Ipv6StaticRouting
    stack.Install(node);
    if (!o.addresses.empty())
    {
        AssignAddresses("static6-router", node, devices, Split(o.addresses));
    }

    Ptr<Ipv6> ipv6 = node->GetObject<Ipv6>();
    auto addrs6 = Split(addresses6);
    std::vector<uint32_t> ifaces;
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        auto slash = i < addrs6.size() ? addrs6[i].find('/') : std::string::npos;
        if (slash == std::string::npos)
        {
            Fail("static6-router", "need one IPv6 address/len per device (device " +
                                       std::to_string(i) + ")");
        }
        int32_t iface = ipv6->AddInterface(devices.Get(i));
        ipv6->AddAddress(iface,
                         Ipv6InterfaceAddress(Ipv6Address(addrs6[i].substr(0, slash).c_str()),
                                              Ipv6Prefix(static_cast<uint8_t>(
                                                  std::stoi(addrs6[i].substr(slash + 1))))));
        ipv6->SetUp(iface);
        ipv6->SetForwarding(iface, true);
        ifaces.push_back(iface);
        devices.Get(i)->TraceConnectWithoutContext("MacRx", MakeCallback(&CountFrame));
    }
    ipv6->TraceConnectWithoutContext("Rx", MakeCallback(&CountIpv6));

    Ipv6StaticRoutingHelper staticHelper;
    Ptr<Ipv6StaticRouting> st = staticHelper.GetStaticRouting(ipv6);
    for (const auto& text : Split(routes6))
    {
        StaticRoute6 r;
        if (!ParseRoute6(text, r) || r.port >= ifaces.size())
        {
            Fail("static6-router",
                 "bad --routes6 entry '" + text + "': want PREFIX/LEN=GATEWAY%PORT-INDEX");
        }
        st->AddNetworkRouteTo(r.network, r.prefix, r.gateway, ifaces[r.port]);
    }

    StopOnSignals();
    if (o.duration > 0)
    {
        Simulator::Stop(Seconds(o.duration));
    }
    std::cout << "static6-router: running" << std::endl;
    Simulator::Run();
    std::ostringstream out;
    out << "ns3_rx_frames=" << g_ns3RxFrames << "\n";
    out << "ns3_rx_ipv6_nd=" << g_rxNd << "\n";
    out << "ns3_rx_ipv6_udp=" << g_rxUdp << "\n";
    out << "ns3_rx_ipv6_other=" << g_rxOther << "\n";
    out << FastPathReport(fastPath, node);
    WriteReport(o.report, out.str());
    Simulator::Destroy();
    return 0;
}
