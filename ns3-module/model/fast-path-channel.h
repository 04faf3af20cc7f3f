// SPDX-License-Identifier: GPL-2.0-only
// The channels of emulated links and segments: ns-3's own channel types (they hold the
// parameters a script sets: Delay, DataRate), whose devices are the emulated devices on
// the nodes, so that code walking the topology through channels (global routing,
// Nix-vector routing) sees the emulated network as the simulated one.
#pragma once

#include "ns3/channel.h"
#include "ns3/csma-channel.h"
#include "ns3/csma-net-device.h"
#include "ns3/fast-path-watched.h"
#include "ns3/net-device-container.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/point-to-point-net-device.h"

namespace ns3
{

/**
 * \ingroup fastpath
 * \brief A channel of ns-3's (`Base`, a watched channel type) whose devices are the
 * emulated devices on the nodes once SetEmulatedDevices() is called.
 *
 * Before that (and when it is given no device) GetNDevices()/GetDevice() are Base's: the
 * stand-in devices attached to it, never on a node.
 */
template <typename Base>
class FastPathChannel : public Base
{
  public:
    /// The devices on the nodes of the link or segment, in its ends' order.
    void SetEmulatedDevices(const NetDeviceContainer& devices)
    {
        m_emulated = devices;
    }

    std::size_t GetNDevices() const override
    {
        return m_emulated.GetN() ? m_emulated.GetN() : Base::GetNDevices();
    }

    Ptr<NetDevice> GetDevice(std::size_t i) const override
    {
        return m_emulated.GetN() ? m_emulated.Get(i) : Base::GetDevice(i);
    }

  protected:
    void DoDispose() override
    {
        // The devices point back at the channel.
        m_emulated = NetDeviceContainer();
        Base::DoDispose();
    }

  private:
    NetDeviceContainer m_emulated;
};

/**
 * \ingroup fastpath
 * \brief The channel of a link emulated by fastpathd (FastPathPointToPointHelper).
 *
 * A PointToPointChannel (in ChannelList where the simulated link's channel would be, its
 * Delay followed into fastpathd) whose GetNDevices()/GetDevice() are the link's two
 * emulated devices (FastPathPointToPointNetDevice, attached to it) once
 * SetEmulatedDevices() is called. It never carries a frame: fastpathd does. Watched
 * (FastPathWatched): a set of its Delay is handed to fastpathd at once.
 */
class FastPathPointToPointChannel : public FastPathChannel<FastPathWatchedPointToPointChannel>
{
  public:
    static TypeId GetTypeId();
    FastPathPointToPointChannel();

    using FastPathChannel::SetEmulatedDevices;
    /// The devices on the nodes at the link's two ends (a's, then b's).
    void SetEmulatedDevices(Ptr<NetDevice> a, Ptr<NetDevice> b);
};

/**
 * \ingroup fastpath
 * \brief The channel of a segment emulated by fastpathd (FastPathCsmaHelper).
 *
 * A CsmaChannel (its DataRate and Delay followed into fastpathd) whose
 * GetNDevices()/GetDevice() are the segment's emulated devices, in its nodes' order, once
 * SetEmulatedDevices() is called; the CsmaNetDevices attached to it are stand-ins. Watched
 * (FastPathWatched): a set of its DataRate or Delay is handed to fastpathd at once.
 */
class FastPathCsmaChannel : public FastPathChannel<FastPathWatchedCsmaChannel>
{
  public:
    static TypeId GetTypeId();
    FastPathCsmaChannel();
};

/**
 * \ingroup fastpath
 * \brief The channel of an infrastructure BSS emulated by fastpathd (FastPathWifiHelper).
 *
 * As a YansWifiChannel is to the simulated BSS's WifiNetDevices: GetNDevices()/GetDevice()
 * are the BSS's emulated devices on the nodes (its access point's and its stations'), so
 * that Ipv4GlobalRoutingHelper describes the BSS as one broadcast network, as simulated.
 * It never carries a frame: fastpathd's radio medium does.
 */
class FastPathWifiChannel : public Channel
{
  public:
    static TypeId GetTypeId();
    FastPathWifiChannel();
    /// A device of the BSS, on its node.
    void Add(Ptr<NetDevice> device);
    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

  protected:
    void DoDispose() override;

  private:
    NetDeviceContainer m_devices;
};

} // namespace ns3
