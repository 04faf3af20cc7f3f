// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-net-device.h"

#include "fast-path-tag-carrier.h"

#include "fastpath/link_params.h"
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/ethernet-header.h"
#include "ns3/ethernet-trailer.h"
#include "ns3/fast-path-watched.h"
#include "ns3/log.h"
#include "ns3/net-device-queue-interface.h"
#include "ns3/pointer.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/ppp-header.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/nstime.h"

#include <cstdlib>
#include <iostream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathNetDevice");
NS_OBJECT_ENSURE_REGISTERED(FastPathNetDevice);

namespace
{

constexpr uint16_t kArp = 0x0806;
constexpr uint16_t kIpv6 = 0x86DD;
/// Ethernet's smallest payload: CsmaNetDevice pads shorter ones.
constexpr uint32_t kMinEthernetPayload = 46;

} // namespace

TypeId
FastPathNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FastPathNetDevice")
            .SetParent<FdNetDevice>()
            .SetGroupName("FastPath")
            .AddConstructor<FastPathNetDevice>()
            .AddAttribute("ReceiveErrorModel",
                          "The error model deciding which frames arriving at the device are "
                          "dropped (as the stock devices' attribute of that name).",
                          PointerValue(),
                          MakePointerAccessor(&FastPathNetDevice::SetReceiveErrorModel,
                                              &FastPathNetDevice::GetReceiveErrorModel),
                          MakePointerChecker<ErrorModel>())
            .AddAttribute("TxQueue",
                          "The queue where what ns-3 sends waits for the link (emulating "
                          "helpers' devices; none on a device FastPathHelper attaches alone).",
                          PointerValue(),
                          MakePointerAccessor(&FastPathNetDevice::m_queue),
                          MakePointerChecker<Queue<Packet>>())
            .AddAttribute("TimedDelivery",
                          "Open the control channel timed: frames carry their send and "
                          "arrival times, and are delivered up at their model arrival time "
                          "(falls back to untimed, with a log line, with a fastpathd that "
                          "does not time channels). Read when the helper opens the channel.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FastPathNetDevice::m_timedDelivery),
                          MakeBooleanChecker())
            .AddAttribute("DeliveryLead",
                          "Timed channels: how long before its arrival time fastpathd may "
                          "hand a frame for this device over (the wake-ups of fastpathd, the "
                          "receive thread and the simulator thread it covers); a frame that "
                          "comes later than its arrival time is delivered at once and counted "
                          "late. At most 100 ms.",
                          TimeValue(MilliSeconds(2)),
                          MakeTimeAccessor(&FastPathNetDevice::m_deliveryLead),
                          MakeTimeChecker(Seconds(0), MilliSeconds(100)))
            .AddTraceSource("PhyRxDrop",
                            "A frame the receive error model dropped in this device.",
                            MakeTraceSourceAccessor(&FastPathNetDevice::m_phyRxDropTrace),
                            "ns3::Packet::TracedCallback");
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

void
FastPathNetDevice::SetTxQueue(Ptr<Queue<Packet>> queue,
                              Ptr<Object> rateHolder,
                              int32_t overheadBytes,
                              uint32_t mpuBytes)
{
    NS_ABORT_MSG_IF(!queue || !rateHolder, "FastPathNetDevice::SetTxQueue: no queue or rate");
    NS_ABORT_MSG_IF(m_queue, "FastPathNetDevice::SetTxQueue: the device has a TxQueue already");
    m_queue = queue;
    m_rateHolder = rateHolder;
    m_overhead = overheadBytes;
    m_mpu = mpuBytes;
    // As PointToPointHelper and CsmaHelper do: traffic control stops the device queue when
    // the TxQueue cannot take another frame and wakes it when one leaves.
    Ptr<NetDeviceQueueInterface> ndqi = CreateObject<NetDeviceQueueInterface>();
    ndqi->GetTxQueue(0)->ConnectQueueTraces(queue);
    AggregateObject(ndqi);
}

Ptr<Queue<Packet>>
FastPathNetDevice::GetQueue() const
{
    return m_queue;
}

void
FastPathNetDevice::SetReceiveErrorModel(Ptr<ErrorModel> model)
{
    if (DynamicCast<ListErrorModel>(model))
    {
        // A uid names a packet of this process; a frame that crossed fastpathd is a new
        // packet here, with a new uid: the list would drop other packets than simulated.
        std::cerr << "FastPathNetDevice: ReceiveErrorModel: a ListErrorModel drops packets "
                     "by uid, and a frame arriving from fastpathd is a new ns-3 packet (its "
                     "uid is not the sender's): use a ReceiveListErrorModel (the n-th frames "
                     "received) or a RateErrorModel, or run the script simulated "
                     "(--FastPathEmulation=0)."
                  << std::endl;
        std::exit(1);
    }
    m_receiveErrorModel = model;
    m_errorModelOnLink = false;
    // A point-to-point link's stand-in device holds the parameters fastpathd's link takes:
    // a per-packet rate becomes the loss of the direction into this device (FastPathWatched
    // hands it over). Per-byte and per-bit rates depend on each frame's size, which a
    // per-frame loss probability cannot follow: those drop here, as any other model.
    Ptr<PointToPointNetDevice> standIn = GetObject<PointToPointNetDevice>();
    Ptr<RateErrorModel> rate = DynamicCast<RateErrorModel>(model);
    if (standIn)
    {
        m_errorModelOnLink = rate && rate->GetUnit() == RateErrorModel::ERROR_UNIT_PACKET;
        standIn->SetReceiveErrorModel(m_errorModelOnLink ? model : nullptr);
        // (An attribute cannot be set to none: the setter, then the notification a set of
        // the watched attribute gives.)
        if (auto* watched = dynamic_cast<FastPathWatched*>(PeekPointer(standIn)))
        {
            watched->NotifyChange();
        }
    }
    NS_LOG_INFO("ReceiveErrorModel " << (model ? model->GetInstanceTypeId().GetName() : "none")
                                     << (m_errorModelOnLink ? ": fastpathd's link drops"
                                                            : ": this device drops"));
}

Ptr<ErrorModel>
FastPathNetDevice::GetReceiveErrorModel() const
{
    return m_receiveErrorModel;
}

bool
FastPathNetDevice::IsReceiveErrorModelOnLink() const
{
    return m_errorModelOnLink;
}

uint64_t
FastPathNetDevice::GetReceiveErrorDrops() const
{
    return m_receiveErrorDrops;
}

bool
FastPathNetDevice::SendFrom(Ptr<Packet> packet,
                            const Address& source,
                            const Address& dest,
                            uint16_t protocolNumber)
{
    FastPathTagCarrier::Record(packet, protocolNumber);
    if (!m_queue)
    {
        return FdNetDevice::SendFrom(packet, source, dest, protocolNumber);
    }
    // The addresses wait with the packet, in the header FdNetDevice writes anyway.
    EthernetHeader header(false);
    header.SetSource(Mac48Address::ConvertFrom(source));
    header.SetDestination(Mac48Address::ConvertFrom(dest));
    header.SetLengthType(protocolNumber);
    packet->AddHeader(header);
    if (!m_queue->Enqueue(packet))
    {
        // Counted and traced by the queue (Drop, DropBeforeEnqueue).
        return false;
    }
    if (!m_transmitting)
    {
        TransmitNext();
    }
    return true;
}

void
FastPathNetDevice::TransmitNext()
{
    m_transmitting = false;
    Ptr<Packet> p = m_queue->Dequeue();
    if (!p)
    {
        return;
    }
    EthernetHeader header(false);
    p->RemoveHeader(header);
    m_written = 0;
    FdNetDevice::SendFrom(p, header.GetSource(), header.GetDestination(), header.GetLengthType());
    DataRateValue rate;
    m_rateHolder->GetAttribute("DataRate", rate);
    const uint64_t bps = rate.Get().GetBitRate();
    // Not written (link down, too long: FdNetDevice dropped and traced it): nothing
    // occupies the link.
    if (bps == 0 || m_written == 0)
    {
        if (!m_queue->IsEmpty())
        {
            m_transmitting = true;
            m_txEnd = Simulator::ScheduleNow(&FastPathNetDevice::TransmitNext, this);
        }
        return;
    }
    // fastpathd's serialization of this frame, rounded up: the next frame never reaches
    // its link before this one has left it.
    const unsigned __int128 bits =
        (unsigned __int128)fastpath::linkFrameBytes(m_written, m_overhead, m_mpu) * 8u;
    const uint64_t ns = uint64_t((bits * 1000000000u + bps - 1) / bps);
    m_transmitting = true;
    m_txEnd = Simulator::Schedule(NanoSeconds(ns), &FastPathNetDevice::TransmitNext, this);
}

void
FastPathNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_rx = cb;
    FdNetDevice::SetReceiveCallback(MakeCallback(&FastPathNetDevice::Receive, this));
}

Ptr<Packet>
FastPathNetDevice::AsStockFrame(Ptr<const Packet> packet, uint16_t protocol) const
{
    Ptr<Packet> f = packet->Copy();
    if (m_pointToPoint)
    {
        PppHeader ppp;
        ppp.SetProtocol(protocol == kIpv6 ? 0x0057 : 0x0021);
        f->AddHeader(ppp);
        return f;
    }
    if (f->GetSize() < kMinEthernetPayload)
    {
        f->AddPaddingAtEnd(kMinEthernetPayload - f->GetSize());
    }
    EthernetHeader eth(false);
    eth.SetDestination(Mac48Address::ConvertFrom(GetAddress()));
    eth.SetLengthType(protocol);
    f->AddHeader(eth);
    if (m_channel)
    {
        // A CsmaNetDevice's frames carry their FCS.
        EthernetTrailer fcs;
        f->AddTrailer(fcs);
    }
    return f;
}

bool
FastPathNetDevice::Receive(Ptr<NetDevice> device,
                           Ptr<const Packet> packet,
                           uint16_t protocol,
                           const Address& source)
{
    Ptr<Packet> p = packet->Copy();
    FastPathTagCarrier::Restore(p, protocol);
    // A point-to-point link carries no ARP when simulated: its model never sees any.
    if (m_receiveErrorModel && !m_errorModelOnLink && !(m_pointToPoint && protocol == kArp))
    {
        Ptr<Packet> frame = AsStockFrame(p, protocol);
        if (m_receiveErrorModel->IsCorrupt(frame))
        {
            ++m_receiveErrorDrops;
            NS_LOG_LOGIC("receive error model dropped a frame of " << frame->GetSize()
                                                                   << " bytes");
            m_phyRxDropTrace(frame);
            return true;
        }
    }
    return m_rx(device, p, protocol, source);
}

void
FastPathNetDevice::DoDispose()
{
    m_txEnd.Cancel();
    m_startEvent.Cancel();
    m_stopEvent.Cancel();
    StopChannel();
    m_linkUp = false;
    m_rx = MakeNullCallback<bool, Ptr<NetDevice>, Ptr<const Packet>, uint16_t, const Address&>();
    m_channel = nullptr;
    m_queue = nullptr;
    m_rateHolder = nullptr;
    m_receiveErrorModel = nullptr;
    FdNetDevice::DoDispose();
}

} // namespace ns3
