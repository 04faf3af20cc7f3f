// SPDX-License-Identifier: GPL-2.0-only
// The route mirror's resolve-on-miss, for routing protocols whose table cannot be read
// (RIP, AODV, DSDV, RIPng, ...): the destination of each packet ns-3 forwards is probed
// with RouteOutput, the decision is installed as a host route, and decisions are
// revalidated every RevalidateInterval (withdrawn when the protocol changed its mind).
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

NS_LOG_COMPONENT_DEFINE("FastPathResolveOnMiss");

using namespace fastpathmirror;

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
    ScheduleRevalidate();
    ScheduleSync();
}

void
FastPathRouteMirror::Revalidate()
{
    RevalidateSome(m_resolved.size());
}

void
FastPathRouteMirror::PeriodicRevalidate()
{
    // Often (a withdrawn route must leave fastpathd within tens of milliseconds, as exactly
    // mirrored protocols' do), but bounded: a probe is a RouteOutput call per entry.
    constexpr std::size_t kRevalidateBatch = 512;
    RevalidateSome(kRevalidateBatch);
    ScheduleRevalidate();
}

void
FastPathRouteMirror::ScheduleRevalidate()
{
    // Only while there is something to revalidate: an exactly mirrored protocol (OLSR,
    // static) learns nothing on miss, and a node would otherwise wake every interval for
    // nothing (50 times a second per node by default).
    if (m_started && !m_resolved.empty() && !m_revalidateEvent.IsRunning())
    {
        m_revalidateEvent = Simulator::Schedule(m_revalidateInterval,
                                                &FastPathRouteMirror::PeriodicRevalidate,
                                                this);
    }
}

void
FastPathRouteMirror::PeriodicNeighbourCheck()
{
    ReconfirmStaleNeighbours();
    m_neighbourCheckEvent = Simulator::Schedule(m_neighbourCheckInterval,
                                                &FastPathRouteMirror::PeriodicNeighbourCheck,
                                                this);
}

void
FastPathRouteMirror::RevalidateSome(std::size_t limit)
{
    const bool all = limit >= m_resolved.size();
    bool changed = false;
    auto it = all ? m_resolved.begin() : m_resolved.lower_bound(m_revalidateCursor);
    for (std::size_t n = 0; n < limit && !m_resolved.empty(); ++n)
    {
        if (it == m_resolved.end())
        {
            if (all)
            {
                break;
            }
            it = m_resolved.begin();
        }
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
    m_revalidateCursor = it == m_resolved.end() ? FastPathTable::Key{} : it->first;
    if (changed)
    {
        ScheduleSync();
    }
}

} // namespace ns3
