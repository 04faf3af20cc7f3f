// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-point-to-point-helper.h"

#include "ns3/fast-path-channel.h"
#include "ns3/fast-path-device-traces.h"
#include "ns3/fast-path-emulation.h"
#include "ns3/fast-path-forwarded-queue.h"
#include "ns3/fast-path-forwarded-red.h"
#include "ns3/fast-path-net-device.h"
#include "ns3/fast-path-point-to-point-net-device.h"
#include "ns3/fast-path-watched.h"
#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/channel.h"
#include "ns3/data-rate.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/error-model.h"
#include "ns3/global-value.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/names.h"
#include "ns3/nstime.h"
#include "ns3/node.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/pointer.h"
#include "ns3/queue.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include "fastpath/ctrl/client.h"

#include <chrono>
#include <cerrno>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathPointToPointHelper");

namespace
{

/// A queue for an engine (where what ns-3 sends waits) of the type of `queue` (the
/// device's TxQueue; a watched DropTailQueue gives a DropTailQueue) and its MaxSize.
Ptr<Queue<Packet>>
EngineQueueLike(Ptr<QueueBase> queue)
{
    TypeId type = queue->GetInstanceTypeId();
    if (type == FastPathWatchedDropTailQueue::GetTypeId())
    {
        type = DropTailQueue<Packet>::GetTypeId();
    }
    ObjectFactory factory;
    factory.SetTypeId(type);
    factory.Set("MaxSize", QueueSizeValue(queue->GetMaxSize()));
    return factory.Create<Queue<Packet>>();
}

/// A link and the ns-3 objects that carry its parameters.
struct P2pLink
{
    std::string name;
    Ptr<Node> a, b;
    /// The devices on the nodes (they hold the ends' parameters, watched).
    Ptr<FastPathPointToPointNetDevice> devA, devB;
    Ptr<QueueBase> queueA, queueB;
    Ptr<PointToPointChannel> channel;
    fastpath::LinkParams appliedAToB, appliedBToA;
    bool pushed = false;
    bool upA = true, upB = true; //!< ns-3's interfaces, as last seen
    FastPathEmulation::InterfaceOf ifA, ifB; //!< where those interfaces are
};

/// The links one simulation created in fastpathd (the nodes, the connection and the
/// following are FastPathEmulation's).
struct P2pLinks : FastPathEmulatedSet<P2pLink>
{
    /// Hands the link's parameters and state to fastpathd where they differ from what it
    /// has.
    void Push(P2pLink& l) override;
    /// Hands the states of the link's ns-3 interfaces to fastpathd where they changed.
    void PushState(P2pLink& l) override;

    fastpath::Status Delete(const std::string& name) override
    {
        return emulation->Client().deleteLink(name);
    }
};

std::shared_ptr<P2pLinks> g_links;
uint64_t g_parameterReads = 0;

/// The links of the current simulation's emulation (created with it).
P2pLinks&
CurrentLinks()
{
    return P2pLinks::Current(g_links, "FastPathPointToPointHelper", "link");
}

/// Gives one or both directions of a link their emulation (protocol 1.4, SetLinkParams).
fastpath::Status
ApplyLinkParams(fastpath::ctrl::Client& client,
                const std::string& link,
                fastpath::LinkDirection direction,
                const fastpath::LinkParams& params)
{
    fastpath::Status st = client.setLinkParams(link, direction, params);
    // A queue discipline mirrored from a queue disc that this fastpathd would ignore: the
    // link would run with a drop-tail queue instead of the script's model.
    NS_ABORT_MSG_IF(!st.ok() && st.error().code == -EPROTONOSUPPORT,
                    "FastPathPointToPointHelper: fastpathd link " << link << ": "
                                                                  << st.error().message);
    return st;
}

/// Gives the TxQueue of `device`'s engine (where what ns-3 sends waits) the maximum size of
/// `queue` (the device's TxQueue, which a script reaches) where it holds no more than that
/// already.
void
FollowQueueSize(Ptr<NetDevice> device, Ptr<QueueBase> queue)
{
    Ptr<FastPathNetDevice> fp = device->GetObject<FastPathNetDevice>();
    Ptr<QueueBase> own = fp ? fp->GetQueue() : nullptr;
    if (!own)
    {
        return;
    }
    const QueueSize want = queue->GetMaxSize();
    const QueueSize have = own->GetMaxSize();
    // QueueSize compares sizes of one unit only.
    const bool sameUnit = have.GetUnit() == want.GetUnit();
    if (sameUnit && have.GetValue() == want.GetValue())
    {
        return;
    }
    const uint32_t held = sameUnit ? own->GetCurrentSize().GetValue() : 0;
    if (sameUnit ? held <= want.GetValue() : own->IsEmpty())
    {
        own->SetMaxSize(want);
    }
}

void
P2pLinks::Push(P2pLink& l)
{
    using fastpath::LinkDirection;
    // Several processes run the same script and see the same changes: the process of the
    // link's first node hands them to fastpathd. A link between two hosts: each end's
    // process hands its host's fastpathd the direction that host sends (the link is
    // emulated at the sender), and no process reaches the other host's.
    const bool cross = emulation->IsCrossHostLink(l.name);
    if (!cross && !emulation->IsLocal(l.a))
    {
        return;
    }
    // The queue a script reaches: the device's TxQueue (Config::Set may replace it).
    Ptr<QueueBase> qa = l.devA->GetQueue() ? Ptr<QueueBase>(l.devA->GetQueue()) : l.queueA;
    Ptr<QueueBase> qb = l.devB->GetQueue() ? Ptr<QueueBase>(l.devB->GetQueue()) : l.queueB;
    // The engines' TxQueues (what ns-3 sends waits there) keep the size a script sets.
    FollowQueueSize(l.devA, qa);
    FollowQueueSize(l.devB, qb);
    auto ab = FastPathPointToPointHelper::LinkParamsOf(l.devA, l.channel, qa, l.devB);
    auto ba = FastPathPointToPointHelper::LinkParamsOf(l.devB, l.channel, qb, l.devA);
    // What a node forwards waits in fastpathd's link queue, never in the node's queue disc.
    AddForwardedQueueDisc(l.devA, ab);
    AddForwardedQueueDisc(l.devB, ba);
    FollowForwardedRed(emulation, l.name, l.devA, l.devB, ab, ba);
    bool changed = false;
    if (cross)
    {
        // This process made one end: its node's direction is the one its host sends.
        const bool endA = emulation->IsLocal(l.a);
        const auto& want = endA ? ab : ba;
        auto& applied = endA ? l.appliedAToB : l.appliedBToA;
        if (!(want == applied))
        {
            auto st = ApplyLinkParams(emulation->Client(),
                                      l.name,
                                      endA ? LinkDirection::kAToB : LinkDirection::kBToA,
                                      want);
            if (!st.ok())
            {
                // fastpathd keeps the link's parameters (e.g. a delay below the wire's
                // latency): say so where the script runs.
                std::cerr << "fastpath: warning: link " << l.name << ": "
                          << st.error().message << std::endl;
            }
            applied = want;
            changed = true;
        }
    }
    else if (!l.pushed || !(ab == l.appliedAToB) || !(ba == l.appliedBToA))
    {
        fastpath::Status st;
        if (ab == ba)
        {
            st = ApplyLinkParams(emulation->Client(), l.name, LinkDirection::kBoth, ab);
        }
        else
        {
            st = ApplyLinkParams(emulation->Client(), l.name, LinkDirection::kAToB, ab);
            if (st.ok())
            {
                st = ApplyLinkParams(emulation->Client(), l.name, LinkDirection::kBToA, ba);
            }
        }
        if (!st.ok())
        {
            NS_LOG_WARN("fastpathd link " << l.name << ": parameters refused: "
                                          << st.error().message);
        }
        changed = l.pushed;
        l.appliedAToB = ab;
        l.appliedBToA = ba;
        l.pushed = true;
    }
    if (changed)
    {
        emulation->NoteFollowAck();
    }
    PushState(l);
}

void
P2pLinks::PushState(P2pLink& l)
{
    // An ns-3 interface of the link set down or up: that end of the link follows (the node
    // forwards nothing onto it or from it while down, and ns-3's Ipv4Interface itself sends
    // and receives nothing); the other end and
    // the channel keep their state, as in ns-3. Each end is set by the process of its node
    // (a link between two hosts: its host's end, on its host's fastpathd).
    bool changed = false;
    struct End
    {
        Ptr<Node> node;
        Ptr<NetDevice> device;
        bool* seen;
        FastPathEmulation::InterfaceOf* where;
    };
    for (const End& e : {End{l.a, l.devA, &l.upA, &l.ifA}, End{l.b, l.devB, &l.upB, &l.ifB}})
    {
        if (!emulation->IsLocal(e.node))
        {
            continue;
        }
        const bool up = FastPathEmulation::InterfaceUp(e.node, e.device, *e.where);
        if (up == *e.seen)
        {
            continue;
        }
        const bool cross = emulation->IsCrossHostLink(l.name);
        const std::string node = emulation->FindNode(e.node);
        auto st = cross ? emulation->Client().setLinkState(l.name, up)
                        : emulation->Client().setLinkState(l.name, up, node);
        if (!st.ok())
        {
            NS_LOG_WARN("fastpathd link " << l.name << ": cannot set " << node << "'s end "
                                          << (up ? "up" : "down") << ": "
                                          << st.error().message);
        }
        NS_LOG_INFO("fastpathd link " << l.name << ": " << node << "'s end "
                                      << (up ? "up" : "down"));
        *e.seen = up;
        changed = true;
    }
    if (changed)
    {
        emulation->NoteFollowAck();
    }
}

/// Emulates the link `channel` joins, between `devA` and `devB` (on their nodes, attached,
/// with their TxQueues and MACs: what PointToPointHelper::Install made): a fastpathd link
/// between the nodes' fastpathd nodes, each device bound to its port.
void
EmulateLink(Ptr<FastPathPointToPointNetDevice> devA,
            Ptr<FastPathPointToPointNetDevice> devB,
            Ptr<FastPathPointToPointChannel> channel)
{
    const Ptr<Node> a = devA->GetNode();
    const Ptr<Node> b = devB->GetNode();
    P2pLinks& s = CurrentLinks();
    FastPathEmulation& e = *s.emulation;
    const std::string na = e.NodeOf(a);
    const std::string nb = e.NodeOf(b);
    const std::string& tag = e.Tag();
    fastpath::LinkSpec spec;
    spec.name = tag + "-l" + std::to_string(s.next++);
    spec.a.node = na;
    spec.b.node = nb;
    // Each end's port is named after the peer node (after the link when two links join
    // the same pair).
    spec.a.port = nb.substr(tag.size() + 1);
    spec.b.port = na.substr(tag.size() + 1);
    for (const auto& l : s.items)
    {
        if ((l.a == a && l.b == b) || (l.a == b && l.b == a))
        {
            spec.a.port = spec.b.port = spec.name;
        }
    }

    // ns-3's objects for the link: its devices (PointToPointNetDevices to the script, on
    // the nodes), their TxQueues and its channel hold its parameters where a script's
    // Config::Set finds them, and Follow() hands changes to fastpathd. The queues are
    // watched when they are DropTailQueues (FastPathWatched).
    P2pLink link;
    link.name = spec.name;
    link.a = a;
    link.b = b;
    link.devA = devA;
    link.devB = devB;
    link.queueA = devA->GetQueue();
    link.queueB = devB->GetQueue();
    link.channel = channel;
    NS_ABORT_MSG_IF(!link.queueA || !link.queueB,
                    "FastPathPointToPointHelper: link " << spec.name
                                                        << ": a device has no TxQueue");
    UintegerValue mtu;
    devA->GetAttribute("Mtu", mtu);
    spec.a.mtu = spec.b.mtu = mtu.Get();
    // Created with its emulation (protocol 1.4); an older fastpathd refuses that with
    // -ENOSYS and gets an unshaped link.
    spec.a_to_b = FastPathPointToPointHelper::LinkParamsOf(devA, channel, link.queueA, devB);
    spec.b_to_a = FastPathPointToPointHelper::LinkParamsOf(devB, channel, link.queueB, devA);
    // The MACs PointToPointHelper::Install gave the two devices (Mac48Address::Allocate,
    // as simulated).
    Mac48Address::ConvertFrom(devA->GetAddress()).CopyTo(spec.a.mac.bytes.data());
    Mac48Address::ConvertFrom(devB->GetAddress()).CopyTo(spec.b.mac.bytes.data());
    const fastpath::MacAddress macA = spec.a.mac, macB = spec.b.mac;
    // Several processes: rank 0 creates the link; every process has its ns-3 side.
    // Several hosts: created once the nodes are placed, on their hosts.
    fastpath::Status st;
    if (e.IsMultiHost())
    {
        e.CreateLinkLater(spec, a, b);
    }
    else if (e.Creates())
    {
        st = FastPathEmulation::CreateWithMacs(
            "link " + spec.name,
            [&spec]() { spec.a.mac = spec.b.mac = fastpath::MacAddress{}; },
            [&e, &spec]() { return e.Client().createLink(spec); });
    }
    if (!st.ok() && st.error().code == -ENOSYS)
    {
        NS_LOG_WARN("fastpathd link " << spec.name
                                      << ": this fastpathd predates link emulation (protocol "
                                         "1.4); the link forwards unshaped");
        spec.a_to_b = spec.b_to_a = fastpath::LinkParams{};
        st = e.Client().createLink(spec);
    }
    link.appliedAToB = spec.a_to_b;
    link.appliedBToA = spec.b_to_a;
    link.pushed = true;
    NS_ABORT_MSG_IF(!st.ok(),
                    "FastPathPointToPointHelper: cannot create fastpathd link "
                        << spec.name << " (" << na << " - " << nb << "): " << st.error().message);

    // Each device sends and receives through its engine, the FastPathNetDevice on its
    // fastpathd port: it presents the link's channel as a point-to-point device's, and
    // what ns-3 sends waits in its TxQueue, paced at the device's DataRate as fastpathd's
    // link counts a frame (as PointToPointNetDevice: IP + PPP's 2 bytes).
    for (Ptr<FastPathPointToPointNetDevice> d : {devA, devB})
    {
        Ptr<FastPathNetDevice> engine = d->GetEngine();
        engine->SetChannel(channel);
        Ptr<Queue<Packet>> queue = EngineQueueLike(d->GetQueue());
        engine->SetTxQueue(queue, d, spec.a_to_b.overhead_bytes, spec.a_to_b.mpu_bytes);
        FastPathDeviceTraces::ForwardDrops(queue, d);
    }
    e.AddPort(a, na, spec.a.port, spec.a.mtu, macA, devA);
    e.AddPort(b, nb, spec.b.port, spec.b.mtu, macB, devB);
    e.AddEdge(a, b);
    channel->SetEmulatedDevices(devA, devB);
    s.items.push_back(link);
    const size_t index = s.items.size() - 1;
    P2pLinks* set = &s;
    auto changed = [set, index]() { set->Changed(index); };
    for (Ptr<Object> o : {Ptr<Object>(link.channel), Ptr<Object>(link.queueA),
                          Ptr<Object>(link.queueB)})
    {
        FastPathWatched::Watch(o, changed);
    }
    // A TxQueue set by a script is watched too.
    for (Ptr<PointToPointNetDevice> d : {devA, devB})
    {
        FastPathWatched::Watch(d, [set, index, d, changed]() {
            FastPathWatched::Watch(d->GetQueue(), changed);
            set->Changed(index);
        });
    }
    if (!e.IsPartitioned())
    {
        s.Push(s.items.back());
        // Again at time 0, with the queue discs the script installs after the devices.
        s.Changed(index);
    }
    NS_LOG_INFO("link " << spec.name << ": " << na << "/" << spec.a.port << " - " << nb << "/"
                        << spec.b.port << ", "
                        << fastpath::formatLinkParams(s.items.back().appliedAToB));
}

/// FastPathPointToPointNetDevice's attach handler: once a channel joins two of them (the
/// second Attach() of PointToPointHelper::Install, whoever holds the helper), the link is
/// emulated.
void
EmulateAttached(Ptr<FastPathPointToPointNetDevice> device)
{
    Ptr<Channel> ch = device->GetChannel();
    if (!FastPathEmulation::IsEnabled() || !ch || ch->GetNDevices() != 2)
    {
        return;
    }
    auto channel = DynamicCast<FastPathPointToPointChannel>(ch);
    auto devA = DynamicCast<FastPathPointToPointNetDevice>(ch->GetDevice(0));
    auto devB = DynamicCast<FastPathPointToPointNetDevice>(ch->GetDevice(1));
    NS_ABORT_MSG_IF(!channel || !devA || !devB,
                    "FastPathPointToPointHelper: an emulated point-to-point device was attached "
                    "to a "
                        << ch->GetInstanceTypeId().GetName()
                        << " joining it with another kind of device: build the link with "
                           "FastPathPointToPointHelper (or a helper given one)");
    NS_ABORT_MSG_IF(!devA->GetNode() || !devB->GetNode(),
                    "FastPathPointToPointHelper: an emulated point-to-point link's devices "
                    "were attached to their channel before being added to their nodes: add "
                    "them first, as PointToPointHelper::Install does");
    EmulateLink(devA, devB, channel);
}

} // namespace

FastPathPointToPointHelper::FastPathPointToPointHelper()
    : FastPathEmulatingHelper("ns3::PointToPointNetDevice",
                              "ns3::PointToPointChannel",
                              "FastPathPointToPointHelper")
{
    FastPathPointToPointNetDevice::SetAttachHandler(&EmulateAttached);
    FollowSwitch();
}

fastpath::LinkParams
FastPathPointToPointHelper::LinkParamsOf(Ptr<NetDevice> device,
                                         Ptr<Channel> channel,
                                         Ptr<QueueBase> queue,
                                         Ptr<NetDevice> receiver)
{
    ++g_parameterReads;
    fastpath::LinkParams p;
    DataRateValue rate;
    device->GetAttribute("DataRate", rate);
    p.rate_bps = rate.Get().GetBitRate();
    // PointToPointNetDevice sends IP + its 2-byte PPP header; fastpathd carries IP + a
    // 14-byte Ethernet header.
    p.overhead_bytes = 2 - 14;
    TimeValue delay;
    channel->GetAttribute("Delay", delay);
    p.delay_ns = delay.Get().GetNanoSeconds();
    FastPathEmulation::SetQueueLimit(p, queue);
    if (!receiver)
    {
        receiver = device;
    }
    p.loss = FastPathEmulation::ReceiveLoss(receiver);
    return p;
}

NetDeviceContainer
FastPathPointToPointHelper::Install(NodeContainer c)
{
    NS_ASSERT(c.GetN() == 2);
    return Install(c.Get(0), c.Get(1));
}

NetDeviceContainer
FastPathPointToPointHelper::Install(Ptr<Node> a, std::string bName)
{
    return Install(a, Names::Find<Node>(bName));
}

NetDeviceContainer
FastPathPointToPointHelper::Install(std::string aName, Ptr<Node> b)
{
    return Install(Names::Find<Node>(aName), b);
}

NetDeviceContainer
FastPathPointToPointHelper::Install(std::string aNode, std::string bNode)
{
    return Install(Names::Find<Node>(aNode), Names::Find<Node>(bNode));
}

NetDeviceContainer
FastPathPointToPointHelper::Install(Ptr<Node> a, Ptr<Node> b)
{
    // PointToPointHelper's own Install, with the factories FollowSwitch() gave it:
    // emulated, its devices' Attach() emulates the link (EmulateLink), as for a copy of
    // this helper that PointToPointDumbbellHelper, PointToPointStarHelper or any code
    // taking a PointToPointHelper holds.
    FollowSwitch();
    NetDeviceContainer devices = PointToPointHelper::Install(a, b);
    NS_ABORT_MSG_IF(IsEmulated() && GetFastPathLinkName(devices.Get(0)).empty(),
                    "FastPathPointToPointHelper: the link between nodes "
                        << a->GetId() << " and " << b->GetId() << " was not emulated");
    return devices;
}

std::string
FastPathPointToPointHelper::GetFastPathNodeName(Ptr<Node> node)
{
    FastPathEmulation* e = FastPathEmulation::Find();
    return e ? e->FindNode(node) : "";
}

std::string
FastPathPointToPointHelper::GetFastPathLinkName(Ptr<NetDevice> device)
{
    if (!g_links)
    {
        return "";
    }
    for (const auto& l : g_links->items)
    {
        if (l.devA == device || l.devB == device)
        {
            return l.name;
        }
    }
    return "";
}

uint64_t
FastPathPointToPointHelper::GetParameterReads()
{
    return g_parameterReads;
}

uint64_t
FastPathPointToPointHelper::GetFollowedChanges()
{
    FastPathEmulation* e = FastPathEmulation::Find();
    return e ? e->GetFollowedChanges() : 0;
}

std::chrono::steady_clock::time_point
FastPathPointToPointHelper::GetLastFollowAck()
{
    FastPathEmulation* e = FastPathEmulation::Find();
    return e ? e->GetLastFollowAck() : std::chrono::steady_clock::time_point{};
}

FastPathHelper*
FastPathPointToPointHelper::GetFastPathHelper()
{
    FastPathEmulation* e = FastPathEmulation::Find();
    return e ? &e->Attach() : nullptr;
}

} // namespace ns3
