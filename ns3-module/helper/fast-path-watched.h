// SPDX-License-Identifier: GPL-2.0-only
// FastPathWatched: the ns-3 objects that hold an emulated link's or segment's parameters
// (its devices, channel and queue), telling the emulation when a script changes them.
#pragma once

#include "ns3/csma-channel.h"
#include "ns3/csma-net-device.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/object-factory.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/point-to-point-net-device.h"

#include <functional>

namespace ns3
{

/**
 * \ingroup fastpath
 * \brief A parameter holder that calls back when an attribute the emulation reads is set
 * (Config::Set, SetAttribute), so that the change reaches fastpathd at once, with no scan.
 *
 * ns-3 has no attribute-change notification, and these attributes write the objects'
 * members directly. Each watched type is the ns-3 type under another TypeId whose own
 * attributes of the same names wrap the ns-3 type's accessors: a set calls the original,
 * then OnChange. Config paths find them as before ($ns3::PointToPointNetDevice/DataRate,
 * /ChannelList/N/$ns3::PointToPointChannel/Delay, .../TxQueue/MaxSize), defaults
 * (Config::SetDefault of the ns-3 type) and helpers' attributes apply as before.
 */
class FastPathWatched
{
  public:
    virtual ~FastPathWatched() = default;
    /// Called after each set of a watched attribute (nothing before it is given).
    void SetOnChange(std::function<void()> onChange);
    void NotifyChange() const;

    /// `factory` (of an ns-3 type) creating the watched type instead, when there is one
    /// (PointToPointNetDevice, PointToPointChannel, CsmaNetDevice, CsmaChannel,
    /// DropTailQueue<Packet>); else as it is. The attributes set on it are kept.
    static ObjectFactory Watching(ObjectFactory factory);
    /// Calls `onChange` on each set of `object`'s watched attributes; false if `object` is
    /// not of a watched type.
    static bool Watch(Ptr<Object> object, std::function<void()> onChange);
    /// `checker` under another identity, one Config's path resolver does not follow: for a
    /// copy of a parent's pointer attribute (same name, same object), so that a path through
    /// the name reaches the object once. Construction matches values to attributes by
    /// checker: give such a copy no ATTR_CONSTRUCT (the parent's own takes the value).
    static Ptr<const AttributeChecker> UnfollowedByConfig(Ptr<const AttributeChecker> checker);

  private:
    std::function<void()> m_onChange;
};

/// PointToPointNetDevice; watched: DataRate, ReceiveErrorModel, TxQueue, Mtu.
class FastPathWatchedPointToPointNetDevice : public PointToPointNetDevice, public FastPathWatched
{
  public:
    static TypeId GetTypeId();
};

/// PointToPointChannel; watched: Delay.
class FastPathWatchedPointToPointChannel : public PointToPointChannel, public FastPathWatched
{
  public:
    static TypeId GetTypeId();
};

/// CsmaNetDevice; watched: ReceiveErrorModel, TxQueue, Mtu.
class FastPathWatchedCsmaNetDevice : public CsmaNetDevice, public FastPathWatched
{
  public:
    static TypeId GetTypeId();
};

/// CsmaChannel; watched: DataRate, Delay.
class FastPathWatchedCsmaChannel : public CsmaChannel, public FastPathWatched
{
  public:
    static TypeId GetTypeId();
};

/// DropTailQueue<Packet>; watched: MaxSize.
class FastPathWatchedDropTailQueue : public DropTailQueue<Packet>, public FastPathWatched
{
  public:
    static TypeId GetTypeId();
};

} // namespace ns3
