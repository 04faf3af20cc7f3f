// SPDX-License-Identifier: GPL-2.0-only
// FastPathWifiHelper emulated: the failures of the medium's unicasts, told to ns-3 as its
// own MAC tells them. A routing protocol learns a broken link from the Wi-Fi device under
// its interface (AODV: WifiMac's "DroppedMpdu" trace, found with GetObject<WifiNetDevice>()
// on the interface's device); an emulated member's device gets a Wi-Fi device of its own
// aggregated, built from the script's helpers, whose MAC and station manager fire those
// trace sources when fastpathd reports a frame dropped after its retries.
#include "fast-path-wifi-helper.h"

#include "ns3/abort.h"
#include "ns3/fast-path-connection.h"
#include "ns3/fast-path-emulation.h"
#include "ns3/frame-exchange-manager.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/wifi-mac-header.h"
#include "ns3/wifi-mac-helper.h"
#include "ns3/wifi-mac.h"
#include "ns3/wifi-mpdu.h"
#include "ns3/wifi-remote-station-manager.h"

#include "fastpath/ctrl/client.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathWifiLinkFailure");

namespace
{

/// FrameExchangeManager keeps the callback into WifiMac's "DroppedMpdu" trace protected: it
/// is read through a member pointer named from a derived class (see MacFactoryOf).
struct DroppedMpduOf : FrameExchangeManager
{
    static const FrameExchangeManager::DroppedMpdu& Get(const FrameExchangeManager& fem)
    {
        return fem.*(&DroppedMpduOf::m_droppedMpduCallback);
    }
};

} // namespace

Ptr<WifiNetDevice>
FastPathWifiHelper::CreateMacStandIn(const WifiPhyHelper& phy,
                                     const WifiMacHelper& mac,
                                     Ptr<Node> node,
                                     Mac48Address address) const
{
    Ptr<WifiNetDevice> device = CreateStandIn(phy, mac, node);
    Ptr<WifiMac> m = mac.Create(device, m_standard);
    NS_ABORT_MSG_IF(!m, "FastPathWifiHelper: the MAC helper created no MAC");
    if (device->GetMac() != m)
    {
        device->SetMac(m);
    }
    if (address != Mac48Address())
    {
        m->SetAddress(address);
    }
    return device;
}

void
FastPathWifiHelper::NotifyRetryLimit(Ptr<WifiNetDevice> device, Mac48Address to)
{
    Ptr<WifiMac> mac = device->GetMac();
    NS_ABORT_MSG_IF(!mac, "FastPathWifiHelper::NotifyRetryLimit: a device without a MAC");
    WifiMacHeader header;
    header.SetType(WIFI_MAC_DATA);
    header.SetAddr1(to);
    header.SetAddr2(mac->GetAddress());
    header.SetAddr3(mac->GetBssid(0));
    header.SetDsNotFrom();
    header.SetDsNotTo();
    Ptr<const WifiMpdu> mpdu = Create<WifiMpdu>(Create<Packet>(), header);
    // FrameExchangeManager::NormalAckTimeout on the last try: the MPDU is dropped
    // (WifiMac "DroppedMpdu"), then the station manager is told (MacTxFinalDataFailed).
    Ptr<FrameExchangeManager> fem = mac->GetFrameExchangeManager();
    if (fem && !DroppedMpduOf::Get(*fem).IsNull())
    {
        DroppedMpduOf::Get(*fem)(WIFI_MAC_DROP_REACHED_RETRY_LIMIT, mpdu);
    }
    device->GetRemoteStationManager()->ReportFinalDataFailed(mpdu);
}

void
FastPathWifiHelper::FollowLinkFailures(FastPathEmulation& e,
                                       const NodeContainer& nodes,
                                       const NetDeviceContainer& standIns,
                                       const NetDeviceContainer& devices,
                                       const std::vector<std::string>& members,
                                       const std::string& port)
{
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        Ptr<Node> node = nodes.Get(i);
        Ptr<NetDevice> device = devices.Get(i);
        Ptr<WifiNetDevice> wifi = DynamicCast<WifiNetDevice>(standIns.Get(i));
        NS_ABORT_MSG_IF(!wifi || !wifi->GetMac(),
                        "FastPathWifiHelper: stand-in " << i << " has no MAC");
        // The emulated device's address: the one the neighbours' ARP caches hold, which a
        // routing protocol compares the failed frame's receiver with.
        wifi->GetMac()->SetAddress(Mac48Address::ConvertFrom(device->GetAddress()));
        device->AggregateObject(wifi);

        auto ports = e.Client().ports(members[i]);
        NS_ABORT_MSG_IF(!ports.ok(),
                        "FastPathWifiHelper: cannot list the ports of fastpathd node "
                            << members[i] << ": " << ports.error().message);
        const fastpath::PortInfo* info = nullptr;
        for (const auto& p : ports.value())
        {
            info = p.ifname == port ? &p : info;
        }
        NS_ABORT_MSG_IF(!info,
                        "FastPathWifiHelper: fastpathd node " << members[i] << " has no port "
                                                              << port);
        Ptr<FastPathConnection> conn = e.Attach().GetConnection(node);
        NS_ABORT_MSG_IF(!conn,
                        "FastPathWifiHelper: node " << node->GetId()
                                                    << " has no fastpathd connection");
        const uint32_t context = node->GetId();
        // Called on the connection's thread: the trace sources fire in the simulator's.
        conn->AddMediumFailureCallback(
            info->id,
            [context, wifi](fastpath::PortId, const fastpath::MacAddress& receiver) {
                Mac48Address to;
                to.CopyFrom(receiver.bytes.data());
                Simulator::ScheduleWithContext(context, Seconds(0), [wifi, to]() {
                    NotifyRetryLimit(wifi, to);
                });
            });
    }
}

} // namespace ns3
