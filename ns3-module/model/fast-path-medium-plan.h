// SPDX-License-Identifier: GPL-2.0-only
// FastPathMediumPlan: the radio medium of an ad hoc Wi-Fi script as fastpathd needs it — each
// member's radio, and per ordered pair of members the received power and the propagation
// delay, computed by the script's own propagation models from the nodes' MobilityModels;
// FastPathPairTable: what was last handed to fastpathd, and the batch of pairs whose
// quality changed beyond a threshold since.
#pragma once

#include "ns3/mobility-model.h"
#include "ns3/propagation-delay-model.h"
#include "ns3/propagation-loss-model.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup fastpath
 * \brief One member's radio as ns-3's YansWifiPhy and its remote station manager set it.
 */
struct FastPathRadio
{
    double txPowerDbm = 16.0206;       //!< TxPowerStart (the power of level 0)
    double txGainDb = 0;               //!< TxGain
    double rxGainDb = 0;               //!< RxGain
    double rxSensitivityDbm = -101;    //!< RxSensitivity: weaker frames are not detected
    double ccaEdThresholdDbm = -62;    //!< CcaEdThreshold: energy that makes the medium busy
    /// CcaSensitivity: a frame the PHY does not decode makes the medium busy while the
    /// energy on the air is at least this (ns-3 3.37's PhyEntity::GetCcaThreshold)
    double ccaSensitivityDbm = -82;
    double noiseFigureDb = 7;          //!< RxNoiseFigure
    uint16_t channelWidthMhz = 20;     //!< the PHY's channel width once its standard is set
    std::string dataMode;              //!< unicast data (ConstantRateWifiManager DataMode)
    std::string controlMode;           //!< RTS (ControlMode)
    /// The control answers' modes (WifiRemoteStationManager::GetControlAnswerMode): the
    /// CTS to an RTS at controlMode, the ACK to a frame at dataMode; empty: not known (a
    /// device whose station manager has no PHY yet), the medium then uses the broadcast rate.
    std::string ctsMode;
    std::string ackMode;
    std::string nonUnicastMode;        //!< broadcast (NonUnicastMode; empty: the basic mode)
    uint32_t maxSsrc = 7;              //!< retries of a frame under the RTS threshold
    uint32_t maxSlrc = 4;              //!< retries of a frame over it
    uint32_t rtsCtsThreshold = 65535;  //!< frames larger than this are sent after RTS/CTS
    /// The station manager's TypeId name: ns3::ConstantRateWifiManager (dataMode always)
    /// or ns3::ArfWifiManager (emulated by the medium, up to dataMode, the PHY's best).
    std::string stationManager = "ns3::ConstantRateWifiManager";
    uint32_t arfSuccessThreshold = 10; //!< ArfWifiManager SuccessThreshold
    uint32_t arfTimerThreshold = 15;   //!< ArfWifiManager TimerThreshold

    /// The noise floor, as ns-3's InterferenceHelper computes it: thermal noise over the
    /// channel width (20 MHz for 802.11b's 22, as ns-3 does) at 290 K (ns-3's Boltzmann
    /// constant) times the noise figure.
    double NoiseFloorDbm() const;
    /// The power radiated: TxPowerStart + TxGain (what YansWifiPhy hands to its channel).
    double RadiatedDbm() const;
    bool operator==(const FastPathRadio& o) const;
};

/**
 * \ingroup fastpath
 * \brief One ordered pair of members in range: what `rx` receives of a frame `tx` sends.
 */
struct FastPathMediumPair
{
    uint32_t tx = 0;         //!< the sender's member index
    uint32_t rx = 0;         //!< the receiver's member index
    double rxPowerDbm = 0;   //!< at the receiver's antenna, its RxGain included
    int64_t delayNs = 0;     //!< the propagation delay
};

/**
 * \ingroup fastpath
 * \brief A change of one pair: set (new or changed) or removed (out of range).
 */
struct FastPathPairUpdate
{
    FastPathMediumPair pair;
    bool present = true; //!< false: the pair is out of range now (rxPowerDbm, delayNs unset)
};

/**
 * \ingroup fastpath
 * \brief The members of a medium and the script's propagation models: the pairs in range.
 *
 * The received power of a pair is exactly what ns-3's YansWifiChannel delivers to the
 * receiving PHY: loss->CalcRxPower(TxPowerStart + TxGain, tx's mobility, rx's mobility)
 * + RxGain (the whole chain of the script's loss models, none reimplemented here); the
 * delay is delay->GetDelay(tx, rx). A pair is in range when its power reaches the
 * receiver's RxSensitivity (ns-3's PHY ignores weaker frames), else absent: the table is
 * sparse.
 */
class FastPathMediumPlan
{
  public:
    FastPathMediumPlan(Ptr<PropagationLossModel> loss, Ptr<PropagationDelayModel> delay);

    /// Adds a member; returns its index (members are numbered in the order added).
    uint32_t Add(Ptr<MobilityModel> mobility, const FastPathRadio& radio);
    uint32_t GetN() const;
    const FastPathRadio& GetRadio(uint32_t member) const;
    Ptr<MobilityModel> GetMobility(uint32_t member) const;

    /// The pair tx -> rx now, or false when it is out of range (or tx == rx).
    bool Compute(uint32_t tx, uint32_t rx, FastPathMediumPair* out) const;
    /// Every pair in range now, ordered by (tx, rx).
    std::vector<FastPathMediumPair> ComputeAll() const;
    /// The pairs in range now whose sender or receiver is one of `members`, by (tx, rx).
    std::vector<FastPathMediumPair> ComputeOf(const std::vector<uint32_t>& members) const;

  private:
    Ptr<PropagationLossModel> m_loss;
    Ptr<PropagationDelayModel> m_delay;
    std::vector<Ptr<MobilityModel>> m_mobility;
    std::vector<FastPathRadio> m_radios;
};

/**
 * \ingroup fastpath
 * \brief The pairs as last handed to fastpathd, and what changed since.
 *
 * A pair is handed again when it enters or leaves range, when its power moved by at least
 * `thresholdDb` or its delay by at least `delayThresholdNs` from the value last handed
 * (not the last computed: a slow drift adds up until it crosses the threshold).
 */
class FastPathPairTable
{
  public:
    explicit FastPathPairTable(double thresholdDb = 1.0, int64_t delayThresholdNs = 100);

    /// The updates that bring the table from what was handed to `now`, where `now` holds
    /// every pair in range whose sender or receiver is in `scope` (all pairs when `scope`
    /// is empty), ordered by (tx, rx) as FastPathMediumPlan computes them; pairs of `scope`
    /// absent from `now` are out of range. The table records the updates as handed.
    /// Ordered by (tx, rx).
    std::vector<FastPathPairUpdate> Update(const std::vector<FastPathMediumPair>& now,
                                           const std::vector<uint32_t>& scope = {});
    /// The pair as last handed, or nullptr.
    const FastPathMediumPair* Find(uint32_t tx, uint32_t rx) const;
    std::size_t GetN() const;
    double GetThresholdDb() const;

  private:
    bool Changed(const FastPathMediumPair& was, const FastPathMediumPair& now) const;

    double m_thresholdDb;
    int64_t m_delayThresholdNs;
    std::map<std::pair<uint32_t, uint32_t>, FastPathMediumPair> m_handed;
};

} // namespace ns3
