// SPDX-License-Identifier: GPL-2.0-only
// Bridges over emulated segments: a BridgeNetDevice (BridgeHelper) whose ports are all
// FastPathCsmaHelper devices becomes a learning bridge in fastpathd over those segment
// ports, so that frames cross it as they do simulated (the bridge node's ns-3 devices then
// carry nothing: fastpathd's bridge takes every frame of their segments).
#include "fast-path-csma-helper.h"

#include "ns3/boolean.h"
#include "ns3/channel.h"
#include "ns3/fast-path-emulation.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/nstime.h"

#include "fastpath/ctrl/client.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathCsmaBridges");

namespace
{

bool
IsBridge(Ptr<NetDevice> nd)
{
    return nd->GetInstanceTypeId().GetName() == "ns3::BridgeNetDevice" && nd->GetChannel();
}

/// The bridge's ports: the devices of its node on the channels it bridges (its
/// BridgeChannel lists every device of each bridged port's channel).
std::vector<Ptr<NetDevice>>
PortsOf(Ptr<NetDevice> bridge)
{
    std::vector<Ptr<NetDevice>> ports;
    Ptr<Channel> ch = bridge->GetChannel();
    for (std::size_t i = 0; i < ch->GetNDevices(); ++i)
    {
        Ptr<NetDevice> d = ch->GetDevice(i);
        if (d && d->GetNode() == bridge->GetNode() &&
            std::find(ports.begin(), ports.end(), d) == ports.end())
        {
            ports.push_back(d);
        }
    }
    return ports;
}

std::string
PathOf(Ptr<NetDevice> nd)
{
    return "/NodeList/" + std::to_string(nd->GetNode()->GetId()) + "/DeviceList/" +
           std::to_string(nd->GetIfIndex());
}

} // namespace

std::string
FastPathEmulation::WhyNotBridge(Ptr<NetDevice> bridge)
{
    BooleanValue learning;
    bridge->GetAttribute("EnableLearning", learning);
    if (!learning.Get())
    {
        return "EnableLearning is false (a hub that floods every frame): fastpathd's "
               "bridges learn; leave EnableLearning at its default";
    }
    for (Ptr<NetDevice> d : PortsOf(bridge))
    {
        if (FastPathCsmaHelper::GetFastPathSegmentName(d).empty())
        {
            return "port " + PathOf(d) + " (" + d->GetInstanceTypeId().GetName() +
                   ") is no emulated CSMA device: fastpathd bridges segments only; build "
                   "every segment the bridge joins with FastPathCsmaHelper";
        }
    }
    return "";
}

std::string
FastPathEmulation::PlanBridges()
{
    std::vector<Ptr<NetDevice>> bridges;
    for (auto node = NodeList::Begin(); node != NodeList::End(); ++node)
    {
        for (uint32_t i = 0; i < (*node)->GetNDevices(); ++i)
        {
            Ptr<NetDevice> nd = (*node)->GetDevice(i);
            if (IsBridge(nd) && !PortsOf(nd).empty() &&
                !FastPathCsmaHelper::GetFastPathSegmentName(PortsOf(nd).front()).empty())
            {
                bridges.push_back(nd);
            }
        }
    }
    if (bridges.empty())
    {
        return "";
    }
    FastPathEmulation* e = Find();
    if (!e)
    {
        return "FastPathCsmaHelper: bridges over emulated segments but no emulation";
    }
    std::ostringstream why;
    uint32_t n = 0;
    for (Ptr<NetDevice> nd : bridges)
    {
        if (const std::string no = WhyNotBridge(nd); !no.empty())
        {
            why << "\n  " << PathOf(nd) << ": ns3::BridgeNetDevice: " << no;
            continue;
        }
        fastpath::BridgeSpec spec;
        spec.name = e->Tag() + "-br" + std::to_string(n++);
        spec.node = e->NodeOf(nd->GetNode());
        const std::string prefix = e->Tag() + "-";
        for (Ptr<NetDevice> d : PortsOf(nd))
        {
            // The segment TAG-csmaN's port on each of its nodes is named csmaN.
            const std::string segment = FastPathCsmaHelper::GetFastPathSegmentName(d);
            spec.ports.push_back(segment.substr(prefix.size()));
        }
        TimeValue expiration;
        nd->GetAttribute("ExpirationTime", expiration);
        if (expiration.Get().IsStrictlyPositive())
        {
            spec.ageing_ns = uint64_t(expiration.Get().GetNanoSeconds());
        }
        if (!e->Creates())
        {
            continue;
        }
        auto st = e->Client().createBridge(spec);
        if (!st.ok())
        {
            why << "\n  " << PathOf(nd) << ": ns3::BridgeNetDevice: fastpathd refused bridge "
                << spec.name << ": " << st.error().message;
            continue;
        }
        NS_LOG_INFO("bridge " << spec.name << " on " << spec.node << ": "
                              << spec.ports.size() << " segment ports, ageing "
                              << expiration.Get().As(Time::S));
    }
    if (why.str().empty())
    {
        return "";
    }
    return "FastPathEmulation: these bridges cannot be emulated:" + why.str() +
           "\nRun the script simulated (--FastPathEmulation=0), or change them as said.";
}

} // namespace ns3
