// SPDX-License-Identifier: GPL-2.0-only
// FastPathWifiHelper: ns-3's WifiHelper for ad hoc Wi-Fi on a YansWifiChannel, simulated by
// ns-3 or, with the global value FastPathEmulation set, emulated by a fastpathd radio medium.
#pragma once

#include "ns3/fast-path-medium-plan.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/wifi-helper.h"
#include "ns3/wifi-net-device.h"

#include "fastpath/medium_types.h"

#include <string>
#include <vector>

namespace ns3
{

class FastPathEmulation;
class YansWifiChannel;

/**
 * \ingroup fastpath
 * \brief A drop-in for WifiHelper in an ad hoc script: one script, simulated or emulated.
 *
 * Configure it and call Install() exactly as a WifiHelper (it is one). With the global
 * value FastPathEmulation false (the default) it is WifiHelper: the same devices, the same
 * results. With FastPathEmulation true each Install() is one radio medium in fastpathd
 * (see docs/guides/ns3-emulation.md, "Wi-Fi"): its radio per member from the script's PHY
 * and station manager (RadioOf), its pairs from the channel's own propagation loss and
 * delay models on the nodes' MobilityModels (FastPathMediumPlan), kept current as they
 * move (FastPathMediumFollower). An ad hoc MAC (AdhocWifiMac) on a YansWifiPhy is emulated,
 * and an infrastructure BSS: the Install() of its stations (StaWifiMac) and of its access
 * point (ApWifiMac) on one YansWifiChannel with one Ssid are one medium, made at time 0
 * when all of them are known (PlanInfrastructure); the returned devices exist at once,
 * each with the BSS's channel (FastPathWifiChannel), and are bound to their ports then.
 * Anything else is refused with a message.
 */
class FastPathWifiHelper : public WifiHelper
{
  public:
    FastPathWifiHelper();

    NetDeviceContainer Install(const WifiPhyHelper& phy,
                               const WifiMacHelper& mac,
                               NodeContainer::Iterator first,
                               NodeContainer::Iterator last) const override;
    NetDeviceContainer Install(const WifiPhyHelper& phy,
                               const WifiMacHelper& mac,
                               NodeContainer c) const override;
    NetDeviceContainer Install(const WifiPhyHelper& phy,
                               const WifiMacHelper& mac,
                               Ptr<Node> node) const override;
    NetDeviceContainer Install(const WifiPhyHelper& phy,
                               const WifiMacHelper& mac,
                               std::string nodeName) const override;

    /**
     * The radio of a Wi-Fi device this helper installed with `phy`, as its PHY and remote
     * station manager set it: TxPowerStart, TxGain, RxGain, RxSensitivity,
     * CcaEdThreshold, RxNoiseFigure (from `phy`'s factory: see FactoryAttribute), the
     * channel width; DataMode and ControlMode of a ConstantRateWifiManager (any other
     * manager adapts its rate, which the medium does not: the PHY's highest mode for data
     * and its default mode for control frames); NonUnicastMode (unset: the basic mode, as
     * ns-3); MaxSsrc, MaxSlrc, RtsCtsThreshold (from this helper's station manager
     * factory).
     */
    FastPathRadio RadioOf(Ptr<WifiNetDevice> device, const WifiPhyHelper& phy) const;
    /// The RxNoiseFigure the PHYs `phy` creates get (WifiPhy cannot be asked for it).
    static double NoiseFigureOf(const WifiPhyHelper& phy);
    /// The value (serialized) of attribute `name` of what `factory` creates: as set in the
    /// factory, else the attribute's initial value. For attributes that have no getter.
    static std::string FactoryAttribute(const ObjectFactory& factory, const std::string& name);
    /// The YansWifiChannel of a device's PHY (nullptr: not a YansWifiPhy).
    static Ptr<YansWifiChannel> ChannelOf(Ptr<WifiNetDevice> device);
    /// The medium of `devices` (installed on one YansWifiChannel, their nodes with a
    /// MobilityModel, created by `phy`): their radios, their channel's loss and delay models.
    FastPathMediumPlan PlanOf(const NetDeviceContainer& devices, const WifiPhyHelper& phy) const;

    /**
     * A Wi-Fi device as Install() would create it for `node`, built from this helper,
     * `phy` and `mac` but not added to the node: what the emulation reads the radio and the
     * channel from. Its PHY joins the script's channel (it never transmits).
     */
    Ptr<WifiNetDevice> CreateStandIn(const WifiPhyHelper& phy,
                                     const WifiMacHelper& mac,
                                     Ptr<Node> node) const;
    /// The MAC type `mac` creates (ns3::AdhocWifiMac for an ad hoc script).
    static std::string MacTypeOf(const WifiMacHelper& mac);
    /// Whether a MAC type is one of an infrastructure BSS (ns3::StaWifiMac, ns3::ApWifiMac).
    static bool IsInfrastructureMac(const std::string& macType);
    /// The Ssid `mac` gives its MACs (serialized; its default when the script set none).
    static std::string SsidOf(const WifiMacHelper& mac);

    /**
     * Emulated, at time 0 (FastPathEmulation's start checks): the medium of each
     * infrastructure BSS the script installed, its devices bound to their ports. Empty when
     * done; else why not (a BSS without its access point), and the run is refused.
     */
    static std::string PlanInfrastructure();

    /**
     * Whether the medium's queue is `device`'s (its MAC's WifiMacQueue, else the queue's
     * defaults as Config::SetDefault left them): the medium holds ns-3 3.37's default, 500
     * frames, and drops a frame that waited longer than 500 ms (MaxDelay). Empty: the same;
     * otherwise what differs, for a refusal.
     */
    static std::string QueueMismatch(Ptr<WifiNetDevice> device);

    /// The rate (kbit/s) of an ns-3 mode name (DsssRate5_5Mbps: 5500); 0 if none.
    static uint32_t RateKbps(const std::string& mode);
    /// The medium's PHY of `radio`, with `phy`'s error-rate and frame-capture models.
    static fastpath::MediumPhy MediumPhyOf(const FastPathRadio& radio, const WifiPhyHelper& phy);

    /// A batch of the follower as fastpathd's update: member i is fastpathd node
    /// `members[i]`; `whole`: the batch is the whole table (the first one, at time 0).
    static fastpath::MediumUpdate UpdateOf(const std::vector<FastPathPairUpdate>& batch,
                                           const std::vector<std::string>& members,
                                           bool whole);

    /**
     * A stand-in (CreateStandIn) with the MAC `mac` creates (and its address `address`
     * unless that is Mac48Address()): the Wi-Fi device an emulated member's device carries
     * (aggregated), whose MAC and station manager trace sources report the medium's link
     * failures (NotifyRetryLimit), and whose station manager gives the control frames'
     * modes (RadioOf).
     */
    Ptr<WifiNetDevice> CreateMacStandIn(const WifiPhyHelper& phy,
                                        const WifiMacHelper& mac,
                                        Ptr<Node> node,
                                        Mac48Address address) const;
    /**
     * What ns-3's MAC does when a unicast to `to` exhausts its retries: WifiMac's
     * "DroppedMpdu" (WIFI_MAC_DROP_REACHED_RETRY_LIMIT) and the station manager's
     * "MacTxFinalDataFailed" fire on `device` (AODV's link breakage detection hooks the
     * first).
     */
    static void NotifyRetryLimit(Ptr<WifiNetDevice> device, Mac48Address to);

  private:
    /// Each member's device of an emulated medium (port `port` of fastpathd node
    /// `members[i]`) gets its MAC stand-in (`standIns[i]`, CreateMacStandIn) aggregated, and
    /// fastpathd's reports of its unicasts dropped after their retries fire that stand-in's
    /// trace sources.
    static void FollowLinkFailures(FastPathEmulation& e,
                                   const NodeContainer& nodes,
                                   const NetDeviceContainer& standIns,
                                   const NetDeviceContainer& devices,
                                   const std::vector<std::string>& members,
                                   const std::string& port);
    static void StartFollowing(std::string name,
                               NodeContainer nodes,
                               std::vector<FastPathRadio> radios,
                               FastPathMediumPlan plan);
    NetDeviceContainer InstallEmulated(const WifiPhyHelper& phy,
                                       const WifiMacHelper& mac,
                                       const NodeContainer& nodes) const;
    /**
     * The radio medium of `nodes` in fastpathd (PHY `mphy`, member i's radio `radios[i]`,
     * its MAC stand-in `standIns[i]`), followed as the nodes move from time 0. `prepared`
     * empty: each member's device is made and added to its node now (ad hoc); else
     * `prepared[i]`, on node i already, is bound to its port (an infrastructure BSS).
     */
    static NetDeviceContainer CreateMedium(const NodeContainer& nodes,
                                           const NetDeviceContainer& standIns,
                                           const std::vector<FastPathRadio>& radios,
                                           const fastpath::MediumPhy& mphy,
                                           const NetDeviceContainer& prepared);
    /// Emulated, an Install() of stations or of an access point: their devices now, on the
    /// BSS's channel; the medium at time 0 (PlanInfrastructure).
    static NetDeviceContainer InstallInfrastructure(const WifiMacHelper& mac,
                                                    const NodeContainer& nodes,
                                                    const NetDeviceContainer& standIns,
                                                    const std::vector<FastPathRadio>& radios,
                                                    const fastpath::MediumPhy& mphy);
};

} // namespace ns3
