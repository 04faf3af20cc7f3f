// SPDX-License-Identifier: GPL-2.0-only
// The peer of an emulated point-to-point link known without ARP or NDP, from time 0 on.
#ifndef FAST_PATH_P2P_NEIGHBOURS_H
#define FAST_PATH_P2P_NEIGHBOURS_H

#include "ns3/channel.h"
#include "ns3/net-device-container.h"

namespace ns3
{

/**
 * ns-3's PointToPointNetDevice needs no ARP or NDP: a node's first packet leaves at once.
 * An emulated point-to-point device carries Ethernet frames, so without an entry for its
 * peer a node resolves it first, and the first packet of every flow waits a round trip of
 * the link (on a 45 ms link a TCP handshake takes 90 ms longer, its first RTT sample is
 * twice the path's, and TCPs that seed their estimates from it, BBR's minimum RTT, keep a
 * larger window). The caches of an interface are flushed whenever its device's link goes up
 * or down, which an emulated device's does when it starts at time 0.
 *
 * This gives each device of `devices` static entries for its peer's addresses on `channel`
 * (NeighborCacheHelper's auto-generated entries) at time 0, after the script has assigned
 * the addresses, and again after every link change of either device (after the caches'
 * own flush: their callbacks are registered when the addresses are assigned, before).
 */
void KeepPointToPointNeighbours(Ptr<Channel> channel, const NetDeviceContainer& devices);

} // namespace ns3

#endif
