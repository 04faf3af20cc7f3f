// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-channel.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathChannel");
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
    m_emulated = NetDeviceContainer(a, b);
}

std::size_t
FastPathPointToPointChannel::GetNDevices() const
{
    return m_emulated.GetN() ? m_emulated.GetN() : PointToPointChannel::GetNDevices();
}

Ptr<NetDevice>
FastPathPointToPointChannel::GetDevice(std::size_t i) const
{
    return m_emulated.GetN() ? m_emulated.Get(i) : PointToPointChannel::GetDevice(i);
}

void
FastPathPointToPointChannel::DoDispose()
{
    // The devices point back at the channel.
    m_emulated = NetDeviceContainer();
    PointToPointChannel::DoDispose();
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

void
FastPathCsmaChannel::SetEmulatedDevices(const NetDeviceContainer& devices)
{
    m_emulated = devices;
}

std::size_t
FastPathCsmaChannel::GetNDevices() const
{
    return m_emulated.GetN() ? m_emulated.GetN() : CsmaChannel::GetNDevices();
}

Ptr<NetDevice>
FastPathCsmaChannel::GetDevice(std::size_t i) const
{
    return m_emulated.GetN() ? m_emulated.Get(i) : CsmaChannel::GetDevice(i);
}

void
FastPathCsmaChannel::DoDispose()
{
    m_emulated = NetDeviceContainer();
    CsmaChannel::DoDispose();
}

} // namespace ns3
