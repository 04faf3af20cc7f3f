// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-device-traces.h"

#include "fast-path-net-device.h"
#include "fast-path-private-member.h"

#include "ns3/channel-list.h"
#include "ns3/csma-net-device.h"
#include "ns3/ethernet-header.h"
#include "ns3/ethernet-trailer.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/ppp-header.h"
#include "ns3/queue.h"

#include <functional>
#include <set>
#include <sstream>
#include <vector>

namespace ns3
{

namespace
{

// The stock devices keep their trace sources in private TracedCallback members, which only
// they fire, and ns-3 offers no way to ask a trace source whether it has sinks: each member
// below is reached through FP_PRIVATE_MEMBER, so that a stand-in's sources can be fired from
// observed frames and checked for sinks. Only these reads and calls are made through them.
FP_PRIVATE_MEMBER_ACCESS();

using PacketTrace = TracedCallback<Ptr<const Packet>>;
using P2p = PointToPointNetDevice;
using Csma = CsmaNetDevice;
using PacketQueue = Queue<Packet>;
using TxRx = TracedCallback<Ptr<const Packet>, Ptr<NetDevice>, Ptr<NetDevice>, Time, Time>;
using ValueTrace = TracedCallback<uint32_t, uint32_t>;

FP_PRIVATE_MEMBER(P2pMacTx, P2p, PacketTrace, m_macTxTrace);
FP_PRIVATE_MEMBER(P2pMacTxDrop, P2p, PacketTrace, m_macTxDropTrace);
FP_PRIVATE_MEMBER(P2pMacPromiscRx, P2p, PacketTrace, m_macPromiscRxTrace);
FP_PRIVATE_MEMBER(P2pMacRx, P2p, PacketTrace, m_macRxTrace);
FP_PRIVATE_MEMBER(P2pPhyTxBegin, P2p, PacketTrace, m_phyTxBeginTrace);
FP_PRIVATE_MEMBER(P2pPhyTxEnd, P2p, PacketTrace, m_phyTxEndTrace);
FP_PRIVATE_MEMBER(P2pPhyTxDrop, P2p, PacketTrace, m_phyTxDropTrace);
FP_PRIVATE_MEMBER(P2pPhyRxEnd, P2p, PacketTrace, m_phyRxEndTrace);
FP_PRIVATE_MEMBER(P2pPhyRxDrop, P2p, PacketTrace, m_phyRxDropTrace);
FP_PRIVATE_MEMBER(P2pSniffer, P2p, PacketTrace, m_snifferTrace);
FP_PRIVATE_MEMBER(P2pPromiscSniffer, P2p, PacketTrace, m_promiscSnifferTrace);
FP_PRIVATE_MEMBER(CsmaMacTx, Csma, PacketTrace, m_macTxTrace);
FP_PRIVATE_MEMBER(CsmaMacTxDrop, Csma, PacketTrace, m_macTxDropTrace);
FP_PRIVATE_MEMBER(CsmaMacPromiscRx, Csma, PacketTrace, m_macPromiscRxTrace);
FP_PRIVATE_MEMBER(CsmaMacRx, Csma, PacketTrace, m_macRxTrace);
FP_PRIVATE_MEMBER(CsmaMacRxDrop, Csma, PacketTrace, m_macRxDropTrace);
FP_PRIVATE_MEMBER(CsmaMacTxBackoff, Csma, PacketTrace, m_macTxBackoffTrace);
FP_PRIVATE_MEMBER(CsmaPhyTxBegin, Csma, PacketTrace, m_phyTxBeginTrace);
FP_PRIVATE_MEMBER(CsmaPhyTxEnd, Csma, PacketTrace, m_phyTxEndTrace);
FP_PRIVATE_MEMBER(CsmaPhyTxDrop, Csma, PacketTrace, m_phyTxDropTrace);
FP_PRIVATE_MEMBER(CsmaPhyRxEnd, Csma, PacketTrace, m_phyRxEndTrace);
FP_PRIVATE_MEMBER(CsmaPhyRxDrop, Csma, PacketTrace, m_phyRxDropTrace);
FP_PRIVATE_MEMBER(CsmaSniffer, Csma, PacketTrace, m_snifferTrace);
FP_PRIVATE_MEMBER(CsmaPromiscSniffer, Csma, PacketTrace, m_promiscSnifferTrace);
FP_PRIVATE_MEMBER(QueueEnqueue, PacketQueue, PacketTrace, m_traceEnqueue);
FP_PRIVATE_MEMBER(QueueDequeue, PacketQueue, PacketTrace, m_traceDequeue);
FP_PRIVATE_MEMBER(QueueDrop, PacketQueue, PacketTrace, m_traceDrop);
FP_PRIVATE_MEMBER(QueueDropBeforeEnqueue, PacketQueue, PacketTrace, m_traceDropBeforeEnqueue);
FP_PRIVATE_MEMBER(QueueDropAfterDequeue, PacketQueue, PacketTrace, m_traceDropAfterDequeue);
FP_PRIVATE_MEMBER(QueueBytes, QueueBase, TracedValue<uint32_t>, m_nBytes);
FP_PRIVATE_MEMBER(QueuePackets, QueueBase, TracedValue<uint32_t>, m_nPackets);
FP_PRIVATE_MEMBER(TracedValueCb, TracedValue<uint32_t>, ValueTrace, m_cb);
FP_PRIVATE_MEMBER(P2pChannelTxRx, PointToPointChannel, TxRx, m_txrxPointToPoint);

#undef FP_ROB

/// A trace source of a stand-in: its name, whether it has sinks, whether Observe feeds it.
struct Source
{
    std::string name;
    std::function<bool()> hasSinks;
    bool fed;
    std::string instead; //!< for a source never fed: what to use
    bool always = false; //!< fed without a tap (ForwardDrops)
};

const char* kDropsInstead = "fastpathd drops these frames itself: fpctl link show / fpctl "
                            "segment show count them, per reason";

template <typename Tag, typename Device>
Source
DeviceSource(Ptr<Device> d, const std::string& name, bool fed, const std::string& instead = "")
{
    Device* raw = PeekPointer(d);
    return {name, [raw]() { return !(raw->*Get(Tag{})).IsEmpty(); }, fed, instead};
}

std::vector<Source>
SourcesOf(Ptr<PointToPointNetDevice> d)
{
    return {DeviceSource<P2pMacTx>(d, "MacTx", true),
            DeviceSource<P2pMacRx>(d, "MacRx", true),
            DeviceSource<P2pPhyTxBegin>(d, "PhyTxBegin", true),
            DeviceSource<P2pPhyTxEnd>(d, "PhyTxEnd", true),
            DeviceSource<P2pPhyRxEnd>(d, "PhyRxEnd", true),
            DeviceSource<P2pSniffer>(d, "Sniffer", true),
            DeviceSource<P2pPromiscSniffer>(d, "PromiscSniffer", true),
            DeviceSource<P2pMacPromiscRx>(d, "MacPromiscRx", false,
                                          "fastpathd delivers no frame for other hosts to ns-3: "
                                          "use PromiscSniffer"),
            DeviceSource<P2pMacTxDrop>(d, "MacTxDrop", false, kDropsInstead),
            DeviceSource<P2pPhyTxDrop>(d, "PhyTxDrop", false, kDropsInstead),
            DeviceSource<P2pPhyRxDrop>(d, "PhyRxDrop", false, kDropsInstead)};
}

std::vector<Source>
SourcesOf(Ptr<CsmaNetDevice> d)
{
    return {DeviceSource<CsmaMacTx>(d, "MacTx", true),
            DeviceSource<CsmaMacRx>(d, "MacRx", true),
            DeviceSource<CsmaPhyTxBegin>(d, "PhyTxBegin", true),
            DeviceSource<CsmaPhyTxEnd>(d, "PhyTxEnd", true),
            DeviceSource<CsmaPhyRxEnd>(d, "PhyRxEnd", true),
            DeviceSource<CsmaSniffer>(d, "Sniffer", true),
            DeviceSource<CsmaPromiscSniffer>(d, "PromiscSniffer", true),
            DeviceSource<CsmaMacPromiscRx>(d, "MacPromiscRx", false,
                                           "fastpathd delivers no frame for other hosts to "
                                           "ns-3: use PromiscSniffer"),
            DeviceSource<CsmaMacTxBackoff>(d, "MacTxBackoff", false,
                                           "fastpathd's segment has no backoff (it queues)"),
            DeviceSource<CsmaMacTxDrop>(d, "MacTxDrop", false, kDropsInstead),
            DeviceSource<CsmaMacRxDrop>(d, "MacRxDrop", false, kDropsInstead),
            DeviceSource<CsmaPhyTxDrop>(d, "PhyTxDrop", false, kDropsInstead),
            DeviceSource<CsmaPhyRxDrop>(d, "PhyRxDrop", false, kDropsInstead)};
}

std::vector<Source>
SourcesOf(Ptr<Queue<Packet>> q, bool dropsForwarded = false)
{
    QueueBase* base = PeekPointer(q);
    auto valueSinks = [base](auto tag) {
        return [base, tag]() {
            TracedValue<uint32_t>& v = base->*Get(tag);
            return !(v.*Get(TracedValueCb{})).IsEmpty();
        };
    };
    return {DeviceSource<QueueEnqueue>(q, "Enqueue", true),
            DeviceSource<QueueDequeue>(q, "Dequeue", true),
            {"PacketsInQueue", valueSinks(QueuePackets{}), true, ""},
            {"BytesInQueue", valueSinks(QueueBytes{}), true, ""},
            {"Drop", DeviceSource<QueueDrop>(q, "", false).hasSinks, dropsForwarded,
             kDropsInstead, dropsForwarded},
            {"DropBeforeEnqueue", DeviceSource<QueueDropBeforeEnqueue>(q, "", false).hasSinks,
             dropsForwarded, kDropsInstead, dropsForwarded},
            DeviceSource<QueueDropAfterDequeue>(q, "DropAfterDequeue", false, kDropsInstead)};
}

std::set<const NetDevice*> g_observed;

/// The frame without its Ethernet header, and its EtherType.
Ptr<Packet>
Payload(Ptr<const Packet> frame, uint16_t& type)
{
    Ptr<Packet> p = frame->Copy();
    EthernetHeader eth(false);
    if (p->GetSize() < eth.GetSerializedSize())
    {
        return nullptr;
    }
    p->RemoveHeader(eth);
    type = eth.GetLengthType();
    return p;
}

void
FireQueue(Ptr<Queue<Packet>> q, Ptr<Packet> framed)
{
    // The queue's own Enqueue and Dequeue: its traces and counters as for a frame that
    // found the device idle.
    if (q && q->Enqueue(framed->Copy()))
    {
        q->Dequeue();
    }
}

void
ObserveP2p(Ptr<PointToPointNetDevice> d, FastPathFrameDirection dir, Ptr<const Packet> frame)
{
    uint16_t type = 0;
    Ptr<Packet> l3 = Payload(frame, type);
    if (!l3 || (type != 0x0800 && type != 0x86DD))
    {
        return; // ARP and others: a point-to-point link carries none
    }
    Ptr<Packet> framed = l3->Copy();
    PppHeader ppp;
    ppp.SetProtocol(type == 0x0800 ? 0x0021 : 0x0057);
    framed->AddHeader(ppp);
    P2p* raw = PeekPointer(d);
    if (dir == FastPathFrameDirection::TX)
    {
        (raw->*Get(P2pMacTx{}))(l3);
        FireQueue(d->GetQueue(), framed);
        (raw->*Get(P2pSniffer{}))(framed);
        (raw->*Get(P2pPromiscSniffer{}))(framed);
        (raw->*Get(P2pPhyTxBegin{}))(framed);
        (raw->*Get(P2pPhyTxEnd{}))(framed);
        return;
    }
    (raw->*Get(P2pSniffer{}))(framed);
    (raw->*Get(P2pPromiscSniffer{}))(framed);
    (raw->*Get(P2pPhyRxEnd{}))(framed);
    (raw->*Get(P2pMacRx{}))(framed);
}

void
ObserveCsma(Ptr<CsmaNetDevice> d, FastPathFrameDirection dir, Ptr<const Packet> frame)
{
    uint16_t type = 0;
    Ptr<Packet> l3 = Payload(frame, type);
    if (!l3)
    {
        return;
    }
    Ptr<Packet> framed = frame->Copy();
    EthernetTrailer trailer;
    trailer.EnableFcs(Node::ChecksumEnabled());
    trailer.CalcFcs(framed);
    framed->AddTrailer(trailer);
    Csma* raw = PeekPointer(d);
    if (dir == FastPathFrameDirection::TX)
    {
        (raw->*Get(CsmaMacTx{}))(l3);
        FireQueue(d->GetQueue(), framed);
        (raw->*Get(CsmaPromiscSniffer{}))(framed);
        (raw->*Get(CsmaSniffer{}))(framed);
        (raw->*Get(CsmaPhyTxBegin{}))(framed);
        (raw->*Get(CsmaPhyTxEnd{}))(framed);
        return;
    }
    (raw->*Get(CsmaPhyRxEnd{}))(framed);
    (raw->*Get(CsmaPromiscSniffer{}))(framed);
    (raw->*Get(CsmaSniffer{}))(framed);
    (raw->*Get(CsmaMacRx{}))(framed);
}

/// The stock device of an emulated device (nullptr if none): the device itself (an
/// emulated point-to-point link's end is a PointToPointNetDevice) or the stand-in
/// aggregated to it (a CSMA segment's member).
template <typename T>
Ptr<T>
StandIn(Ptr<NetDevice> device)
{
    return device->GetObject<FastPathNetDevice>() ? device->GetObject<T>() : nullptr;
}

} // namespace

void
FastPathDeviceTraces::SetObserved(Ptr<NetDevice> device, bool observed)
{
    if (observed)
    {
        g_observed.insert(PeekPointer(device));
    }
    else
    {
        g_observed.erase(PeekPointer(device));
    }
}

bool
FastPathDeviceTraces::IsObserved(Ptr<NetDevice> device)
{
    return g_observed.count(PeekPointer(device)) > 0;
}

void
FastPathDeviceTraces::Observe(Ptr<NetDevice> device,
                              FastPathFrameDirection direction,
                              Ptr<const Packet> frame)
{
    if (Ptr<PointToPointNetDevice> p2p = StandIn<PointToPointNetDevice>(device))
    {
        ObserveP2p(p2p, direction, frame);
    }
    else if (Ptr<CsmaNetDevice> csma = StandIn<CsmaNetDevice>(device))
    {
        ObserveCsma(csma, direction, frame);
    }
}

namespace
{

/// The trace sources a script reaches on emulated device `nd`, by path prefix (the
/// device's, its TxQueue's); none for any other device.
std::vector<std::pair<std::string, std::vector<Source>>>
SourcesOfDevice(Ptr<NetDevice> nd)
{
    std::vector<std::pair<std::string, std::vector<Source>>> out;
    if (!nd->GetObject<FastPathNetDevice>())
    {
        return out;
    }
    if (auto p2p = StandIn<PointToPointNetDevice>(nd))
    {
        out.emplace_back("/$ns3::PointToPointNetDevice/", SourcesOf(p2p));
        if (p2p->GetQueue())
        {
            // An emulated link's end fires its TxQueue's drops for the packets its engine's
            // queue drops (ForwardDrops): what ns-3 sent and could not queue.
            out.emplace_back("/$ns3::PointToPointNetDevice/TxQueue/",
                             SourcesOf(p2p->GetQueue(), nd->GetObject<FastPathNetDevice>() &&
                                                            nd->GetObject<FastPathNetDevice>()
                                                                ->GetQueue()));
        }
    }
    else if (auto csma = StandIn<CsmaNetDevice>(nd))
    {
        out.emplace_back("/$ns3::CsmaNetDevice/", SourcesOf(csma));
        if (csma->GetQueue())
        {
            out.emplace_back("/$ns3::CsmaNetDevice/TxQueue/", SourcesOf(csma->GetQueue()));
        }
    }
    return out;
}

} // namespace

void
FastPathDeviceTraces::ForwardDrops(Ptr<Queue<Packet>> from, Ptr<PointToPointNetDevice> to)
{
    PointToPointNetDevice* raw = PeekPointer(to);
    from->TraceConnectWithoutContext("Drop", Callback<void, Ptr<const Packet>>([raw](Ptr<const Packet> p) {
        if (Ptr<Queue<Packet>> q = raw->GetQueue())
        {
            (PeekPointer(q)->*Get(QueueDrop{}))(p);
        }
    }));
    from->TraceConnectWithoutContext(
        "DropBeforeEnqueue",
        Callback<void, Ptr<const Packet>>([raw](Ptr<const Packet> p) {
            if (Ptr<Queue<Packet>> q = raw->GetQueue())
            {
                (PeekPointer(q)->*Get(QueueDropBeforeEnqueue{}))(p);
            }
        }));
}

std::vector<Ptr<NetDevice>>
FastPathDeviceTraces::Unobserved()
{
    std::vector<Ptr<NetDevice>> out;
    for (auto node = NodeList::Begin(); node != NodeList::End(); ++node)
    {
        for (uint32_t i = 0; i < (*node)->GetNDevices(); ++i)
        {
            Ptr<NetDevice> nd = (*node)->GetDevice(i);
            if (IsObserved(nd))
            {
                continue;
            }
            bool fedSink = false;
            for (const auto& [prefix, sources] : SourcesOfDevice(nd))
            {
                for (const auto& s : sources)
                {
                    fedSink = fedSink || (s.fed && !s.always && s.hasSinks());
                }
            }
            if (fedSink)
            {
                out.push_back(nd);
            }
        }
    }
    return out;
}

std::string
FastPathDeviceTraces::Check()
{
    std::ostringstream why;
    uint32_t n = 0;
    std::set<const Channel*> channels;
    for (auto node = NodeList::Begin(); node != NodeList::End(); ++node)
    {
        for (uint32_t i = 0; i < (*node)->GetNDevices(); ++i)
        {
            Ptr<NetDevice> nd = (*node)->GetDevice(i);
            const std::string at = "/NodeList/" + std::to_string((*node)->GetId()) +
                                   "/DeviceList/" + std::to_string(i);
            const bool observed = IsObserved(nd);
            for (const auto& [prefix, sources] : SourcesOfDevice(nd))
            {
                for (const auto& s : sources)
                {
                    if (!s.hasSinks() || s.always || (s.fed && observed))
                    {
                        continue;
                    }
                    why << "\n  " << at << prefix << s.name << ": "
                        << (s.fed ? "no capture tap observes this device's frames" : s.instead);
                    ++n;
                }
            }
            auto p2p = StandIn<PointToPointNetDevice>(nd);
            auto ch = p2p ? DynamicCast<PointToPointChannel>(p2p->GetChannel()) : nullptr;
            if (ch && channels.insert(PeekPointer(ch)).second &&
                !(PeekPointer(ch)->*Get(P2pChannelTxRx{})).IsEmpty())
            {
                why << "\n  /ChannelList/" << ch->GetId()
                    << "/$ns3::PointToPointChannel/TxRxPointToPoint: fastpathd's link "
                       "carries the frames; use the devices' PhyTxBegin and PhyRxEnd";
                ++n;
            }
        }
    }
    if (n == 0)
    {
        return "";
    }
    return "FastPathEmulation: " + std::to_string(n) +
           " trace source(s) of emulated devices have sinks (Config::Connect, tracing helpers) "
           "but cannot be fed with the frames fastpathd carries:" +
           why.str() +
           "\nTrace what ns-3's own stacks send and receive instead (FlowMonitor; "
           "InternetStackHelper::EnablePcapIpv4All / EnableAsciiIpv4All; the Ipv4L3Protocol "
           "Tx, Rx and Drop sources), capture the frames with fpctl capture, or run the script "
           "simulated (--FastPathEmulation=0).";
}

} // namespace ns3
