// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-point-to-point-helper.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/channel.h"
#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/global-value.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
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
#include <map>
#include <memory>
#include <set>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathPointToPointHelper");

namespace
{

/// A bool checker that, when the value is set to true, also selects what emulation needs
/// (the realtime simulator, real checksums): the one switch of a script.
class EmulationChecker : public AttributeChecker
{
  public:
    bool Check(const AttributeValue& value) const override
    {
        if (!m_bool->Check(value))
        {
            return false;
        }
        auto b = dynamic_cast<const BooleanValue*>(&value);
        if (b && b->Get())
        {
            GlobalValue::Bind("SimulatorImplementationType",
                              StringValue("ns3::RealtimeSimulatorImpl"));
            GlobalValue::Bind("ChecksumEnabled", BooleanValue(true));
        }
        return true;
    }
    std::string GetValueTypeName() const override
    {
        return m_bool->GetValueTypeName();
    }
    bool HasUnderlyingTypeInformation() const override
    {
        return m_bool->HasUnderlyingTypeInformation();
    }
    std::string GetUnderlyingTypeInformation() const override
    {
        return m_bool->GetUnderlyingTypeInformation();
    }
    Ptr<AttributeValue> Create() const override
    {
        return m_bool->Create();
    }
    bool Copy(const AttributeValue& source, AttributeValue& destination) const override
    {
        return m_bool->Copy(source, destination);
    }

  private:
    Ptr<const AttributeChecker> m_bool = MakeBooleanChecker();
};

GlobalValue g_emulation("FastPathEmulation",
                        "Links of FastPathPointToPointHelper are emulated by fastpathd (true; "
                        "also selects the realtime simulator and checksums) or simulated by "
                        "ns-3 (false)",
                        BooleanValue(false),
                        Ptr<const AttributeChecker>(new EmulationChecker(), false));
GlobalValue g_socket("FastPathSocket",
                     "fastpathd's control socket (FastPathPointToPointHelper, emulated)",
                     StringValue("/run/fastpathd/fastpathd.sock"),
                     MakeStringChecker());
GlobalValue g_follow("FastPathFollowInterval",
                     "How often FastPathPointToPointHelper looks for Config::Set changes of its "
                     "links' DataRate, Delay, queue, error model and for interfaces set down "
                     "or up, to hand them to fastpathd (0: never)",
                     TimeValue(MilliSeconds(2)),
                     MakeTimeChecker());
GlobalValue g_tag("FastPathTag",
                  "Prefix of the fastpathd nodes and links FastPathPointToPointHelper creates "
                  "(1-12 of [A-Za-z0-9_.-]; empty: the program's name). Names with this "
                  "prefix are deleted at the first Install()",
                  StringValue(""),
                  MakeStringChecker());

std::string
GlobalString(const std::string& name)
{
    StringValue v;
    GlobalValue::GetValueByName(name, v);
    return v.Get();
}

/// The tag: FastPathTag, else the program's name, cut to what fastpathd's names allow.
std::string
Tag()
{
    std::string tag = GlobalString("FastPathTag");
    if (tag.empty())
    {
        std::ifstream("/proc/self/comm") >> tag;
    }
    std::string out;
    for (char c : tag)
    {
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-')
        {
            out += c;
        }
    }
    out = out.substr(0, 12);
    return out.empty() ? "ns3" : out;
}

/// What one simulation created in fastpathd, deleted at Simulator::Destroy().
struct Session
{
    std::unique_ptr<fastpath::ctrl::Client> client;
    std::string tag;
    std::string socket;
    /// A link and the ns-3 objects that carry its parameters.
    struct Link
    {
        std::string name;
        Ptr<Node> a, b;
        Ptr<NetDevice> devA, devB; //!< the FdNetDevices
        Ptr<PointToPointNetDevice> shadowA, shadowB;
        Ptr<QueueBase> queueA, queueB;
        Ptr<PointToPointChannel> channel;
        fastpath::LinkParams appliedAToB, appliedBToA;
        bool pushed = false;
        bool up = true;
        bool upA = true, upB = true; //!< ns-3's interfaces, as last seen
    };

    std::map<uint32_t, std::string> nodes; //!< ns-3 node id -> fastpathd node
    std::vector<Link> links;
    FastPathHelper attach;
    uint32_t nextLink = 0;
    bool following = false;
    /// Wall clock of fastpathd's last acknowledgement of a change Follow() found.
    std::chrono::steady_clock::time_point lastFollowAck;
    uint64_t followChanges = 0;

    /// Hands the link's parameters to fastpathd where they differ from what it has.
    void Push(Link& l);
    /// Looks for changes of the links' parameters and of their ns-3 interfaces' state.
    void Follow();

    ~Session()
    {
        Clear();
    }

    /// Deletes every link, then every node, this session created.
    void Clear()
    {
        if (!client)
        {
            return;
        }
        for (const auto& l : links)
        {
            auto st = client->deleteLink(l.name);
            if (!st.ok())
            {
                NS_LOG_WARN("fastpathd: cannot delete link " << l.name << ": "
                                                             << st.error().message);
            }
        }
        for (const auto& kv : nodes)
        {
            auto st = client->deleteNode(kv.second);
            if (!st.ok())
            {
                NS_LOG_WARN("fastpathd: cannot delete node " << kv.second << ": "
                                                             << st.error().message);
            }
        }
        NS_LOG_INFO("fastpathd: deleted " << links.size() << " links and " << nodes.size()
                                          << " nodes");
        links.clear();
        nodes.clear();
        client.reset();
    }

    /// Deletes the links and nodes named TAG-... (a crashed run's).
    void RemoveLeftovers()
    {
        const std::string prefix = tag + "-";
        auto ls = client->links();
        NS_ABORT_MSG_IF(!ls.ok(),
                        "FastPathPointToPointHelper: cannot list fastpathd's links: "
                            << ls.error().message);
        for (const auto& l : ls.value())
        {
            if (l.name.compare(0, prefix.size(), prefix) == 0)
            {
                NS_LOG_WARN("fastpathd: deleting link " << l.name << " left by an earlier run");
                client->deleteLink(l.name);
            }
        }
        auto ns = client->nodes();
        NS_ABORT_MSG_IF(!ns.ok(),
                        "FastPathPointToPointHelper: cannot list fastpathd's nodes: "
                            << ns.error().message);
        for (const auto& n : ns.value())
        {
            if (n.name.compare(0, prefix.size(), prefix) == 0)
            {
                NS_LOG_WARN("fastpathd: deleting node " << n.name << " left by an earlier run");
                client->deleteNode(n.name);
            }
        }
    }

    /// The fastpathd node of `node`, created on first use.
    std::string NodeOf(Ptr<Node> node)
    {
        auto it = nodes.find(node->GetId());
        if (it != nodes.end())
        {
            return it->second;
        }
        std::string name = Names::FindName(node);
        std::string clean;
        for (char c : name)
        {
            clean += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
                             c == '-'
                         ? c
                         : '_';
        }
        if (clean.empty() || tag.size() + 1 + clean.size() > 31)
        {
            clean = "n" + std::to_string(node->GetId());
        }
        fastpath::NodeSpec spec;
        spec.name = tag + "-" + clean;
        auto st = client->createNode(spec);
        NS_ABORT_MSG_IF(!st.ok(),
                        "FastPathPointToPointHelper: cannot create fastpathd node "
                            << spec.name << ": " << st.error().message
                            << " (creating nodes needs an operator peer: run fastpathd with "
                               "--socket-uid <this process's uid>)");
        nodes[node->GetId()] = spec.name;
        return spec.name;
    }
};

std::shared_ptr<Session> g_session;

/// The session of the current simulation, connected and cleaned of leftovers.
Session&
CurrentSession()
{
    if (g_session)
    {
        return *g_session;
    }
    std::string why = FastPathHelper::CheckSimulatorPreconditions();
    NS_ABORT_MSG_IF(!why.empty(),
                    "FastPathPointToPointHelper: FastPathEmulation is set but "
                        << why
                        << " (FastPathEmulation selects both when it is set before the first "
                           "node is created: parse the command line first)");
    auto s = std::make_shared<Session>();
    s->tag = Tag();
    s->socket = GlobalString("FastPathSocket");
    auto c = fastpath::ctrl::Client::connect(s->socket);
    NS_ABORT_MSG_IF(!c.ok(),
                    "FastPathPointToPointHelper: cannot connect to fastpathd at "
                        << s->socket << ": " << c.error().message
                        << " (start fastpathd, or give its socket with --FastPathSocket=PATH)");
    s->client = std::move(c.value());
    auto st = s->client->hello("ns-3 " + s->tag);
    NS_ABORT_MSG_IF(!st.ok(), "FastPathPointToPointHelper: hello: " << st.error().message);
    s->RemoveLeftovers();
    Session* raw = s.get();
    Simulator::Schedule(Seconds(0), [raw]() { raw->Follow(); });
    s->attach.SetSocketPath(s->socket);
    g_session = s;
    // After the nodes (NodeList disposes of them, and of their connections, first).
    Simulator::ScheduleDestroy([]() {
        if (g_session)
        {
            g_session->Clear();
            g_session.reset();
        }
    });
    return *s;
}

/// Gives one or both directions of a link their emulation (protocol 1.4, SetLinkParams).
fastpath::Status
ApplyLinkParams(fastpath::ctrl::Client& client,
                const std::string& link,
                fastpath::LinkDirection direction,
                const fastpath::LinkParams& params)
{
    return client.setLinkParams(link, direction, params);
}

bool
InterfaceUp(Ptr<Node> node, Ptr<NetDevice> device)
{
    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    int32_t i = ipv4 ? ipv4->GetInterfaceForDevice(device) : -1;
    return i < 0 || ipv4->IsUp(i);
}

void
Session::Push(Link& l)
{
    using fastpath::LinkDirection;
    auto ab = FastPathPointToPointHelper::LinkParamsOf(l.shadowA, l.channel, l.queueA, l.shadowB);
    auto ba = FastPathPointToPointHelper::LinkParamsOf(l.shadowB, l.channel, l.queueB, l.shadowA);
    bool changed = false;
    if (!l.pushed || !(ab == l.appliedAToB) || !(ba == l.appliedBToA))
    {
        fastpath::Status st;
        if (ab == ba)
        {
            st = ApplyLinkParams(*client, l.name, LinkDirection::kBoth, ab);
        }
        else
        {
            st = ApplyLinkParams(*client, l.name, LinkDirection::kAToB, ab);
            if (st.ok())
            {
                st = ApplyLinkParams(*client, l.name, LinkDirection::kBToA, ba);
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
    // An ns-3 interface of the link taken down or up: the link follows the change (the
    // port events then take the other end's interface down or up too).
    bool upA = InterfaceUp(l.a, l.devA);
    bool upB = InterfaceUp(l.b, l.devB);
    bool want = l.up;
    if (upA != l.upA)
    {
        want = upA;
    }
    if (upB != l.upB)
    {
        want = upB;
    }
    l.upA = upA;
    l.upB = upB;
    if (want != l.up)
    {
        auto st = client->setLinkState(l.name, want);
        if (!st.ok())
        {
            NS_LOG_WARN("fastpathd link " << l.name << ": cannot set it "
                                          << (want ? "up" : "down") << ": "
                                          << st.error().message);
        }
        NS_LOG_INFO("fastpathd link " << l.name << " " << (want ? "up" : "down"));
        l.up = want;
        changed = true;
    }
    if (changed)
    {
        lastFollowAck = std::chrono::steady_clock::now();
        ++followChanges;
    }
}

void
Session::Follow()
{
    for (auto& l : links)
    {
        Push(l);
    }
    TimeValue every;
    GlobalValue::GetValueByName("FastPathFollowInterval", every);
    if (every.Get().IsStrictlyPositive())
    {
        Simulator::Schedule(every.Get(), [this]() { Follow(); });
    }
}

} // namespace

FastPathPointToPointHelper::FastPathPointToPointHelper()
{
    m_queueFactory.SetTypeId("ns3::DropTailQueue<Packet>");
    m_deviceFactory.SetTypeId("ns3::PointToPointNetDevice");
    m_channelFactory.SetTypeId("ns3::PointToPointChannel");
}

void
FastPathPointToPointHelper::SetDeviceAttribute(std::string name, const AttributeValue& value)
{
    PointToPointHelper::SetDeviceAttribute(name, value);
    m_deviceFactory.Set(name, value);
}

void
FastPathPointToPointHelper::SetChannelAttribute(std::string name, const AttributeValue& value)
{
    PointToPointHelper::SetChannelAttribute(name, value);
    m_channelFactory.Set(name, value);
}

bool
FastPathPointToPointHelper::IsEmulated()
{
    BooleanValue v;
    GlobalValue::GetValueByName("FastPathEmulation", v);
    return v.Get();
}

fastpath::LinkParams
FastPathPointToPointHelper::LinkParamsOf(Ptr<NetDevice> device,
                                         Ptr<Channel> channel,
                                         Ptr<QueueBase> queue,
                                         Ptr<NetDevice> receiver)
{
    fastpath::LinkParams p;
    DataRateValue rate;
    device->GetAttribute("DataRate", rate);
    p.rate_bps = rate.Get().GetBitRate();
    p.overhead_bytes = 2; // PointToPointNetDevice's PPP header
    TimeValue delay;
    channel->GetAttribute("Delay", delay);
    p.delay_ns = delay.Get().GetNanoSeconds();
    QueueSize max = queue->GetMaxSize();
    if (max.GetUnit() == QueueSizeUnit::PACKETS)
    {
        p.limit_packets = max.GetValue();
        p.limit_bytes = 0;
    }
    else
    {
        p.limit_packets = 0;
        p.limit_bytes = max.GetValue();
    }
    if (!receiver)
    {
        receiver = device;
    }
    PointerValue em;
    receiver->GetAttribute("ReceiveErrorModel", em);
    Ptr<RateErrorModel> rem = em.Get<RateErrorModel>();
    if (rem && rem->IsEnabled())
    {
        UintegerValue mtu;
        receiver->GetAttribute("Mtu", mtu);
        switch (rem->GetUnit())
        {
        case RateErrorModel::ERROR_UNIT_PACKET:
            p.loss = rem->GetRate();
            break;
        case RateErrorModel::ERROR_UNIT_BYTE:
            p.loss = 1 - std::pow(1 - rem->GetRate(), double(mtu.Get()));
            break;
        case RateErrorModel::ERROR_UNIT_BIT:
            p.loss = 1 - std::pow(1 - rem->GetRate(), 8.0 * mtu.Get());
            break;
        }
    }
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
    if (!IsEmulated())
    {
        return PointToPointHelper::Install(a, b);
    }
    Session& s = CurrentSession();
    const std::string na = s.NodeOf(a);
    const std::string nb = s.NodeOf(b);
    fastpath::LinkSpec spec;
    spec.name = s.tag + "-l" + std::to_string(s.nextLink++);
    spec.a.node = na;
    spec.b.node = nb;
    // Each end's port is named after the peer node (after the link when two links join
    // the same pair).
    spec.a.port = nb.substr(s.tag.size() + 1);
    spec.b.port = na.substr(s.tag.size() + 1);
    for (const auto& l : s.links)
    {
        if ((l.a == a && l.b == b) || (l.a == b && l.b == a))
        {
            spec.a.port = spec.b.port = spec.name;
        }
    }

    // ns-3's objects for the link, never on a node: they hold its parameters where a
    // script's Config::Set finds them (the channel in ChannelList, each device aggregated
    // to its FdNetDevice) and Follow() hands changes to fastpathd.
    Session::Link link;
    link.name = spec.name;
    link.a = a;
    link.b = b;
    link.shadowA = m_deviceFactory.Create<PointToPointNetDevice>();
    link.shadowB = m_deviceFactory.Create<PointToPointNetDevice>();
    link.queueA = m_queueFactory.Create<QueueBase>();
    link.queueB = m_queueFactory.Create<QueueBase>();
    link.channel = m_channelFactory.Create<PointToPointChannel>();
    link.shadowA->Attach(link.channel);
    link.shadowB->Attach(link.channel);
    UintegerValue mtu;
    link.shadowA->GetAttribute("Mtu", mtu);
    spec.a.mtu = spec.b.mtu = mtu.Get();
    // Created with its emulation (protocol 1.4); an older fastpathd refuses that with
    // -ENOSYS and gets an unshaped link.
    spec.a_to_b = LinkParamsOf(link.shadowA, link.channel, link.queueA, link.shadowB);
    spec.b_to_a = LinkParamsOf(link.shadowB, link.channel, link.queueB, link.shadowA);
    auto st = s.client->createLink(spec);
    if (!st.ok() && st.error().code == -ENOSYS)
    {
        NS_LOG_WARN("fastpathd link " << spec.name
                                      << ": this fastpathd predates link emulation (protocol "
                                         "1.4); the link forwards unshaped");
        spec.a_to_b = spec.b_to_a = fastpath::LinkParams{};
        st = s.client->createLink(spec);
    }
    link.appliedAToB = spec.a_to_b;
    link.appliedBToA = spec.b_to_a;
    link.pushed = true;
    NS_ABORT_MSG_IF(!st.ok(),
                    "FastPathPointToPointHelper: cannot create fastpathd link "
                        << spec.name << " (" << na << " - " << nb << "): " << st.error().message);

    NetDeviceContainer devices;
    devices.Add(s.attach.Install(a, na, {spec.a.port}));
    devices.Add(s.attach.Install(b, nb, {spec.b.port}));
    link.devA = devices.Get(0);
    link.devB = devices.Get(1);
    link.devA->AggregateObject(link.shadowA);
    link.devB->AggregateObject(link.shadowB);
    s.links.push_back(link);
    s.Push(s.links.back());
    NS_LOG_INFO("link " << spec.name << ": " << na << "/" << spec.a.port << " - " << nb << "/"
                        << spec.b.port << ", "
                        << fastpath::formatLinkParams(s.links.back().appliedAToB));
    return devices;
}

std::string
FastPathPointToPointHelper::GetFastPathNodeName(Ptr<Node> node)
{
    if (!g_session)
    {
        return "";
    }
    auto it = g_session->nodes.find(node->GetId());
    return it == g_session->nodes.end() ? "" : it->second;
}

std::string
FastPathPointToPointHelper::GetFastPathLinkName(Ptr<NetDevice> device)
{
    if (!g_session)
    {
        return "";
    }
    for (const auto& l : g_session->links)
    {
        if (l.devA == device || l.devB == device)
        {
            return l.name;
        }
    }
    return "";
}

uint64_t
FastPathPointToPointHelper::GetFollowedChanges()
{
    return g_session ? g_session->followChanges : 0;
}

std::chrono::steady_clock::time_point
FastPathPointToPointHelper::GetLastFollowAck()
{
    return g_session ? g_session->lastFollowAck : std::chrono::steady_clock::time_point{};
}

FastPathHelper*
FastPathPointToPointHelper::GetFastPathHelper()
{
    return g_session ? &g_session->attach : nullptr;
}

} // namespace ns3
