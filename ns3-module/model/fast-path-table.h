// SPDX-License-Identifier: GPL-2.0-only
// The state ns-3 wants fastpathd to hold (routes and neighbours) and the diff between two
// such states. Pure data: no simulator, no socket, so it is unit-tested on its own.
#pragma once

#include "ns3/ipv4-address.h"
#include "ns3/ipv6-address.h"
#include "ns3/mac48-address.h"

#include "fastpath/net_types.h"

#include <array>
#include <cstdint>
#include <tuple>
#include <map>
#include <utility>
#include <vector>

namespace ns3
{

/// Converts between ns-3 and fastpath domain types (IPv4, IPv6, MAC).
fastpath::IpAddress ToFastPath(Ipv4Address address);
fastpath::IpAddress ToFastPath(Ipv6Address address);
fastpath::MacAddress ToFastPath(Mac48Address address);
Ipv4Address Ipv4FromFastPath(const fastpath::IpAddress& address);
Ipv6Address Ipv6FromFastPath(const fastpath::IpAddress& address);

/**
 * \ingroup fastpath
 * \brief A forwarding table (IPv4 and IPv6) in fastpathd's terms, keyed by prefix.
 *
 * Used for what the route mirror computed from ns-3, for what it last sent, and (in the
 * connection) for what fastpathd acknowledged, which is replayed after a reconnect.
 */
class FastPathTable
{
  public:
    /// (family, network address in network byte order with host bits cleared, prefix
    /// length). IPv4 uses the first 4 bytes.
    using Key = std::tuple<fastpath::Family, std::array<uint8_t, 16>, uint8_t>;

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
    /// Longest-prefix match within the destination's family; nullptr when nothing covers
    /// `destination`.
    const fastpath::Route* Lookup(const fastpath::IpAddress& destination) const;
    const fastpath::Route* Lookup(Ipv4Address destination) const;
    const fastpath::Route* Lookup(Ipv6Address destination) const;
    /// The route for exactly this prefix, or nullptr.
    const fastpath::Route* Find(Ipv4Address network, uint8_t length) const;
    const fastpath::Route* Find(Ipv6Address network, uint8_t length) const;

    /// The batch that turns `from` into `to`: removed prefixes, added or changed routes.
    static fastpath::RouteBatch Diff(const FastPathTable& from, const FastPathTable& to);
    static Key KeyOf(const fastpath::IpPrefix& prefix);
    static bool SameRoute(const fastpath::Route& a, const fastpath::Route& b);

  private:
    std::map<Key, fastpath::Route> m_routes;
};

/**
 * \ingroup fastpath
 * \brief Neighbour entries (ARP and NDP) in fastpathd's terms, keyed by (address, port).
 */
class FastPathNeighbours
{
  public:
    /// (family, address in network byte order, port).
    using Key = std::tuple<fastpath::Family, std::array<uint8_t, 16>, fastpath::PortId>;
    static Key KeyOf(const fastpath::IpAddress& address, fastpath::PortId port);
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
