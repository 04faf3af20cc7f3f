// SPDX-License-Identifier: GPL-2.0-only
// FastPathEmulation over several processes: each builds the whole script, rank 0 creates it
// in fastpathd, and before the clock starts each attaches its own nodes (the placement of
// FastPathPartition) and leaves the others inert.
#include "fast-path-emulation.h"
#include "ns3/fast-path-ranks.h"

#include "ns3/abort.h"
#include "ns3/application.h"
#include "ns3/fast-path-net-device.h"
#include "ns3/global-value.h"
#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/node-list.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include "fastpath/ctrl/client.h"

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathEmulationPartition");

namespace
{

/// How long a process without the launcher's barrier waits for rank 0's plan.
constexpr auto kPlanWait = std::chrono::seconds(60);

} // namespace

void
FastPathEmulation::HookPartitionedStart(const std::string& who)
{
    StringValue impl;
    GlobalValue::GetValueByName("SimulatorImplementationType", impl);
    NS_ABORT_MSG_IF(impl.Get() != "ns3::FastPathRealtimeSimulatorImpl",
                    who << ": a run of " << m_rank.size
                        << " processes needs the simulator ns3::FastPathRealtimeSimulatorImpl "
                           "(it is "
                        << impl.Get()
                        << "): set FastPathEmulation (and FastPathPartition, if given) "
                           "before the first node is created, not the simulator type");
    const bool before =
        FastPathRealtimeSimulatorImpl::RunBeforeClock([this]() { StartPartition(); });
    NS_ABORT_MSG_IF(!before, who << ": the simulator's clock runs already");
}

bool
FastPathEmulation::IsPartitioned() const
{
    return m_rank.size > 1;
}

bool
FastPathEmulation::Creates() const
{
    return m_rank.rank == 0 || IsMultiHost();
}

uint32_t
FastPathEmulation::GetRank()
{
    return IsEnabled() ? FastPathRanks::Get().GetRank().rank : 0;
}

uint32_t
FastPathEmulation::GetRanks()
{
    return IsEnabled() ? FastPathRanks::Get().GetRank().size : 1;
}

bool
FastPathEmulation::IsLocalNode(Ptr<Node> node)
{
    FastPathEmulation* e = Find();
    return !e || e->IsLocal(node);
}

bool
FastPathEmulation::IsLocal(Ptr<Node> node) const
{
    if (!IsPartitioned())
    {
        return true;
    }
    NS_ABORT_MSG_IF(m_placement.empty(),
                    "FastPathEmulation::IsLocal(node " << node->GetId()
                                                       << "): the nodes of a run of several "
                                                          "processes are placed when "
                                                          "Simulator::Run() starts");
    return node->GetId() < m_placement.size() && m_placement[node->GetId()] == m_rank.rank;
}

void
FastPathEmulation::AddEdge(Ptr<Node> a, Ptr<Node> b)
{
    m_edges.emplace_back(a->GetId(), b->GetId());
}

fastpath::MacAddress
FastPathEmulation::AllocateMac()
{
    fastpath::MacAddress out;
    Mac48Address::Allocate().CopyTo(out.bytes.data());
    return out;
}

fastpath::Status
FastPathEmulation::CreateWithMacs(const std::string& what,
                                  const std::function<void()>& clearMacs,
                                  const std::function<fastpath::Status()>& create)
{
    fastpath::Status st = create();
    if (st.ok() || st.error().code != -EEXIST ||
        st.error().message.find("MAC") == std::string::npos)
    {
        return st;
    }
    std::cerr << "FastPathEmulation: " << what << ": " << st.error().message
              << "; fastpathd generates its MACs instead (IPv6 link-local addresses and "
                 "FlowMonitor flows keyed on them differ from the simulated run)"
              << std::endl;
    clearMacs();
    return create();
}

Ptr<NetDevice>
FastPathEmulation::AddPort(Ptr<Node> node,
                           const std::string& fpNode,
                           const std::string& port,
                           uint16_t mtu,
                           const fastpath::MacAddress& mac,
                           Ptr<NetDevice> device)
{
    if (!IsPartitioned())
    {
        Ptr<NetDevice> dev = device;
        if (dev)
        {
            m_attach.Bind(node, fpNode, {port}, {dev});
        }
        else
        {
            dev = m_attach.Install(node, fpNode, {port}).Get(0);
        }
        m_ports[PeekPointer(dev)] = {fpNode, port};
        return dev;
    }
    // Bound to nothing until the placement says whose it is: an FdNetDevice without a file
    // descriptor never comes up, so the stack sends nothing into it.
    Ptr<NetDevice> dev = device;
    if (!dev)
    {
        dev = CreateObject<FastPathNetDevice>();
        node->AddDevice(dev);
    }
    Ptr<FastPathNetDevice> engine = dev->GetObject<FastPathNetDevice>();
    Mac48Address address;
    address.CopyFrom(mac.bytes.data());
    engine->SetAddress(address);
    engine->SetMtu(mtu);
    m_pending.push_back(PendingPort{node, fpNode, port, dev});
    m_ports[PeekPointer(dev)] = {fpNode, port};
    return dev;
}

void
FastPathEmulation::WaitForPlan()
{
    // Every fastpathd node and port this process attaches exists once rank 0 created them
    // (rank 0 creates a link's ports with the link, and links after their nodes).
    std::map<std::string, std::set<std::string>> wanted;
    for (const auto& p : m_pending)
    {
        if (IsLocal(p.node))
        {
            wanted[p.fpNode].insert(p.port);
        }
    }
    const auto deadline = std::chrono::steady_clock::now() + kPlanWait;
    while (true)
    {
        std::string missing;
        for (const auto& kv : wanted)
        {
            auto ports = m_client->ports(kv.first);
            std::set<std::string> have;
            if (ports.ok())
            {
                for (const auto& p : ports.value())
                {
                    have.insert(p.ifname);
                }
            }
            for (const auto& port : kv.second)
            {
                if (!have.count(port))
                {
                    missing = kv.first + " port " + port;
                    break;
                }
            }
            if (!missing.empty())
            {
                break;
            }
        }
        if (missing.empty())
        {
            return;
        }
        if (std::chrono::steady_clock::now() > deadline)
        {
            FastPathRanks::Get().Abort(
                "fastpath: rank 0 did not create the plan in fastpathd within 60 s (no " +
                missing + "): start rank 0 with the same script, arguments and FastPathTag");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

void
FastPathEmulation::StartPartition()
{
    FastPathRanks& ranks = FastPathRanks::Get();
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<uint32_t> systemIds;
    for (uint32_t i = 0; i < NodeList::GetNNodes(); ++i)
    {
        systemIds.push_back(NodeList::GetNode(i)->GetSystemId());
    }
    auto placed = FastPathPartition::Assign(systemIds, m_edges, m_rank.size);
    if (!placed.ok())
    {
        ranks.Abort("fastpath: cannot place the nodes: " + placed.error().message);
    }
    m_placement = placed.value();
    std::vector<uint32_t> count(m_rank.size, 0);
    for (uint32_t r : m_placement)
    {
        ++count[r];
    }
    std::ostringstream summary;
    summary << "fastpath: " << m_rank.size << " processes ("
            << (std::any_of(systemIds.begin(), systemIds.end(), [](uint32_t s) { return s; })
                    ? "system ids"
                    : "balanced by METIS")
            << "), nodes per process";
    for (uint32_t c : count)
    {
        summary << " " << c;
    }
    summary << ", " << FastPathPartition::CutEdges(m_placement, m_edges) << " of "
            << m_edges.size() << " links between processes";
    if (Creates())
    {
        std::clog << summary.str() << std::endl;
    }
    NS_LOG_INFO("rank " << m_rank.rank << ": " << summary.str());

    // Several hosts: each process creates its host's part now. One host: rank 0 created the
    // whole plan in its Install() calls, the others wait for it.
    if (IsMultiHost())
    {
        CreateHostPart();
    }
    if (ranks.HasBarrier())
    {
        ranks.Barrier();
    }
    else if (!Creates())
    {
        WaitForPlan();
    }

    // This process's nodes: their devices bound to their ports, as one process would have
    // done in Install().
    std::map<uint32_t, std::vector<const PendingPort*>> byNode;
    for (const auto& p : m_pending)
    {
        if (IsLocal(p.node))
        {
            byNode[p.node->GetId()].push_back(&p);
        }
    }
    for (const auto& kv : byNode)
    {
        std::vector<std::string> ports;
        std::vector<Ptr<NetDevice>> devices;
        for (const PendingPort* p : kv.second)
        {
            ports.push_back(p->port);
            devices.push_back(p->device);
        }
        m_attach.Bind(kv.second.front()->node, kv.second.front()->fpNode, ports, devices);
    }
    // The others' applications never start (their routing has no device that comes up).
    for (uint32_t i = 0; i < NodeList::GetNNodes(); ++i)
    {
        Ptr<Node> node = NodeList::GetNode(i);
        if (IsLocal(node))
        {
            continue;
        }
        for (uint32_t a = 0; a < node->GetNApplications(); ++a)
        {
            node->GetApplication(a)->SetStartTime(Seconds(1e9));
            node->GetApplication(a)->SetStopTime(Seconds(0));
        }
    }
    // The others' nodes are inert: none of their events run here (their initialization,
    // hence their routing protocols' timers, included). A node created after the placement
    // is nobody's and runs.
    if (auto sim = DynamicCast<FastPathRealtimeSimulatorImpl>(Simulator::GetImplementation()))
    {
        sim->SetLocalNodes([placement = m_placement, rank = m_rank.rank](uint32_t id) {
            return id >= placement.size() || placement[id] == rank;
        });
    }
    // Every process attached and its nodes started (their start was added to the work
    // before the clock as they were attached): the clocks start together.
    const size_t nodes = byNode.size();
    FastPathRealtimeSimulatorImpl::RunBeforeClock([&ranks, rank = m_rank.rank, nodes, t0]() {
        ranks.Barrier();
        NS_LOG_INFO("rank " << rank << ": " << nodes << " nodes attached and started in "
                            << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                                   .count()
                            << " s");
    });
}

} // namespace ns3
