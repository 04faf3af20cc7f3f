// SPDX-License-Identifier: GPL-2.0-only
// FastPathRealtimeLag without fastpathd: a real-time simulation whose events take longer
// than real time allows is measured behind by about what it lost, and one that keeps up
// is not.
#include "ns3/core-module.h"
#include "ns3/fast-path-realtime-lag.h"

#include <gtest/gtest.h>

#include <chrono>

using namespace ns3;

namespace
{

/// Holds the simulator thread for `ms` of real time, as a control plane short of CPU does.
void
Stall(int ms)
{
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (std::chrono::steady_clock::now() < end)
    {
    }
}

/// 600 ms of real-time simulation probed every 10 ms (late: more than 100 ms); with
/// `stallMs` > 0, one event at 50 ms holds the thread that long.
FastPathRealtimeLag::Summary
RunFor(int stallMs)
{
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::RealtimeSimulatorImpl"));
    FastPathRealtimeLag::Reset();
    FastPathRealtimeLag::Start(MilliSeconds(10), MilliSeconds(100));
    if (stallMs > 0)
    {
        Simulator::Schedule(MilliSeconds(50), &Stall, stallMs);
    }
    Simulator::Stop(MilliSeconds(600));
    Simulator::Run();
    const FastPathRealtimeLag::Summary s = FastPathRealtimeLag::Get();
    Simulator::Destroy();
    FastPathRealtimeLag::Reset();
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
    return s;
}

TEST(FastPathRealtimeLagTest, ASimulatorHeldBackIsMeasuredBehind)
{
    const FastPathRealtimeLag::Summary s = RunFor(400);
    // The probe due at 60 ms runs after the stall ends, at about 450 ms of real time.
    EXPECT_GE(s.maxS, 0.35);
    EXPECT_LT(s.maxS, 2.0);
    EXPECT_GE(s.behindFromS, 0.05);
    EXPECT_LT(s.behindFromS, 0.1);
    EXPECT_GE(s.late, 1u);
    // BestEffort catches up: the probes after the stall run at once until it has.
    EXPECT_GT(s.probes, 50u);
}

TEST(FastPathRealtimeLagTest, ASimulatorThatKeepsUpIsNotBehind)
{
    const FastPathRealtimeLag::Summary s = RunFor(0);
    EXPECT_GT(s.probes, 50u);
    EXPECT_LT(s.maxS, 0.1);
    EXPECT_EQ(s.late, 0u);
    EXPECT_EQ(s.behindFromS, -1);
}

TEST(FastPathRealtimeLagTest, WithoutARealtimeSimulatorNothingIsProbed)
{
    FastPathRealtimeLag::Reset();
    FastPathRealtimeLag::Start(MilliSeconds(10));
    Simulator::Stop(MilliSeconds(100));
    Simulator::Run();
    Simulator::Destroy();
    EXPECT_EQ(FastPathRealtimeLag::Get().probes, 0u);
}

} // namespace
