// SPDX-License-Identifier: GPL-2.0-only
// FastPathWifiHelper emulated: each Install() one fastpathd radio medium, its PHY from the
// script's radio, its pairs handed by a FastPathMediumFollower from simulation time 0.
#include "fast-path-wifi-helper.h"

#include "ns3/abort.h"
#include "ns3/fast-path-emulation.h"
#include "ns3/fast-path-medium-follower.h"
#include "ns3/global-value.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/double.h"
#include "ns3/mobility-model.h"
#include "ns3/pointer.h"
#include "ns3/yans-wifi-channel.h"
#include "ns3/qos-txop.h"
#include "ns3/queue-size.h"
#include "ns3/txop.h"
#include "ns3/wifi-mac-queue.h"
#include "ns3/wifi-mac.h"

#include "fastpath/ctrl/client.h"
#include "fastpath/medium_types.h"

#include <algorithm>
#include <cerrno>
#include <memory>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathWifiMedium");

namespace
{

GlobalValue g_sample("FastPathWifiSampleInterval",
                     "How often FastPathWifiHelper samples the nodes' positions to hand the "
                     "radio pairs whose power changed to fastpathd (0: only on CourseChange)",
                     TimeValue(MilliSeconds(100)),
                     MakeTimeChecker());
GlobalValue g_threshold("FastPathWifiThreshold",
                        "Change of a pair's received power (dB) from what fastpathd has that "
                        "makes FastPathWifiHelper hand the pair again",
                        DoubleValue(1.0),
                        MakeDoubleChecker<double>(0));

/// WifiPhyHelper's error-rate and frame-capture factories, protected (see MacFactoryOf).
struct PhyFactories : WifiPhyHelper
{
    static const std::vector<ObjectFactory>& ErrorRate(const WifiPhyHelper& phy)
    {
        return phy.*(&PhyFactories::m_errorRateModel);
    }
    static const std::vector<ObjectFactory>& Capture(const WifiPhyHelper& phy)
    {
        return phy.*(&PhyFactories::m_frameCaptureModel);
    }
};

/// A radio medium and what follows it.
struct WifiMedium
{
    std::string name;
    std::vector<std::string> members; //!< fastpathd node of each member, by member index
    NetDeviceContainer devices;
    std::shared_ptr<FastPathMediumFollower> follower;
};

struct WifiMedia : FastPathEmulatedSet<WifiMedium>
{
    void Push(WifiMedium&) override
    {
        // Pairs are handed by the medium's follower as nodes move, not on Config::Set.
    }

    fastpath::Status Delete(const std::string& name) override
    {
        return emulation->Client().deleteMedium(name);
    }
};

std::shared_ptr<WifiMedia> g_media;

} // namespace

uint32_t
FastPathWifiHelper::RateKbps(const std::string& mode)
{
    // ns-3's mode names: DsssRate1Mbps, DsssRate5_5Mbps, OfdmRate6Mbps, ErpOfdmRate54Mbps.
    const auto at = mode.find("Rate");
    const auto mbps = mode.rfind("Mbps");
    if (at == std::string::npos || mbps == std::string::npos || mbps <= at + 4)
    {
        return 0;
    }
    std::string number = mode.substr(at + 4, mbps - at - 4);
    for (char& c : number)
    {
        c = c == '_' ? '.' : c;
    }
    try
    {
        return static_cast<uint32_t>(std::stod(number) * 1000 + 0.5);
    }
    catch (const std::exception&)
    {
        return 0;
    }
}

fastpath::MediumUpdate
FastPathWifiHelper::UpdateOf(const std::vector<FastPathPairUpdate>& batch,
                             const std::vector<std::string>& members,
                             bool whole)
{
    fastpath::MediumUpdate u;
    u.replace_all = whole;
    u.pairs.reserve(batch.size());
    for (const auto& b : batch)
    {
        fastpath::MediumPair p;
        p.from = members.at(b.pair.tx);
        p.to = members.at(b.pair.rx);
        p.rx_power_dbm = b.pair.rxPowerDbm;
        p.remove = !b.present;
        u.pairs.push_back(p);
    }
    return u;
}

fastpath::MediumPhy
FastPathWifiHelper::MediumPhyOf(const FastPathRadio& radio, const WifiPhyHelper& phy)
{
    fastpath::MediumPhy p;
    p.data_rate_kbps = RateKbps(radio.dataMode);
    // Broadcast (the routing protocols' HELLOs, TCs and RREQs) at NonUnicastMode; the RTS
    // at ControlMode, the CTS and ACK at ns-3's control answer modes (0: unknown, the
    // broadcast rate).
    p.basic_rate_kbps = RateKbps(radio.nonUnicastMode);
    p.noise_figure_db = radio.noiseFigureDb;
    p.rx_sensitivity_dbm = radio.rxSensitivityDbm;
    // Carrier sense as ns-3 3.37's PHY: busy under a frame whose preamble it detects
    // (ThresholdPreambleDetectionModel: -82 dBm) and, for any other frame, while the energy
    // on the air reaches CcaSensitivity (PhyEntity::GetCcaThreshold for a PPDU; CcaEdThreshold
    // applies only with no PPDU and is above it). Weaker frames, down to RxSensitivity, stay
    // pairs of the medium: interference, as YansWifiChannel hands them to the PHY.
    p.cs_threshold_dbm = std::max(radio.rxSensitivityDbm, radio.ccaSensitivityDbm);
    p.retry_limit = radio.maxSsrc;
    p.long_retry_limit = radio.maxSlrc;
    p.rts_threshold = radio.rtsCtsThreshold;
    p.rts_rate_kbps = RateKbps(radio.controlMode);
    p.cts_rate_kbps = RateKbps(radio.ctsMode);
    p.ack_rate_kbps = RateKbps(radio.ackMode);
    if (radio.stationManager == "ns3::ArfWifiManager")
    {
        p.rate_control = fastpath::RateControl::kArf;
        p.arf_success_threshold = radio.arfSuccessThreshold;
        p.arf_timer_threshold = radio.arfTimerThreshold;
    }
    const auto& errors = PhyFactories::ErrorRate(phy);
    const std::string error = errors.empty() ? "" : errors[0].GetTypeId().GetName();
    // TableBasedErrorRateModel falls back to Yans for the non-HT rates the medium knows.
    p.error_model = error == "ns3::NistErrorRateModel" ? fastpath::WifiErrorModel::kNist
                                                       : fastpath::WifiErrorModel::kYans;
    const auto& capture = PhyFactories::Capture(phy);
    if (!capture.empty() && capture[0].IsTypeIdSet())
    {
        p.capture_margin_db = std::stod(FactoryAttribute(capture[0], "Margin"));
    }
    p.seed = static_cast<uint64_t>(RngSeedManager::GetSeed()) * 1000003 + RngSeedManager::GetRun();
    return p;
}

std::string
FastPathWifiHelper::QueueMismatch(Ptr<WifiNetDevice> device)
{
    // The medium's queue (fastpath/medium/radio_medium.h): WifiMacQueue's defaults.
    const QueueSize mediumSize("500p");
    const Time mediumDelay = MilliSeconds(500);
    std::vector<Ptr<WifiMacQueue>> queues;
    Ptr<WifiMac> mac = device ? device->GetMac() : nullptr;
    if (mac && mac->GetTxop())
    {
        queues.push_back(mac->GetTxop()->GetWifiMacQueue());
    }
    if (mac && mac->GetQosSupported())
    {
        for (AcIndex ac : {AC_BE, AC_BK, AC_VI, AC_VO})
        {
            queues.push_back(mac->GetQosTxop(ac)->GetWifiMacQueue());
        }
    }
    std::string size;
    std::string delay;
    if (queues.empty())
    {
        // No MAC yet: what WifiMacQueue would be created with.
        TypeId::AttributeInformation info;
        const TypeId tid = WifiMacQueue::GetTypeId();
        NS_ABORT_MSG_IF(!tid.LookupAttributeByName("MaxSize", &info),
                        "FastPathWifiHelper: WifiMacQueue has no MaxSize");
        size = info.initialValue->SerializeToString(info.checker);
        NS_ABORT_MSG_IF(!tid.LookupAttributeByName("MaxDelay", &info),
                        "FastPathWifiHelper: WifiMacQueue has no MaxDelay");
        delay = info.initialValue->SerializeToString(info.checker);
        if (QueueSize(size) == mediumSize && Time(delay) == mediumDelay)
        {
            return "";
        }
        return "WifiMacQueue MaxSize " + size + ", MaxDelay " + delay;
    }
    for (const Ptr<WifiMacQueue>& q : queues)
    {
        if (q && (q->GetMaxSize() != mediumSize || q->GetMaxDelay() != mediumDelay))
        {
            std::ostringstream s;
            s << "WifiMacQueue MaxSize " << q->GetMaxSize() << ", MaxDelay "
              << q->GetMaxDelay().As(Time::MS);
            return s.str();
        }
    }
    return "";
}

NetDeviceContainer
FastPathWifiHelper::InstallEmulated(const WifiPhyHelper& phy,
                                    const WifiMacHelper& mac,
                                    const NodeContainer& nodes) const
{
    const std::string macType = MacTypeOf(mac);
    if (macType != "ns3::AdhocWifiMac" && !IsInfrastructureMac(macType))
    {
        FastPathEmulation::Refuse(
            "FastPathWifiHelper: emulated (--FastPathEmulation=1), a Wi-Fi medium is ad hoc "
            "(ns3::AdhocWifiMac) or an infrastructure BSS (ns3::ApWifiMac, ns3::StaWifiMac): "
            "the script's MAC is " + macType + "; use one of these or run it simulated "
            "(--FastPathEmulation=0)");
    }
    NS_ABORT_MSG_IF(nodes.GetN() == 0, "FastPathWifiHelper: Install() of no node");

    // Stand-ins (never on a node) give each member's radio and the channel's models.
    NetDeviceContainer standIns;
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        // With its MAC: the station manager then has its PHY and answers for the control
        // frames' modes; its address is the member's, set once fastpathd gave it.
        Ptr<WifiNetDevice> s = CreateMacStandIn(phy, mac, nodes.Get(i), Mac48Address());
        if (!ChannelOf(s))
        {
            FastPathEmulation::Refuse(
                "FastPathWifiHelper: emulated (--FastPathEmulation=1), a Wi-Fi medium needs "
                "YansWifiPhyHelper with a YansWifiChannel (SpectrumWifiPhy is not emulated); "
                "run the script simulated (--FastPathEmulation=0)");
        }
        standIns.Add(s);
    }
    const FastPathRadio radio = RadioOf(DynamicCast<WifiNetDevice>(standIns.Get(0)), phy);
    if (radio.stationManager != "ns3::ConstantRateWifiManager" &&
        radio.stationManager != "ns3::ArfWifiManager")
    {
        // The medium would send at another rate than the script's manager picks.
        FastPathEmulation::Refuse(
            "FastPathWifiHelper: emulated (--FastPathEmulation=1), the station manager " +
            radio.stationManager + " is not emulated: the medium adapts the rate as "
            "ns3::ArfWifiManager does or keeps it constant (ns3::ConstantRateWifiManager); "
            "use one of these (wifi.SetRemoteStationManager(\"ns3::ArfWifiManager\")) or run "
            "the script simulated (--FastPathEmulation=0)");
    }
    if (const std::string q = QueueMismatch(DynamicCast<WifiNetDevice>(standIns.Get(0)));
        !q.empty())
    {
        // The medium drops and holds frames as ns-3's default queue does, no other.
        FastPathEmulation::Refuse(
            "FastPathWifiHelper: emulated (--FastPathEmulation=1), the script's " + q +
            " is not emulated: the medium's queue holds 500 frames and drops those older "
            "than 500 ms (WifiMacQueue's defaults); keep those or run the script simulated "
            "(--FastPathEmulation=0)");
    }
    fastpath::MediumPhy mphy = MediumPhyOf(radio, phy);
    if (auto st = fastpath::validateMediumPhy(mphy); !st.ok())
    {
        FastPathEmulation::Refuse(
            "FastPathWifiHelper: emulated (--FastPathEmulation=1), the script's Wi-Fi cannot be "
            "emulated: " + st.error().message + " (data mode " + radio.dataMode +
            ", broadcast mode " + radio.nonUnicastMode + "; the medium has 802.11b and "
            "802.11a/g rates); run it simulated (--FastPathEmulation=0)");
    }
    // The radios and the channel's models are read now, while the script's helpers exist.
    std::vector<FastPathRadio> radios;
    for (uint32_t i = 0; i < standIns.GetN(); ++i)
    {
        radios.push_back(RadioOf(DynamicCast<WifiNetDevice>(standIns.Get(i)), phy));
    }
    if (IsInfrastructureMac(macType))
    {
        return InstallInfrastructure(mac, nodes, standIns, radios, mphy);
    }
    return CreateMedium(nodes, standIns, radios, mphy, NetDeviceContainer());
}

NetDeviceContainer
FastPathWifiHelper::CreateMedium(const NodeContainer& nodes,
                                 const NetDeviceContainer& standIns,
                                 const std::vector<FastPathRadio>& radios,
                                 const fastpath::MediumPhy& mphy,
                                 const NetDeviceContainer& prepared)
{
    WifiMedia& media = WifiMedia::Current(g_media, "FastPathWifiHelper", "medium");
    FastPathEmulation& e = *media.emulation;
    if (e.IsPartitioned())
    {
        // Each process would create the medium and attach every member.
        FastPathEmulation::Refuse("FastPathWifiHelper: radio media are not available yet in a "
                                  "run of several processes: run the script as one process");
    }
    const std::string port = "wifi" + std::to_string(media.next++);
    WifiMedium m;
    m.name = e.Tag() + "-" + port;
    fastpath::MediumSpec spec;
    spec.name = m.name;
    spec.phy = mphy;
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        fastpath::PortSpec ps;
        ps.node = e.NodeOf(nodes.Get(i));
        ps.port = port;
        spec.ports.push_back(ps);
        m.members.push_back(ps.node);
    }
    auto st = e.Client().createMedium(spec);
    if (!st.ok())
    {
        // A refusal, not an abort: the nodes created so far are deleted on the way out.
        const bool none = st.error().code == -ENOSYS || st.error().code == -ENOTSUP;
        FastPathEmulation::Refuse(
            "FastPathWifiHelper: cannot create fastpathd radio medium " + spec.name + " (" +
            std::to_string(nodes.GetN()) + " nodes): " + st.error().message +
            (none ? " (this fastpathd has no radio media, protocol 1.6: upgrade it, or run the "
                    "script simulated with --FastPathEmulation=0)"
                  : ""));
    }
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        if (prepared.GetN() > 0)
        {
            e.Attach().Bind(nodes.Get(i), m.members[i], {port}, {prepared.Get(i)});
            m.devices.Add(prepared.Get(i));
        }
        else
        {
            m.devices.Add(e.Attach().Install(nodes.Get(i), m.members[i], {port}));
        }
    }
    FollowLinkFailures(e, nodes, standIns, m.devices, m.members, port);

    // The pairs: at simulation time 0, once the script has placed its nodes (scripts
    // install mobility after the devices, as manet-routing-compare does).
    Ptr<YansWifiChannel> channel = ChannelOf(DynamicCast<WifiNetDevice>(standIns.Get(0)));
    PointerValue loss;
    channel->GetAttribute("PropagationLossModel", loss);
    // No delay model: fastpathd's pairs have no delay (under 5 us at 1.5 km), and computing
    // it (ns-3's Time arithmetic) is 4/5 of the follower's time with 200 moving nodes.
    FastPathMediumPlan plan(loss.Get<PropagationLossModel>(), nullptr);
    Simulator::Schedule(Seconds(0), &FastPathWifiHelper::StartFollowing, m.name, nodes, radios,
                        plan);
    NS_LOG_INFO("radio medium " << spec.name << ": " << nodes.GetN() << " nodes, data "
                                << mphy.data_rate_kbps << " kbit/s, basic "
                                << mphy.basic_rate_kbps << " kbit/s");
    NetDeviceContainer out = m.devices;
    media.items.push_back(std::move(m));
    return out;
}

void
FastPathWifiHelper::StartFollowing(std::string name,
                                   NodeContainer nodes,
                                   std::vector<FastPathRadio> radios,
                                   FastPathMediumPlan plan)
{
    if (!g_media)
    {
        return;
    }
    WifiMedium* m = nullptr;
    for (auto& item : g_media->items)
    {
        m = item.name == name ? &item : m;
    }
    if (!m)
    {
        return;
    }
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        Ptr<MobilityModel> mobility = nodes.Get(i)->GetObject<MobilityModel>();
        if (!mobility)
        {
            FastPathEmulation::Refuse(
                "FastPathWifiHelper: node " + std::to_string(nodes.Get(i)->GetId()) +
                " of radio medium " + name + " has no MobilityModel at time 0: every node of "
                "a Wi-Fi medium needs a position (MobilityHelper::Install)");
        }
        plan.Add(mobility, radios.at(i));
    }
    TimeValue sample;
    GlobalValue::GetValueByName("FastPathWifiSampleInterval", sample);
    DoubleValue threshold;
    GlobalValue::GetValueByName("FastPathWifiThreshold", threshold);
    FastPathEmulation* e = g_media->emulation;
    const std::vector<std::string> members = m->members;
    auto first = std::make_shared<bool>(true);
    auto sink = [e, name, members, first](const std::vector<FastPathPairUpdate>& batch) {
        const fastpath::MediumUpdate u = UpdateOf(batch, members, *first);
        *first = false;
        auto st = e->Client().updateMedium(name, u);
        if (!st.ok())
        {
            NS_LOG_WARN("fastpathd medium " << name << ": " << batch.size()
                                            << " pairs refused: " << st.error().message);
        }
        else
        {
            e->NoteFollowAck();
        }
    };
    m->follower = std::make_shared<FastPathMediumFollower>(plan,
                                                          FastPathPairTable(threshold.Get()),
                                                          sample.Get(),
                                                          sink);
    m->follower->Start();
    NS_LOG_INFO("radio medium " << name << ": " << m->follower->GetTable().GetN()
                                << " pairs in range at time 0");
}

} // namespace ns3
