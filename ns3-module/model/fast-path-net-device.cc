// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-net-device.h"

#include "fast-path-tag-carrier.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathNetDevice");
NS_OBJECT_ENSURE_REGISTERED(FastPathNetDevice);

TypeId
FastPathNetDevice::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FastPathNetDevice")
                            .SetParent<FdNetDevice>()
                            .SetGroupName("FastPath")
                            .AddConstructor<FastPathNetDevice>();
    return tid;
}

FastPathNetDevice::FastPathNetDevice() = default;

void
FastPathNetDevice::SetChannel(Ptr<Channel> channel)
{
    m_channel = channel;
}

void
FastPathNetDevice::SetPointToPoint(bool pointToPoint)
{
    m_pointToPoint = pointToPoint;
}

Ptr<Channel>
FastPathNetDevice::GetChannel() const
{
    return m_channel;
}

bool
FastPathNetDevice::IsPointToPoint() const
{
    return m_pointToPoint;
}

bool
FastPathNetDevice::SendFrom(Ptr<Packet> packet,
                            const Address& source,
                            const Address& dest,
                            uint16_t protocolNumber)
{
    FastPathTagCarrier::Record(packet, protocolNumber);
    return FdNetDevice::SendFrom(packet, source, dest, protocolNumber);
}

void
FastPathNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_rx = cb;
    FdNetDevice::SetReceiveCallback(MakeCallback(&FastPathNetDevice::Receive, this));
}

bool
FastPathNetDevice::Receive(Ptr<NetDevice> device,
                           Ptr<const Packet> packet,
                           uint16_t protocol,
                           const Address& source)
{
    Ptr<Packet> p = packet->Copy();
    FastPathTagCarrier::Restore(p, protocol);
    return m_rx(device, p, protocol, source);
}

void
FastPathNetDevice::DoDispose()
{
    m_rx = MakeNullCallback<bool, Ptr<NetDevice>, Ptr<const Packet>, uint16_t, const Address&>();
    m_channel = nullptr;
    FdNetDevice::DoDispose();
}

} // namespace ns3
