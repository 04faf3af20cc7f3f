// SPDX-License-Identifier: GPL-2.0-only
// FastPathPointToPointHelper as a PointToPointHelper: the stock helper's factories follow
// the emulation switch, so that the helper itself and every copy other helpers take of it
// (by value, as a PointToPointHelper) build emulating devices and channels when emulation
// is on and stock ones when it is off, with the same settings.
#include "fast-path-point-to-point-helper.h"

#include "ns3/drop-tail-queue.h"
#include "ns3/fast-path-channel.h"
#include "ns3/fast-path-point-to-point-net-device.h"
#include "ns3/fast-path-watched.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/point-to-point-net-device.h"

#include "../model/fast-path-private-member.h"

namespace ns3
{

namespace
{

// PointToPointHelper keeps its factories private and its Install() is not virtual: a copy
// of this helper taken as a PointToPointHelper (PointToPointDumbbellHelper and
// PointToPointStarHelper take theirs by value) installs with the base's factories alone.
// It offers no setter for the device and channel types: FollowSwitch() gives the base the
// emulating types through these members.
FP_PRIVATE_MEMBER_ACCESS();

FP_PRIVATE_MEMBER(StockDeviceFactory, PointToPointHelper, ObjectFactory, m_deviceFactory);
FP_PRIVATE_MEMBER(StockChannelFactory, PointToPointHelper, ObjectFactory, m_channelFactory);
FP_PRIVATE_MEMBER(StockQueueFactory, PointToPointHelper, ObjectFactory, m_queueFactory);
FP_PRIVATE_MEMBER(StockFlowControl, PointToPointHelper, bool, m_enableFlowControl);

} // namespace

void
FastPathPointToPointHelper::SetDeviceAttribute(std::string name, const AttributeValue& value)
{
    FastPathEmulatingHelper::SetDeviceAttribute(name, value);
    FollowSwitch();
}

void
FastPathPointToPointHelper::SetChannelAttribute(std::string name, const AttributeValue& value)
{
    FastPathEmulatingHelper::SetChannelAttribute(name, value);
    FollowSwitch();
}

void
FastPathPointToPointHelper::FollowSwitch()
{
    // Only the types change: the settings stay the base's own, however they were made
    // (through this helper, or through a PointToPointHelper& to it).
    PointToPointHelper& stock = *this;
    const bool emulated = IsEmulated();
    // The emulating device and channel keep every attribute of the stock ones (the same
    // checkers): the settings apply unchanged.
    (stock.*Get(StockDeviceFactory{}))
        .SetTypeId(emulated ? FastPathPointToPointNetDevice::GetTypeId()
                            : PointToPointNetDevice::GetTypeId());
    (stock.*Get(StockChannelFactory{}))
        .SetTypeId(emulated ? FastPathPointToPointChannel::GetTypeId()
                            : PointToPointChannel::GetTypeId());
    // Emulated, watched queues: a set of their MaxSize is handed to fastpathd at once.
    ObjectFactory& queue = stock.*Get(StockQueueFactory{});
    if (emulated)
    {
        queue = FastPathWatched::Watching(queue);
    }
    else if (queue.GetTypeId() == FastPathWatchedDropTailQueue::GetTypeId())
    {
        queue.SetTypeId(DropTailQueue<Packet>::GetTypeId());
    }
    // Emulated, the engine's TxQueue (where what ns-3 sends waits) has the device's
    // NetDeviceQueueInterface; a second one would be refused by the aggregation.
    bool& flowControl = stock.*Get(StockFlowControl{});
    if (emulated && !m_flowControlHeld)
    {
        m_flowControl = flowControl;
        m_flowControlHeld = true;
        flowControl = false;
    }
    else if (!emulated && m_flowControlHeld)
    {
        flowControl = m_flowControl;
        m_flowControlHeld = false;
    }
}

} // namespace ns3
