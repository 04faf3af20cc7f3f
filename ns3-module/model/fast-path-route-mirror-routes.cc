// SPDX-License-Identifier: GPL-2.0-only
// The route mirror's reading of ns-3's routing tables: exactly for the protocols that
// expose theirs (OLSR, Ipv4StaticRouting, Ipv4GlobalRouting, Ipv6StaticRouting); any other
// protocol makes the node "opaque" and is served by resolve-on-miss.
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

namespace fastpathmirror
{

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

} // namespace

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

} // namespace fastpathmirror

using namespace fastpathmirror;

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
            for (const auto& r : OlsrRoutes(olsrp))
            {
                table.AddIfAbsent(r);
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

const std::vector<fastpath::Route>&
FastPathRouteMirror::OlsrRoutes(Ptr<olsr::RoutingProtocol> olsrp) const
{
    // A protocol whose trace this mirror does not hear (a mirror not started, a protocol
    // added after Start) is read every time.
    const bool watched = m_olsrWatched.count(olsrp) > 0;
    if (watched)
    {
        auto it = m_olsrRoutes.find(olsrp);
        if (it != m_olsrRoutes.end())
        {
            return it->second;
        }
    }
    std::vector<fastpath::Route> routes;
    for (const auto& e : olsrp->GetRoutingTableEntries())
    {
        fastpath::IpAddress dest = ToFastPath(e.destAddr);
        auto port = PortOfInterface(e.interface);
        if (!port || Skippable(dest, 32))
        {
            continue;
        }
        routes.push_back(MakeRoute(dest, 32, ToFastPath(e.nextAddr), *port, e.distance));
    }
    if (!watched)
    {
        m_olsrUnwatched = std::move(routes);
        return m_olsrUnwatched;
    }
    return m_olsrRoutes[olsrp] = std::move(routes);
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

} // namespace ns3
