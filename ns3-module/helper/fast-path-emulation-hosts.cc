// SPDX-License-Identifier: GPL-2.0-only
// FastPathEmulation over several hosts (FastPathHosts): each process talks to its host's
// fastpathd and, once the nodes are placed, creates its host's part there — its nodes, the
// links among them and its ends of the links to other hosts, ports on the wire.
#include "fast-path-emulation.h"
#include "ns3/fast-path-ranks.h"

#include "ns3/log.h"
#include "ns3/node-list.h"

#include "fastpath/ctrl/client.h"

#include <cctype>
#include <iostream>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathEmulationHosts");

void
FastPathEmulation::ReadHosts(const std::string& who, const std::string& hostsFile)
{
    m_hostsFile = hostsFile;
    if (m_hostsFile.empty())
    {
        return;
    }
    auto hosts = FastPathHostsFile::Read(m_hostsFile);
    if (!hosts.ok())
    {
        FastPathRanks::Get().Abort(who + ": --FastPathHosts: " + hosts.error().message);
    }
    if (hosts.value().size() != m_rank.size)
    {
        FastPathRanks::Get().Abort(
            who + ": " + m_hostsFile + " lists " + std::to_string(hosts.value().size()) +
            " hosts for " + std::to_string(m_rank.size) +
            " processes: run one process per host (mpirun -np " +
            std::to_string(hosts.value().size()) + " --host ...), process i on the i-th");
    }
    m_hosts = hosts.value();
    m_socket = m_hosts[m_rank.rank].socket;
}

bool
FastPathEmulation::IsMultiHost() const
{
    return !m_hosts.empty();
}

void
FastPathEmulation::CreateLinkLater(const fastpath::LinkSpec& spec, Ptr<Node> a, Ptr<Node> b)
{
    m_links.push_back(PendingLink{spec, a, b});
}

bool
FastPathEmulation::IsCrossHostLink(const std::string& name) const
{
    return m_crossLinks.count(name) > 0;
}

std::string
FastPathEmulation::RunTag() const
{
    std::string out;
    for (char c : m_tag)
    {
        const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if ((l >= 'a' && l <= 'z') || (l >= '0' && l <= '9'))
        {
            out += l;
        }
    }
    out = out.substr(0, 6);
    return out.empty() ? "run" : out;
}

void
FastPathEmulation::CreateHostPart()
{
    FastPathRanks& ranks = FastPathRanks::Get();
    const FastPathHostsFile::Host& me = m_hosts[m_rank.rank];
    auto hostOf = [&](Ptr<Node> n) -> const FastPathHostsFile::Host& {
        return m_hosts[m_placement[n->GetId()]];
    };
    auto refuse = [&](const std::string& what) {
        ranks.Abort("fastpath: host " + me.name + ": " + what);
    };
    // Every process numbers the links between hosts in the same order: their VLANs.
    struct Cross
    {
        const PendingLink* link;
        uint16_t vlan;
    };
    std::vector<Cross> cross;
    std::vector<const PendingLink*> local;
    uint32_t vlan = 2;
    for (const auto& l : m_links)
    {
        const bool la = IsLocal(l.a);
        const bool lb = IsLocal(l.b);
        if (hostOf(l.a).name == hostOf(l.b).name)
        {
            if (la && lb)
            {
                local.push_back(&l);
            }
            continue;
        }
        if (vlan > 4094)
        {
            refuse("more than 4093 links between hosts: 802.1Q has no VLAN left");
        }
        if (la || lb)
        {
            const auto& peer = hostOf(la ? l.b : l.a);
            if (FastPathHostsFile::WireTo(me, peer.name).empty())
            {
                refuse("link " + l.spec.name + " joins node " + (la ? l.spec.a.node : l.spec.b.node) +
                       " (host " + me.name + ") and node " + (la ? l.spec.b.node : l.spec.a.node) +
                       " (host " + peer.name + "), but " + m_hostsFile + " gives host " +
                       me.name + " no wire to host " + peer.name + ": add " + peer.name +
                       "=INTERFACE to host " + me.name + "'s line, or place both nodes on one "
                       "host (system ids)");
            }
            cross.push_back(Cross{&l, static_cast<uint16_t>(vlan)});
        }
        ++vlan;
    }
    // The host and its wires: each measured once the peer's fastpathd answers (every
    // process declares at this point).
    if (!me.wires.empty())
    {
        fastpath::MultiHostDeclaration d;
        d.host = me.name;
        d.run_tag = RunTag();
        d.wires = me.wires;
        d.vxlan = me.vxlan;
        auto info = m_client->declareMultiHost(d);
        if (!info.ok())
        {
            refuse(info.error().message);
        }
        m_clock = FastPathClockOffset{info.value().clock_known,
                                      info.value().clock_offset_ns,
                                      info.value().clock_source};
        for (const auto& w : info.value().wires)
        {
            NS_LOG_INFO("host " << me.name << ": wire " << w.ifname << " to host " << w.peer_host
                                << ", one-way latency " << w.latency_ns / 1000 << " us (jitter "
                                << w.jitter_ns / 1000 << " us)");
        }
    }
    for (const auto& kv : m_nodes)
    {
        if (!IsLocal(NodeList::GetNode(kv.first)))
        {
            continue;
        }
        fastpath::NodeSpec spec;
        spec.name = kv.second;
        auto st = m_client->createNode(spec);
        if (!st.ok())
        {
            refuse("cannot create fastpathd node " + spec.name + ": " + st.error().message);
        }
        m_createdNodes.insert(spec.name);
    }
    for (const PendingLink* l : local)
    {
        auto st = m_client->createLink(l->spec);
        if (!st.ok())
        {
            refuse("cannot create fastpathd link " + l->spec.name + ": " + st.error().message);
        }
        m_createdLinks.insert(l->spec.name);
    }
    std::vector<FastPathClockCheck::Budget> budgets;
    for (const Cross& c : cross)
    {
        const PendingLink& l = *c.link;
        const bool la = IsLocal(l.a);
        fastpath::CrossLinkSpec spec;
        spec.name = l.spec.name;
        spec.end = la ? 'a' : 'b';
        spec.node = la ? l.spec.a.node : l.spec.b.node;
        spec.mac = la ? l.spec.a.mac : l.spec.b.mac;
        spec.peer_mac = la ? l.spec.b.mac : l.spec.a.mac;
        spec.mtu = la ? l.spec.a.mtu : l.spec.b.mtu;
        spec.vlan = c.vlan;
        spec.peer_host = hostOf(la ? l.b : l.a).name;
        spec.egress = la ? l.spec.a_to_b : l.spec.b_to_a;
        auto made = m_client->createCrossLink(spec);
        if (!made.ok())
        {
            refuse(made.error().message);
        }
        m_crossLinks.insert(spec.name);
        // What is left of the link's delay once the wire's latency is taken off.
        budgets.push_back({spec.name, made.value().applied.delay_ns});
        // The node's port is the interface fastpathd made for the link's end.
        const std::string port = la ? l.spec.a.port : l.spec.b.port;
        for (auto& p : m_pending)
        {
            if (p.fpNode == spec.node && p.port == port)
            {
                p.port = made.value().port;
            }
        }
    }
    std::ostringstream summary;
    summary << "fastpath: host " << me.name << " (" << m_socket << "): " << m_createdNodes.size()
            << " nodes, " << local.size() << " links, " << cross.size()
            << " links to other hosts";
    std::clog << summary.str() << std::endl;
    if (!me.wires.empty())
    {
        std::clog << FastPathClockCheck::Check(me.name, m_clock, budgets).line << std::endl;
    }
}

FastPathClockOffset
FastPathEmulation::GetHostClockOffset()
{
    FastPathEmulation* e = Find();
    return e ? e->m_clock : FastPathClockOffset{false, 0, "not a run over several hosts"};
}

} // namespace ns3
