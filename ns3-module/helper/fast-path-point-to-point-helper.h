// SPDX-License-Identifier: GPL-2.0-only
// FastPathPointToPointHelper: ns-3's PointToPointHelper, whose links are simulated by ns-3
// or, with the global value FastPathEmulation set, emulated by fastpathd.
#pragma once

#include "ns3/fast-path-emulation.h"
#include "ns3/fast-path-helper.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/queue.h"

#include <chrono>

#include "fastpath/link_params.h"

#include <string>

namespace ns3
{

/**
 * \ingroup fastpath
 * \brief A drop-in for PointToPointHelper: one script, simulated or emulated.
 *
 * Configure it and call Install() exactly as a PointToPointHelper (it is one: tracing
 * helpers included). With the global value FastPathEmulation false (the default) it builds
 * what PointToPointHelper builds. With FastPathEmulation true (`--FastPathEmulation=1` on
 * the command line of a script that calls CommandLine::Parse):
 *
 * - setting it also selects the realtime simulator and checksums (the global values
 *   SimulatorImplementationType and ChecksumEnabled), so it must be set before the first
 *   node is created, as those are;
 * - each ns-3 node gets a fastpathd node named TAG-NAME (NAME: the node's name in Names,
 *   else n<id>; TAG: the global value FastPathTag, default the program's name);
 * - each Install(a, b) creates an internal link TAG-lK between their fastpathd nodes,
 *   its ports named after the peer node, emulated with the helper's parameters (the
 *   device's DataRate with 2 bytes of PPP header per frame, the channel's Delay, the
 *   queue's MaxSize as drop-tail limit, a RateErrorModel as ReceiveErrorModel as loss;
 *   see LinkParamsOf);
 * - each end of the link is a FastPathPointToPointNetDevice on its node: a
 *   PointToPointNetDevice to the script (DynamicCast, GetQueue(), the Config paths of
 *   $ns3::PointToPointNetDevice and its TxQueue), which sends and receives through the
 *   FastPathNetDevice on the link port's control channel, aggregated to it; the node is
 *   attached to its fastpathd node by FastPathHelper and its routing mirrored into that
 *   node. The returned devices are in PointToPointHelper's order (a's, then b's).
 *
 * Code that takes the helper as a PointToPointHelper, by value or by reference
 * (PointToPointDumbbellHelper, PointToPointStarHelper, a script's own function), and calls
 * PointToPointHelper::Install builds the same emulated links: the helper keeps the
 * PointToPointHelper it is configured with the emulating device, channel and queue types
 * when FastPathEmulation is set, and the link is emulated when its second device is attached
 * to the channel. A copy of a helper constructed and configured before FastPathEmulation
 * was set (before CommandLine::Parse) builds plain links, which the emulated run refuses at
 * start, naming them.
 *
 * Everything created in fastpathd is deleted at Simulator::Destroy(); names starting with
 * TAG- are deleted at the first Install() (what a crashed run left). fastpathd's socket
 * is the global value FastPathSocket; the process must be allowed to create nodes and
 * links there (fastpathd --socket-uid). Install everything before Simulator::Run().
 */
class FastPathPointToPointHelper : public FastPathEmulatingHelper<PointToPointHelper>
{
  public:
    FastPathPointToPointHelper();

    /// As PointToPointHelper's; each also gives the helper the types of the switch as it is
    /// now (FollowSwitch()), for the copies of it other helpers take.
    template <typename... Ts>
    void SetQueue(std::string type, Ts&&... args)
    {
        FastPathEmulatingHelper::SetQueue(type, std::forward<Ts>(args)...);
        FollowSwitch();
    }

    void SetDeviceAttribute(std::string name, const AttributeValue& value);
    void SetChannelAttribute(std::string name, const AttributeValue& value);

    NetDeviceContainer Install(NodeContainer c);
    NetDeviceContainer Install(Ptr<Node> a, Ptr<Node> b);
    NetDeviceContainer Install(Ptr<Node> a, std::string bName);
    NetDeviceContainer Install(std::string aName, Ptr<Node> b);
    NetDeviceContainer Install(std::string aNode, std::string bNode);

    /// The parameters of the direction of an emulated link that `device` (a
    /// PointToPointNetDevice) sends into: its DataRate + 2 bytes per frame, the channel's
    /// Delay, `queue`'s MaxSize, and as loss the RateErrorModel (ReceiveErrorModel) of
    /// `receiver`, the device at the other end, which is where ns-3 drops those frames
    /// (nullptr: `device`'s own).
    static fastpath::LinkParams LinkParamsOf(Ptr<NetDevice> device,
                                             Ptr<Channel> channel,
                                             Ptr<QueueBase> queue,
                                             Ptr<NetDevice> receiver = nullptr);
    /// Changes of emulated links handed to fastpathd since the simulation started
    /// (Config::Set of DataRate, Delay..., interfaces set down or up), and the wall clock
    /// time fastpathd acknowledged the last one.
    static uint64_t GetFollowedChanges();
    /// How often an emulated link's parameters were read from its ns-3 objects
    /// (LinkParamsOf): at Install() and after each notified change, never on a timer.
    static uint64_t GetParameterReads();
    static std::chrono::steady_clock::time_point GetLastFollowAck();
    /// The fastpathd node an ns-3 node is on ("" if none: not emulated or not installed).
    static std::string GetFastPathNodeName(Ptr<Node> node);
    /// The fastpathd link behind an emulated device ("" if none).
    static std::string GetFastPathLinkName(Ptr<NetDevice> device);
    /// The helper attaching the ns-3 nodes (for FastPathHelper::Flush, GetMirror...);
    /// nullptr when nothing is emulated.
    static FastPathHelper* GetFastPathHelper();

  private:
    /// Gives the factories of the PointToPointHelper this helper is (which hold every
    /// setting) the types of the switch: with FastPathEmulation set, the emulating ones
    /// (FastPathPointToPointNetDevice, FastPathPointToPointChannel, watched queues, no
    /// flow control of PointToPointHelper's: the engine has its own); else the stock ones.
    /// Its Install() (this helper's, or a copy's: PointToPointDumbbellHelper,
    /// PointToPointStarHelper) then creates emulating devices, whose Attach() emulates the
    /// link. Called at construction, at each setting and at Install().
    void FollowSwitch();

    bool m_flowControl = true;      //!< PointToPointHelper's, while emulation holds it off
    bool m_flowControlHeld = false; //!< emulated: the base's flow control is held off
};

} // namespace ns3
