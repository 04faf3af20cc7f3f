// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-csma-helper.h"

#include "ns3/fast-path-channel.h"
#include "ns3/fast-path-emulation.h"
#include "ns3/fast-path-net-device.h"
#include "ns3/fast-path-watched.h"
#include "ns3/abort.h"
#include "ns3/csma-net-device.h"
#include "ns3/data-rate.h"
#include "ns3/log.h"
#include "ns3/names.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include "fastpath/ctrl/client.h"

#include <memory>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathCsmaHelper");

namespace
{

/// A segment and the ns-3 objects that carry its parameters.
struct CsmaSegment
{
    std::string name;
    std::vector<Ptr<Node>> nodes;
    NetDeviceContainer devices;       //!< the FdNetDevices, in the nodes' order
    NetDeviceContainer shadows;       //!< a CsmaNetDevice per port, on `channel`
    Ptr<QueueBase> queue;             //!< the medium's queue
    Ptr<CsmaChannel> channel;
    fastpath::LinkParams applied;
    std::vector<bool> upPorts; //!< ns-3's interfaces, as last seen
    std::vector<FastPathEmulation::InterfaceOf> interfaces; //!< where they were found
};

/// The segments one simulation created in fastpathd (the nodes, the connection and the
/// following are FastPathEmulation's).
struct CsmaSegments : FastPathEmulatedSet<CsmaSegment>
{
    void Push(CsmaSegment& s) override;
    void PushState(CsmaSegment& s) override;

    fastpath::Status Delete(const std::string& name) override
    {
        return emulation->Client().deleteSegment(name);
    }
};

std::shared_ptr<CsmaSegments> g_segments;

CsmaSegments&
CurrentSegments()
{
    return CsmaSegments::Current(g_segments, "FastPathCsmaHelper", "segment");
}

void
CsmaSegments::Push(CsmaSegment& s)
{
    auto p = FastPathCsmaHelper::SegmentParamsOf(s.channel, s.shadows, s.queue);
    // Several processes run the same script and see the same changes: the process of the
    // segment's first node hands the medium's, each port's process that port's.
    if (!(p == s.applied) && emulation->IsLocal(s.nodes.front()))
    {
        auto st = emulation->Client().setSegmentParams(s.name, p);
        if (!st.ok())
        {
            NS_LOG_WARN("fastpathd segment " << s.name << ": parameters refused: "
                                             << st.error().message);
        }
        s.applied = p;
        emulation->NoteFollowAck();
    }
    PushState(s);
}

void
CsmaSegments::PushState(CsmaSegment& s)
{
    bool changed = false;
    // An ns-3 interface on the segment set down or up: that node's port follows (it
    // neither sends nor receives while down, as the CsmaNetDevice would not); the medium
    // and the other ports go on.
    for (uint32_t i = 0; i < s.nodes.size(); ++i)
    {
        if (!emulation->IsLocal(s.nodes[i]))
        {
            continue;
        }
        bool up = FastPathEmulation::InterfaceUp(s.nodes[i], s.devices.Get(i), s.interfaces[i]);
        if (up == s.upPorts[i])
        {
            continue;
        }
        const std::string node = emulation->FindNode(s.nodes[i]);
        auto st = emulation->Client().setSegmentState(s.name, up, node);
        if (!st.ok())
        {
            NS_LOG_WARN("fastpathd segment " << s.name << ": cannot set " << node << "'s port "
                                             << (up ? "up" : "down") << ": "
                                             << st.error().message);
        }
        NS_LOG_INFO("fastpathd segment " << s.name << ": " << node << "'s port "
                                         << (up ? "up" : "down"));
        s.upPorts[i] = up;
        changed = true;
    }
    if (changed)
    {
        emulation->NoteFollowAck();
    }
}

} // namespace

FastPathCsmaHelper::FastPathCsmaHelper()
    : FastPathEmulatingHelper("ns3::CsmaNetDevice", "ns3::CsmaChannel", "FastPathCsmaHelper")
{
}

fastpath::LinkParams
FastPathCsmaHelper::SegmentParamsOf(Ptr<CsmaChannel> channel,
                                    const NetDeviceContainer& devices,
                                    Ptr<QueueBase> queue)
{
    fastpath::LinkParams p;
    p.rate_bps = channel->GetDataRate().GetBitRate();
    // CsmaNetDevice pads the payload to 46 bytes (the frame to 60) and adds the 4-byte
    // Ethernet trailer (FCS); fastpathd carries the frame without padding or FCS.
    p.mpu_bytes = 60;
    p.overhead_bytes = 4;
    p.delay_ns = channel->GetDelay().GetNanoSeconds();
    FastPathEmulation::SetQueueLimit(p, queue);
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        p.loss = std::max(p.loss, FastPathEmulation::ReceiveLoss(devices.Get(i)));
    }
    return p;
}

NetDeviceContainer
FastPathCsmaHelper::Install(Ptr<Node> node) const
{
    return Install(NodeContainer(node));
}

NetDeviceContainer
FastPathCsmaHelper::Install(std::string name) const
{
    return Install(NodeContainer(Names::Find<Node>(name)));
}

NetDeviceContainer
FastPathCsmaHelper::Install(Ptr<Node> node, Ptr<CsmaChannel> channel) const
{
    NS_ABORT_MSG_IF(IsEmulated(),
                    "FastPathCsmaHelper: emulated, a segment is created with all its nodes: "
                    "install them with one Install(NodeContainer) instead of adding nodes to "
                    "an existing channel");
    return CsmaHelper::Install(node, channel);
}

NetDeviceContainer
FastPathCsmaHelper::Install(const NodeContainer& c, Ptr<CsmaChannel> channel) const
{
    NS_ABORT_MSG_IF(IsEmulated(),
                    "FastPathCsmaHelper: emulated, a segment is created with all its nodes: "
                    "install them with one Install(NodeContainer) instead of adding nodes to "
                    "an existing channel");
    return CsmaHelper::Install(c, channel);
}

NetDeviceContainer
FastPathCsmaHelper::Install(const NodeContainer& c) const
{
    if (!IsEmulated())
    {
        return CsmaHelper::Install(c);
    }
    NS_ABORT_MSG_IF(c.GetN() == 0, "FastPathCsmaHelper: Install() of no node");
    CsmaSegments& s = CurrentSegments();
    FastPathEmulation& e = *s.emulation;
    const std::string port = "csma" + std::to_string(s.next++);

    // ns-3's objects for the segment, never on a node: they hold its parameters where a
    // script's Config::Set finds them (the channel in ChannelList, a device aggregated to
    // each FdNetDevice) and the follower hands changes to fastpathd.
    CsmaSegment seg;
    seg.name = e.Tag() + "-" + port;
    // Watched types: a set of their attributes is handed to fastpathd at once
    // (FastPathWatched). The segment's channel (watched too): in ChannelList where the
    // simulated one would be, and what global and Nix-vector routing find on the emulated
    // devices.
    ObjectFactory channelFactory = m_channelFactory;
    channelFactory.SetTypeId(FastPathCsmaChannel::GetTypeId());
    Ptr<FastPathCsmaChannel> channel = channelFactory.Create<FastPathCsmaChannel>();
    seg.channel = channel;
    seg.queue = FastPathWatched::Watching(m_queueFactory).Create<QueueBase>();
    fastpath::SegmentSpec spec;
    spec.name = seg.name;
    for (uint32_t i = 0; i < c.GetN(); ++i)
    {
        Ptr<CsmaNetDevice> shadow =
            FastPathWatched::Watching(m_deviceFactory).Create<CsmaNetDevice>();
        shadow->Attach(seg.channel);
        // The medium's one queue is what a script reaches at each device's TxQueue.
        shadow->SetQueue(DynamicCast<Queue<Packet>>(seg.queue));
        seg.shadows.Add(shadow);
        UintegerValue mtu;
        shadow->GetAttribute("Mtu", mtu);
        fastpath::SegmentPortSpec ps;
        ps.node = e.NodeOf(c.Get(i));
        ps.port = port;
        ps.mtu = mtu.Get();
        // The MAC CsmaHelper::Install would give this node's device, in its order.
        ps.mac = FastPathEmulation::AllocateMac();
        spec.ports.push_back(ps);
        seg.nodes.push_back(c.Get(i));
    }
    spec.params = SegmentParamsOf(seg.channel, seg.shadows, seg.queue);
    // Several processes: rank 0 creates the segment; every process has its ns-3 side.
    std::vector<fastpath::MacAddress> macs;
    for (const auto& ps : spec.ports)
    {
        macs.push_back(ps.mac);
    }
    fastpath::Status st;
    if (e.IsMultiHost())
    {
        FastPathEmulation::Refuse(
            "FastPathCsmaHelper: segment " + spec.name +
            ": a run over several hosts (--FastPathHosts) has point-to-point links only; "
            "join the nodes with FastPathPointToPointHelper, or run on one host");
    }
    if (e.Creates())
    {
        st = FastPathEmulation::CreateWithMacs(
            "segment " + spec.name,
            [&spec]() {
                for (auto& ps : spec.ports)
                {
                    ps.mac = fastpath::MacAddress{};
                }
            },
            [&e, &spec]() { return e.Client().createSegment(spec); });
    }
    NS_ABORT_MSG_IF(!st.ok(),
                    "FastPathCsmaHelper: cannot create fastpathd segment "
                        << spec.name << " (" << c.GetN() << " nodes): " << st.error().message
                        << (st.error().code == -ENOSYS ? " (fastpathd before protocol 1.5 has "
                                                         "no segments: upgrade it)"
                                                       : ""));
    seg.applied = spec.params;
    for (uint32_t i = 0; i < c.GetN(); ++i)
    {
        Ptr<NetDevice> d =
            e.AddPort(c.Get(i), spec.ports[i].node, port, spec.ports[i].mtu, macs[i]);
        d->AggregateObject(seg.shadows.Get(i));
        Ptr<FastPathNetDevice> fp = DynamicCast<FastPathNetDevice>(d);
        fp->SetChannel(channel);
        // What ns-3 sends waits in ns-3, paced at the channel's DataRate as fastpathd's
        // segment counts a frame.
        fp->SetTxQueue(m_queueFactory.Create<Queue<Packet>>(),
                       channel,
                       spec.params.overhead_bytes,
                       spec.params.mpu_bytes);
        seg.devices.Add(d);
        if (i > 0)
        {
            e.AddEdge(c.Get(0), c.Get(i)); // a star: the medium's members stay together
        }
    }
    channel->SetEmulatedDevices(seg.devices);
    seg.upPorts.assign(c.GetN(), true);
    seg.interfaces.resize(c.GetN());
    NS_LOG_INFO("segment " << spec.name << ": " << c.GetN() << " nodes, "
                           << fastpath::formatLinkParams(spec.params));
    NetDeviceContainer out = seg.devices;
    s.items.push_back(std::move(seg));
    const size_t index = s.items.size() - 1;
    CsmaSegments* set = &s;
    auto changed = [set, index]() { set->Changed(index); };
    const CsmaSegment& added = s.items.back();
    FastPathWatched::Watch(added.channel, changed);
    FastPathWatched::Watch(added.queue, changed);
    for (uint32_t i = 0; i < added.shadows.GetN(); ++i)
    {
        FastPathWatched::Watch(added.shadows.Get(i), changed);
    }
    return out;
}

std::string
FastPathCsmaHelper::GetFastPathSegmentName(Ptr<NetDevice> device)
{
    if (!g_segments)
    {
        return "";
    }
    for (const auto& s : g_segments->items)
    {
        for (uint32_t i = 0; i < s.devices.GetN(); ++i)
        {
            if (s.devices.Get(i) == device)
            {
                return s.name;
            }
        }
    }
    return "";
}

} // namespace ns3
