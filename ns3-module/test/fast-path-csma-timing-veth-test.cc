// SPDX-License-Identifier: GPL-2.0-only
// Frames between ns-3 nodes on a CSMA segment arrive at their model time, emulated as
// simulated: the CSMA timing script (three nodes on one 0.5 ms segment, a UDP flow each way
// between two of them) run simulated, then emulated while two CPU hogs (bounded, stopped by
// PID) load the machine. Each packet's one-way delay in simulator time must be the segment
// model's within 1 us, or the receiving device must have counted it late; none may arrive
// early, and most arrive exactly on time (the segment hands them to the timed devices
// ahead of their arrival, so the wake-ups of a loaded machine cost no model time).
#include "fast-path-cpu-hogs.h"
#include "fast-path-script-fixture.h"

#include <iostream>
#include <string>

using namespace fastpath_ns3_test;

namespace
{

const char* kTag = "fpcsmat";

class CsmaTimingTest : public FastPathScriptFixture
{
  protected:
    CsmaTimingTest()
        : FastPathScriptFixture({CSMA_TIMING_SCRIPT_BIN,
                                 "fast-path-csma-timing-script",
                                 "csma-timing",
                                 "fpc",
                                 "/tmp/fp-ns3-csma-timing-XXXXXX",
                                 kTag,
                                 {"--packets=300"}})
    {
    }

    void TearDown() override
    {
        hogs_.Stop();
        FastPathScriptFixture::TearDown();
    }

    CpuHogs hogs_;
};

TEST_F(CsmaTimingTest, EverySegmentFrameArrivesAtItsModelTimeOrIsCountedLate)
{
    auto sim = RunScript({"--FastPathEmulation=0"}, nullptr);
    ASSERT_EQ(sim["emulated"], "0");
    EXPECT_EQ(Num(sim, "udp_received"), 600);
    EXPECT_EQ(Num(sim, "warmup"), 8);
    EXPECT_EQ(Num(sim, "exact"), 592) << "the script's model delay is the simulated one";

    ASSERT_NO_FATAL_FAILURE(StartFastpathd());
    ASSERT_NO_FATAL_FAILURE(hogs_.Start(2));
    auto emu = RunScript({"--FastPathEmulation=1", "--FastPathSocket=" + sock_,
                          std::string("--FastPathTag=") + kTag},
                         nullptr);
    hogs_.Stop();
    ASSERT_EQ(emu["emulated"], "1");
    EXPECT_EQ(emu["timed"], "1") << "the devices' channels are timed";
    const double received = Num(emu, "udp_received");
    EXPECT_GE(received, 594) << "at most 1 % lost";
    EXPECT_EQ(Num(emu, "early"), 0) << "no frame arrives before its model time";
    EXPECT_EQ(Num(emu, "exact") + Num(emu, "late") + Num(emu, "warmup"), received);
    EXPECT_LE(Num(emu, "late"), Num(emu, "device_late"))
        << "every frame later than its model time was counted late by its device";
    // Untimed delivery puts no frame within 1 us of its model time (every one waits for
    // wake-ups); how many the lead covers depends on the load, so the bound is loose.
    EXPECT_GE(Num(emu, "exact"), 0.2 * received) << "the lead covers wake-ups on a loaded machine";
    std::cout << "[ csma timing ] emulated under 2 hogs: " << emu["udp_received"]
              << " received, " << emu["exact"] << " at their model time, " << emu["late"]
              << " late (max " << emu["max_late_us"] << " us), devices: " << emu["device_on_time"]
              << " on time, " << emu["device_late"] << " late (max " << emu["device_max_late_us"]
              << " us)\n";
}

} // namespace
