// SPDX-License-Identifier: GPL-2.0-only
// The state ns-3 wants fastpathd to hold (routes and neighbours) and the diff between two
// such states. Pure data: no simulator, no socket, so it is unit-tested on its own.
#pragma once

#include "ns3/ipv4-address.h"
#include "ns3/mac48-address.h"

#include "fastpath/net_types.h"

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace ns3
{

/// Converts between ns-3 and fastpath domain types (IPv4, MAC).
fastpath::IpAddress ToFastPath(Ipv4Address address);
fastpath::MacAddress ToFastPath(Mac48Address address);
Ipv4Address Ipv4FromFastPath(const fastpath::IpAddress& address);

/**
 * \ingroup fastpath
 * \brief An IPv4 forwarding table in fastpathd's terms, keyed by prefix.
 *
 * Used for what the route mirror computed from ns-3, for what it last sent, and (in the
 * connection) for what fastpathd acknowledged, which is replayed after a reconnect.
 */
class FastPathTable
{
  public:
    /// (network address in host order, prefix length)
    using Key = std::pair<uint32_t, uint8_t>;

    /// Adds or replaces the route for the route's prefix (host bits are cleared).
    void Add(const fastpath::Route& route);
    /// Adds only when no route for that prefix exists yet; returns true if added.
    bool AddIfAbsent(const fastpath::Route& route);
    void Remove(const fastpath::IpPrefix& prefix);
    void Clear();
    /// Applies a batch as fastpathd would (replace_all, then removes, then adds).
    void Apply(const fastpath::RouteBatch& batch);

    std::size_t Size() const;
    const std::map<Key, fastpath::Route>& Routes() const;
    std::vector<fastpath::Route> ToVector() const;
    /// Longest-prefix match; nullptr when nothing covers `destination`.
    const fastpath::Route* Lookup(Ipv4Address destination) const;
    /// The route for exactly this prefix, or nullptr.
    const fastpath::Route* Find(Ipv4Address network, uint8_t length) const;

    /// The batch that turns `from` into `to`: removed prefixes, added or changed routes.
    static fastpath::RouteBatch Diff(const FastPathTable& from, const FastPathTable& to);
    static Key KeyOf(const fastpath::IpPrefix& prefix);
    static bool SameRoute(const fastpath::Route& a, const fastpath::Route& b);

  private:
    std::map<Key, fastpath::Route> m_routes;
};

/**
 * \ingroup fastpath
 * \brief Neighbour (ARP) entries in fastpathd's terms, keyed by (address, port).
 */
class FastPathNeighbours
{
  public:
    using Key = std::pair<uint32_t, fastpath::PortId>;
    void Add(const fastpath::Neighbour& neighbour);
    void Remove(const fastpath::Neighbour& neighbour);
    void Clear();
    std::size_t Size() const;
    const std::map<Key, fastpath::Neighbour>& Entries() const;
    std::vector<fastpath::Neighbour> ToVector() const;

    /// Entries to add (new or MAC changed) and to remove to turn `from` into `to`.
    static void Diff(const FastPathNeighbours& from,
                     const FastPathNeighbours& to,
                     std::vector<fastpath::Neighbour>& add,
                     std::vector<fastpath::Neighbour>& remove);

  private:
    std::map<Key, fastpath::Neighbour> m_entries;
};

} // namespace ns3
