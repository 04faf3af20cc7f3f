// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-emulation.h"

#include "fast-path-emulation-switch.h"
#include "fast-path-plan.h"
#include "fast-path-wifi-helper.h"
#include "ns3/fast-path-device-traces.h"
#include "ns3/fast-path-trace-taps.h"
#include "ns3/fast-path-point-to-point-net-device.h"
#include "ns3/fast-path-partition.h"
#include "ns3/fast-path-ranks.h"
#include "ns3/fast-path-realtime-lag.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/error-model.h"
#include "ns3/global-value.h"
#include "ns3/ipv4.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/log.h"
#include "ns3/names.h"
#include "ns3/nstime.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include "fastpath/ctrl/client.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <cmath>
#include <fstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathEmulation");

using fastpathswitch::GlobalString;
using fastpathswitch::TagOfProgram;

namespace
{

std::unique_ptr<FastPathEmulation> g_emulation_session;

} // namespace

bool
FastPathEmulation::IsEnabled()
{
    BooleanValue v;
    GlobalValue::GetValueByName("FastPathEmulation", v);
    return v.Get();
}

FastPathEmulation*
FastPathEmulation::Find()
{
    return g_emulation_session.get();
}

FastPathEmulation&
FastPathEmulation::Get(const std::string& who)
{
    if (g_emulation_session)
    {
        return *g_emulation_session;
    }
    std::string why = FastPathHelper::CheckSimulatorPreconditions();
    NS_ABORT_MSG_IF(!why.empty(),
                    who << ": FastPathEmulation is set but " << why
                        << " (FastPathEmulation selects both when it is set before the first "
                           "node is created: parse the command line first)");
    std::unique_ptr<FastPathEmulation> e(new FastPathEmulation());
    e->m_tag = TagOfProgram();
    e->m_socket = GlobalString("FastPathSocket");
    e->m_rank = FastPathRanks::Get().GetRank();
    e->ReadHosts(who, GlobalString("FastPathHosts"));
    auto c = fastpath::ctrl::Client::connect(e->m_socket);
    NS_ABORT_MSG_IF(!c.ok(),
                    who << ": cannot connect to fastpathd at " << e->m_socket << ": "
                        << c.error().message
                        << " (start fastpathd, or give its socket with --FastPathSocket=PATH)");
    e->m_client = std::move(c.value());
    auto st = e->m_client->hello("ns-3 " + e->m_tag +
                                 (e->IsPartitioned() ? " rank " + std::to_string(e->m_rank.rank)
                                                     : std::string()));
    NS_ABORT_MSG_IF(!st.ok(), who << ": hello: " << st.error().message);
    FastPathEmulation* raw = e.get();
    if (e->IsPartitioned())
    {
        e->HookPartitionedStart(who);
    }
    if (e->Creates())
    {
        e->RemoveLeftovers();
    }
    auto start = [raw]() {
        raw->CheckEmulated();
        raw->Follow();
        // A process short of CPU says so (and how far behind it ran) instead of failing
        // silently: its protocols' timers and received frames come late.
        FastPathRealtimeLag::Start();
        // An event of time 0: written after the changes a script notified before the run
        // (they are pushed in events of time 0 queued before this one's).
        if (raw->Creates())
        {
            FastPathPlan::ScheduleIfAsked(raw->m_socket, raw->m_tag + "-");
        }
    };
    // Before the clock starts: its exchanges with fastpathd then leave the simulator no
    // lag at time 0.
    FastPathRealtimeSimulatorImpl::RunBeforeClockOrNow(start);
    e->m_attach.SetSocketPath(e->m_socket);
    g_emulation_session = std::move(e);
    // After the nodes (NodeList disposes of them, and of their connections, first).
    Simulator::ScheduleDestroy([]() { g_emulation_session.reset(); });
    // A script may end with exit() and no Simulator::Destroy() (red-vs-nlred does when its
    // check fails). The session's cleanups reach the links, segments and media through
    // their own static slots (g_links, ...), which the exit destroys in its own order: a
    // slot destroyed first left the cleanup a dangling pointer to delete again (a double
    // free at exit). Registered now, after every static of the module was built, this
    // runs before any of them is destroyed, and clears fastpathd's nodes as Destroy would.
    static const bool clearAtExit = []() {
        std::atexit([]() { g_emulation_session.reset(); });
        return true;
    }();
    (void)clearAtExit;
    return *raw;
}

FastPathEmulation::~FastPathEmulation()
{
    Clear();
}

fastpath::ctrl::Client&
FastPathEmulation::Client()
{
    return *m_client;
}

const std::string&
FastPathEmulation::Tag() const
{
    return m_tag;
}

FastPathHelper&
FastPathEmulation::Attach()
{
    return m_attach;
}

void
FastPathEmulation::AddFollower(std::function<void()> follow)
{
    m_followers.push_back(std::move(follow));
    if (m_followStarted && !m_followEvent.IsRunning())
    {
        // The loop stopped (or never ran) for want of followers: it runs again.
        Follow();
    }
}

void
FastPathEmulation::AddCleanup(std::function<void()> cleanup, bool first)
{
    m_cleanups.insert(first ? m_cleanups.begin() : m_cleanups.end(), std::move(cleanup));
}

const std::string&
FastPathEmulation::Socket() const
{
    return m_socket;
}

bool
FastPathEmulation::PortOf(Ptr<NetDevice> device, std::string& fpNode, std::string& port) const
{
    auto it = m_ports.find(PeekPointer(device));
    if (it == m_ports.end())
    {
        return false;
    }
    fpNode = it->second.first;
    port = it->second.second;
    return true;
}

void
FastPathEmulation::NoteFollowAck()
{
    m_lastFollowAck = std::chrono::steady_clock::now();
    ++m_followChanges;
}

uint64_t
FastPathEmulation::GetFollowedChanges() const
{
    return m_followChanges;
}

std::chrono::steady_clock::time_point
FastPathEmulation::GetLastFollowAck() const
{
    return m_lastFollowAck;
}

double
FastPathEmulation::ReceiveLoss(Ptr<NetDevice> device)
{
    Ptr<ErrorModel> model;
    if (auto link = DynamicCast<FastPathPointToPointNetDevice>(device))
    {
        // Not the attribute: a model the device's engine applies itself is no link loss.
        model = link->GetLinkErrorModel();
    }
    else
    {
        PointerValue em;
        device->GetAttribute("ReceiveErrorModel", em);
        model = em.Get<ErrorModel>();
    }
    Ptr<RateErrorModel> rem = DynamicCast<RateErrorModel>(model);
    if (!rem || !rem->IsEnabled())
    {
        return 0;
    }
    UintegerValue mtu;
    device->GetAttribute("Mtu", mtu);
    switch (rem->GetUnit())
    {
    case RateErrorModel::ERROR_UNIT_PACKET:
        return rem->GetRate();
    case RateErrorModel::ERROR_UNIT_BYTE:
        return 1 - std::pow(1 - rem->GetRate(), double(mtu.Get()));
    case RateErrorModel::ERROR_UNIT_BIT:
        return 1 - std::pow(1 - rem->GetRate(), 8.0 * mtu.Get());
    }
    return 0;
}

bool
FastPathEmulation::InterfaceUp(Ptr<Node> node, Ptr<NetDevice> device, InterfaceOf& where)
{
    if (where.index < 0)
    {
        where.ipv4 = node->GetObject<Ipv4>();
        where.index = where.ipv4 ? where.ipv4->GetInterfaceForDevice(device) : -1;
        if (where.index < 0)
        {
            return true;
        }
        Ptr<Ipv4L3Protocol> l3 = DynamicCast<Ipv4L3Protocol>(where.ipv4);
        where.iface = l3 ? l3->GetInterface(where.index) : nullptr;
    }
    return where.iface ? where.iface->IsUp() : where.ipv4->IsUp(where.index);
}

void
FastPathEmulation::SetQueueLimit(fastpath::LinkParams& p, Ptr<QueueBase> queue)
{
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
}

void
FastPathEmulation::DeleteAll(const std::string& kind,
                             const std::vector<std::string>& names,
                             const std::function<fastpath::Status(const std::string&)>& del)
{
    if (!Creates())
    {
        return;
    }
    for (const auto& name : names)
    {
        if (IsMultiHost() && kind == "link" && !m_createdLinks.count(name))
        {
            continue; // on another host, or a cross-host link's end (deleted with the nodes)
        }
        auto st = del(name);
        if (!st.ok())
        {
            NS_LOG_WARN("fastpathd: cannot delete " << kind << " " << name << ": "
                                                    << st.error().message);
        }
    }
    NS_LOG_INFO("fastpathd: deleted " << names.size() << " " << kind << "s");
}

void
FastPathEmulation::Clear()
{
    if (!m_client)
    {
        return;
    }
    if (IsPartitioned())
    {
        // Every process has closed its nodes' connections before rank 0 deletes them.
        FastPathRanks::Get().Barrier();
    }
    for (auto& c : m_cleanups)
    {
        c();
    }
    m_cleanups.clear();
    m_followers.clear();
    if (!Creates())
    {
        m_nodes.clear();
        m_client.reset();
        return;
    }
    for (const auto& name : m_crossLinks)
    {
        auto st = m_client->deleteCrossLink(name);
        if (!st.ok())
        {
            NS_LOG_WARN("fastpathd: cannot delete cross-host link " << name << ": "
                                                                    << st.error().message);
        }
    }
    for (const auto& name : m_createdNodes)
    {
        auto st = m_client->deleteNode(name);
        if (!st.ok())
        {
            NS_LOG_WARN("fastpathd: cannot delete node " << name << ": " << st.error().message);
        }
    }
    NS_LOG_INFO("fastpathd: deleted " << m_createdNodes.size() << " nodes");
    m_createdNodes.clear();
    m_crossLinks.clear();
    m_nodes.clear();
    m_client.reset();
}

void
FastPathEmulation::RemoveLeftovers()
{
    const std::string prefix = m_tag + "-";
    auto mine = [&](const std::string& name) { return name.compare(0, prefix.size(), prefix) == 0; };
    auto ls = m_client->links();
    NS_ABORT_MSG_IF(!ls.ok(), "fastpath emulation: cannot list fastpathd's links: "
                                  << ls.error().message);
    for (const auto& l : ls.value())
    {
        if (mine(l.name))
        {
            NS_LOG_WARN("fastpathd: deleting link " << l.name << " left by an earlier run");
            m_client->deleteLink(l.name);
        }
    }
    // Segments are protocol 1.5; an older fastpathd has none.
    auto ss = m_client->segments();
    if (ss.ok())
    {
        for (const auto& s : ss.value())
        {
            if (mine(s.name))
            {
                NS_LOG_WARN("fastpathd: deleting segment " << s.name
                                                           << " left by an earlier run");
                m_client->deleteSegment(s.name);
            }
        }
    }
    else if (ss.error().code != -ENOSYS)
    {
        NS_ABORT_MSG("fastpath emulation: cannot list fastpathd's segments: "
                     << ss.error().message);
    }
    auto ns = m_client->nodes();
    NS_ABORT_MSG_IF(!ns.ok(), "fastpath emulation: cannot list fastpathd's nodes: "
                                  << ns.error().message);
    for (const auto& n : ns.value())
    {
        if (mine(n.name))
        {
            NS_LOG_WARN("fastpathd: deleting node " << n.name << " left by an earlier run");
            m_client->deleteNode(n.name);
        }
    }
}

std::string
FastPathEmulation::FindNode(Ptr<Node> node) const
{
    auto it = m_nodes.find(node->GetId());
    return it == m_nodes.end() ? "" : it->second;
}

std::string
FastPathEmulation::NodeOf(Ptr<Node> node)
{
    auto it = m_nodes.find(node->GetId());
    if (it != m_nodes.end())
    {
        return it->second;
    }
    std::string name = Names::FindName(node);
    std::string clean;
    for (char c : name)
    {
        clean += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-'
                     ? c
                     : '_';
    }
    if (clean.empty() || m_tag.size() + 1 + clean.size() > 31)
    {
        clean = "n" + std::to_string(node->GetId());
    }
    fastpath::NodeSpec spec;
    spec.name = m_tag + "-" + clean;
    if (!Creates() || IsMultiHost())
    {
        // Rank 0 creates it (several hosts: its host's process, once placed); every
        // process names it the same way.
        m_nodes[node->GetId()] = spec.name;
        return spec.name;
    }
    auto st = m_client->createNode(spec);
    NS_ABORT_MSG_IF(!st.ok(),
                    "fastpath emulation: cannot create fastpathd node "
                        << spec.name << ": " << st.error().message
                        << " (creating nodes needs an operator peer: run fastpathd with "
                           "--socket-uid <this process's uid>)");
    m_nodes[node->GetId()] = spec.name;
    m_createdNodes.insert(spec.name);
    return spec.name;
}

void
FastPathEmulation::Follow()
{
    m_followStarted = true;
    for (auto& f : m_followers)
    {
        f();
    }
    TimeValue every;
    GlobalValue::GetValueByName("FastPathFollowInterval", every);
    // Without a follower there is nothing to look at: no wake-up every interval for
    // nothing (AddFollower starts it again).
    if (every.Get().IsStrictlyPositive() && !m_followers.empty())
    {
        m_followEvent = Simulator::Schedule(every.Get(), [this]() { Follow(); });
    }
}

void
FastPathEmulation::CheckEmulated()
{
    std::string why = WhyNotEmulated();
    const std::string bridged = WhyNotBridged();
    why += (why.empty() || bridged.empty() ? "" : "\n") + bridged;
    // Trace sources a script connected on devices nobody traces: tapped, and so fed (a run
    // of several processes starts its taps with its start barrier: there they are named).
    if (!IsPartitioned())
    {
        FastPathTraceTaps::ObserveConnected();
    }
    const std::string traces = FastPathDeviceTraces::Check();
    why += (why.empty() || traces.empty() ? "" : "\n") + traces;
    if (why.empty())
    {
        // Everything can be emulated: the bridges over emulated segments are made.
        why = PlanBridges();
    }
    if (why.empty())
    {
        // Every Install() of an infrastructure BSS is known now: its radio medium is made
        // and its devices bound, before any node starts.
        why = FastPathWifiHelper::PlanInfrastructure();
    }
    if (why.empty())
    {
        return;
    }
    if (IsPartitioned())
    {
        // Every process holds the whole script, but a script may connect traces on its own
        // nodes only: the processes need not all refuse, so no barrier (Clear's) here. The
        // run ends at once; the next run with the tag removes what it left in fastpathd.
        std::cout.flush();
        FastPathRanks::Get().Abort(why);
    }
    std::cerr << why << std::endl;
    std::cout.flush();
    Clear();
    // Inside Simulator::Run: no Simulator::Destroy, and the FdNetDevices' reader threads
    // still run, so no static destructors either.
    std::_Exit(1);
}

void
FastPathEmulation::Refuse(const std::string& message)
{
    std::cout.flush();
    std::fflush(nullptr);
    FastPathEmulation* e = g_emulation_session.get();
    if (e && e->IsPartitioned())
    {
        FastPathRanks::Get().Abort(message);
    }
    std::cerr << message << std::endl;
    // What the emulation created in fastpathd is deleted; then the process ends without
    // Simulator::Destroy and static destructors: the attached nodes' connections run
    // threads of their own already, and ns-3's objects torn down under them crashed the
    // process (SIGSEGV) instead of the exit with status 1 a refusal promises.
    if (e)
    {
        e->Clear();
    }
    std::_Exit(1);
}

} // namespace ns3
