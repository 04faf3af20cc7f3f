// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-wifi-helper.h"

#include "ns3/abort.h"
#include "ns3/arf-wifi-manager.h"
#include "ns3/constant-rate-wifi-manager.h"
#include "ns3/double.h"
#include "ns3/fast-path-emulation.h"
#include "ns3/log.h"
#include "ns3/mobility-model.h"
#include "ns3/names.h"
#include "ns3/pointer.h"
#include "ns3/uinteger.h"
#include "ns3/wifi-mac-helper.h"
#include "ns3/wifi-mac.h"
#include "ns3/wifi-mode.h"
#include "ns3/wifi-phy.h"
#include "ns3/wifi-remote-station-manager.h"
#include "ns3/yans-wifi-channel.h"
#include "ns3/yans-wifi-phy.h"

#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathWifiHelper");

namespace
{

/// WifiMacHelper keeps its MAC factory protected; a script hands us a plain WifiMacHelper,
/// so its MAC type is read through a member pointer named from a derived class (the one
/// access C++ allows to another object's protected member).
struct MacFactoryOf : WifiMacHelper
{
    static const ObjectFactory& Get(const WifiMacHelper& mac)
    {
        return mac.*(&MacFactoryOf::m_mac);
    }
};

/// The same for WifiPhyHelper's PHY factories.
struct PhyFactoryOf : WifiPhyHelper
{
    static const std::vector<ObjectFactory>& Get(const WifiPhyHelper& phy)
    {
        return phy.*(&PhyFactoryOf::m_phy);
    }
};

std::string
ModeName(Ptr<Object> o, const std::string& attribute)
{
    WifiModeValue v;
    o->GetAttribute(attribute, v);
    return v.Get() == WifiMode() ? "" : v.Get().GetUniqueName();
}

} // namespace

FastPathWifiHelper::FastPathWifiHelper() = default;

NetDeviceContainer
FastPathWifiHelper::Install(const WifiPhyHelper& phy,
                            const WifiMacHelper& mac,
                            NodeContainer::Iterator first,
                            NodeContainer::Iterator last) const
{
    if (!FastPathEmulation::IsEnabled())
    {
        return WifiHelper::Install(phy, mac, first, last);
    }
    NodeContainer nodes;
    for (auto it = first; it != last; ++it)
    {
        nodes.Add(*it);
    }
    return InstallEmulated(phy, mac, nodes);
}

NetDeviceContainer
FastPathWifiHelper::Install(const WifiPhyHelper& phy,
                            const WifiMacHelper& mac,
                            NodeContainer c) const
{
    return Install(phy, mac, c.Begin(), c.End());
}

NetDeviceContainer
FastPathWifiHelper::Install(const WifiPhyHelper& phy,
                            const WifiMacHelper& mac,
                            Ptr<Node> node) const
{
    return Install(phy, mac, NodeContainer(node));
}

NetDeviceContainer
FastPathWifiHelper::Install(const WifiPhyHelper& phy,
                            const WifiMacHelper& mac,
                            std::string nodeName) const
{
    return Install(phy, mac, NodeContainer(Names::Find<Node>(nodeName)));
}

double
FastPathWifiHelper::NoiseFigureOf(const WifiPhyHelper& phy)
{
    const std::vector<ObjectFactory>& f = PhyFactoryOf::Get(phy);
    NS_ABORT_MSG_IF(f.empty(), "FastPathWifiHelper: a PHY helper without a PHY factory");
    return std::stod(FactoryAttribute(f[0], "RxNoiseFigure"));
}

std::string
FastPathWifiHelper::FactoryAttribute(const ObjectFactory& factory, const std::string& name)
{
    // Some attributes can be set but not read back (WifiPhy's RxNoiseFigure, the station
    // manager's MaxSsrc, MaxSlrc, RtsCtsThreshold have no getter): they are read where the
    // script put them, the factory's attribute list ("TYPE[NAME=VALUE|...]"), else as the
    // attribute's initial value (its default, as Config::SetDefault left it).
    std::ostringstream text;
    text << factory;
    const std::string s = text.str();
    const std::string key = name + "=";
    for (auto at = s.find(key); at != std::string::npos; at = s.find(key, at + 1))
    {
        if (at > 0 && (s[at - 1] == '[' || s[at - 1] == '|'))
        {
            const auto from = at + key.size();
            return s.substr(from, s.find_first_of("|]", from) - from);
        }
    }
    TypeId::AttributeInformation info;
    NS_ABORT_MSG_IF(!factory.GetTypeId().LookupAttributeByName(name, &info),
                    "FastPathWifiHelper: " << factory.GetTypeId().GetName()
                                           << " has no attribute " << name);
    return info.initialValue->SerializeToString(info.checker);
}

FastPathRadio
FastPathWifiHelper::RadioOf(Ptr<WifiNetDevice> device, const WifiPhyHelper& phyHelper) const
{
    Ptr<WifiPhy> phy = device->GetPhy();
    NS_ABORT_MSG_IF(!phy, "FastPathWifiHelper::RadioOf: a device without a PHY");
    FastPathRadio r;
    r.txPowerDbm = phy->GetTxPowerStart();
    r.txGainDb = phy->GetTxGain();
    r.rxGainDb = phy->GetRxGain();
    r.rxSensitivityDbm = phy->GetRxSensitivity();
    r.ccaEdThresholdDbm = phy->GetCcaEdThreshold();
    r.ccaSensitivityDbm = phy->GetCcaSensitivityThreshold();
    r.noiseFigureDb = NoiseFigureOf(phyHelper);
    r.channelWidthMhz = phy->GetChannelWidth();

    Ptr<WifiRemoteStationManager> m = device->GetRemoteStationManager();
    NS_ABORT_MSG_IF(!m, "FastPathWifiHelper::RadioOf: a device without a station manager");
    if (DynamicCast<ConstantRateWifiManager>(m))
    {
        r.dataMode = ModeName(m, "DataMode");
        r.controlMode = ModeName(m, "ControlMode");
    }
    else
    {
        // An adapting manager: the medium adapts up to the best rate the PHY has (ARF
        // emulated; any other manager is refused when emulated), control frames at the
        // PHY's default mode (ARF sends its RTS at the lowest supported rate).
        const std::list<WifiMode> modes = phy->GetModeList();
        r.dataMode = modes.empty() ? "" : modes.back().GetUniqueName();
        r.controlMode = phy->GetDefaultMode().GetUniqueName();
    }
    r.stationManager = m->GetInstanceTypeId().GetName();
    if (DynamicCast<ArfWifiManager>(m))
    {
        UintegerValue v;
        m->GetAttribute("SuccessThreshold", v);
        r.arfSuccessThreshold = v.Get();
        m->GetAttribute("TimerThreshold", v);
        r.arfTimerThreshold = v.Get();
    }
    r.nonUnicastMode = ModeName(m, "NonUnicastMode");
    if (r.nonUnicastMode.empty())
    {
        // WifiRemoteStationManager::GetNonUnicastMode: unset, the first basic mode, which
        // is the PHY's default mode unless the script added basic modes.
        r.nonUnicastMode = m->GetNBasicModes() > 0 ? m->GetBasicMode(0).GetUniqueName()
                                                   : phy->GetDefaultMode().GetUniqueName();
    }
    if (device->GetMac())
    {
        // The station manager has its PHY (WifiNetDevice::CompleteConfig): it answers as
        // ns-3's MAC will, from the basic or mandatory modes at or below the request's.
        r.ctsMode = m->GetControlAnswerMode(WifiMode(r.controlMode)).GetUniqueName();
        r.ackMode = m->GetControlAnswerMode(WifiMode(r.dataMode)).GetUniqueName();
    }
    r.maxSsrc = std::stoul(FactoryAttribute(m_stationManager, "MaxSsrc"));
    r.maxSlrc = std::stoul(FactoryAttribute(m_stationManager, "MaxSlrc"));
    r.rtsCtsThreshold = std::stoul(FactoryAttribute(m_stationManager, "RtsCtsThreshold"));
    return r;
}

Ptr<YansWifiChannel>
FastPathWifiHelper::ChannelOf(Ptr<WifiNetDevice> device)
{
    Ptr<YansWifiPhy> phy = DynamicCast<YansWifiPhy>(device->GetPhy());
    return phy ? DynamicCast<YansWifiChannel>(phy->GetChannel()) : nullptr;
}

FastPathMediumPlan
FastPathWifiHelper::PlanOf(const NetDeviceContainer& devices, const WifiPhyHelper& phy) const
{
    NS_ABORT_MSG_IF(devices.GetN() == 0, "FastPathWifiHelper::PlanOf: no device");
    Ptr<YansWifiChannel> channel;
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ptr<WifiNetDevice> d = DynamicCast<WifiNetDevice>(devices.Get(i));
        NS_ABORT_MSG_IF(!d, "FastPathWifiHelper::PlanOf: device " << i << " is no WifiNetDevice");
        Ptr<YansWifiChannel> c = ChannelOf(d);
        NS_ABORT_MSG_IF(!c, "FastPathWifiHelper::PlanOf: device " << i
                                << " has no YansWifiPhy on a YansWifiChannel");
        NS_ABORT_MSG_IF(channel && c != channel,
                        "FastPathWifiHelper::PlanOf: the devices are on different channels");
        channel = c;
    }
    PointerValue loss;
    PointerValue delay;
    channel->GetAttribute("PropagationLossModel", loss);
    channel->GetAttribute("PropagationDelayModel", delay);
    FastPathMediumPlan plan(loss.Get<PropagationLossModel>(), delay.Get<PropagationDelayModel>());
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ptr<WifiNetDevice> d = DynamicCast<WifiNetDevice>(devices.Get(i));
        Ptr<Node> node = d->GetNode();
        Ptr<MobilityModel> mobility = node ? node->GetObject<MobilityModel>() : nullptr;
        NS_ABORT_MSG_IF(!mobility,
                        "FastPathWifiHelper: node " << (node ? node->GetId() : 0)
                            << " has no MobilityModel: every node of a Wi-Fi medium needs a "
                               "position (MobilityHelper::Install)");
        plan.Add(mobility, RadioOf(d, phy));
    }
    return plan;
}

std::string
FastPathWifiHelper::MacTypeOf(const WifiMacHelper& mac)
{
    return MacFactoryOf::Get(mac).GetTypeId().GetName();
}

std::string
FastPathWifiHelper::SsidOf(const WifiMacHelper& mac)
{
    return FactoryAttribute(MacFactoryOf::Get(mac), "Ssid");
}

Ptr<WifiNetDevice>
FastPathWifiHelper::CreateStandIn(const WifiPhyHelper& phy,
                                  const WifiMacHelper& mac,
                                  Ptr<Node> node) const
{
    // WifiHelper::Install's steps for one device, without Node::AddDevice (and without the
    // MAC, which would need the device on a node: its type is read from `mac` instead).
    Ptr<WifiNetDevice> device = CreateObject<WifiNetDevice>();
    device->SetStandard(m_standard);
    device->SetNode(node);
    std::vector<Ptr<WifiPhy>> phys = phy.Create(node, device);
    NS_ABORT_MSG_IF(phys.empty(), "FastPathWifiHelper: the PHY helper created no PHY");
    device->SetPhys(phys);
    for (auto& p : phys)
    {
        p->ConfigureStandard(m_standard);
    }
    device->SetRemoteStationManager(m_stationManager.Create<WifiRemoteStationManager>());
    return device;
}

} // namespace ns3
