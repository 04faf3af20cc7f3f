// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-medium-plan.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FastPathMediumPlan");

double
FastPathRadio::NoiseFloorDbm() const
{
    // InterferenceHelper: noise = BOLTZMANN * 290 K * width (Hz) * noise figure (linear),
    // with ns-3's value of the constant. ns-3 integrates a 22 MHz DSSS channel's noise over
    // 20 MHz (the noise under the SNR its PHY reports for 802.11b frames).
    const double boltzmann = 1.3803e-23;
    const double widthMhz = channelWidthMhz == 22 ? 20 : channelWidthMhz;
    const double thermalW = boltzmann * 290.0 * widthMhz * 1e6;
    return 10.0 * std::log10(thermalW * 1000.0) + noiseFigureDb;
}

double
FastPathRadio::RadiatedDbm() const
{
    return txPowerDbm + txGainDb;
}

bool
FastPathRadio::operator==(const FastPathRadio& o) const
{
    return txPowerDbm == o.txPowerDbm && txGainDb == o.txGainDb && rxGainDb == o.rxGainDb &&
           rxSensitivityDbm == o.rxSensitivityDbm && ccaEdThresholdDbm == o.ccaEdThresholdDbm &&
           ccaSensitivityDbm == o.ccaSensitivityDbm &&
           noiseFigureDb == o.noiseFigureDb && channelWidthMhz == o.channelWidthMhz &&
           dataMode == o.dataMode && controlMode == o.controlMode &&
           nonUnicastMode == o.nonUnicastMode && maxSsrc == o.maxSsrc && maxSlrc == o.maxSlrc &&
           stationManager == o.stationManager && arfSuccessThreshold == o.arfSuccessThreshold &&
           arfTimerThreshold == o.arfTimerThreshold &&
           rtsCtsThreshold == o.rtsCtsThreshold && ctsMode == o.ctsMode && ackMode == o.ackMode;
}

FastPathMediumPlan::FastPathMediumPlan(Ptr<PropagationLossModel> loss,
                                       Ptr<PropagationDelayModel> delay)
    : m_loss(loss),
      m_delay(delay)
{
}

uint32_t
FastPathMediumPlan::Add(Ptr<MobilityModel> mobility, const FastPathRadio& radio)
{
    NS_ABORT_MSG_IF(!mobility, "FastPathMediumPlan: a member without a MobilityModel");
    m_mobility.push_back(mobility);
    m_radios.push_back(radio);
    return static_cast<uint32_t>(m_mobility.size() - 1);
}

uint32_t
FastPathMediumPlan::GetN() const
{
    return static_cast<uint32_t>(m_mobility.size());
}

const FastPathRadio&
FastPathMediumPlan::GetRadio(uint32_t member) const
{
    return m_radios.at(member);
}

Ptr<MobilityModel>
FastPathMediumPlan::GetMobility(uint32_t member) const
{
    return m_mobility.at(member);
}

bool
FastPathMediumPlan::Compute(uint32_t tx, uint32_t rx, FastPathMediumPair* out) const
{
    if (tx == rx)
    {
        return false;
    }
    // What YansWifiChannel::Send does for each receiving PHY: the sender's power and TxGain
    // through the channel's loss chain, then the receiver's RxGain.
    const FastPathRadio& t = m_radios.at(tx);
    const FastPathRadio& r = m_radios.at(rx);
    double dbm = t.RadiatedDbm();
    if (m_loss)
    {
        dbm = m_loss->CalcRxPower(dbm, m_mobility[tx], m_mobility[rx]);
    }
    dbm += r.rxGainDb;
    if (!(dbm >= r.rxSensitivityDbm))
    {
        return false;
    }
    out->tx = tx;
    out->rx = rx;
    out->rxPowerDbm = dbm;
    out->delayNs = m_delay ? m_delay->GetDelay(m_mobility[tx], m_mobility[rx]).GetNanoSeconds() : 0;
    return true;
}

std::vector<FastPathMediumPair>
FastPathMediumPlan::ComputeAll() const
{
    std::vector<FastPathMediumPair> out;
    FastPathMediumPair p;
    for (uint32_t tx = 0; tx < GetN(); ++tx)
    {
        for (uint32_t rx = 0; rx < GetN(); ++rx)
        {
            if (Compute(tx, rx, &p))
            {
                out.push_back(p);
            }
        }
    }
    return out;
}

std::vector<FastPathMediumPair>
FastPathMediumPlan::ComputeOf(const std::vector<uint32_t>& members) const
{
    std::vector<bool> in(GetN(), false);
    for (uint32_t m : members)
    {
        in.at(m) = true;
    }
    std::vector<FastPathMediumPair> out;
    FastPathMediumPair p;
    for (uint32_t tx = 0; tx < GetN(); ++tx)
    {
        for (uint32_t rx = 0; rx < GetN(); ++rx)
        {
            if ((in[tx] || in[rx]) && Compute(tx, rx, &p))
            {
                out.push_back(p);
            }
        }
    }
    return out;
}

FastPathPairTable::FastPathPairTable(double thresholdDb, int64_t delayThresholdNs)
    : m_thresholdDb(thresholdDb),
      m_delayThresholdNs(delayThresholdNs)
{
}

bool
FastPathPairTable::Changed(const FastPathMediumPair& was, const FastPathMediumPair& now) const
{
    return std::fabs(now.rxPowerDbm - was.rxPowerDbm) >= m_thresholdDb ||
           std::llabs(now.delayNs - was.delayNs) >= m_delayThresholdNs;
}

std::vector<FastPathPairUpdate>
FastPathPairTable::Update(const std::vector<FastPathMediumPair>& now,
                          const std::vector<uint32_t>& scope)
{
    const std::set<uint32_t> in(scope.begin(), scope.end());
    auto inScope = [&](uint32_t tx, uint32_t rx) {
        return in.empty() || in.count(tx) || in.count(rx);
    };
    auto key = [](const FastPathMediumPair& p) { return std::make_pair(p.tx, p.rx); };
    for (size_t i = 0; i < now.size(); ++i)
    {
        NS_ABORT_MSG_IF(!inScope(now[i].tx, now[i].rx),
                        "FastPathPairTable: pair " << now[i].tx << "->" << now[i].rx
                                                   << " is outside the scope of the update");
        NS_ABORT_MSG_IF(i > 0 && !(key(now[i - 1]) < key(now[i])),
                        "FastPathPairTable: the pairs of an update are not ordered by (tx, rx)");
    }
    std::vector<FastPathPairUpdate> out;
    // Both are ordered by (tx, rx): one merge gives the updates in that order.
    auto h = m_handed.begin();
    auto s = now.begin();
    while (h != m_handed.end() || s != now.end())
    {
        if (s == now.end() || (h != m_handed.end() && h->first < key(*s)))
        {
            if (inScope(h->first.first, h->first.second))
            {
                FastPathPairUpdate u;
                u.pair.tx = h->first.first;
                u.pair.rx = h->first.second;
                u.present = false;
                out.push_back(u);
                h = m_handed.erase(h);
            }
            else
            {
                ++h;
            }
        }
        else if (h == m_handed.end() || key(*s) < h->first)
        {
            out.push_back({*s, true});
            m_handed.emplace_hint(h, key(*s), *s);
            ++s;
        }
        else
        {
            if (Changed(h->second, *s))
            {
                out.push_back({*s, true});
                h->second = *s;
            }
            ++h;
            ++s;
        }
    }
    return out;
}

const FastPathMediumPair*
FastPathPairTable::Find(uint32_t tx, uint32_t rx) const
{
    auto it = m_handed.find({tx, rx});
    return it == m_handed.end() ? nullptr : &it->second;
}

std::size_t
FastPathPairTable::GetN() const
{
    return m_handed.size();
}

double
FastPathPairTable::GetThresholdDb() const
{
    return m_thresholdDb;
}

} // namespace ns3
