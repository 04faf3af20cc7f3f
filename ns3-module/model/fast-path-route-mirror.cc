// SPDX-License-Identifier: GPL-2.0-only
// FastPathRouteMirror: the object, its attributes and trace sources, start/stop, and the
// sync that diffs what ns-3 decided against what fastpathd holds and sends the update.
// What it reads from ns-3 is in fast-path-route-mirror-routes.cc (routing tables),
// -neighbours.cc (ARP/NDP caches) and -resolve.cc (resolve-on-miss).
#include "fast-path-route-mirror.h"

#include "fast-path-route-mirror-internal.h"

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
                          "Period of the comparison of the routes (catches the protocols "
                          "without a change trace: static and global routes).",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&FastPathRouteMirror::m_pollInterval),
                          MakeTimeChecker(MilliSeconds(1)))
            .AddAttribute("NeighbourPollInterval",
                          "Period of the full comparison of the ARP and NDP caches, a "
                          "safety net: a received ARP frame or NDP message, a link change "
                          "and a port state change are followed within BatchDelay; this "
                          "catches what changes a cache without any (an ARP entry leaving "
                          "ALIVE when ns-3 sends to it after AliveTimeout, an NDP entry "
                          "removed after unanswered probes, the script editing a cache), "
                          "changes that ns-3's own timers already spread over seconds.",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&FastPathRouteMirror::m_neighbourPollInterval),
                          MakeTimeChecker(MilliSeconds(1)))
            .AddAttribute("RevalidateInterval",
                          "Period at which resolve-on-miss entries are re-checked against "
                          "the routing protocol (RouteOutput), at most 512 per period, "
                          "round-robin: how long an entry the protocol dropped stays in "
                          "fastpathd (with up to 512 entries; proportionally more beyond).",
                          TimeValue(MilliSeconds(20)),
                          MakeTimeAccessor(&FastPathRouteMirror::m_revalidateInterval),
                          MakeTimeChecker(MilliSeconds(1)))
            .AddAttribute("NeighbourCheckInterval",
                          "Period at which NDP entries are checked for staying STALE "
                          "(StaleNeighbourReconfirm).",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&FastPathRouteMirror::m_neighbourCheckInterval),
                          MakeTimeChecker(MilliSeconds(10)))
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
                            "ns3::FastPathRouteMirror::UpdateTracedCallback");
    return tid;
}

FastPathRouteMirror::FastPathRouteMirror()
{
    NS_LOG_FUNCTION(this);
}

FastPathRouteMirror::~FastPathRouteMirror()
{
    NS_LOG_FUNCTION(this);
    *m_alive = false;
}

void
FastPathRouteMirror::DoDispose()
{
    Stop();
    *m_alive = false;
    m_node = nullptr;
    m_ipv4 = nullptr;
    m_ipv6 = nullptr;
    m_ports.clear();
    m_olsrRoutes.clear();
    m_olsrWatched.clear();
    m_olsrSeen.clear();
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
    m_olsrRoutes.clear(); // an OLSR route on this device's interface is mirrored from now on
    m_neighboursDirty = true;
}

void
FastPathRouteMirror::SetPortState(fastpath::PortId port, bool up)
{
    NS_LOG_FUNCTION(this << port << up);
    Ptr<NetDevice> device;
    for (const auto& kv : m_ports)
    {
        if (kv.second == port)
        {
            device = kv.first;
        }
    }
    if (!device || !m_node)
    {
        return;
    }
    // The interface, not the device, is what ns-3 looks at: in ns-3 3.37 IPv4 and IPv6
    // never ask a NetDevice for its link state (a link change only flushes the ARP/NDP
    // cache), and FdNetDevice cannot be told its link is down. A down Ipv4Interface /
    // Ipv6Interface stops the node sending and receiving on it (a frame still queued in
    // the control channel cannot refresh a neighbour), Ipv4StaticRouting drops the
    // connected route (withdrawn from fastpathd below), and protocols that act on
    // NotifyInterfaceDown (RIP, RIPng, AODV) react at once. OLSR ignores it: it reroutes
    // when the neighbour's link tuple expires, NeighbHoldTime (3 HelloIntervals) after the
    // last HELLO that crossed the port, then floods the change in its TCs.
    Ptr<Ipv4> ipv4 = m_node->GetObject<Ipv4>();
    Ptr<Ipv6> ipv6 = m_node->GetObject<Ipv6>();
    int32_t iface4 = ipv4 ? ipv4->GetInterfaceForDevice(device) : -1;
    int32_t iface6 = ipv6 ? ipv6->GetInterfaceForDevice(device) : -1;
    auto down = m_downPorts.find(port);
    if (!up)
    {
        if (down != m_downPorts.end())
        {
            return;
        }
        DownPort d;
        if (iface4 >= 0 && ipv4->IsUp(iface4))
        {
            ipv4->SetDown(iface4);
            d.ipv4 = true;
        }
        if (iface6 >= 0 && ipv6->IsUp(iface6))
        {
            // Ipv6Interface::SetDown forgets the interface's addresses; SetUp gives back
            // only the link-local one, so keep the others to add them again.
            for (uint32_t a = 0; a < ipv6->GetNAddresses(iface6); ++a)
            {
                Ipv6InterfaceAddress address = ipv6->GetAddress(iface6, a);
                if (!address.GetAddress().IsLinkLocal())
                {
                    d.addresses6.push_back(address);
                }
            }
            ipv6->SetDown(iface6);
            d.ipv6 = true;
        }
        NS_LOG_INFO("node " << m_node->GetId() << ": fastpathd port " << port
                            << " is down: interface " << iface4 << "/" << iface6 << " down");
        m_downPorts[port] = d;
    }
    else
    {
        if (down == m_downPorts.end())
        {
            return;
        }
        if (down->second.ipv4 && iface4 >= 0)
        {
            ipv4->SetUp(iface4);
        }
        if (down->second.ipv6 && iface6 >= 0)
        {
            ipv6->SetUp(iface6);
            for (const auto& address : down->second.addresses6)
            {
                ipv6->AddAddress(iface6, address);
            }
        }
        NS_LOG_INFO("node " << m_node->GetId() << ": fastpathd port " << port
                            << " is up: interface " << iface4 << "/" << iface6 << " up");
        m_downPorts.erase(down);
    }
    // A down interface forgets its neighbours (ns-3 flushes the caches).
    ScheduleNeighbourSync();
}

bool
FastPathRouteMirror::IsPortDown(fastpath::PortId port) const
{
    return m_downPorts.count(port) != 0;
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
    for (auto& p : fastpathmirror::Ipv4Protocols(m_ipv4))
    {
        if (DynamicCast<olsr::RoutingProtocol>(p) && m_olsrWatched.insert(p).second)
        {
            p->TraceConnectWithoutContext(
                "RoutingTableChanged",
                MakeCallback(&FastPathRouteMirror::OnRoutingTableChanged, this));
        }
    }
    WatchNeighbourAnswers(true);
    // ns-3 flushes a device's ARP and NDP caches whenever its link changes (ArpL3Protocol
    // and Icmpv6L4Protocol register Flush when the interface is made), and an FdNetDevice's
    // link comes up when the device starts, at time 0 after the script's first events. The
    // point-to-point peers' static entries would go with the flush until the next poll:
    // the next packets to the peer would wait for ARP (PendingQueueSize, 3, the others
    // dropped) where a simulated PointToPointNetDevice sends them at once.
    for (const auto& kv : m_ports)
    {
        if (m_linkWatched.insert(kv.first).second)
        {
            kv.first->AddLinkChangeCallback(Callback<void>([alive = m_alive, this]() {
                if (*alive)
                {
                    OnDeviceLinkChange();
                }
            }));
        }
    }
    SyncNow();
    m_pollEvent = Simulator::Schedule(m_pollInterval, &FastPathRouteMirror::PeriodicPoll, this);
    m_neighbourPollEvent = Simulator::Schedule(m_neighbourPollInterval,
                                               &FastPathRouteMirror::PeriodicNeighbourPoll,
                                               this);
    ScheduleRevalidate();
    m_neighbourCheckEvent = Simulator::Schedule(m_neighbourCheckInterval,
                                                &FastPathRouteMirror::PeriodicNeighbourCheck,
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
    m_neighbourPollEvent.Cancel();
    m_revalidateEvent.Cancel();
    m_neighbourCheckEvent.Cancel();
    WatchNeighbourAnswers(false);
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
        m_syncEvent = Simulator::Schedule(m_batchDelay, &FastPathRouteMirror::Sync, this);
    }
}

void
FastPathRouteMirror::ScheduleNeighbourSync()
{
    m_neighboursDirty = true;
    ScheduleSync();
}

void
FastPathRouteMirror::OnRoutingTableChanged(uint32_t size)
{
    NS_LOG_FUNCTION(this << size);
    if (!OlsrTablesChanged())
    {
        return;
    }
    m_olsrRoutes.clear();
    Revalidate();
    ScheduleSync();
}

bool
FastPathRouteMirror::OlsrTablesChanged()
{
    bool changed = false;
    for (const auto& p : m_olsrWatched)
    {
        auto olsrp = DynamicCast<olsr::RoutingProtocol>(p);
        m_olsrReading.clear();
        for (const auto& e : olsrp->GetRoutingTableEntries())
        {
            m_olsrReading.push_back({e.destAddr.Get(), e.nextAddr.Get(), e.interface, e.distance});
        }
        auto& seen = m_olsrSeen[p];
        if (m_olsrReading != seen)
        {
            seen.swap(m_olsrReading);
            changed = true;
        }
    }
    return changed;
}

void
FastPathRouteMirror::OnDeviceLinkChange()
{
    if (m_started)
    {
        AddPointToPointNeighbours();
        ScheduleNeighbourSync(); // the flush took the other neighbours too
    }
}

void
FastPathRouteMirror::PeriodicPoll()
{
    Sync();
    m_pollEvent = Simulator::Schedule(m_pollInterval, &FastPathRouteMirror::PeriodicPoll, this);
}

void
FastPathRouteMirror::PeriodicNeighbourPoll()
{
    SyncNow();
    m_neighbourPollEvent = Simulator::Schedule(m_neighbourPollInterval,
                                               &FastPathRouteMirror::PeriodicNeighbourPoll,
                                               this);
}

void
FastPathRouteMirror::SyncNow()
{
    m_neighboursDirty = true;
    Sync();
}

void
FastPathRouteMirror::Sync()
{
    m_syncEvent.Cancel();
    ++m_comparisons;
    // Printing and parsing every mapped interface's caches is most of a comparison's cost:
    // only when something may have changed them (or the safety net's period came).
    const bool compareNeighbours = m_neighboursDirty;
    m_neighboursDirty = false;
    if (compareNeighbours)
    {
        AddPointToPointNeighbours();
    }
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
    FastPathNeighbours neighbours =
        compareNeighbours ? ComputeNeighbours() : m_sentNeighbours;

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
    m_sentRoutes = std::move(desired);
    m_sentNeighbours = std::move(neighbours);
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

uint64_t
FastPathRouteMirror::GetComparisons() const
{
    return m_comparisons;
}

} // namespace ns3
