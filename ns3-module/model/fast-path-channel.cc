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

NS_OBJECT_ENSURE_REGISTERED(FastPathWifiChannel);

TypeId
FastPathWifiChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FastPathWifiChannel")
                            .SetParent<Channel>()
                            .SetGroupName("FastPath")
                            .AddConstructor<FastPathWifiChannel>();
    return tid;
}

FastPathWifiChannel::FastPathWifiChannel() = default;

void
FastPathWifiChannel::Add(Ptr<NetDevice> device)
{
    m_devices.Add(device);
}

std::size_t
FastPathWifiChannel::GetNDevices() const
{
    return m_devices.GetN();
}

Ptr<NetDevice>
FastPathWifiChannel::GetDevice(std::size_t i) const
{
    return m_devices.Get(i);
}

void
FastPathWifiChannel::DoDispose()
{
    // The devices point back at the channel.
    m_devices = NetDeviceContainer();
    Channel::DoDispose();
}

} // namespace ns3
