// SPDX-License-Identifier: GPL-2.0-only
// Keeps fastpathd's forwarding table a copy of what a node's ns-3 routing decides.
#pragma once

#include "fast-path-table.h"

#include "ns3/event-id.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>

namespace ns3
{

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
 * \brief Mirrors a node's IPv4 routing and ARP state into fastpathd's terms.
 *
 * Exact mirroring for protocols that expose their table: olsr::RoutingProtocol
 * (RoutingTableChanged trace + GetRoutingTableEntries), Ipv4StaticRouting (including the
 * connected routes ns-3 adds for each address) and Ipv4GlobalRouting; inside an
 * Ipv4ListRouting the higher-priority protocol wins for equal prefixes.
 *
 * Resolve-on-miss for every other protocol (RIP, AODV, DSDV, OLSR's HNA routes, ...): when
 * ns-3 forwards a packet (Ipv4L3Protocol "UnicastForward" trace; the packet was punted
 * by fastpathd) and fastpathd's table would not forward it the same way, the decision
 * ns-3 made (RouteOutput for that destination) is installed as a /32 host route. Such
 * entries are re-checked against the protocol every RevalidateInterval and whenever a
 * protocol with a change trace reports a change.
 *
 * Neighbours: alive and permanent entries of each mapped interface's ArpCache.
 *
 * Only devices registered with AddPort take part; everything else (loopback, ...) is
 * left out. The mirror hands each non-empty change to a sink (the FastPathConnection),
 * computed in the simulator thread.
 */
class FastPathRouteMirror : public Object
{
  public:
    static TypeId GetTypeId();
    FastPathRouteMirror();
    ~FastPathRouteMirror() override;

    using Sink = std::function<void(const FastPathUpdate&)>;

    void SetNode(Ptr<Node> node);
    Ptr<Node> GetNode() const;
    /// Declares that `device` (of this node) is fastpathd port `port`.
    void AddPort(Ptr<NetDevice> device, fastpath::PortId port);
    void SetSink(Sink sink);

    /// Hooks the traces and starts the periodic work. Call once the node's IPv4 and
    /// routing are configured (e.g. schedule at time 0).
    void Start();
    void Stop();

    /// Recomputes the desired state now and emits the diff (if any) to the sink.
    void SyncNow();
    /// Re-checks every resolve-on-miss entry against the routing protocol.
    void Revalidate();

    /// What exactly-mirrored protocols currently want (no resolve-on-miss entries).
    FastPathTable ComputeExactRoutes() const;
    /// Alive ARP entries of the mapped interfaces.
    FastPathNeighbours ComputeNeighbours() const;
    /// What ns-3 would do for `destination`: a /32 route, or nothing.
    std::optional<fastpath::Route> Probe(Ipv4Address destination) const;

    /// Routes and neighbours as last handed to the sink.
    const FastPathTable& GetSentRoutes() const;
    const FastPathNeighbours& GetSentNeighbours() const;
    /// Number of live resolve-on-miss entries.
    std::size_t GetResolvedCount() const;
    /// True when a protocol that can only be served by resolve-on-miss is installed.
    bool HasOpaqueProtocol() const;
    /// The port of an ns-3 IPv4 interface index, if mapped.
    std::optional<fastpath::PortId> PortOfInterface(uint32_t interface) const;

  protected:
    void DoDispose() override;

  private:
    void ScheduleSync();
    void PeriodicPoll();
    void PeriodicRevalidate();
    void OnRoutingTableChanged(uint32_t size);
    void OnUnicastForward(const Ipv4Header& header, Ptr<const Packet> packet, uint32_t iface);
    void NoteDecision();

    Ptr<Node> m_node;
    Ptr<Ipv4> m_ipv4;
    std::map<Ptr<NetDevice>, fastpath::PortId> m_ports;
    Sink m_sink;
    bool m_started = false;

    Time m_batchDelay;
    Time m_pollInterval;
    Time m_revalidateInterval;
    bool m_resolveOnMiss = true;
    bool m_mirrorNeighbours = true;

    EventId m_syncEvent;
    EventId m_pollEvent;
    EventId m_revalidateEvent;

    FastPathTable m_sentRoutes;
    FastPathNeighbours m_sentNeighbours;
    std::map<uint32_t, fastpath::Route> m_resolved; //!< destination (host order) -> route
    uint64_t m_sequence = 0;
    bool m_haveDecision = false;
    std::chrono::steady_clock::time_point m_firstDecision;

    TracedCallback<uint32_t, uint32_t> m_updateTrace; //!< (routes added, routes removed)
};

} // namespace ns3
