// SPDX-License-Identifier: GPL-2.0-only
// FastPathNetDevice: the FdNetDevice on a fastpathd port's control channel, which presents
// the channel of the link or segment it emulates, so that what ns-3 builds from channels
// (global routing's link-state database, Nix-vector routing's graph) sees the emulated
// network as it would see the simulated one.
#pragma once

#include "ns3/channel.h"
#include "ns3/fd-net-device.h"

namespace ns3
{

/**
 * \ingroup fastpath
 * \brief An FdNetDevice on a fastpathd port that may present a channel.
 *
 * FastPathHelper installs one per fastpathd port. Attached to a port alone (an interface
 * port, or an internal link given to FastPathHelper by name) it is a plain FdNetDevice:
 * GetChannel() is null. The emulating helpers (FastPathPointToPointHelper,
 * FastPathCsmaHelper) give it the channel of the link or segment (a channel whose
 * devices are the emulated devices of all its ends) and, for a point-to-point link, make
 * it report IsPointToPoint() as a PointToPointNetDevice does: Ipv4GlobalRoutingHelper then
 * describes the link with a point-to-point record, exactly as simulated. The frames still
 * are Ethernet frames (fastpathd's link ports have MAC addresses), so the device keeps
 * using ARP. The byte tags of the packets it sends are restored where they are
 * received (FastPathTagCarrier), so that FlowMonitor counts them as simulated.
 */
class FastPathNetDevice : public FdNetDevice
{
  public:
    static TypeId GetTypeId();
    FastPathNetDevice();

    /// The channel GetChannel() returns (nullptr: none).
    void SetChannel(Ptr<Channel> channel);
    /// Whether the device reports IsPointToPoint() (a point-to-point link's end).
    void SetPointToPoint(bool pointToPoint);

    Ptr<Channel> GetChannel() const override;
    bool IsPointToPoint() const override;
    /// As FdNetDevice's, keeping the packet's byte tags (FastPathTagCarrier).
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    /// As FdNetDevice's; the packets handed to `cb` carry the byte tags they were sent with.
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;

  protected:
    void DoDispose() override;

  private:
    bool Receive(Ptr<NetDevice> device,
                 Ptr<const Packet> packet,
                 uint16_t protocol,
                 const Address& source);

    NetDevice::ReceiveCallback m_rx;
    Ptr<Channel> m_channel;
    bool m_pointToPoint = false;
};

} // namespace ns3
