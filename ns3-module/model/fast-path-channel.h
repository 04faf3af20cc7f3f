// SPDX-License-Identifier: GPL-2.0-only
// The channels of emulated links and segments: ns-3's own channel types (they hold the
// parameters a script sets: Delay, DataRate), whose devices are the emulated devices on
// the nodes, so that code walking the topology through channels (global routing,
// Nix-vector routing) sees the emulated network as the simulated one.
#pragma once

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
 * \brief The channel of a link emulated by fastpathd (FastPathPointToPointHelper).
 *
 * A PointToPointChannel (in ChannelList where the simulated link's channel would be, its
 * Delay followed into fastpathd) whose GetNDevices()/GetDevice() are the link's two
 * emulated devices (FastPathNetDevice) once SetEmulatedDevices() is called. The
 * PointToPointNetDevices attached to it are the ends' stand-ins, never on a node. Watched
 * (FastPathWatched): a set of its Delay is handed to fastpathd at once.
 */
class FastPathPointToPointChannel : public FastPathWatchedPointToPointChannel
{
  public:
    static TypeId GetTypeId();
    FastPathPointToPointChannel();

    /// The devices on the nodes at the link's two ends (a's, then b's).
    void SetEmulatedDevices(Ptr<NetDevice> a, Ptr<NetDevice> b);

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

  protected:
    void DoDispose() override;

  private:
    NetDeviceContainer m_emulated;
};

/**
 * \ingroup fastpath
 * \brief The channel of a segment emulated by fastpathd (FastPathCsmaHelper).
 *
 * A CsmaChannel (its DataRate and Delay followed into fastpathd) whose
 * GetNDevices()/GetDevice() are the segment's emulated devices once
 * SetEmulatedDevices() is called; the CsmaNetDevices attached to it are stand-ins. Watched
 * (FastPathWatched): a set of its DataRate or Delay is handed to fastpathd at once.
 */
class FastPathCsmaChannel : public FastPathWatchedCsmaChannel
{
  public:
    static TypeId GetTypeId();
    FastPathCsmaChannel();

    /// The devices on the nodes of the segment, in its nodes' order.
    void SetEmulatedDevices(const NetDeviceContainer& devices);

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

  protected:
    void DoDispose() override;

  private:
    NetDeviceContainer m_emulated;
};

} // namespace ns3
