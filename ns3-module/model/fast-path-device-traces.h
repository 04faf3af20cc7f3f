// SPDX-License-Identifier: GPL-2.0-only
// FastPathDeviceTraces: the trace sources of the stock devices a script reaches on an
// emulated device (an emulated link's end is a PointToPointNetDevice; a segment member has
// a CsmaNetDevice stand-in aggregated; their TxQueues, their channels), fed from the frames
// fastpathd carried, or refused.
#pragma once

#include "ns3/net-device.h"
#include "ns3/packet.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fastpath
 * \brief What happened to a frame fastpathd carried on an emulated device.
 */
enum class FastPathFrameDirection
{
    TX, //!< the device sent it into its link or segment (it left the device's queue)
    RX, //!< it arrived at the device from its link or segment
};

/**
 * \ingroup fastpath
 * \brief Feeds the stand-in's trace sources of an emulated device from observed frames.
 *
 * Emulated, a script's Config::Connect on a path such as
 * `/NodeList/0/DeviceList/1/$ns3::PointToPointNetDevice/MacTx` or
 * `.../$ns3::PointToPointNetDevice/TxQueue/Enqueue` resolves (the emulated device is a
 * PointToPointNetDevice, or a stand-in CsmaNetDevice is aggregated to it; each has a
 * TxQueue) but ns-3 never sees the frames: fastpathd
 * carries them. Whoever observes them (the capture taps, batched into the simulation)
 * declares a device observed with SetObserved() before Simulator::Run() and calls Observe()
 * in the simulation's context for each frame, with the Ethernet frame as fastpathd carried
 * it. Observe fires, as the simulated device would for that frame:
 *
 * - TX: MacTx (the network-layer packet), TxQueue Enqueue and Dequeue (the queue's
 *   PacketsInQueue and BytesInQueue go up and down), PhyTxBegin, PhyTxEnd, Sniffer and
 *   PromiscSniffer (the frame as that device frames it: PPP header, or Ethernet);
 * - RX: PhyRxEnd, Sniffer, PromiscSniffer, MacPromiscRx, MacRx.
 *
 * ARP frames have no point-to-point counterpart (PointToPointNetDevice sends none) and
 * leave a point-to-point stand-in's traces alone. The other trace sources (the drops,
 * MacTxBackoff, PhyRxBegin, the queue's Drop, DropBeforeEnqueue, DropAfterDequeue, the
 * channel's TxRxPointToPoint), and every source of a device nobody observes, cannot be fed:
 * Check() names each such source that has a sink, and the emulation refuses the run with it
 * at time 0 (never a silent no-op).
 */
class FastPathDeviceTraces
{
  public:
    /// Frames of `device` (an emulated device) will be given to Observe() from now on.
    static void SetObserved(Ptr<NetDevice> device, bool observed = true);
    /// Whether SetObserved() declared `device` observed.
    static bool IsObserved(Ptr<NetDevice> device);
    /// A frame (Ethernet header first, no FCS) fastpathd carried on `device`.
    static void Observe(Ptr<NetDevice> device,
                        FastPathFrameDirection direction,
                        Ptr<const Packet> frame);
    /// Empty when every connected trace source of every emulated device's stand-ins can be
    /// fed; else one message naming each path that cannot, and what to use instead.
    static std::string Check();
    /// Fires the Drop and DropBeforeEnqueue sources of `to`'s TxQueue (GetQueue(), at each
    /// drop) for each packet `from` (an engine's TxQueue, where what ns-3 sends waits) drops
    /// or refuses: FlowMonitor's probe and scripts see ns-3's own drops there, as simulated.
    static void ForwardDrops(Ptr<Queue<Packet>> from, Ptr<PointToPointNetDevice> to);
    /// The emulated devices nobody observes that have a sink on a source Observe() feeds
    /// (the emulation taps them at time 0: FastPathTraceTaps::ObserveConnected()).
    static std::vector<Ptr<NetDevice>> Unobserved();
};

} // namespace ns3
