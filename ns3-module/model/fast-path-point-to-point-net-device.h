// SPDX-License-Identifier: GPL-2.0-only
// FastPathPointToPointNetDevice: the device an emulated point-to-point link puts on a node.
// It is a PointToPointNetDevice to the script (casts, GetQueue, Config paths); what it sends
// and receives goes through the FastPathNetDevice aggregated to it, on fastpathd's port.
#pragma once

#include "ns3/fast-path-watched.h"

#include <functional>

namespace ns3
{

class FastPathNetDevice;

/**
 * \ingroup fastpath
 * \brief An emulated point-to-point link's end, as the script sees it.
 *
 * FastPathPointToPointHelper installs one per end of an emulated link, where
 * PointToPointHelper installs a PointToPointNetDevice; it is one, so a script's
 * `DynamicCast<PointToPointNetDevice>(devices.Get(i))` works and so do the members that
 * are not virtual: GetQueue() returns the device's TxQueue, whose counts and trace sources
 * follow the frames fastpathd sends on the port once a capture tap observes the device
 * (FastPathDeviceTraces), SetQueue() replaces it, SetDataRate() and
 * SetReceiveErrorModel() set what fastpathd's link follows (FastPathWatched). The
 * parameters are this object's attributes, as a PointToPointNetDevice's (DataRate, Mtu,
 * TxQueue, ReceiveErrorModel; a set is handed to fastpathd at once).
 *
 * The frames never take PointToPointNetDevice's own path (its channel transmits nothing):
 * every NetDevice call that moves a frame or reports the port's state is the engine's, the
 * FastPathNetDevice on the port's control channel, which the device creates with itself,
 * aggregates and keeps off the node's device list (so a device made by any factory, e.g.
 * PointToPointHelper's, has it from the start). The engine hands what it receives up
 * as this device's. So the engine keeps its jobs (the transmit queue paced at the link's
 * rate, timed delivery, the receive error model, the byte tags) and this device only
 * presents them. The frames on the port are Ethernet frames: the device needs ARP and
 * has the port's MAC, as the engine.
 *
 * ReceiveErrorModel and PhyRxDrop are the engine's once it is set: the model a script
 * gives is applied as FastPathNetDevice applies it (on fastpathd's link for a per-packet
 * RateErrorModel, else in the engine), and PhyRxDrop fires for the frames the engine
 * drops.
 */
class FastPathPointToPointNetDevice : public FastPathWatchedPointToPointNetDevice
{
  public:
    static TypeId GetTypeId();
    FastPathPointToPointNetDevice();

    /// What is called when a device of this type is attached to a channel that then
    /// joins two devices (PointToPointNetDevice::Attach, as PointToPointHelper::Install
    /// and the stock helpers built on it call it): the device just attached, the channel's
    /// other one already. One handler per process (FastPathPointToPointHelper's, which
    /// emulates the link); none: nothing is done.
    using AttachHandler = std::function<void(Ptr<FastPathPointToPointNetDevice>)>;
    static void SetAttachHandler(AttachHandler handler);

    /// The engine, created with the device (aggregated to it).
    Ptr<FastPathNetDevice> GetEngine() const;
    /// The receive error model fastpathd's link applies (PointToPointNetDevice's own:
    /// the helper's, or a per-packet RateErrorModel a script set); the ReceiveErrorModel
    /// attribute is the one the script set, wherever it applies.
    Ptr<ErrorModel> GetLinkErrorModel() const;

    void SetIfIndex(const uint32_t index) override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    void SetNode(Ptr<Node> node) override;
    bool NeedsArp() const override;
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb) override;

  protected:
    void NotifyConstructionCompleted() override;

  private:
    /// PointToPointNetDevice::Attach calls its link-change callbacks once attached.
    void Attached();
    /// The ReceiveErrorModel attribute: the engine's once there is one.
    void SetErrorModel(Ptr<ErrorModel> model);
    Ptr<ErrorModel> GetErrorModel() const;
    bool FromEngine(Ptr<NetDevice> engine,
                    Ptr<const Packet> packet,
                    uint16_t protocol,
                    const Address& source);
    bool PromiscFromEngine(Ptr<NetDevice> engine,
                           Ptr<const Packet> packet,
                           uint16_t protocol,
                           const Address& source,
                           const Address& destination,
                           PacketType type);

    /// Aggregated to this device from its constructor: it lives as long (a Ptr would hold
    /// the aggregate alive from inside). PointToPointNetDevice's DoDispose is private, so
    /// none here: the callbacks hold no reference either (the node binds itself by raw
    /// pointer).
    FastPathNetDevice* m_engine = nullptr;
    NetDevice::ReceiveCallback m_rx;
    NetDevice::PromiscReceiveCallback m_promiscRx;
};

} // namespace ns3
