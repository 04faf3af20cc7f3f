// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-host-helper.h"

#include "fast-path-emulation.h"

#include "ns3/abort.h"
#include "ns3/data-rate.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-list-routing.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/names.h"
#include "ns3/nstime.h"
#include "ns3/olsr-routing-protocol.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include "fastpath/ctrl/client.h"

#include <cctype>
#include <cstdlib>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathHostHelper");

namespace
{

/// The router's OLSR, if it runs OLSR in a list with static routing. OLSR alone routes to
/// OLSR nodes only: it could announce the host's subnet but not deliver to it.
Ptr<olsr::RoutingProtocol>
OlsrOf(Ptr<Node> node, const std::string& who)
{
    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    Ptr<Ipv4RoutingProtocol> rp = ipv4 ? ipv4->GetRoutingProtocol() : nullptr;
    NS_ABORT_MSG_IF(DynamicCast<olsr::RoutingProtocol>(rp),
                    who << ": the router runs OLSR alone, which has no route to the host's "
                           "subnet; install its stack with an Ipv4ListRoutingHelper of "
                           "Ipv4StaticRoutingHelper (priority 0) and OlsrHelper (10)");
    if (auto list = DynamicCast<Ipv4ListRouting>(rp))
    {
        for (uint32_t i = 0; i < list->GetNRoutingProtocols(); ++i)
        {
            int16_t priority;
            if (auto o = DynamicCast<olsr::RoutingProtocol>(list->GetRoutingProtocol(i, priority)))
            {
                return o;
            }
        }
    }
    return nullptr;
}

void
AddAddress(Ptr<Node> node, Ptr<NetDevice> device, Ipv4Address a, Ipv4Mask m)
{
    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    int32_t i = ipv4->GetInterfaceForDevice(device);
    if (i < 0)
    {
        i = ipv4->AddInterface(device);
    }
    ipv4->AddAddress(i, Ipv4InterfaceAddress(a, m));
    ipv4->SetMetric(i, 1);
    ipv4->SetUp(i);
}

} // namespace

FastPathHostHelper::FastPathHostHelper()
{
    // A veth: fast and immediate (the emulated host's link is not shaped either).
    m_p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate("10Gbps")));
    m_p2p.SetChannelAttribute("Delay", TimeValue(Seconds(0)));
}

void
FastPathHostHelper::SetMtu(uint32_t mtu)
{
    m_mtu = mtu;
    m_p2p.SetDeviceAttribute("Mtu", UintegerValue(mtu));
}

void
FastPathHostHelper::SetDeviceAttribute(std::string name, const AttributeValue& value)
{
    m_p2p.SetDeviceAttribute(name, value);
}

void
FastPathHostHelper::SetChannelAttribute(std::string name, const AttributeValue& value)
{
    m_p2p.SetChannelAttribute(name, value);
}

FastPathHostHelper::Host
FastPathHostHelper::Install(Ptr<Node> router,
                            const std::string& name,
                            const std::string& address,
                            const std::string& gateway)
{
    const std::string who = "FastPathHostHelper::Install(" + name + ")";
    bool nameOk = !name.empty() && name.size() <= 18;
    for (char c : name)
    {
        nameOk = nameOk && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
                            c == '-');
    }
    NS_ABORT_MSG_IF(!nameOk, who << ": the name has 1 to 18 letters, digits, '_', '.' or '-'");
    NS_ABORT_MSG_IF(!router || !router->GetObject<Ipv4>(),
                    who << ": the router needs the internet stack (InternetStackHelper) first");
    OlsrOf(router, who); // checked before anything is made
    const auto slash = address.find('/');
    NS_ABORT_MSG_IF(slash == std::string::npos,
                    who << ": address \"" << address << "\" is not A.B.C.D/LEN");
    const std::string addrText = address.substr(0, slash);
    const int len = std::atoi(address.substr(slash + 1).c_str());
    NS_ABORT_MSG_IF(len < 1 || len > 30,
                    who << ": prefix length of \"" << address << "\" is not 1..30");
    Host h;
    h.name = name;
    h.address = Ipv4Address(addrText.c_str());
    h.prefixLength = uint8_t(len);
    const Ipv4Mask mask(("/" + std::to_string(len)).c_str());
    const Ipv4Address net = h.address.CombineMask(mask);
    if (gateway.empty())
    {
        h.gateway = Ipv4Address(net.Get() + 1);
        if (h.gateway == h.address)
        {
            h.gateway = Ipv4Address(net.Get() + 2);
        }
    }
    else
    {
        h.gateway = Ipv4Address(gateway.c_str());
    }
    NS_ABORT_MSG_IF(h.gateway.CombineMask(mask) != net || h.gateway == h.address,
                    who << ": the router's address " << h.gateway << " is not another address of "
                        << net << "/" << len);

    if (FastPathEmulation::IsEnabled())
    {
        FastPathEmulation& emu = FastPathEmulation::Get(who);
        if (emu.IsPartitioned())
        {
            FastPathEmulation::Refuse(who + ": real hosts are not available yet in a run of "
                                            "several processes (the host's port is named by "
                                            "fastpathd when rank 0 creates it): run the script "
                                            "as one process");
        }
        const std::string fpNode = emu.NodeOf(router);
        fastpath::HostSpec spec;
        spec.name = emu.Tag() + "-" + name;
        spec.node = fpNode;
        spec.mtu = m_mtu;
        auto a = fastpath::IpAddress::parse(addrText);
        auto g = fastpath::IpAddress::parse([&] {
            std::ostringstream o;
            o << h.gateway;
            return o.str();
        }());
        NS_ABORT_MSG_IF(!a.ok() || !g.ok(), who << ": cannot read " << address);
        spec.addresses.push_back(fastpath::IpPrefix{a.value(), uint8_t(len)});
        spec.gateways.push_back(g.value());
        auto made = emu.Client().createHost(spec);
        NS_ABORT_MSG_IF(!made.ok(),
                        who << ": fastpathd cannot create host " << spec.name << ": "
                            << made.error().message
                            << " (fastpathd 1.5 or later; the script's user must be one of its "
                               "operators: fastpathd --socket-uid)");
        h.netns = made.value().netns;
        const std::string hostName = spec.name;
        fastpath::ctrl::Client* client = &emu.Client();
        emu.AddCleanup([client, hostName]() {
            auto st = client->deleteHost(hostName);
            if (!st.ok())
            {
                NS_LOG_WARN("fastpathd: cannot delete host " << hostName << ": "
                                                             << st.error().message);
            }
        });
        NetDeviceContainer d = emu.Attach().Install(router, fpNode, {made.value().port});
        h.routerDevice = d.Get(0);
        AddAddress(router, h.routerDevice, h.gateway, mask);
        NS_LOG_INFO("host " << name << ": namespace " << h.netns << ", " << address << " via "
                            << h.gateway << " (port " << made.value().port << " of "
                            << fpNode << ")");
    }
    else
    {
        h.node = CreateObject<Node>();
        Names::Add(name, h.node);
        InternetStackHelper stack;
        stack.Install(h.node);
        NetDeviceContainer d = m_p2p.Install(router, h.node);
        h.routerDevice = d.Get(0);
        AddAddress(router, d.Get(0), h.gateway, mask);
        AddAddress(h.node, d.Get(1), h.address, mask);
        Ipv4StaticRoutingHelper sr;
        sr.GetStaticRouting(h.node->GetObject<Ipv4>())
            ->SetDefaultRoute(h.gateway, h.node->GetObject<Ipv4>()->GetInterfaceForDevice(d.Get(1)));
    }
    if (Ptr<olsr::RoutingProtocol> olsr = OlsrOf(router, who))
    {
        olsr->AddHostNetworkAssociation(net, mask);
    }
    return h;
}

} // namespace ns3
