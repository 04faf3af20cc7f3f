// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-helper.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/fast-path-net-device.h"
#include "ns3/fast-path-realtime-simulator-impl.h"
#include "ns3/global-value.h"
#include "ns3/ipv4.h"
#include "ns3/ipv6.h"
#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/names.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include "fastpath/ctrl/client.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <iostream>
#include <sstream>
#include <thread>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathHelper");

namespace
{

int g_signalPipe[2] = {-1, -1};

void
OnStopSignal(int sig)
{
    const char c = char(sig);
    if (write(g_signalPipe[1], &c, 1) < 0)
    {
        // Nothing to do in a signal handler; a second signal has the default action.
    }
}

/// SIGINT and SIGTERM stop the simulation instead of the process, so that the script goes
/// on to Simulator::Destroy() and everything created in fastpathd is deleted (the second
/// one has the default action). The handler writes to a pipe; a thread schedules
/// Simulator::Stop() (ScheduleWithContext is thread-safe in the realtime simulator).
/// Signals the program handles itself are left alone.
void
StopOnSignals()
{
    static std::atomic<bool> installed{false};
    if (installed.exchange(true) || pipe(g_signalPipe) != 0)
    {
        return;
    }
    bool any = false;
    for (int sig : {SIGINT, SIGTERM})
    {
        struct sigaction old = {};
        if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL)
        {
            continue;
        }
        struct sigaction sa = {};
        sa.sa_handler = OnStopSignal;
        sa.sa_flags = SA_RESETHAND | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        any |= sigaction(sig, &sa, nullptr) == 0;
    }
    if (!any)
    {
        return;
    }
    std::thread([]() {
        char c = 0;
        while (read(g_signalPipe[0], &c, 1) < 0 && errno == EINTR)
        {
        }
        std::cerr << "fastpath: " << (c == SIGINT ? "SIGINT" : "SIGTERM")
                  << ": stopping the simulation; what it created in fastpathd is deleted at "
                     "Simulator::Destroy() (again to quit at once)"
                  << std::endl;
        Simulator::ScheduleWithContext(Simulator::NO_CONTEXT, Seconds(0), &Simulator::Stop);
    }).detach();
}

} // namespace

FastPathHelper::FastPathHelper()
    : m_udpPorts{698, 520, 521, 654}
{
    m_mirrorFactory.SetTypeId("ns3::FastPathRouteMirror");
    m_connectionFactory.SetTypeId("ns3::FastPathConnection");
}

void
FastPathHelper::SetSocketPath(const std::string& path)
{
    m_connectionFactory.Set("SocketPath", StringValue(path));
}

void
FastPathHelper::SetFastPathNode(const std::string& name)
{
    m_connectionFactory.Set("FastPathNode", StringValue(name));
}

void
FastPathHelper::SetMirrorAttribute(const std::string& name, const AttributeValue& value)
{
    m_mirrorFactory.Set(name, value);
}

void
FastPathHelper::SetConnectionAttribute(const std::string& name, const AttributeValue& value)
{
    m_connectionFactory.Set(name, value);
}

void
FastPathHelper::SetControlUdpPorts(const std::vector<uint16_t>& ports)
{
    m_udpPorts = ports;
}

std::string
FastPathHelper::CheckSimulatorPreconditions()
{
    std::string why;
    StringValue impl;
    GlobalValue::GetValueByName("SimulatorImplementationType", impl);
    // FastPathRealtimeSimulatorImpl: the realtime simulator of a run of several processes.
    if (impl.Get() != "ns3::RealtimeSimulatorImpl" &&
        impl.Get() != "ns3::FastPathRealtimeSimulatorImpl")
    {
        why += "the fast path talks to real interfaces: set GlobalValue::Bind("
               "\"SimulatorImplementationType\", StringValue(\"ns3::RealtimeSimulatorImpl\")) "
               "before creating nodes (it is " +
               impl.Get() + "). ";
    }
    BooleanValue checksums;
    GlobalValue::GetValueByName("ChecksumEnabled", checksums);
    if (!checksums.Get())
    {
        why += "real hosts drop frames with zero checksums: set GlobalValue::Bind("
               "\"ChecksumEnabled\", BooleanValue(true)) before creating nodes.";
    }
    return why;
}

NetDeviceContainer
FastPathHelper::Install(Ptr<Node> node, const std::vector<std::string>& ports)
{
    return DoInstall(node, m_connectionFactory.Create<FastPathConnection>(), ports);
}

NetDeviceContainer
FastPathHelper::Install(Ptr<Node> node,
                        const std::string& fastPathNode,
                        const std::vector<std::string>& ports)
{
    Ptr<FastPathConnection> connection = m_connectionFactory.Create<FastPathConnection>();
    connection->SetAttribute("FastPathNode", StringValue(fastPathNode));
    return DoInstall(node, connection, ports);
}

void
FastPathHelper::Bind(Ptr<Node> node,
                     const std::string& fastPathNode,
                     const std::vector<std::string>& ports,
                     const std::vector<Ptr<NetDevice>>& devices)
{
    NS_ABORT_MSG_IF(ports.size() != devices.size(),
                    "FastPathHelper::Bind: " << ports.size() << " ports but " << devices.size()
                                             << " devices");
    Ptr<FastPathConnection> connection = m_connectionFactory.Create<FastPathConnection>();
    connection->SetAttribute("FastPathNode", StringValue(fastPathNode));
    DoInstall(node, connection, ports, &devices);
}

NetDeviceContainer
FastPathHelper::DoInstall(Ptr<Node> node,
                          Ptr<FastPathConnection> connection,
                          const std::vector<std::string>& ports,
                          const std::vector<Ptr<NetDevice>>* prepared)
{
    std::string why = CheckSimulatorPreconditions();
    NS_ABORT_MSG_IF(!why.empty(), "FastPathHelper::Install: " << why);
    NS_ABORT_MSG_IF(ports.empty(), "FastPathHelper::Install: no fastpathd port names given");
    StopOnSignals();

    std::shared_ptr<PerNode> per;
    auto known = m_nodes.find(node->GetId());
    if (known != m_nodes.end())
    {
        // More ports for a node this helper attached: same connection, same fastpathd node.
        per = known->second;
        NS_ABORT_MSG_IF(per->started,
                        "FastPathHelper::Install: node "
                            << node->GetId()
                            << " is already running on fastpathd; install its ports before "
                               "Simulator::Run()");
        NS_ABORT_MSG_IF(connection->GetFastPathNode() != per->connection->GetFastPathNode(),
                        "FastPathHelper::Install: node "
                            << node->GetId() << " is attached to fastpathd node '"
                            << per->connection->GetFastPathNode() << "', not '"
                            << connection->GetFastPathNode()
                            << "': one ns-3 node, one fastpathd node");
    }
    else
    {
        NS_ABORT_MSG_IF(node->GetObject<FastPathConnection>(),
                        "FastPathHelper::Install: node "
                            << node->GetId()
                            << " is already attached to fastpathd (by another helper)");
        per = std::make_shared<PerNode>();
        per->connection = connection;
        per->devices = std::make_shared<std::map<fastpath::PortId, Ptr<NetDevice>>>();
        std::string name = Names::FindName(node);
        per->connection->SetAttribute(
            "NodeName",
            StringValue(name.empty() ? "ns-3 node " + std::to_string(node->GetId()) : name));
        fastpath::Status st = per->connection->Connect();
        NS_ABORT_MSG_IF(!st.ok(),
                        "FastPathHelper::Install: node "
                            << node->GetId() << ": " << st.error().message
                            << (st.error().message.find("connections") != std::string::npos
                                    ? " (each attached ns-3 node holds one connection: run the "
                                      "simulation as fastpathd's --socket-uid user, an "
                                      "operator with --operator-connections per process "
                                      "(256 unless set), or as root; or as several "
                                      "processes, mpirun -np K)"
                                    : ""));
        per->mirror = m_mirrorFactory.Create<FastPathRouteMirror>();
        per->mirror->SetNode(node);
        AttachCallbacks(node, *per);
        // The node keeps them alive (and disposes of them with itself), as with any ns-3
        // protocol object.
        node->AggregateObject(per->connection);
        node->AggregateObject(per->mirror);
        m_nodes[node->GetId()] = per;
        // By value: like other ns-3 helpers, this one may be gone before the simulation
        // runs.
        std::vector<uint16_t> udpPorts = m_udpPorts;
        // The exchanges with fastpathd before the simulator's clock starts, where it can
        // (FastPathEmulation's simulator): they then leave no lag behind real time for the
        // script's own events of time 0 (applications and routing protocols starting).
        FastPathRealtimeSimulatorImpl::RunBeforeClock(
            [node, per, udpPorts]() { StartConnection(node, per, udpPorts); });
        Simulator::ScheduleWithContext(node->GetId(), Seconds(0), [node, per, udpPorts]() {
            StartNode(node, per, udpPorts);
        });
    }

    // The ports of the node the connection is bound to, link ports included.
    const std::string fpNode = per->connection->GetFastPathNode().empty()
                                   ? std::string(fastpath::kDefaultNodeName)
                                   : per->connection->GetFastPathNode();
    auto infos = per->connection->Ports();
    NS_ABORT_MSG_IF(!infos.ok(),
                    "FastPathHelper::Install: cannot list the ports of fastpathd node "
                        << fpNode << ": " << infos.error().message);

    // A name that is no port of the node yet but an interface of fastpathd's namespace is
    // attached to the node now (protocol 1.5, an operator's connection), and detached at
    // Simulator::Destroy().
    for (const auto& portName : ports)
    {
        bool found = false;
        for (const auto& p : infos.value())
        {
            found |= p.ifname == portName;
        }
        if (found)
        {
            continue;
        }
        auto attached = per->connection->AttachInterface(portName);
        NS_ABORT_MSG_IF(!attached.ok(),
                        "FastPathHelper::Install: fastpathd node "
                            << fpNode << " has no port '" << portName
                            << "' and attaching the interface failed: "
                            << attached.error().message
                            << " (give fastpathd the interface with --port or --topology, "
                               "or fix the name)");
        NS_LOG_INFO("fastpathd node " << fpNode << ": interface " << portName
                                      << " attached as port " << attached.value().id);
        const std::string socket = per->connection->GetSocketPath();
        Simulator::ScheduleDestroy([socket, fpNode, portName]() {
            auto c = fastpath::ctrl::Client::connect(socket);
            auto st = c.ok() ? c.value()->detachInterface(fpNode, portName)
                             : fastpath::Status(c.error());
            if (!st.ok())
            {
                NS_LOG_WARN("fastpathd: cannot detach interface " << portName << " from node "
                                                                  << fpNode << ": "
                                                                  << st.error().message);
            }
        });
        infos = per->connection->Ports();
        NS_ABORT_MSG_IF(!infos.ok(),
                        "FastPathHelper::Install: cannot list the ports of fastpathd node "
                            << fpNode << ": " << infos.error().message);
    }

    NetDeviceContainer devices;
    for (size_t k = 0; k < ports.size(); ++k)
    {
        const std::string& portName = ports[k];
        const fastpath::PortInfo* info = nullptr;
        std::ostringstream names;
        for (const auto& p : infos.value())
        {
            names << " " << p.ifname;
            if (p.ifname == portName)
            {
                info = &p;
            }
        }
        NS_ABORT_MSG_IF(!info,
                        "FastPathHelper::Install: fastpathd node "
                            << fpNode << " has no port '" << portName
                            << "' (its ports:" << names.str()
                            << "); give fastpathd that interface (--port, or the node's "
                               "interfaces or links in --topology) or fix the name");
        NS_ABORT_MSG_IF(per->devices->count(info->id),
                        "FastPathHelper::Install: port " << portName << " of fastpathd node "
                                                         << fpNode
                                                         << " is already attached to node "
                                                         << node->GetId());
        // A prepared device is on the node already; the port's channel is its engine's
        // (itself, or the FastPathNetDevice aggregated to an emulated link's end).
        Ptr<NetDevice> onNode;
        Ptr<FastPathNetDevice> dev;
        if (prepared)
        {
            onNode = (*prepared)[k];
            dev = onNode->GetObject<FastPathNetDevice>();
        }
        else
        {
            dev = CreateObject<FastPathNetDevice>();
        }
        NS_ABORT_MSG_IF(!dev,
                        "FastPathHelper::Bind: device " << k << " has no FastPathNetDevice");
        // Timed as the device asks (its TimedDelivery and DeliveryLead attributes).
        fastpath::ControlChannelTiming timing{dev->GetTimedDelivery(), dev->GetDeliveryLeadNs()};
        auto fd = per->connection->OpenControlChannel(info->id, &timing);
        NS_ABORT_MSG_IF(!fd.ok(),
                        "FastPathHelper::Install: cannot open the control channel of port "
                            << portName << ": " << fd.error().message);
        dev->SetChannelTimed(timing.timed);
        // The port's MAC as fastpathd reports it: the interface's, or the link end's (given
        // in the topology or generated by fastpathd). Its classifier drops unicast frames
        // to any other MAC.
        Mac48Address mac;
        mac.CopyFrom(info->mac.bytes.data());
        dev->SetAddress(mac);
        dev->SetFileDescriptor(fd.value());
        if (info->mtu >= 68)
        {
            dev->SetMtu(info->mtu);
        }
        if (!onNode)
        {
            node->AddDevice(dev);
            onNode = dev;
        }
        devices.Add(onNode);
        per->mirror->AddPort(onNode, info->id);
        per->connection->WatchPort(info->id);
        (*per->devices)[info->id] = onNode;
        NS_LOG_INFO("node " << node->GetId() << " device " << onNode->GetIfIndex()
                            << " <-> fastpathd node " << fpNode << " port " << info->id << " ("
                            << portName << ", " << mac << (info->link.empty() ? "" : ", link ")
                            << info->link << (info->up ? "" : ", down") << ")");
    }
    return devices;
}

void
FastPathHelper::AttachCallbacks(Ptr<Node> node, const PerNode& per)
{
    Ptr<FastPathConnection> conn = per.connection;
    per.mirror->SetSink([conn](const FastPathUpdate& u) { conn->Submit(u); });

    // After fastpathd restarts, the old control channels are dead: swap the fds in the
    // simulator thread (the connection calls us on its worker thread).
    uint32_t nodeId = node->GetId();
    auto devs = per.devices;
    conn->SetReconnectCallback([nodeId, devs](const std::map<fastpath::PortId, int>& fds) {
        for (const auto& kv : fds)
        {
            auto it = devs->find(kv.first);
            if (it == devs->end())
            {
                ::close(kv.second);
                continue;
            }
            Ptr<FastPathNetDevice> dev = it->second->GetObject<FastPathNetDevice>();
            int fd = kv.second;
            Simulator::ScheduleWithContext(nodeId, Seconds(0), [dev, fd]() {
                dev->ReplaceFileDescriptor(fd);
            });
        }
    });

    // fastpathd reports a port down or up (on the worker thread): the mirror takes the
    // node's interface on it down or up, in the simulator thread.
    Ptr<FastPathRouteMirror> mirror = per.mirror;
    conn->SetPortStateCallback([nodeId, mirror](fastpath::PortId port, bool up) {
        Simulator::ScheduleWithContext(nodeId, Seconds(0), [mirror, port, up]() {
            mirror->SetPortState(port, up);
        });
    });
}

std::vector<fastpath::IpAddress>
FastPathHelper::LocalAddressesOf(Ptr<Node> node)
{
    // Every address of the node, on whatever interface: ns-3 delivers a packet for any of
    // them locally whichever interface it came in on (the weak host model), also for an
    // address on a device fastpathd does not carry (routing/*-slash32 put a /32 on a CSMA
    // device with no channel). Left out, such a destination would be routed on: back out
    // of the port it came from where a route covers it, in a loop until its TTL runs out.
    std::vector<fastpath::IpAddress> out;
    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    for (uint32_t i = 0; ipv4 && i < ipv4->GetNInterfaces(); ++i)
    {
        for (uint32_t a = 0; a < ipv4->GetNAddresses(i); ++a)
        {
            Ipv4Address address = ipv4->GetAddress(i, a).GetLocal();
            if (!address.IsLocalhost() && !address.IsAny())
            {
                out.push_back(ToFastPath(address));
            }
        }
    }
    Ptr<Ipv6> ipv6 = node->GetObject<Ipv6>();
    for (uint32_t i = 0; ipv6 && i < ipv6->GetNInterfaces(); ++i)
    {
        for (uint32_t a = 0; a < ipv6->GetNAddresses(i); ++a)
        {
            Ipv6Address address = ipv6->GetAddress(i, a).GetAddress();
            if (!address.IsLinkLocal() && !address.IsAny() && !address.IsLocalhost())
            {
                out.push_back(ToFastPath(address));
            }
        }
    }
    return out;
}

void
FastPathHelper::StartNode(Ptr<Node> node,
                          const std::shared_ptr<PerNode>& per,
                          const std::vector<uint16_t>& udpPorts)
{
    if (StartConnection(node, per, udpPorts))
    {
        per->mirror->Start();
    }
}

bool
FastPathHelper::StartConnection(Ptr<Node> node,
                                const std::shared_ptr<PerNode>& per,
                                const std::vector<uint16_t>& udpPorts)
{
    if (per->started)
    {
        return per->hasStack;
    }
    per->started = true;
    // Frames for the router's own addresses and the routing protocols go to ns-3 (ICMPv6
    // neighbour discovery and link-local IPv6 go there without a rule).
    std::vector<fastpath::ControlRule> rules;
    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    Ptr<Ipv6> ipv6 = node->GetObject<Ipv6>();
    // A switch (a BridgeHelper bridge, no stack): fastpathd's bridge carries its frames
    // (FastPathEmulation::PlanBridges); nothing is above it to mirror or to punt to.
    for (uint32_t i = 0; !ipv4 && !ipv6 && i < node->GetNDevices(); ++i)
    {
        if (node->GetDevice(i)->GetInstanceTypeId().GetName() == "ns3::BridgeNetDevice")
        {
            return false;
        }
    }
    NS_ABORT_MSG_IF(!ipv4 && !ipv6,
                    "FastPathHelper: node " << node->GetId()
                                            << " has no IPv4 or IPv6 stack at time 0; install "
                                               "it before Simulator::Run()");
    fastpath::ControlRule arp;
    arp.kind = fastpath::ControlRule::Kind::kEtherType;
    arp.ethertype = 0x0806;
    rules.push_back(arp);
    for (const auto& address : LocalAddressesOf(node))
    {
        fastpath::ControlRule r;
        r.kind = fastpath::ControlRule::Kind::kLocalAddress;
        r.address = address;
        rules.push_back(r);
    }
    for (uint16_t p : udpPorts)
    {
        fastpath::ControlRule r;
        r.kind = fastpath::ControlRule::Kind::kL4Port;
        r.ip_proto = 17;
        r.port = p;
        rules.push_back(r);
    }
    fastpath::Status st = per->connection->AddControlRules(rules);
    NS_ABORT_MSG_IF(!st.ok(),
                    "FastPathHelper: fastpathd rejected the control rules: "
                        << st.error().message);
    per->connection->StartWorker();
    per->hasStack = true;
    return true;
}

void
FastPathHelper::Flush(std::chrono::milliseconds timeout)
{
    for (auto& kv : m_nodes)
    {
        kv.second->mirror->SyncNow();
        kv.second->connection->Flush(timeout);
    }
}

Ptr<FastPathConnection>
FastPathHelper::GetConnection(Ptr<Node> node) const
{
    return node->GetObject<FastPathConnection>();
}

Ptr<FastPathRouteMirror>
FastPathHelper::GetMirror(Ptr<Node> node) const
{
    return node->GetObject<FastPathRouteMirror>();
}

} // namespace ns3
