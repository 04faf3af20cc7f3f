// SPDX-License-Identifier: GPL-2.0-only
// What an emulated script may hold: every device of every node is emulated by fastpathd (an
// emulating helper's, or FastPathHelper's), a real device of the host, or internal to ns-3;
// anything else (a plain helper's link, a Wi-Fi device) is refused at start, by name.
#include "fast-path-emulation.h"

#include "ns3/channel.h"
#include "ns3/fast-path-net-device.h"
#include "ns3/fd-net-device.h"
#include "ns3/loopback-net-device.h"
#include "ns3/node-list.h"

#include <set>
#include <sstream>

namespace ns3
{

namespace
{

/// Devices that need no emulation: ns-3-internal (loopback, tunnels, bridges over other
/// devices, which are checked themselves), the host's own (TapBridge), or on no channel at
/// all (a device a script makes by hand to hold an address, as routing/*-slash32 do: it
/// carries no frame simulated, and none emulated).
bool
IsInternalOrReal(Ptr<NetDevice> nd)
{
    static const std::set<std::string> kTypes = {"ns3::VirtualNetDevice",
                                                 "ns3::BridgeNetDevice",
                                                 "ns3::TapBridge"};
    return DynamicCast<LoopbackNetDevice>(nd) || nd->GetObject<FdNetDevice>() ||
           kTypes.count(nd->GetInstanceTypeId().GetName()) || !nd->GetChannel();
}

/// Why `nd` cannot be emulated, and what to use instead.
std::string
Reason(Ptr<NetDevice> nd)
{
    const std::string type = nd->GetInstanceTypeId().GetName();
    Ptr<Channel> ch = nd->GetChannel();
    const std::string channel = ch ? ch->GetInstanceTypeId().GetName() : "no channel";
    if (type == "ns3::PointToPointNetDevice")
    {
        return type + " on " + channel +
               " from a plain PointToPointHelper: build every point-to-point link of an "
               "emulated script with FastPathPointToPointHelper";
    }
    if (type == "ns3::CsmaNetDevice")
    {
        return type + " on " + channel +
               " from a plain CsmaHelper (or added to an emulated segment's channel): build "
               "every CSMA segment of an emulated script with one "
               "FastPathCsmaHelper::Install(NodeContainer)";
    }
    return type + " on " + channel +
           ": fastpathd has no emulation of this device and channel (it emulates "
           "point-to-point links and CSMA segments); run the script simulated";
}

/// Whether `nd` is a bridge (BridgeHelper) with an emulated device among its ports: its
/// channel (a BridgeChannel) lists the devices of the bridged ports' channels. Such a
/// bridge is planned in fastpathd (FastPathCsmaHelper::PlanBridges) when it can be.
bool
BridgesEmulatedDevices(Ptr<NetDevice> nd)
{
    if (nd->GetInstanceTypeId().GetName() != "ns3::BridgeNetDevice" || !nd->GetChannel())
    {
        return false;
    }
    Ptr<Channel> ch = nd->GetChannel();
    for (std::size_t i = 0; i < ch->GetNDevices(); ++i)
    {
        if (ch->GetDevice(i)->GetObject<FastPathNetDevice>())
        {
            return true;
        }
    }
    return false;
}

} // namespace

std::string
FastPathEmulation::WhyNotBridged()
{
    std::ostringstream why;
    for (auto node = NodeList::Begin(); node != NodeList::End(); ++node)
    {
        for (uint32_t i = 0; i < (*node)->GetNDevices(); ++i)
        {
            Ptr<NetDevice> nd = (*node)->GetDevice(i);
            if (!BridgesEmulatedDevices(nd))
            {
                continue;
            }
            if (const std::string no = WhyNotBridge(nd); !no.empty())
            {
                why << "\n  /NodeList/" << (*node)->GetId() << "/DeviceList/" << i
                    << ": ns3::BridgeNetDevice (BridgeHelper) over emulated devices: " << no;
            }
        }
    }
    if (why.str().empty())
    {
        return "";
    }
    return "FastPathEmulation: fastpathd cannot bridge these as they are:" + why.str() +
           "\nfastpathd bridges emulated CSMA segments (every port a FastPathCsmaHelper "
           "device, learning on); or run the script simulated (--FastPathEmulation=0).";
}

std::string
FastPathEmulation::WhyNotEmulated()
{
    std::ostringstream why;
    uint32_t n = 0;
    for (auto node = NodeList::Begin(); node != NodeList::End(); ++node)
    {
        for (uint32_t i = 0; i < (*node)->GetNDevices(); ++i)
        {
            Ptr<NetDevice> nd = (*node)->GetDevice(i);
            if (IsInternalOrReal(nd))
            {
                continue;
            }
            why << "\n  /NodeList/" << (*node)->GetId() << "/DeviceList/" << i << ": "
                << Reason(nd);
            ++n;
        }
    }
    if (n == 0)
    {
        return "";
    }
    return "FastPathEmulation: " + std::to_string(n) +
           (n == 1 ? " device of this script cannot be emulated by fastpathd (it would be "
                     "simulated, cut off from the emulated network):"
                   : " devices of this script cannot be emulated by fastpathd (they would be "
                     "simulated, cut off from the emulated network):") +
           why.str() + "\nRun the script simulated (--FastPathEmulation=0), or build these "
                       "links with the emulating helpers.";
}

} // namespace ns3
