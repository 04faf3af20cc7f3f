// SPDX-License-Identifier: GPL-2.0-only
// Frames between two ns-3 nodes arrive at their model time, emulated as simulated: the
// timing script (two nodes, one 2 ms point-to-point link, a UDP flow each way) run
// simulated, then emulated while two CPU hogs (bounded, stopped by PID) load the machine.
// Each packet's one-way delay in simulator time must be the link model's within 1 us, or
// the receiving device must have counted it late; none may arrive early.
#include "fast-path-cpu-hogs.h"
#include "fast-path-script-fixture.h"

#include <iostream>
#include <string>

using namespace fastpath_ns3_test;

namespace
{

const char* kTag = "fptiming";

class TimingTest : public FastPathScriptFixture
{
  protected:
    TimingTest()
        : FastPathScriptFixture({TIMING_SCRIPT_BIN,
                                 "fast-path-timing-script",
                                 "timing",
                                 "fpt",
                                 "/tmp/fp-ns3-timing-XXXXXX",
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

TEST_F(TimingTest, EveryFrameArrivesAtItsModelTimeOrIsCountedLate)
{
    auto sim = RunScript({"--FastPathEmulation=0"}, nullptr);
    ASSERT_EQ(sim["emulated"], "0");
    EXPECT_EQ(Num(sim, "udp_received"), 600);
    EXPECT_EQ(Num(sim, "exact"), 600) << "the script's model delay is the simulated one";

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
    EXPECT_EQ(Num(emu, "exact") + Num(emu, "late"), received);
    EXPECT_LE(Num(emu, "late"), Num(emu, "device_late"))
        << "every frame later than its model time was counted late by its device";
    // Untimed delivery puts no frame within 1 us of its model time (every one waits for
    // wake-ups); how many the lead covers depends on the load, so the bound is loose.
    EXPECT_GE(Num(emu, "exact"), 0.2 * received) << "the lead covers wake-ups on a loaded machine";
    std::cout << "[ timing ] emulated under 2 hogs: " << emu["udp_received"] << " received, "
              << emu["exact"] << " at their model time, " << emu["late"] << " late (max "
              << emu["max_late_us"] << " us), devices: " << emu["device_on_time"]
              << " on time, " << emu["device_late"] << " late (max " << emu["device_max_late_us"]
              << " us)\n";
}

} // namespace
