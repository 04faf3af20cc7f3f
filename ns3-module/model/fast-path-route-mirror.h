// SPDX-License-Identifier: GPL-2.0-only
// Keeps fastpathd's forwarding table a copy of what a node's ns-3 routing decides.
#pragma once

#include "fast-path-table.h"

#include "ns3/event-id.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4.h"
#include "ns3/ipv6-header.h"
#include "ns3/ipv6.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>

namespace ns3
{

namespace olsr
{
class RoutingProtocol;
}

/**
 * \ingroup fastpath
 * \brief One change for fastpathd: a route diff and neighbour changes, applied in order.
 */
struct FastPathUpdate
{
    uint64_t sequence = 0;      //!< 1, 2, ... per mirror
    fastpath::RouteBatch routes; //!< diff against the previous update
    std::vector<fastpath::Neighbour> neighboursAdd;
    std::vector<fastpath::Neighbour> neighboursRemove;
    /// Wall-clock instant at which ns-3 made the oldest decision this update carries
    /// (routing table change, or forwarding decision for resolve-on-miss).
    std::chrono::steady_clock::time_point decided;

    bool Empty() const
    {
        return routes.add.empty() && routes.remove.empty() && neighboursAdd.empty() &&
               neighboursRemove.empty();
    }
};

/**
 * \ingroup fastpath
 * \brief Mirrors a node's IPv4 and IPv6 routing and neighbour state into fastpathd's terms.
 *
 * Exact mirroring for protocols that expose their table: olsr::RoutingProtocol
 * (RoutingTableChanged trace + GetRoutingTableEntries), Ipv4StaticRouting (including the
 * connected routes ns-3 adds for each address), Ipv4GlobalRouting and Ipv6StaticRouting
 * (idem; link-local, multicast and loopback prefixes are left out: fastpathd hands those
 * to ns-3 anyway); inside an Ipv4ListRouting / Ipv6ListRouting the higher-priority
 * protocol wins for equal prefixes. Static and global routing have no change trace: they
 * are compared every PollInterval.
 *
 * Resolve-on-miss for every other protocol (RIP, RIPng, AODV, DSDV, OLSR's HNA routes,
 * ...): when ns-3 forwards a packet (Ipv4L3Protocol / Ipv6L3Protocol "UnicastForward"
 * trace; the packet was punted by fastpathd) and fastpathd's table would not forward it
 * the same way, the decision ns-3 made (RouteOutput for that destination) is installed as
 * a /32 or /128 host route. Such entries are re-checked against the protocol every
 * RevalidateInterval and whenever a protocol with a change trace reports a change.
 *
 * Neighbours: alive, permanent and auto-generated entries of each mapped interface's
 * ArpCache, and every
 * NdiscCache entry of a mapped IPv6 interface that has a MAC address (REACHABLE, STALE,
 * DELAY, PROBE, PERMANENT; not INCOMPLETE), link-local ones included (RIPng and other
 * IPv6 protocols use link-local next hops). ns-3 confirms a STALE entry only when it sends
 * to it, which it no longer does once fastpathd forwards the data: an entry STALE for
 * StaleNeighbourReconfirm is put in DELAY as a send would, so a neighbour that left is
 * probed, removed by ns-3 and withdrawn from fastpathd. The caches are compared when
 * something may have changed them: a received ARP frame or NDP message (Router
 * Solicitation or Advertisement, Neighbor Solicitation or Advertisement, Redirect), a link
 * change of a mapped device (ns-3 flushes its caches), a port set down or up; the
 * comparison then runs after BatchDelay. What changes a cache without such an event (an
 * ARP entry ns-3 moves out of ALIVE when it sends to it after AliveTimeout, an NDP entry
 * removed when its probes went unanswered, the script editing a cache) is caught by the
 * comparison every NeighbourPollInterval. A device reporting IsPointToPoint() with a
 * two-device channel (an emulated
 * point-to-point link) gets static entries for its peer's addresses, as ns-3's
 * PointToPointNetDevice resolves nothing.
 *
 * Only devices registered with AddPort take part; everything else (loopback, ...) is
 * left out. The mirror hands each non-empty change to a sink (the FastPathConnection),
 * computed in the simulator thread.
 *
 * The other way round, SetPortState makes a port fastpathd reports down (an interface or
 * an internal link set down) look down to ns-3's stack and routing protocols.
 */
class FastPathRouteMirror : public Object
{
  public:
    static TypeId GetTypeId();
    FastPathRouteMirror();
    ~FastPathRouteMirror() override;

    using Sink = std::function<void(const FastPathUpdate&)>;

    /**
     * TracedCallback signature of the Update trace source.
     *
     * \param [in] added Routes added or changed by the update.
     * \param [in] removed Routes removed by the update.
     */
    typedef void (*UpdateTracedCallback)(uint32_t added, uint32_t removed);

    void SetNode(Ptr<Node> node);
    Ptr<Node> GetNode() const;
    /// Declares that `device` (of this node) is fastpathd port `port`.
    void AddPort(Ptr<NetDevice> device, fastpath::PortId port);
    void SetSink(Sink sink);

    /// Hooks the traces and starts the periodic work. Call once the node's IPv4 / IPv6 and
    /// routing are configured (e.g. schedule at time 0). The node needs at least one of
    /// Ipv4 and Ipv6.
    void Start();
    void Stop();

    /// Recomputes the desired state now (routes and neighbours) and emits the diff (if
    /// any) to the sink.
    void SyncNow();
    /// Re-checks every resolve-on-miss entry against the routing protocol.
    void Revalidate();

    /// What exactly-mirrored protocols currently want (no resolve-on-miss entries).
    FastPathTable ComputeExactRoutes() const;
    /// Alive ARP and resolved NDP entries of the mapped interfaces.
    FastPathNeighbours ComputeNeighbours() const;
    /// What ns-3 would do for `destination`: a /32 route, or nothing.
    std::optional<fastpath::Route> Probe(Ipv4Address destination) const;
    /// What ns-3 would do for `destination`: a /128 route, or nothing.
    std::optional<fastpath::Route> Probe(Ipv6Address destination) const;

    /// Routes and neighbours as last handed to the sink.
    const FastPathTable& GetSentRoutes() const;
    const FastPathNeighbours& GetSentNeighbours() const;
    /// Number of live resolve-on-miss entries.
    std::size_t GetResolvedCount() const;
    /// How many comparisons of ns-3's state against what was sent (Sync) ran so far.
    uint64_t GetComparisons() const;
    /// True when a protocol that can only be served by resolve-on-miss is installed.
    bool HasOpaqueProtocol() const;
    /// The port of an ns-3 IPv4 interface index, if mapped.
    std::optional<fastpath::PortId> PortOfInterface(uint32_t interface) const;
    /// The port of an ns-3 IPv6 interface index, if mapped.
    std::optional<fastpath::PortId> PortOfInterface6(uint32_t interface) const;

    /**
     * fastpathd reports `port` down (up = false) or up again: takes the node's IPv4 and
     * IPv6 interfaces on the port's device down, or brings back up those it took down
     * (an interface the script set down itself is left alone), and sends the resulting
     * route changes (connected routes withdrawn or restored) at once. Call in the
     * simulator thread; repeated states are ignored.
     */
    void SetPortState(fastpath::PortId port, bool up);
    /// True while SetPortState holds the port's interfaces down.
    bool IsPortDown(fastpath::PortId port) const;

  protected:
    void DoDispose() override;

  private:
    void ScheduleSync();
    /// Something may have changed a mapped interface's ARP or NDP cache: the next sync
    /// (after BatchDelay) compares the neighbours too.
    void ScheduleNeighbourSync();
    /// Compares the routes, and the neighbours when ScheduleNeighbourSync asked for it,
    /// and emits the diff (if any) to the sink.
    void Sync();
    void PeriodicPoll();
    void PeriodicNeighbourPoll();
    /// Has ns-3 confirm NDP entries that stayed STALE for StaleNeighbourReconfirm: with the
    /// data on the fast path, ns-3 no longer sends the packets that would do it.
    void ReconfirmStaleNeighbours();
    void PeriodicRevalidate();
    /// The next PeriodicRevalidate(), if started, with resolved entries, and none is due.
    void ScheduleRevalidate();
    void PeriodicNeighbourCheck();
    /// Re-checks up to `limit` resolve-on-miss entries from the cursor on.
    void RevalidateSome(std::size_t limit);
    void OnRoutingTableChanged(uint32_t size);
    /// Reads the watched OLSR tables and keeps them (m_olsrSeen): true when one differs
    /// from what was read at the trace before.
    bool OlsrTablesChanged();
    void OnUnicastForward(const Ipv4Header& header, Ptr<const Packet> packet, uint32_t iface);
    void OnUnicastForward6(const Ipv6Header& header, Ptr<const Packet> packet, uint32_t iface);
    /// Resolve-on-miss for a destination ns-3 just forwarded out of `egress` (if mapped).
    void LearnForwarded(const fastpath::IpAddress& destination,
                        std::optional<fastpath::PortId> egress);
    /// Probe() for either family.
    std::optional<fastpath::Route> ProbeAny(const fastpath::IpAddress& destination) const;
    /// Static ARP / NDP entries for the peer of each emulated point-to-point device (its
    /// addresses, link-local included, with its MAC), where the cache has none.
    void AddPointToPointNeighbours();
    /// A mapped device's link came up or went down: ns-3 has just flushed its ARP and NDP
    /// caches (their link change callbacks run before this one); the peer's static entries
    /// go back at once.
    void OnDeviceLinkChange();
    /// (Un)registers OnArpFrame / OnIpv6Frame on the mapped devices.
    void WatchNeighbourAnswers(bool on);
    void OnArpFrame(Ptr<NetDevice> device,
                    Ptr<const Packet> packet,
                    uint16_t protocol,
                    const Address& from,
                    const Address& to,
                    NetDevice::PacketType type);
    void OnIpv6Frame(Ptr<NetDevice> device,
                     Ptr<const Packet> packet,
                     uint16_t protocol,
                     const Address& from,
                     const Address& to,
                     NetDevice::PacketType type);
    void AddIpv4Neighbours(FastPathNeighbours& out) const;
    void AddIpv6Neighbours(FastPathNeighbours& out) const;
    void AddIpv4Routes(FastPathTable& table) const;
    /// The routes an OLSR protocol's table gives (from m_olsrRoutes while still valid).
    const std::vector<fastpath::Route>& OlsrRoutes(Ptr<olsr::RoutingProtocol> olsrp) const;
    void AddIpv6Routes(FastPathTable& table) const;
    void NoteDecision();

    Ptr<Node> m_node;
    Ptr<Ipv4> m_ipv4; //!< nullptr on an IPv6-only node
    Ptr<Ipv6> m_ipv6; //!< nullptr on an IPv4-only node
    std::map<Ptr<NetDevice>, fastpath::PortId> m_ports;
    /// Ports SetPortState took down, and what it took down there.
    struct DownPort
    {
        bool ipv4 = false;
        bool ipv6 = false;
        std::vector<Ipv6InterfaceAddress> addresses6; //!< ns-3 drops them with the interface
    };

    std::map<fastpath::PortId, DownPort> m_downPorts;
    Sink m_sink;
    bool m_started = false;
    std::set<Ptr<NetDevice>> m_linkWatched; //!< devices OnDeviceLinkChange is registered on
    /// False once the mirror is gone: a device outlives it, and ns-3 cannot take a link
    /// change callback back.
    std::shared_ptr<bool> m_alive = std::make_shared<bool>(true);

    Time m_batchDelay;
    Time m_pollInterval;
    Time m_neighbourPollInterval;
    Time m_revalidateInterval;
    Time m_neighbourCheckInterval;
    Time m_staleReconfirm;
    bool m_resolveOnMiss = true;
    bool m_mirrorNeighbours = true;

    EventId m_syncEvent;
    EventId m_pollEvent;
    EventId m_neighbourPollEvent;
    /// The next Sync() compares the neighbours (a cache may have changed).
    bool m_neighboursDirty = true;
    EventId m_revalidateEvent;
    EventId m_neighbourCheckEvent;

    FastPathTable m_sentRoutes;
    FastPathNeighbours m_sentNeighbours;
    /// OLSR protocols whose RoutingTableChanged this mirror listens to: their tables change
    /// only with that trace (OLSR rebuilds its table in RoutingTableComputation and fires it
    /// at the end), so their routes are read again only after it fired.
    std::set<Ptr<Object>> m_olsrWatched;
    /// The routes read from each watched OLSR protocol (in its table's order, Skippable ones
    /// and those on unmapped interfaces left out), until its trace fires or a port is added.
    /// Mutable: a cache of what ComputeExactRoutes reads, not state of its own.
    mutable std::map<Ptr<Object>, std::vector<fastpath::Route>> m_olsrRoutes;
    mutable std::vector<fastpath::Route> m_olsrUnwatched; //!< an unwatched protocol's, read now
    /// Each watched OLSR protocol's table as read at its last trace (destination, next hop,
    /// interface, distance per entry, in the table's order). ns-3 fires the trace after every
    /// route computation, i.e. after every OLSR packet received, and in a converged network
    /// almost none of them changes the table: comparing these raw entries is far cheaper
    /// than a Sync (the routes converted, a table built and diffed).
    std::map<Ptr<Object>, std::vector<std::array<uint32_t, 4>>> m_olsrSeen;
    std::vector<std::array<uint32_t, 4>> m_olsrReading; //!< scratch for OlsrTablesChanged
    /// Resolve-on-miss entries: key of the /32 or /128 destination -> route.
    std::map<FastPathTable::Key, fastpath::Route> m_resolved;
    /// Where the next periodic revalidation continues (it checks at most
    /// kRevalidateBatch entries per period, round-robin).
    FastPathTable::Key m_revalidateCursor{};
    /// NDP entries seen STALE: (interface, address) -> since when (checked every
    /// NeighbourCheckInterval: second-level accuracy is enough).
    std::map<std::pair<uint32_t, Ipv6Address>, Time> m_staleSince;
    uint64_t m_sequence = 0;
    uint64_t m_comparisons = 0;
    bool m_haveDecision = false;
    std::chrono::steady_clock::time_point m_firstDecision;

    TracedCallback<uint32_t, uint32_t> m_updateTrace; //!< (routes added, routes removed)
};

} // namespace ns3
