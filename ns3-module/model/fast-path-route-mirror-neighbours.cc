// SPDX-License-Identifier: GPL-2.0-only
// The route mirror's neighbours: ARP and NDP cache entries mirrored into fastpathd, and
// NDP entries left STALE for StaleNeighbourReconfirm put into DELAY, so that ns-3 probes
// them and a vanished IPv6 neighbour is withdrawn.
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

namespace
{

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

} // namespace ns3
