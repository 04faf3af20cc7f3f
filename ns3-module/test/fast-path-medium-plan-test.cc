// SPDX-License-Identifier: GPL-2.0-only
// FastPathMediumPlan, FastPathPairTable and FastPathMediumFollower without fastpathd: the
// pairs against ns-3's own CalcRxPower and GetDelay (Friis, LogDistance, a chain), the
// sparse table, the thresholds, and batches driven by MobilityModels on the simulated clock.
#include "ns3/constant-position-mobility-model.h"
#include "ns3/constant-velocity-mobility-model.h"
#include "ns3/double.h"
#include "ns3/fast-path-medium-follower.h"
#include "ns3/fast-path-medium-plan.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <iostream>

using namespace ns3;

namespace
{

Ptr<MobilityModel>
At(double x, double y = 0)
{
    Ptr<ConstantPositionMobilityModel> m = CreateObject<ConstantPositionMobilityModel>();
    m->SetPosition(Vector(x, y, 0));
    return m;
}

Ptr<ConstantVelocityMobilityModel>
Moving(double x, double vx)
{
    Ptr<ConstantVelocityMobilityModel> m = CreateObject<ConstantVelocityMobilityModel>();
    m->SetPosition(Vector(x, 0, 0));
    m->SetVelocity(Vector(vx, 0, 0));
    return m;
}

Ptr<PropagationLossModel>
Friis()
{
    Ptr<FriisPropagationLossModel> f = CreateObject<FriisPropagationLossModel>();
    f->SetFrequency(2.412e9);
    return f;
}

/// The distance at which Friis at 2.412 GHz brings `radiatedDbm` down to `dbm`.
double
FriisRange(double radiatedDbm, double dbm)
{
    const double lambda = 299792458.0 / 2.412e9;
    const double lossDb = radiatedDbm - dbm;
    return lambda / (4 * M_PI) * std::pow(10.0, lossDb / 20.0);
}

FastPathRadio
Radio(double txDbm, double sensitivityDbm = -101)
{
    FastPathRadio r;
    r.txPowerDbm = txDbm;
    r.rxSensitivityDbm = sensitivityDbm;
    return r;
}

class FastPathMediumPlanTest : public ::testing::Test
{
  protected:
    void TearDown() override
    {
        Simulator::Destroy();
    }
};

} // namespace

TEST_F(FastPathMediumPlanTest, FriisPairsAreNs3sCalcRxPowerWithTheGains)
{
    Ptr<PropagationLossModel> loss = Friis();
    Ptr<PropagationDelayModel> delay = CreateObject<ConstantSpeedPropagationDelayModel>();
    FastPathMediumPlan plan(loss, delay);
    FastPathRadio a = Radio(7.5);
    a.txGainDb = 2;
    FastPathRadio b = Radio(16);
    b.rxGainDb = 3;
    Ptr<MobilityModel> ma = At(0);
    Ptr<MobilityModel> mb = At(120, 50); // 130 m
    plan.Add(ma, a);
    plan.Add(mb, b);

    FastPathMediumPair ab;
    ASSERT_TRUE(plan.Compute(0, 1, &ab));
    EXPECT_DOUBLE_EQ(ab.rxPowerDbm, loss->CalcRxPower(9.5, ma, mb) + 3);
    EXPECT_EQ(ab.delayNs, delay->GetDelay(ma, mb).GetNanoSeconds());
    EXPECT_NEAR(ab.delayNs, 130.0 / 299792458.0 * 1e9, 1);
    FastPathMediumPair ba;
    ASSERT_TRUE(plan.Compute(1, 0, &ba));
    EXPECT_DOUBLE_EQ(ba.rxPowerDbm, loss->CalcRxPower(16, mb, ma));
    EXPECT_FALSE(plan.Compute(0, 0, &ab));
}

TEST_F(FastPathMediumPlanTest, LogDistanceChainAndTheSparseTable)
{
    // The script's chain as YansWifiChannelHelper builds it: LogDistance then a fixed
    // extra loss; each pair goes through all of it.
    Ptr<LogDistancePropagationLossModel> log = CreateObject<LogDistancePropagationLossModel>();
    log->SetAttribute("Exponent", DoubleValue(3.0));
    Ptr<RangePropagationLossModel> range = CreateObject<RangePropagationLossModel>();
    range->SetAttribute("MaxRange", DoubleValue(250));
    log->SetNext(range);
    FastPathMediumPlan plan(log, nullptr);
    std::vector<Ptr<MobilityModel>> m = {At(0), At(20), At(40), At(300)};
    for (auto& mm : m)
    {
        plan.Add(mm, Radio(16.0206, -85));
    }
    const auto pairs = plan.ComputeAll();
    // Every pair present is ns-3's value; every pair absent is below the sensitivity.
    uint32_t present = 0;
    for (uint32_t tx = 0; tx < 4; ++tx)
    {
        for (uint32_t rx = 0; rx < 4; ++rx)
        {
            if (tx == rx)
            {
                continue;
            }
            const double expected = log->CalcRxPower(16.0206, m[tx], m[rx]);
            auto it = std::find_if(pairs.begin(), pairs.end(), [&](const FastPathMediumPair& p) {
                return p.tx == tx && p.rx == rx;
            });
            if (expected >= -85)
            {
                ASSERT_NE(it, pairs.end()) << tx << "->" << rx;
                EXPECT_DOUBLE_EQ(it->rxPowerDbm, expected);
                EXPECT_EQ(it->delayNs, 0); // no delay model
                ++present;
            }
            else
            {
                EXPECT_EQ(it, pairs.end()) << tx << "->" << rx << " at " << expected << " dBm";
            }
        }
    }
    // LogDistance(3): 85.7 dB at 20 m, 94.7 dB at 40 m (-69.7 and -78.7 dBm); the node at
    // 300 m is beyond the chain's RangePropagationLossModel: 6 pairs of 12.
    EXPECT_EQ(present, 6u);
    EXPECT_EQ(pairs.size(), 6u);
    FastPathMediumPair p;
    EXPECT_FALSE(plan.Compute(0, 3, &p));
}

TEST_F(FastPathMediumPlanTest, SensitivityIsTheReceiversEdgeOfRange)
{
    FastPathMediumPlan plan(Friis(), nullptr);
    const double edge = FriisRange(7.5, -90);
    Ptr<MobilityModel> a = At(0);
    Ptr<MobilityModel> in = At(edge * 0.99);
    Ptr<MobilityModel> out = At(edge * 1.01);
    plan.Add(a, Radio(7.5, -90));
    plan.Add(in, Radio(7.5, -90));
    plan.Add(out, Radio(7.5, -80)); // deafer: hears a only closer
    FastPathMediumPair p;
    EXPECT_TRUE(plan.Compute(0, 1, &p));
    EXPECT_NEAR(p.rxPowerDbm, -90, 0.1);
    EXPECT_FALSE(plan.Compute(0, 2, &p));
    // Its own frames reach a 1 % past a's edge of -90 dBm: out of range too.
    EXPECT_FALSE(plan.Compute(2, 0, &p));
    // 1 and 2 are ~2 % of the edge apart: in range both ways.
    EXPECT_TRUE(plan.Compute(1, 2, &p));
    EXPECT_TRUE(plan.Compute(2, 1, &p));
}

TEST_F(FastPathMediumPlanTest, NoiseFloorIsNs3sThermalNoiseTimesTheNoiseFigure)
{
    FastPathRadio r;
    r.noiseFigureDb = 7;
    r.channelWidthMhz = 22;
    // 1.3803e-23 J/K * 290 K * 20 MHz = 8.006e-14 W = -100.966 dBm; + 7 dB. ns-3 takes
    // 20 MHz for 802.11b's 22 MHz channel (checked against its PHY in
    // fast-path-wifi-helper-test).
    EXPECT_NEAR(r.NoiseFloorDbm(), -93.966, 0.001);
    r.channelWidthMhz = 40;
    EXPECT_NEAR(r.NoiseFloorDbm(), -90.955, 0.001);
    r.channelWidthMhz = 20;
    r.noiseFigureDb = 0;
    EXPECT_NEAR(r.NoiseFloorDbm(), -100.9655, 0.001);
}

TEST_F(FastPathMediumPlanTest, TableHandsNewChangedAndRemovedPairsAgainstWhatWasHanded)
{
    FastPathPairTable t(1.0, 100);
    auto pair = [](uint32_t tx, uint32_t rx, double dbm, int64_t ns = 0) {
        FastPathMediumPair p;
        p.tx = tx;
        p.rx = rx;
        p.rxPowerDbm = dbm;
        p.delayNs = ns;
        return p;
    };
    auto first = t.Update({pair(0, 1, -60), pair(1, 0, -60), pair(1, 2, -70)});
    ASSERT_EQ(first.size(), 3u);
    EXPECT_EQ(t.GetN(), 3u);
    // Under the threshold: nothing.
    EXPECT_TRUE(t.Update({pair(0, 1, -60.6), pair(1, 0, -60.6), pair(1, 2, -70)}).empty());
    // A drift of 0.6 then 0.6 again crosses 1 dB from what was handed: handed once.
    auto drift = t.Update({pair(0, 1, -61.2), pair(1, 0, -60.6), pair(1, 2, -70)});
    ASSERT_EQ(drift.size(), 1u);
    EXPECT_EQ(drift[0].pair.tx, 0u);
    EXPECT_DOUBLE_EQ(drift[0].pair.rxPowerDbm, -61.2);
    EXPECT_DOUBLE_EQ(t.Find(0, 1)->rxPowerDbm, -61.2);
    EXPECT_DOUBLE_EQ(t.Find(1, 0)->rxPowerDbm, -60); // 0.6 dB off: not handed
    // Delay alone beyond its threshold.
    auto late = t.Update({pair(0, 1, -61.2), pair(1, 0, -60, 150), pair(1, 2, -70)});
    ASSERT_EQ(late.size(), 1u);
    EXPECT_EQ(late[0].pair.delayNs, 150);
    // 1 -> 2 leaves range, 2 -> 0 enters: ordered by (tx, rx).
    auto moved = t.Update({pair(0, 1, -61.2), pair(1, 0, -60, 150), pair(2, 0, -80)});
    ASSERT_EQ(moved.size(), 2u);
    EXPECT_EQ(moved[0].pair.tx, 1u);
    EXPECT_EQ(moved[0].pair.rx, 2u);
    EXPECT_FALSE(moved[0].present);
    EXPECT_EQ(moved[1].pair.tx, 2u);
    EXPECT_TRUE(moved[1].present);
    EXPECT_EQ(t.Find(1, 2), nullptr);
}

TEST_F(FastPathMediumPlanTest, TableUpdateOfAScopeLeavesTheOtherPairsAlone)
{
    FastPathPairTable t(1.0);
    std::vector<FastPathMediumPair> all;
    for (uint32_t tx = 0; tx < 3; ++tx)
    {
        for (uint32_t rx = 0; rx < 3; ++rx)
        {
            if (tx != rx)
            {
                all.push_back({tx, rx, -50.0 - tx - rx, 0});
            }
        }
    }
    ASSERT_EQ(t.Update(all).size(), 6u);
    // Member 2 moved out of everyone's range: only its pairs are computed, and removed;
    // 0 <-> 1, absent from this update, stay.
    auto out = t.Update({}, {2});
    ASSERT_EQ(out.size(), 4u);
    for (const auto& u : out)
    {
        EXPECT_FALSE(u.present);
        EXPECT_TRUE(u.pair.tx == 2 || u.pair.rx == 2);
    }
    EXPECT_EQ(t.GetN(), 2u);
    EXPECT_NE(t.Find(0, 1), nullptr);
}

TEST_F(FastPathMediumPlanTest, FollowerHandsBatchesAsNodesMoveOnTheSimulatedClock)
{
    // a stays; b walks away at 20 m/s from 100 m; c stands at 50 m. With Friis from 7.5 dBm
    // and sensitivity -90 dBm, b leaves a's range at FriisRange(7.5, -90).
    FastPathMediumPlan plan(Friis(), CreateObject<ConstantSpeedPropagationDelayModel>());
    Ptr<MobilityModel> a = At(0);
    Ptr<ConstantVelocityMobilityModel> b = Moving(100, 20);
    Ptr<MobilityModel> c = At(0, 50);
    plan.Add(a, Radio(7.5, -90));
    plan.Add(b, Radio(7.5, -90));
    plan.Add(c, Radio(7.5, -90));
    const double edge = FriisRange(7.5, -90);
    const Time leaves = Seconds((edge - 100) / 20);
    ASSERT_GT(leaves, Seconds(1));

    struct Batch
    {
        Time at;
        std::vector<FastPathPairUpdate> updates;
    };
    std::vector<Batch> batches;
    FastPathMediumFollower f(plan, FastPathPairTable(1.0), MilliSeconds(100),
                             [&](const std::vector<FastPathPairUpdate>& u) {
                                 batches.push_back({Simulator::Now(), u});
                             });
    Simulator::Schedule(Seconds(0), [&]() { f.Start(); });
    Simulator::Stop(leaves + Seconds(1));
    Simulator::Run();

    ASSERT_FALSE(batches.empty());
    EXPECT_EQ(batches[0].at, Seconds(0));
    EXPECT_EQ(batches[0].updates.size(), 6u); // all pairs in range at the start
    // Every later batch comes from a sample (b moves between its course changes) and
    // holds only pairs of b; each handed power is ns-3's at that instant.
    Time removedAt = Seconds(-1);
    for (size_t i = 1; i < batches.size(); ++i)
    {
        EXPECT_EQ(batches[i].at.GetMilliSeconds() % 100, 0);
        for (const auto& u : batches[i].updates)
        {
            EXPECT_TRUE(u.pair.tx == 1 || u.pair.rx == 1);
            if (!u.present && u.pair.tx == 0 && u.pair.rx == 1)
            {
                removedAt = batches[i].at;
            }
        }
    }
    // b left a's range within one sample of the computed instant.
    EXPECT_GE(removedAt, leaves);
    EXPECT_LE(removedAt, leaves + MilliSeconds(100));
    // Fewer batches than samples: a pair is handed only after a change of 1 dB.
    EXPECT_LT(batches.size(), static_cast<size_t>((leaves + Seconds(1)).GetMilliSeconds() / 100));
    EXPECT_EQ(f.GetBatches(), batches.size());
    // What the table holds is within 1 dB of ns-3 now for the pairs still in range.
    const FastPathMediumPair* bc = f.GetTable().Find(1, 2);
    if (bc)
    {
        EXPECT_NEAR(bc->rxPowerDbm, Friis()->CalcRxPower(7.5, b, c), 1.0);
    }
}

TEST_F(FastPathMediumPlanTest, CourseChangeIsHandedAtOnceAndStillNodesCostNothing)
{
    FastPathMediumPlan plan(Friis(), nullptr);
    Ptr<MobilityModel> a = At(0);
    Ptr<MobilityModel> b = At(10);
    plan.Add(a, Radio(16));
    plan.Add(b, Radio(16));
    std::vector<Time> at;
    std::vector<size_t> sizes;
    FastPathMediumFollower f(plan, FastPathPairTable(1.0), Seconds(1),
                             [&](const std::vector<FastPathPairUpdate>& u) {
                                 at.push_back(Simulator::Now());
                                 sizes.push_back(u.size());
                             });
    Simulator::Schedule(Seconds(0), [&]() { f.Start(); });
    // A teleport between two samples fires CourseChange: handed in the same instant,
    // both directions in one batch; moving both nodes in one instant is still one batch.
    Simulator::Schedule(MilliSeconds(2500), [&]() { b->SetPosition(Vector(5000, 0, 0)); });
    Simulator::Schedule(MilliSeconds(4200), [&]() {
        a->SetPosition(Vector(4990, 0, 0));
        b->SetPosition(Vector(5010, 0, 0));
    });
    Simulator::Stop(Seconds(6));
    Simulator::Run();
    ASSERT_EQ(at.size(), 3u);
    EXPECT_EQ(at[0], Seconds(0));
    EXPECT_EQ(at[1], MilliSeconds(2500));
    EXPECT_EQ(sizes[1], 2u); // both directions out of range
    EXPECT_EQ(at[2], MilliSeconds(4200));
    EXPECT_EQ(sizes[2], 2u); // back in range, 20 m apart
    ASSERT_NE(f.GetTable().Find(0, 1), nullptr);
    EXPECT_DOUBLE_EQ(f.GetTable().Find(0, 1)->rxPowerDbm, Friis()->CalcRxPower(16, a, b));
    f.Stop();
    // Stopped: a move is not followed any more.
    b->SetPosition(Vector(0, 0, 0));
    EXPECT_EQ(f.GetBatches(), 3u);
}

TEST_F(FastPathMediumPlanTest, TwoHundredMovingNodesSampledAt10HzKeepUpWithRealTime)
{
    // 200 nodes in 1500 x 300 m, each moving at 1-20 m/s (manet-routing-compare's area and
    // speeds, 4x its nodes), Friis from 7.5 dBm, sensitivity -101 dBm: every sample computes
    // all 39,800 pairs (all nodes moved). Emulated, the follower runs in the realtime
    // simulator's thread: 10 s of samples must take well under 10 s of CPU. No delay model,
    // as emulated (fastpathd's pairs have no delay).
    FastPathMediumPlan plan(Friis(), nullptr);
    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    u->SetStream(1);
    for (int i = 0; i < 200; ++i)
    {
        Ptr<ConstantVelocityMobilityModel> m = CreateObject<ConstantVelocityMobilityModel>();
        m->SetPosition(Vector(u->GetValue(0, 300), u->GetValue(0, 1500), 0));
        m->SetVelocity(Vector(u->GetValue(-14, 14), u->GetValue(-14, 14), 0));
        plan.Add(m, Radio(7.5, -101));
    }
    uint64_t pairs = 0;
    FastPathMediumFollower f(plan, FastPathPairTable(1.0), MilliSeconds(100),
                             [&](const std::vector<FastPathPairUpdate>& b) { pairs += b.size(); });
    Simulator::Schedule(Seconds(0), [&]() { f.Start(); });
    Simulator::Stop(Seconds(10));
    const auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout << "[ follower ] 200 moving nodes, 99 samples: " << wall * 1e3 << " ms ("
              << wall * 1e3 / 100 << " ms per sample), " << f.GetBatches() << " batches, " << pairs
              << " pair updates, " << f.GetTable().GetN() << " pairs in range at the end\n";
    // The first, then one per sample until the stop at 10 s: every node moves.
    EXPECT_EQ(f.GetBatches(), 100u);
    EXPECT_GT(f.GetTable().GetN(), 1000u);
    EXPECT_LT(wall, 5.0);
}
