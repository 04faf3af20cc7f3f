// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-table.h"

#include <arpa/inet.h>

namespace ns3
{

fastpath::IpAddress
ToFastPath(Ipv4Address address)
{
    return fastpath::IpAddress::v4(htonl(address.Get()));
}

fastpath::IpAddress
ToFastPath(Ipv6Address address)
{
    std::array<uint8_t, 16> bytes{};
    address.GetBytes(bytes.data());
    return fastpath::IpAddress::v6(bytes);
}

fastpath::MacAddress
ToFastPath(Mac48Address address)
{
    fastpath::MacAddress mac;
    address.CopyTo(mac.bytes.data());
    return mac;
}

Ipv4Address
Ipv4FromFastPath(const fastpath::IpAddress& address)
{
    return Ipv4Address(ntohl(address.v4NetworkOrder()));
}

Ipv6Address
Ipv6FromFastPath(const fastpath::IpAddress& address)
{
    std::array<uint8_t, 16> bytes = address.bytes;
    return Ipv6Address(bytes.data());
}

static uint8_t
MaxLength(fastpath::Family family)
{
    return family == fastpath::Family::kIpv4 ? 32 : 128;
}

/// `bytes` with every bit from `length` on cleared.
static std::array<uint8_t, 16>
Masked(std::array<uint8_t, 16> bytes, uint8_t length)
{
    for (unsigned i = 0; i < bytes.size(); ++i)
    {
        unsigned keep = length > i * 8 ? length - i * 8 : 0;
        if (keep < 8)
        {
            bytes[i] &= static_cast<uint8_t>(0xff00u >> keep);
        }
    }
    return bytes;
}

FastPathTable::Key
FastPathTable::KeyOf(const fastpath::IpPrefix& prefix)
{
    return {prefix.address.family, Masked(prefix.address.bytes, prefix.length), prefix.length};
}

bool
FastPathTable::SameRoute(const fastpath::Route& a, const fastpath::Route& b)
{
    return a.prefix == b.prefix && a.next_hop == b.next_hop && a.port == b.port &&
           a.metric == b.metric;
}

void
FastPathTable::Add(const fastpath::Route& route)
{
    Key key = KeyOf(route.prefix);
    fastpath::Route r = route;
    r.prefix.address.bytes = std::get<1>(key);
    m_routes[key] = r;
}

bool
FastPathTable::AddIfAbsent(const fastpath::Route& route)
{
    Key key = KeyOf(route.prefix);
    auto [it, added] = m_routes.try_emplace(key, route);
    if (added)
    {
        it->second.prefix.address.bytes = std::get<1>(key);
    }
    return added;
}

void
FastPathTable::Remove(const fastpath::IpPrefix& prefix)
{
    m_routes.erase(KeyOf(prefix));
}

void
FastPathTable::Clear()
{
    m_routes.clear();
}

void
FastPathTable::Apply(const fastpath::RouteBatch& batch)
{
    if (batch.replace_all)
    {
        m_routes.clear();
    }
    for (const auto& p : batch.remove)
    {
        Remove(p);
    }
    for (const auto& r : batch.add)
    {
        Add(r);
    }
}

std::size_t
FastPathTable::Size() const
{
    return m_routes.size();
}

const std::map<FastPathTable::Key, fastpath::Route>&
FastPathTable::Routes() const
{
    return m_routes;
}

std::vector<fastpath::Route>
FastPathTable::ToVector() const
{
    std::vector<fastpath::Route> out;
    out.reserve(m_routes.size());
    for (const auto& kv : m_routes)
    {
        out.push_back(kv.second);
    }
    return out;
}

const fastpath::Route*
FastPathTable::Lookup(const fastpath::IpAddress& destination) const
{
    for (int len = MaxLength(destination.family); len >= 0; --len)
    {
        auto it = m_routes.find(KeyOf({destination, static_cast<uint8_t>(len)}));
        if (it != m_routes.end())
        {
            return &it->second;
        }
    }
    return nullptr;
}

const fastpath::Route*
FastPathTable::Lookup(Ipv4Address destination) const
{
    return Lookup(ToFastPath(destination));
}

const fastpath::Route*
FastPathTable::Lookup(Ipv6Address destination) const
{
    return Lookup(ToFastPath(destination));
}

const fastpath::Route*
FastPathTable::Find(Ipv4Address network, uint8_t length) const
{
    auto it = m_routes.find(KeyOf({ToFastPath(network), length}));
    return it == m_routes.end() ? nullptr : &it->second;
}

const fastpath::Route*
FastPathTable::Find(Ipv6Address network, uint8_t length) const
{
    auto it = m_routes.find(KeyOf({ToFastPath(network), length}));
    return it == m_routes.end() ? nullptr : &it->second;
}

/// Walks two maps of the same key type in key order at once (both are sorted by the same
/// comparison): `onlyFrom` for a key only `from` has, `onlyTo` for one only `to` has, `both`
/// for one they share. One pass, no lookups: the route mirror diffs whole tables on every
/// routing change and every poll.
template <class Map, class OnlyFrom, class OnlyTo, class Both>
static void
MergeWalk(const Map& from, const Map& to, OnlyFrom onlyFrom, OnlyTo onlyTo, Both both)
{
    auto less = from.key_comp();
    auto f = from.begin();
    auto t = to.begin();
    while (f != from.end() || t != to.end())
    {
        if (t == to.end() || (f != from.end() && less(f->first, t->first)))
        {
            onlyFrom((f++)->second);
        }
        else if (f == from.end() || less(t->first, f->first))
        {
            onlyTo((t++)->second);
        }
        else
        {
            both((f++)->second, (t++)->second);
        }
    }
}

fastpath::RouteBatch
FastPathTable::Diff(const FastPathTable& from, const FastPathTable& to)
{
    fastpath::RouteBatch batch;
    MergeWalk(
        from.m_routes,
        to.m_routes,
        [&](const fastpath::Route& gone) { batch.remove.push_back(gone.prefix); },
        [&](const fastpath::Route& added) { batch.add.push_back(added); },
        [&](const fastpath::Route& was, const fastpath::Route& is) {
            if (!SameRoute(was, is))
            {
                batch.add.push_back(is);
            }
        });
    return batch;
}

FastPathNeighbours::Key
FastPathNeighbours::KeyOf(const fastpath::IpAddress& address, fastpath::PortId port)
{
    return {address.family, address.bytes, port};
}

void
FastPathNeighbours::Add(const fastpath::Neighbour& n)
{
    m_entries[KeyOf(n.ip, n.port)] = n;
}

void
FastPathNeighbours::Remove(const fastpath::Neighbour& n)
{
    m_entries.erase(KeyOf(n.ip, n.port));
}

void
FastPathNeighbours::Clear()
{
    m_entries.clear();
}

std::size_t
FastPathNeighbours::Size() const
{
    return m_entries.size();
}

const std::map<FastPathNeighbours::Key, fastpath::Neighbour>&
FastPathNeighbours::Entries() const
{
    return m_entries;
}

std::vector<fastpath::Neighbour>
FastPathNeighbours::ToVector() const
{
    std::vector<fastpath::Neighbour> out;
    for (const auto& kv : m_entries)
    {
        out.push_back(kv.second);
    }
    return out;
}

void
FastPathNeighbours::Diff(const FastPathNeighbours& from,
                         const FastPathNeighbours& to,
                         std::vector<fastpath::Neighbour>& add,
                         std::vector<fastpath::Neighbour>& remove)
{
    MergeWalk(
        from.m_entries,
        to.m_entries,
        [&](const fastpath::Neighbour& gone) { remove.push_back(gone); },
        [&](const fastpath::Neighbour& added) { add.push_back(added); },
        [&](const fastpath::Neighbour& was, const fastpath::Neighbour& is) {
            if (was.mac != is.mac)
            {
                add.push_back(is);
            }
        });
}

} // namespace ns3
