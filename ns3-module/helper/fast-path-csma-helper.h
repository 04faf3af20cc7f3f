// SPDX-License-Identifier: GPL-2.0-only
// FastPathCsmaHelper: ns-3's CsmaHelper, whose channels are simulated by ns-3 or, with the
// global value FastPathEmulation set, emulated by fastpathd as segments.
#pragma once

#include "ns3/csma-channel.h"
#include "ns3/csma-helper.h"
#include "ns3/fast-path-emulation.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/queue.h"

#include "fastpath/link_params.h"

#include <string>

namespace ns3
{

/**
 * \ingroup fastpath
 * \brief A drop-in for CsmaHelper: one script, simulated or emulated.
 *
 * Configure it and call Install() exactly as a CsmaHelper (it is one: tracing helpers
 * included). With the global value FastPathEmulation false (the default) it builds what
 * CsmaHelper builds. With FastPathEmulation true:
 *
 * - each ns-3 node is on its fastpathd node TAG-NAME, the same one
 *   FastPathPointToPointHelper uses (FastPathEmulation: one connection per node);
 * - each Install(NodeContainer) creates one fastpathd segment TAG-csmaK (a shared
 *   medium: a frame reaches the port of its destination MAC, broadcast and multicast every
 *   other port, all ports share one rate), with a port csmaK on each node's fastpathd
 *   node, emulated with the helper's parameters (see SegmentParamsOf);
 * - each ns-3 node is attached to its fastpathd node: one FdNetDevice per segment port,
 *   on the port's control channel, in CsmaHelper's order (the container's order).
 *
 * Config::Set of the channel's DataRate or Delay or the devices' ReceiveErrorModel reach
 * fastpathd at once, notified (a CsmaChannel in ChannelList and a CsmaNetDevice
 * aggregated to each FdNetDevice hold them, of FastPathWatched types); an ns-3
 * interface set down or up (seen within FastPathFollowInterval) takes its node's port of
 * the segment down or up (it neither
 * sends nor receives meanwhile; the others go on). A segment is created with all
 * its nodes at once: Install(node, channel) of an existing channel is refused when
 * emulated. Everything is deleted at Simulator::Destroy(); a crashed run's TAG- names at
 * the first Install().
 */
class FastPathCsmaHelper : public FastPathEmulatingHelper<CsmaHelper>
{
  public:
    FastPathCsmaHelper();

    NetDeviceContainer Install(Ptr<Node> node) const;
    NetDeviceContainer Install(std::string name) const;
    NetDeviceContainer Install(const NodeContainer& c) const;
    /// Simulated only: emulated, a segment gets all its nodes in one Install(NodeContainer).
    NetDeviceContainer Install(Ptr<Node> node, Ptr<CsmaChannel> channel) const;
    NetDeviceContainer Install(const NodeContainer& c, Ptr<CsmaChannel> channel) const;

    /**
     * The parameters of an emulated segment: the channel's DataRate with 4 bytes of
     * Ethernet trailer per frame, its Delay, `queue`'s MaxSize as the one drop-tail limit,
     * and as loss the largest loss of the `devices`' RateErrorModels (ReceiveErrorModel;
     * a segment has one loss for every receiver).
     */
    static fastpath::LinkParams SegmentParamsOf(Ptr<CsmaChannel> channel,
                                                const NetDeviceContainer& devices,
                                                Ptr<QueueBase> queue);
    /// The fastpathd segment behind an emulated device ("" if none).
    static std::string GetFastPathSegmentName(Ptr<NetDevice> device);
};

} // namespace ns3
