// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-route-mirror.h"

#include "ns3/arp-cache.h"
#include "ns3/boolean.h"
#include "ns3/ipv4-global-routing.h"
#include "ns3/ipv4-interface.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/ipv4-list-routing.h"
#include "ns3/ipv4-route.h"
#include "ns3/ipv4-routing-table-entry.h"
#include "ns3/ipv4-static-routing.h"
#include "ns3/ipv6-interface.h"
#include "ns3/ipv6-l3-protocol.h"
#include "ns3/ipv6-list-routing.h"
#include "ns3/ipv6-route.h"
#include "ns3/ipv6-routing-table-entry.h"
#include "ns3/ipv6-static-routing.h"
#include "ns3/log.h"
#include "ns3/ndisc-cache.h"
#include "ns3/olsr-routing-protocol.h"
#include "ns3/output-stream-wrapper.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"

#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathRouteMirror");
NS_OBJECT_ENSURE_REGISTERED(FastPathRouteMirror);

TypeId
FastPathRouteMirror::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FastPathRouteMirror")
            .SetParent<Object>()
            .SetGroupName("FastPath")
            .AddConstructor<FastPathRouteMirror>()
            .AddAttribute("BatchDelay",
                          "How long to gather routing changes before sending one batch.",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&FastPathRouteMirror::m_batchDelay),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("PollInterval",
                          "Period of the full comparison (catches protocols without a "
                          "change trace, static/global routes and ARP changes).",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&FastPathRouteMirror::m_pollInterval),
                          MakeTimeChecker(MilliSeconds(1)))
            .AddAttribute("RevalidateInterval",
                          "Period at which resolve-on-miss entries are re-checked against "
                          "the routing protocol: the bound on how long a stale entry lives.",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&FastPathRouteMirror::m_revalidateInterval),
                          MakeTimeChecker(MilliSeconds(1)))
            .AddAttribute("ResolveOnMiss",
                          "Install ns-3's forwarding decisions for packets fastpathd punted "
                          "as /32 host routes.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FastPathRouteMirror::m_resolveOnMiss),
                          MakeBooleanChecker())
            .AddAttribute("MirrorNeighbours",
                          "Mirror the ARP and NDP caches of the mapped interfaces.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FastPathRouteMirror::m_mirrorNeighbours),
                          MakeBooleanChecker())
            .AddAttribute("StaleNeighbourReconfirm",
                          "How long an NDP entry may stay STALE before the mirror has ns-3 "
                          "confirm it (DELAY, then unicast probes; RFC 4861 7.3.3), as ns-3 "
                          "would if it still sent the traffic fastpathd now forwards. A "
                          "neighbour that does not answer is removed from the cache and "
                          "withdrawn from fastpathd. 0 disables it.",
                          TimeValue(Seconds(30)),
                          MakeTimeAccessor(&FastPathRouteMirror::m_staleReconfirm),
                          MakeTimeChecker(Seconds(0)))
            .AddTraceSource("Update",
                            "A route diff was handed to fastpathd: (routes added or "
                            "changed, routes removed).",
                            MakeTraceSourceAccessor(&FastPathRouteMirror::m_updateTrace),
                            "ns3::TracedValueCallback::Uint32");
    return tid;
}

FastPathRouteMirror::FastPathRouteMirror()
{
    NS_LOG_FUNCTION(this);
}

FastPathRouteMirror::~FastPathRouteMirror()
{
    NS_LOG_FUNCTION(this);
}

void
FastPathRouteMirror::DoDispose()
{
    Stop();
    m_node = nullptr;
    m_ipv4 = nullptr;
    m_ipv6 = nullptr;
    m_ports.clear();
    m_sink = nullptr;
    Object::DoDispose();
}

void
FastPathRouteMirror::SetNode(Ptr<Node> node)
{
    m_node = node;
}

Ptr<Node>
FastPathRouteMirror::GetNode() const
{
    return m_node;
}

void
FastPathRouteMirror::AddPort(Ptr<NetDevice> device, fastpath::PortId port)
{
    m_ports[device] = port;
}

void
FastPathRouteMirror::SetSink(Sink sink)
{
    m_sink = std::move(sink);
}

std::optional<fastpath::PortId>
FastPathRouteMirror::PortOfInterface(uint32_t interface) const
{
    if (!m_ipv4 || interface >= m_ipv4->GetNInterfaces())
    {
        return std::nullopt;
    }
    auto it = m_ports.find(m_ipv4->GetNetDevice(interface));
    if (it == m_ports.end())
    {
        return std::nullopt;
    }
    return it->second;
}

std::optional<fastpath::PortId>
FastPathRouteMirror::PortOfInterface6(uint32_t interface) const
{
    if (!m_ipv6 || interface >= m_ipv6->GetNInterfaces())
    {
        return std::nullopt;
    }
    auto it = m_ports.find(m_ipv6->GetNetDevice(interface));
    if (it == m_ports.end())
    {
        return std::nullopt;
    }
    return it->second;
}

namespace
{

/// The protocols of a node, highest priority first (Ipv4ListRouting and Ipv6ListRouting
/// keep theirs sorted that way); a single protocol when there is no list.
template <class List, class Protocol>
std::vector<Ptr<Protocol>>
Flatten(Ptr<Protocol> top)
{
    std::vector<Ptr<Protocol>> out;
    if (Ptr<List> list = DynamicCast<List>(top))
    {
        for (uint32_t i = 0; i < list->GetNRoutingProtocols(); ++i)
        {
            int16_t priority;
            out.push_back(list->GetRoutingProtocol(i, priority));
        }
    }
    else if (top)
    {
        out.push_back(top);
    }
    return out;
}

std::vector<Ptr<Ipv4RoutingProtocol>>
Ipv4Protocols(Ptr<Ipv4> ipv4)
{
    return ipv4 ? Flatten<Ipv4ListRouting>(ipv4->GetRoutingProtocol())
                : std::vector<Ptr<Ipv4RoutingProtocol>>{};
}

std::vector<Ptr<Ipv6RoutingProtocol>>
Ipv6Protocols(Ptr<Ipv6> ipv6)
{
    return ipv6 ? Flatten<Ipv6ListRouting>(ipv6->GetRoutingProtocol())
                : std::vector<Ptr<Ipv6RoutingProtocol>>{};
}

/// Destinations that never go through the fast path: IPv4 loopback, multicast and limited
/// broadcast; IPv6 loopback, multicast and link-local (fastpathd's classifier hands
/// link-local and ND traffic to ns-3, and fe80::/64 exists once per interface).
bool
Skippable(const fastpath::IpAddress& dest, uint8_t length)
{
    const auto& b = dest.bytes;
    if (dest.family == fastpath::Family::kIpv4)
    {
        return (b[0] == 127 && length >= 8) || (b[0] >= 224 && b[0] < 240 && length >= 4) ||
               (b[0] == 255 && b[1] == 255 && b[2] == 255 && b[3] == 255);
    }
    bool loopback = length == 128 && dest == ToFastPath(Ipv6Address::GetLoopback());
    bool multicast = b[0] == 0xff && length >= 8;
    bool linkLocal = b[0] == 0xfe && (b[1] & 0xc0) == 0x80 && length >= 10;
    return loopback || multicast || linkLocal;
}

/// A route in fastpathd's terms. The next hop is left unspecified (on-link) when the
/// gateway is the unspecified address, or is the destination itself (a host route to a
/// neighbour, as OLSR and AODV state it).
fastpath::Route
MakeRoute(const fastpath::IpAddress& dest,
          uint8_t length,
          const fastpath::IpAddress& gateway,
          fastpath::PortId port,
          uint32_t metric)
{
    fastpath::Route r;
    r.prefix.address = dest;
    r.prefix.length = length;
    r.prefix = r.prefix.normalised();
    const uint8_t max = dest.family == fastpath::Family::kIpv4 ? 32 : 128;
    if (!gateway.isUnspecified() && !(length == max && gateway == dest))
    {
        r.next_hop = gateway;
    }
    r.port = port;
    r.metric = metric;
    return r;
}

/// The addresses a neighbour cache prints, one per line as the first word: ArpCache and
/// NdiscCache have no iterator in ns-3 3.37, only a printout
/// ("<ip> dev <dev> lladdr <mac> <STATE>") and Lookup by address.
template <class Cache>
std::vector<std::string>
CachedAddresses(Ptr<Cache> cache, void (Cache::*print)(Ptr<OutputStreamWrapper>))
{
    std::ostringstream text;
    ((*cache).*print)(Create<OutputStreamWrapper>(&text));
    std::istringstream lines(text.str());
    std::vector<std::string> out;
    std::string line;
    while (std::getline(lines, line))
    {
        std::istringstream words(line);
        std::string ip;
        words >> ip;
        if (!ip.empty())
        {
            out.push_back(ip);
        }
    }
    return out;
}

} // namespace

void
FastPathRouteMirror::Start()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(!m_node, "FastPathRouteMirror::Start: no node set (call SetNode first)");
    m_ipv4 = m_node->GetObject<Ipv4>();
    m_ipv6 = m_node->GetObject<Ipv6>();
    NS_ABORT_MSG_IF(!m_ipv4 && !m_ipv6,
                    "FastPathRouteMirror::Start: node "
                        << m_node->GetId()
                        << " has neither Ipv4 nor Ipv6; install the internet stack before "
                           "starting the mirror");
    NS_ABORT_MSG_IF(m_ipv4 && !m_ipv4->GetRoutingProtocol(),
                    "FastPathRouteMirror::Start: node " << m_node->GetId()
                                                       << " has no IPv4 routing protocol");
    NS_ABORT_MSG_IF(m_ipv6 && !m_ipv6->GetRoutingProtocol(),
                    "FastPathRouteMirror::Start: node " << m_node->GetId()
                                                       << " has no IPv6 routing protocol");
    if (m_started)
    {
        return;
    }
    m_started = true;
    if (m_ipv4)
    {
        m_ipv4->TraceConnectWithoutContext(
            "UnicastForward",
            MakeCallback(&FastPathRouteMirror::OnUnicastForward, this));
    }
    if (m_ipv6)
    {
        m_ipv6->TraceConnectWithoutContext(
            "UnicastForward",
            MakeCallback(&FastPathRouteMirror::OnUnicastForward6, this));
    }

    // Hook every protocol that reports table changes.
    for (auto& p : Ipv4Protocols(m_ipv4))
    {
        if (DynamicCast<olsr::RoutingProtocol>(p))
        {
            p->TraceConnectWithoutContext(
                "RoutingTableChanged",
                MakeCallback(&FastPathRouteMirror::OnRoutingTableChanged, this));
        }
    }
    SyncNow();
    m_pollEvent = Simulator::Schedule(m_pollInterval, &FastPathRouteMirror::PeriodicPoll, this);
    m_revalidateEvent = Simulator::Schedule(m_revalidateInterval,
                                            &FastPathRouteMirror::PeriodicRevalidate,
                                            this);
}

void
FastPathRouteMirror::Stop()
{
    if (!m_started)
    {
        return;
    }
    m_started = false;
    m_staleSince.clear();
    m_syncEvent.Cancel();
    m_pollEvent.Cancel();
    m_revalidateEvent.Cancel();
    if (m_ipv4)
    {
        m_ipv4->TraceDisconnectWithoutContext(
            "UnicastForward",
            MakeCallback(&FastPathRouteMirror::OnUnicastForward, this));
    }
    if (m_ipv6)
    {
        m_ipv6->TraceDisconnectWithoutContext(
            "UnicastForward",
            MakeCallback(&FastPathRouteMirror::OnUnicastForward6, this));
    }
}

void
FastPathRouteMirror::AddIpv4Routes(FastPathTable& table) const
{
    auto addEntry = [&](const Ipv4RoutingTableEntry& e, uint32_t metric) {
        fastpath::IpAddress dest = ToFastPath(e.GetDest());
        uint8_t length = e.GetDestNetworkMask().GetPrefixLength();
        auto port = PortOfInterface(e.GetInterface());
        if (!port || Skippable(dest, length))
        {
            return;
        }
        table.AddIfAbsent(MakeRoute(dest, length, ToFastPath(e.GetGateway()), *port, metric));
    };

    for (auto& p : Ipv4Protocols(m_ipv4))
    {
        if (auto olsrp = DynamicCast<olsr::RoutingProtocol>(p))
        {
            for (const auto& e : olsrp->GetRoutingTableEntries())
            {
                fastpath::IpAddress dest = ToFastPath(e.destAddr);
                auto port = PortOfInterface(e.interface);
                if (!port || Skippable(dest, 32))
                {
                    continue;
                }
                table.AddIfAbsent(
                    MakeRoute(dest, 32, ToFastPath(e.nextAddr), *port, e.distance));
            }
        }
        else if (auto st = DynamicCast<Ipv4StaticRouting>(p))
        {
            for (uint32_t i = 0; i < st->GetNRoutes(); ++i)
            {
                addEntry(st->GetRoute(i), st->GetMetric(i));
            }
        }
        else if (auto gl = DynamicCast<Ipv4GlobalRouting>(p))
        {
            for (uint32_t i = 0; i < gl->GetNRoutes(); ++i)
            {
                addEntry(*gl->GetRoute(i), 0);
            }
        }
    }
}

void
FastPathRouteMirror::AddIpv6Routes(FastPathTable& table) const
{
    for (auto& p : Ipv6Protocols(m_ipv6))
    {
        auto st = DynamicCast<Ipv6StaticRouting>(p);
        if (!st)
        {
            continue;
        }
        // The connected routes (one per address prefix, added by ns-3 when the address
        // is set) are entries like any other: gateway :: means on-link.
        for (uint32_t i = 0; i < st->GetNRoutes(); ++i)
        {
            Ipv6RoutingTableEntry e = st->GetRoute(i);
            fastpath::IpAddress dest = ToFastPath(e.GetDestNetwork());
            uint8_t length = e.GetDestNetworkPrefix().GetPrefixLength();
            auto port = PortOfInterface6(e.GetInterface());
            if (!port || Skippable(dest, length))
            {
                continue;
            }
            table.AddIfAbsent(
                MakeRoute(dest, length, ToFastPath(e.GetGateway()), *port, st->GetMetric(i)));
        }
    }
}

FastPathTable
FastPathRouteMirror::ComputeExactRoutes() const
{
    FastPathTable table;
    AddIpv4Routes(table);
    AddIpv6Routes(table);
    return table;
}

bool
FastPathRouteMirror::HasOpaqueProtocol() const
{
    for (auto& p : Ipv4Protocols(m_ipv4))
    {
        if (!DynamicCast<olsr::RoutingProtocol>(p) && !DynamicCast<Ipv4StaticRouting>(p) &&
            !DynamicCast<Ipv4GlobalRouting>(p))
        {
            return true;
        }
    }
    for (auto& p : Ipv6Protocols(m_ipv6))
    {
        if (!DynamicCast<Ipv6StaticRouting>(p))
        {
            return true;
        }
    }
    return false;
}

void
FastPathRouteMirror::AddIpv4Neighbours(FastPathNeighbours& out) const
{
    Ptr<Ipv4L3Protocol> l3 = DynamicCast<Ipv4L3Protocol>(m_ipv4);
    if (!l3)
    {
        return;
    }
    for (uint32_t i = 0; i < l3->GetNInterfaces(); ++i)
    {
        auto port = PortOfInterface(i);
        Ptr<ArpCache> cache = l3->GetInterface(i)->GetArpCache();
        if (!port || !cache)
        {
            continue;
        }
        for (const auto& ip : CachedAddresses(cache, &ArpCache::PrintArpCache))
        {
            Ipv4Address address(ip.c_str());
            ArpCache::Entry* e = cache->Lookup(address);
            if (!e || !(e->IsAlive() || e->IsPermanent()))
            {
                continue;
            }
            Address a = e->GetMacAddress();
            if (!Mac48Address::IsMatchingType(a))
            {
                continue;
            }
            out.Add({ToFastPath(address), *port, ToFastPath(Mac48Address::ConvertFrom(a))});
        }
    }
}

void
FastPathRouteMirror::AddIpv6Neighbours(FastPathNeighbours& out) const
{
    Ptr<Ipv6L3Protocol> l3 = DynamicCast<Ipv6L3Protocol>(m_ipv6);
    if (!l3)
    {
        return;
    }
    for (uint32_t i = 0; i < l3->GetNInterfaces(); ++i)
    {
        auto port = PortOfInterface6(i);
        Ptr<NdiscCache> cache = l3->GetInterface(i)->GetNdiscCache();
        if (!port || !cache)
        {
            continue;
        }
        for (const auto& ip : CachedAddresses(cache, &NdiscCache::PrintNdiscCache))
        {
            Ipv6Address address(ip.c_str());
            NdiscCache::Entry* e = cache->Lookup(address);
            // INCOMPLETE: no MAC yet. Every other state has one that ns-3 itself would use
            // (STALE/DELAY/PROBE are being re-confirmed, not withdrawn).
            if (!e || e->IsIncomplete())
            {
                continue;
            }
            Address a = e->GetMacAddress();
            if (!Mac48Address::IsMatchingType(a))
            {
                continue;
            }
            out.Add({ToFastPath(address), *port, ToFastPath(Mac48Address::ConvertFrom(a))});
        }
    }
}

FastPathNeighbours
FastPathRouteMirror::ComputeNeighbours() const
{
    FastPathNeighbours out;
    if (m_mirrorNeighbours)
    {
        AddIpv4Neighbours(out);
        AddIpv6Neighbours(out);
    }
    return out;
}

std::optional<fastpath::Route>
FastPathRouteMirror::Probe(Ipv4Address destination) const
{
    if (!m_ipv4)
    {
        return std::nullopt;
    }
    Ipv4Header header;
    header.SetDestination(destination);
    header.SetProtocol(17);
    Socket::SocketErrno err;
    // A real (empty) packet: some protocols (AODV) treat a null packet as "no route".
    Ptr<Ipv4Route> route =
        m_ipv4->GetRoutingProtocol()->RouteOutput(Create<Packet>(), header, nullptr, err);
    if (!route || !route->GetOutputDevice())
    {
        return std::nullopt;
    }
    auto it = m_ports.find(route->GetOutputDevice());
    if (it == m_ports.end())
    {
        return std::nullopt; // loopback (AODV's "deferred" route) or an unmapped device
    }
    return MakeRoute(ToFastPath(destination), 32, ToFastPath(route->GetGateway()), it->second, 0);
}

std::optional<fastpath::Route>
FastPathRouteMirror::Probe(Ipv6Address destination) const
{
    if (!m_ipv6)
    {
        return std::nullopt;
    }
    Ipv6Header header;
    header.SetDestination(destination);
    header.SetNextHeader(17);
    Socket::SocketErrno err;
    Ptr<Ipv6Route> route =
        m_ipv6->GetRoutingProtocol()->RouteOutput(Create<Packet>(), header, nullptr, err);
    if (!route || !route->GetOutputDevice())
    {
        return std::nullopt;
    }
    auto it = m_ports.find(route->GetOutputDevice());
    if (it == m_ports.end())
    {
        return std::nullopt;
    }
    return MakeRoute(ToFastPath(destination),
                     128,
                     ToFastPath(route->GetGateway()),
                     it->second,
                     0);
}

std::optional<fastpath::Route>
FastPathRouteMirror::ProbeAny(const fastpath::IpAddress& destination) const
{
    return destination.family == fastpath::Family::kIpv4
               ? Probe(Ipv4FromFastPath(destination))
               : Probe(Ipv6FromFastPath(destination));
}

void
FastPathRouteMirror::NoteDecision()
{
    if (!m_haveDecision)
    {
        m_haveDecision = true;
        m_firstDecision = std::chrono::steady_clock::now();
    }
}

void
FastPathRouteMirror::ScheduleSync()
{
    NoteDecision();
    if (m_started && !m_syncEvent.IsRunning())
    {
        m_syncEvent = Simulator::Schedule(m_batchDelay, &FastPathRouteMirror::SyncNow, this);
    }
}

void
FastPathRouteMirror::OnRoutingTableChanged(uint32_t size)
{
    NS_LOG_FUNCTION(this << size);
    Revalidate();
    ScheduleSync();
}

void
FastPathRouteMirror::OnUnicastForward(const Ipv4Header& header,
                                      Ptr<const Packet> packet,
                                      uint32_t iface)
{
    LearnForwarded(ToFastPath(header.GetDestination()), PortOfInterface(iface));
}

void
FastPathRouteMirror::OnUnicastForward6(const Ipv6Header& header,
                                       Ptr<const Packet> packet,
                                       uint32_t iface)
{
    LearnForwarded(ToFastPath(header.GetDestination()), PortOfInterface6(iface));
}

void
FastPathRouteMirror::LearnForwarded(const fastpath::IpAddress& dest,
                                    std::optional<fastpath::PortId> egress)
{
    const uint8_t host = dest.family == fastpath::Family::kIpv4 ? 32 : 128;
    if (!m_resolveOnMiss || Skippable(dest, host))
    {
        return;
    }
    std::optional<fastpath::Route> decided = ProbeAny(dest);
    if (!decided)
    {
        // The protocol forwarded it but will not say how (e.g. a RouteInput-only route):
        // fall back to the interface it left by, on-link.
        if (!egress)
        {
            return;
        }
        decided = MakeRoute(dest, host, fastpath::IpAddress{dest.family, {}}, *egress, 0);
    }
    // If the exactly-mirrored table already forwards it this way, nothing to learn: the
    // packet was punted for another reason (unresolved neighbour, TTL, ...).
    const fastpath::Route* have = m_sentRoutes.Lookup(dest);
    if (have && have->next_hop == decided->next_hop && have->port == decided->port)
    {
        return;
    }
    const FastPathTable::Key key = FastPathTable::KeyOf(decided->prefix);
    auto it = m_resolved.find(key);
    if (it != m_resolved.end() && FastPathTable::SameRoute(it->second, *decided))
    {
        return;
    }
    NS_LOG_INFO("resolve-on-miss: " << dest.toString() << " port " << decided->port << " via "
                                    << decided->next_hop.toString());
    m_resolved[key] = *decided;
    ScheduleSync();
}

void
FastPathRouteMirror::Revalidate()
{
    bool changed = false;
    for (auto it = m_resolved.begin(); it != m_resolved.end();)
    {
        std::optional<fastpath::Route> now = ProbeAny(it->second.prefix.address);
        if (!now)
        {
            NS_LOG_INFO("resolve-on-miss: " << it->second.prefix.toString() << " withdrawn");
            it = m_resolved.erase(it);
            changed = true;
            continue;
        }
        if (!FastPathTable::SameRoute(*now, it->second))
        {
            it->second = *now;
            changed = true;
        }
        ++it;
    }
    if (changed)
    {
        ScheduleSync();
    }
}

void
FastPathRouteMirror::ReconfirmStaleNeighbours()
{
    Ptr<Ipv6L3Protocol> l3 = DynamicCast<Ipv6L3Protocol>(m_ipv6);
    if (!l3 || !m_mirrorNeighbours || m_staleReconfirm.IsZero())
    {
        return;
    }
    std::map<std::pair<uint32_t, Ipv6Address>, Time> staleNow;
    for (uint32_t i = 0; i < l3->GetNInterfaces(); ++i)
    {
        Ptr<NdiscCache> cache = l3->GetInterface(i)->GetNdiscCache();
        if (!PortOfInterface6(i) || !cache)
        {
            continue;
        }
        for (const auto& ip : CachedAddresses(cache, &NdiscCache::PrintNdiscCache))
        {
            const Ipv6Address address(ip.c_str());
            NdiscCache::Entry* e = cache->Lookup(address);
            if (!e || !e->IsStale())
            {
                continue;
            }
            auto key = std::make_pair(i, address);
            auto seen = m_staleSince.find(key);
            const Time since = seen == m_staleSince.end() ? Simulator::Now() : seen->second;
            if (Simulator::Now() - since < m_staleReconfirm)
            {
                staleNow[key] = since;
                continue;
            }
            // What Icmpv6L4Protocol::Lookup does when it sends on a STALE entry.
            e->StartDelayTimer();
            e->MarkDelay();
        }
    }
    m_staleSince.swap(staleNow);
}

void
FastPathRouteMirror::PeriodicPoll()
{
    SyncNow();
    m_pollEvent = Simulator::Schedule(m_pollInterval, &FastPathRouteMirror::PeriodicPoll, this);
}

void
FastPathRouteMirror::PeriodicRevalidate()
{
    Revalidate();
    ReconfirmStaleNeighbours();
    m_revalidateEvent = Simulator::Schedule(m_revalidateInterval,
                                            &FastPathRouteMirror::PeriodicRevalidate,
                                            this);
}

void
FastPathRouteMirror::SyncNow()
{
    m_syncEvent.Cancel();
    FastPathTable desired = ComputeExactRoutes();
    // A resolved entry is dropped once an exact route covers it the same way.
    for (auto it = m_resolved.begin(); it != m_resolved.end();)
    {
        const fastpath::Route* exact = desired.Lookup(it->second.prefix.address);
        if (exact && exact->next_hop == it->second.next_hop && exact->port == it->second.port)
        {
            it = m_resolved.erase(it);
            continue;
        }
        desired.AddIfAbsent(it->second);
        ++it;
    }
    FastPathNeighbours neighbours = ComputeNeighbours();

    FastPathUpdate update;
    update.routes = FastPathTable::Diff(m_sentRoutes, desired);
    FastPathNeighbours::Diff(m_sentNeighbours,
                             neighbours,
                             update.neighboursAdd,
                             update.neighboursRemove);
    if (update.Empty())
    {
        m_haveDecision = false;
        return;
    }
    update.sequence = ++m_sequence;
    update.decided = m_haveDecision ? m_firstDecision : std::chrono::steady_clock::now();
    m_haveDecision = false;
    m_sentRoutes = desired;
    m_sentNeighbours = neighbours;
    NS_LOG_INFO("update " << update.sequence << ": +" << update.routes.add.size() << " -"
                          << update.routes.remove.size() << " routes, +"
                          << update.neighboursAdd.size() << " -"
                          << update.neighboursRemove.size() << " neighbours");
    m_updateTrace(update.routes.add.size(), update.routes.remove.size());
    if (m_sink)
    {
        m_sink(update);
    }
}

const FastPathTable&
FastPathRouteMirror::GetSentRoutes() const
{
    return m_sentRoutes;
}

const FastPathNeighbours&
FastPathRouteMirror::GetSentNeighbours() const
{
    return m_sentNeighbours;
}

std::size_t
FastPathRouteMirror::GetResolvedCount() const
{
    return m_resolved.size();
}

} // namespace ns3
