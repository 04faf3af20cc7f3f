// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-channel.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FastPathPointToPointChannel);
NS_OBJECT_ENSURE_REGISTERED(FastPathCsmaChannel);

TypeId
FastPathPointToPointChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FastPathPointToPointChannel")
                            .SetParent<FastPathWatchedPointToPointChannel>()
                            .SetGroupName("FastPath")
                            .AddConstructor<FastPathPointToPointChannel>();
    return tid;
}

FastPathPointToPointChannel::FastPathPointToPointChannel() = default;

void
FastPathPointToPointChannel::SetEmulatedDevices(Ptr<NetDevice> a, Ptr<NetDevice> b)
{
    SetEmulatedDevices(NetDeviceContainer(a, b));
}

TypeId
FastPathCsmaChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FastPathCsmaChannel")
                            .SetParent<FastPathWatchedCsmaChannel>()
                            .SetGroupName("FastPath")
                            .AddConstructor<FastPathCsmaChannel>();
    return tid;
}

FastPathCsmaChannel::FastPathCsmaChannel() = default;

} // namespace ns3
