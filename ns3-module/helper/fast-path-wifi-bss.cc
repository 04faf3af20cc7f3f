// SPDX-License-Identifier: GPL-2.0-only
// FastPathWifiHelper emulated, an infrastructure BSS: the Install() of its stations
// (StaWifiMac) and the Install() of its access point (ApWifiMac) on one YansWifiChannel are
// one radio medium. The script calls them one after the other and uses the devices at once
// (addresses, global routing), so the devices are made at each Install() on the BSS's
// channel, and the medium, which needs all its members, at time 0.
#include "fast-path-wifi-helper.h"

#include "ns3/abort.h"
#include "ns3/fast-path-channel.h"
#include "ns3/fast-path-emulation.h"
#include "ns3/fast-path-net-device.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/yans-wifi-channel.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathWifiBss");

namespace
{

/// What the Install() calls of one BSS gathered, until time 0.
struct PendingBss
{
    Ptr<YansWifiChannel> channel; //!< the script's channel: one BSS per channel
    std::string ssid;
    fastpath::MediumPhy phy;
    NodeContainer nodes;
    NetDeviceContainer standIns;
    NetDeviceContainer devices; //!< on the nodes, bound to their ports at time 0
    std::vector<FastPathRadio> radios;
    uint32_t accessPoints = 0;
    Ptr<FastPathWifiChannel> bssChannel;
};

std::vector<PendingBss>&
Pending()
{
    static std::vector<PendingBss> pending;
    return pending;
}

} // namespace

bool
FastPathWifiHelper::IsInfrastructureMac(const std::string& macType)
{
    return macType == "ns3::StaWifiMac" || macType == "ns3::ApWifiMac";
}

NetDeviceContainer
FastPathWifiHelper::InstallInfrastructure(const WifiMacHelper& mac,
                                          const NodeContainer& nodes,
                                          const NetDeviceContainer& standIns,
                                          const std::vector<FastPathRadio>& radios,
                                          const fastpath::MediumPhy& mphy)
{
    const std::string macType = MacTypeOf(mac);
    const std::string ssid = SsidOf(mac);
    Ptr<YansWifiChannel> channel = ChannelOf(DynamicCast<WifiNetDevice>(standIns.Get(0)));
    PendingBss* bss = nullptr;
    for (auto& b : Pending())
    {
        bss = b.channel == channel ? &b : bss;
    }
    if (!bss)
    {
        // The session exists from the first Install(): its start checks make the medium.
        FastPathEmulation::Get("FastPathWifiHelper");
        if (Pending().empty())
        {
            // A simulation destroyed without running leaves nothing to the next one.
            Simulator::ScheduleDestroy([]() { Pending().clear(); });
        }
        Pending().push_back(PendingBss{});
        bss = &Pending().back();
        bss->channel = channel;
        bss->ssid = ssid;
        bss->phy = mphy;
        bss->bssChannel = CreateObject<FastPathWifiChannel>();
    }
    if (bss->ssid != ssid)
    {
        // ns-3 associates a station only with an access point of its Ssid: two BSSs share
        // the channel's airtime, which one medium per channel cannot split.
        FastPathEmulation::Refuse(
            "FastPathWifiHelper: emulated (--FastPathEmulation=1), one YansWifiChannel carries "
            "the Ssids \"" + bss->ssid + "\" and \"" + ssid + "\": one BSS per channel is "
            "emulated; give every station and the access point of a channel one Ssid, or run "
            "the script simulated (--FastPathEmulation=0)");
    }
    if (!(bss->phy == mphy))
    {
        FastPathEmulation::Refuse(
            "FastPathWifiHelper: emulated (--FastPathEmulation=1), the stations and the access "
            "point of Ssid \"" + ssid + "\" have different rates, retry limits or error "
            "models: one medium has one PHY; install them with the same WifiHelper and "
            "YansWifiPhyHelper settings, or run the script simulated (--FastPathEmulation=0)");
    }
    const bool ap = macType == "ns3::ApWifiMac";
    bss->accessPoints += ap ? nodes.GetN() : 0;
    if (bss->accessPoints > 1)
    {
        FastPathEmulation::Refuse(
            "FastPathWifiHelper: emulated (--FastPathEmulation=1), Ssid \"" + ssid + "\" has " +
            std::to_string(bss->accessPoints) + " access points on one channel: a BSS of one "
            "access point is emulated (no roaming between them); run the script simulated "
            "(--FastPathEmulation=0)");
    }
    NetDeviceContainer out;
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        // Bound to its fastpathd port at time 0 (FastPathHelper::Bind); until then the
        // script assigns its addresses and global routing reads its channel.
        Ptr<FastPathNetDevice> dev = CreateObject<FastPathNetDevice>();
        nodes.Get(i)->AddDevice(dev);
        dev->SetChannel(bss->bssChannel);
        bss->bssChannel->Add(dev);
        bss->nodes.Add(nodes.Get(i));
        bss->standIns.Add(standIns.Get(i));
        bss->devices.Add(dev);
        bss->radios.push_back(radios[i]);
        out.Add(dev);
    }
    NS_LOG_INFO("BSS \"" << ssid << "\": " << nodes.GetN() << (ap ? " access point" : " station(s)")
                         << ", " << bss->nodes.GetN() << " member(s) so far");
    return out;
}

std::string
FastPathWifiHelper::PlanInfrastructure()
{
    std::vector<PendingBss> pending;
    std::swap(pending, Pending());
    std::string why;
    for (const auto& bss : pending)
    {
        if (bss.accessPoints == 0)
        {
            // ns-3's stations would never associate: nothing they send leaves them.
            why += (why.empty() ? "" : "\n") +
                   std::string("FastPathWifiHelper: emulated (--FastPathEmulation=1), Ssid \"") +
                   bss.ssid + "\" has " + std::to_string(bss.nodes.GetN()) +
                   " station(s) and no access point (ns3::ApWifiMac) on their channel: install "
                   "its access point with this helper, or run the script simulated "
                   "(--FastPathEmulation=0)";
        }
    }
    if (!why.empty())
    {
        return why;
    }
    for (const auto& bss : pending)
    {
        // Association is not emulated: a station is a member from time 0, and reaches the
        // access point while their pair is in range (fastpathd's medium), as an associated
        // ns-3 station does.
        CreateMedium(bss.nodes, bss.standIns, bss.radios, bss.phy, bss.devices);
        NS_LOG_INFO("BSS \"" << bss.ssid << "\": radio medium of " << bss.nodes.GetN()
                             << " members");
    }
    return "";
}

} // namespace ns3
