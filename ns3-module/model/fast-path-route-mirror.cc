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
#include "ns3/log.h"
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
                          "Mirror the ARP caches of the mapped interfaces.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FastPathRouteMirror::m_mirrorNeighbours),
                          MakeBooleanChecker())
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
    Ptr<Ipv4L3Protocol> l3 = DynamicCast<Ipv4L3Protocol>(m_ipv4);
    Ptr<NetDevice> dev = l3 ? l3->GetInterface(interface)->GetDevice() : nullptr;
    auto it = m_ports.find(dev);
    if (it == m_ports.end())
    {
        return std::nullopt;
    }
    return it->second;
}

void
FastPathRouteMirror::Start()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(!m_node, "FastPathRouteMirror::Start: no node set (call SetNode first)");
    m_ipv4 = m_node->GetObject<Ipv4>();
    NS_ABORT_MSG_IF(!m_ipv4,
                    "FastPathRouteMirror::Start: node " << m_node->GetId()
                                                       << " has no Ipv4; install the internet "
                                                          "stack before starting the mirror");
    NS_ABORT_MSG_IF(!m_ipv4->GetRoutingProtocol(),
                    "FastPathRouteMirror::Start: node " << m_node->GetId()
                                                       << " has no IPv4 routing protocol");
    if (m_started)
    {
        return;
    }
    m_started = true;
    m_ipv4->TraceConnectWithoutContext(
        "UnicastForward",
        MakeCallback(&FastPathRouteMirror::OnUnicastForward, this));

    // Hook every protocol that reports table changes.
    std::vector<Ptr<Ipv4RoutingProtocol>> protocols;
    Ptr<Ipv4ListRouting> list = DynamicCast<Ipv4ListRouting>(m_ipv4->GetRoutingProtocol());
    if (list)
    {
        for (uint32_t i = 0; i < list->GetNRoutingProtocols(); ++i)
        {
            int16_t priority;
            protocols.push_back(list->GetRoutingProtocol(i, priority));
        }
    }
    else
    {
        protocols.push_back(m_ipv4->GetRoutingProtocol());
    }
    for (auto& p : protocols)
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
    m_syncEvent.Cancel();
    m_pollEvent.Cancel();
    m_revalidateEvent.Cancel();
    if (m_ipv4)
    {
        m_ipv4->TraceDisconnectWithoutContext(
            "UnicastForward",
            MakeCallback(&FastPathRouteMirror::OnUnicastForward, this));
    }
}

static bool
Skippable(Ipv4Address dest, uint8_t length)
{
    // Loopback, multicast and limited broadcast never go through the fast path.
    return Ipv4Mask("255.0.0.0").IsMatch(dest, Ipv4Address("127.0.0.0")) ||
           (dest.IsMulticast() && length >= 4) || dest.IsBroadcast();
}

static fastpath::Route
MakeRoute(Ipv4Address dest, uint8_t length, Ipv4Address gateway, fastpath::PortId port,
          uint32_t metric)
{
    fastpath::Route r;
    r.prefix.address = ToFastPath(dest);
    r.prefix.length = length;
    r.prefix = r.prefix.normalised();
    if (gateway != Ipv4Address::GetAny() && !(length == 32 && gateway == dest))
    {
        r.next_hop = ToFastPath(gateway);
    }
    r.port = port;
    r.metric = metric;
    return r;
}

FastPathTable
FastPathRouteMirror::ComputeExactRoutes() const
{
    FastPathTable table;
    if (!m_ipv4)
    {
        return table;
    }
    std::vector<Ptr<Ipv4RoutingProtocol>> protocols;
    Ptr<Ipv4ListRouting> list = DynamicCast<Ipv4ListRouting>(m_ipv4->GetRoutingProtocol());
    if (list)
    {
        // Ipv4ListRouting keeps its protocols sorted, highest priority first.
        for (uint32_t i = 0; i < list->GetNRoutingProtocols(); ++i)
        {
            int16_t priority;
            protocols.push_back(list->GetRoutingProtocol(i, priority));
        }
    }
    else
    {
        protocols.push_back(m_ipv4->GetRoutingProtocol());
    }

    auto addEntry = [&](const Ipv4RoutingTableEntry& e, uint32_t metric) {
        Ipv4Address dest = e.GetDest();
        uint8_t length = e.GetDestNetworkMask().GetPrefixLength();
        auto port = PortOfInterface(e.GetInterface());
        if (!port || Skippable(dest, length))
        {
            return;
        }
        table.AddIfAbsent(MakeRoute(dest, length, e.GetGateway(), *port, metric));
    };

    for (auto& p : protocols)
    {
        if (auto olsrp = DynamicCast<olsr::RoutingProtocol>(p))
        {
            for (const auto& e : olsrp->GetRoutingTableEntries())
            {
                auto port = PortOfInterface(e.interface);
                if (!port || Skippable(e.destAddr, 32))
                {
                    continue;
                }
                table.AddIfAbsent(MakeRoute(e.destAddr, 32, e.nextAddr, *port, e.distance));
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
    return table;
}

bool
FastPathRouteMirror::HasOpaqueProtocol() const
{
    if (!m_ipv4)
    {
        return false;
    }
    auto opaque = [](Ptr<Ipv4RoutingProtocol> p) {
        return !DynamicCast<olsr::RoutingProtocol>(p) && !DynamicCast<Ipv4StaticRouting>(p) &&
               !DynamicCast<Ipv4GlobalRouting>(p);
    };
    Ptr<Ipv4ListRouting> list = DynamicCast<Ipv4ListRouting>(m_ipv4->GetRoutingProtocol());
    if (!list)
    {
        return opaque(m_ipv4->GetRoutingProtocol());
    }
    for (uint32_t i = 0; i < list->GetNRoutingProtocols(); ++i)
    {
        int16_t priority;
        if (opaque(list->GetRoutingProtocol(i, priority)))
        {
            return true;
        }
    }
    return false;
}

FastPathNeighbours
FastPathRouteMirror::ComputeNeighbours() const
{
    FastPathNeighbours out;
    Ptr<Ipv4L3Protocol> l3 = DynamicCast<Ipv4L3Protocol>(m_ipv4);
    if (!l3 || !m_mirrorNeighbours)
    {
        return out;
    }
    for (uint32_t i = 0; i < l3->GetNInterfaces(); ++i)
    {
        auto port = PortOfInterface(i);
        Ptr<ArpCache> cache = l3->GetInterface(i)->GetArpCache();
        if (!port || !cache)
        {
            continue;
        }
        // ArpCache has no iterator in ns-3 3.37; its printout lists every address
        // ("<ip> dev <dev> lladdr <mac> <STATE>"), then Lookup gives the entry itself.
        std::ostringstream text;
        cache->PrintArpCache(Create<OutputStreamWrapper>(&text));
        std::istringstream lines(text.str());
        std::string line;
        while (std::getline(lines, line))
        {
            std::istringstream words(line);
            std::string ip;
            words >> ip;
            if (ip.empty())
            {
                continue;
            }
            ArpCache::Entry* e = cache->Lookup(Ipv4Address(ip.c_str()));
            if (!e || !(e->IsAlive() || e->IsPermanent()))
            {
                continue;
            }
            Address a = e->GetMacAddress();
            if (!Mac48Address::IsMatchingType(a))
            {
                continue;
            }
            fastpath::Neighbour n;
            n.ip = ToFastPath(Ipv4Address(ip.c_str()));
            n.port = *port;
            n.mac = ToFastPath(Mac48Address::ConvertFrom(a));
            out.Add(n);
        }
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
    return MakeRoute(destination, 32, route->GetGateway(), it->second, 0);
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
    if (!m_resolveOnMiss)
    {
        return;
    }
    Ipv4Address dest = header.GetDestination();
    if (Skippable(dest, 32))
    {
        return;
    }
    std::optional<fastpath::Route> decided = Probe(dest);
    if (!decided)
    {
        // The protocol forwarded it but will not say how (e.g. a RouteInput-only route):
        // fall back to the interface it left by, on-link.
        auto port = PortOfInterface(iface);
        if (!port)
        {
            return;
        }
        decided = MakeRoute(dest, 32, Ipv4Address::GetAny(), *port, 0);
    }
    // If the exactly-mirrored table already forwards it this way, nothing to learn: the
    // packet was punted for another reason (unresolved neighbour, TTL, ...).
    const fastpath::Route* have = m_sentRoutes.Lookup(dest);
    if (have && have->next_hop == decided->next_hop && have->port == decided->port)
    {
        return;
    }
    auto it = m_resolved.find(dest.Get());
    if (it != m_resolved.end() && FastPathTable::SameRoute(it->second, *decided))
    {
        return;
    }
    NS_LOG_INFO("resolve-on-miss: " << dest << " port " << decided->port << " via "
                                    << decided->next_hop.toString());
    m_resolved[dest.Get()] = *decided;
    ScheduleSync();
}

void
FastPathRouteMirror::Revalidate()
{
    bool changed = false;
    for (auto it = m_resolved.begin(); it != m_resolved.end();)
    {
        std::optional<fastpath::Route> now = Probe(Ipv4Address(it->first));
        if (!now)
        {
            NS_LOG_INFO("resolve-on-miss: " << Ipv4Address(it->first) << " withdrawn");
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
FastPathRouteMirror::PeriodicPoll()
{
    SyncNow();
    m_pollEvent = Simulator::Schedule(m_pollInterval, &FastPathRouteMirror::PeriodicPoll, this);
}

void
FastPathRouteMirror::PeriodicRevalidate()
{
    Revalidate();
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
        const fastpath::Route* exact = desired.Lookup(Ipv4Address(it->first));
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
