// SPDX-License-Identifier: GPL-2.0-only
// Frames between ns-3 nodes arrive at their model time, emulated as simulated: the timing
// script (fast-path-timing-script.cc) run simulated, then emulated while two CPU hogs
// (bounded, stopped by PID) load the machine, on each of its channels:
// - TimingTest: two nodes, one 2 ms point-to-point link, a UDP flow each way;
// - CsmaTimingTest: three nodes on one 0.5 ms CSMA segment, a UDP flow each way between two
//   of them; the segment hands frames to the timed devices ahead of their arrival, so the
//   wake-ups of a loaded machine cost no model time.
// Each packet's one-way delay in simulator time must be the channel model's within 1 us, or
// the receiving device must have counted it late; none may arrive early.
#include "fast-path-cpu-hogs.h"
#include "fast-path-script-fixture.h"

#include <iostream>
#include <string>

using namespace fastpath_ns3_test;

namespace
{

// The script on one channel, with two CPU hogs for the emulated run.
class TimedChannelTest : public FastPathScriptFixture
{
  protected:
    TimedChannelTest(const std::string& channel,
                     const std::string& file,
                     const std::string& topology,
                     const std::string& tag)
        : FastPathScriptFixture({TIMING_SCRIPT_BIN,
                                 "fast-path-timing-script --channel=" + channel,
                                 file,
                                 topology,
                                 "/tmp/fp-ns3-" + file + "-XXXXXX",
                                 tag,
                                 {"--channel=" + channel, "--packets=300"}}),
          tag_(tag)
    {
    }

    void TearDown() override
    {
        hogs_.Stop();
        FastPathScriptFixture::TearDown();
    }

    /// The script emulated (fastpathd and the hogs started); stops the hogs.
    std::map<std::string, std::string> RunEmulated()
    {
        auto emu = RunScript({"--FastPathEmulation=1", "--FastPathSocket=" + sock_,
                              "--FastPathTag=" + tag_},
                             nullptr);
        hogs_.Stop();
        return emu;
    }

    /// What both channels' emulated runs must show; `warmup` packets waited for ARP too.
    void ExpectTimedDelivery(std::map<std::string, std::string>& emu, double warmup)
    {
        ASSERT_EQ(emu["emulated"], "1");
        EXPECT_EQ(emu["timed"], "1") << "the devices' channels are timed";
        const double received = Num(emu, "udp_received");
        EXPECT_GE(received, 594) << "at most 1 % lost";
        EXPECT_EQ(Num(emu, "early"), 0) << "no frame arrives before its model time";
        EXPECT_EQ(Num(emu, "exact") + Num(emu, "late") + warmup, received);
        EXPECT_LE(Num(emu, "late"), Num(emu, "device_late"))
            << "every frame later than its model time was counted late by its device; late "
               "(seq@sent:+ns):"
            << emu["late_frames"];
        // Untimed delivery puts no frame within 1 us of its model time (every one waits for
        // wake-ups); how many the lead covers depends on the load, so the bound is loose.
        EXPECT_GE(Num(emu, "exact"), 0.2 * received)
            << "the lead covers wake-ups on a loaded machine";
    }

    static void Print(const char* what, std::map<std::string, std::string>& emu)
    {
        std::cout << "[ " << what << " ] emulated under 2 hogs: " << emu["udp_received"]
                  << " received, " << emu["exact"] << " at their model time, " << emu["late"]
                  << " late (max " << emu["max_late_us"] << " us), devices: "
                  << emu["device_on_time"] << " on time, " << emu["device_late"]
                  << " late (max " << emu["device_max_late_us"] << " us)\n";
    }

    CpuHogs hogs_;
    std::string tag_;
};

class TimingTest : public TimedChannelTest
{
  protected:
    TimingTest()
        : TimedChannelTest("p2p", "timing", "fpt", "fptiming")
    {
    }
};

class CsmaTimingTest : public TimedChannelTest
{
  protected:
    CsmaTimingTest()
        : TimedChannelTest("csma", "csma-timing", "fpc", "fpcsmat")
    {
    }
};

TEST_F(TimingTest, EveryFrameArrivesAtItsModelTimeOrIsCountedLate)
{
    auto sim = RunScript({"--FastPathEmulation=0"}, nullptr);
    ASSERT_EQ(sim["emulated"], "0");
    EXPECT_EQ(Num(sim, "udp_received"), 600);
    EXPECT_EQ(Num(sim, "exact"), 600) << "the script's model delay is the simulated one";

    ASSERT_NO_FATAL_FAILURE(StartFastpathd());
    ASSERT_NO_FATAL_FAILURE(hogs_.Start(2));
    auto emu = RunEmulated();
    ASSERT_NO_FATAL_FAILURE(ExpectTimedDelivery(emu, 0));
    Print("timing", emu);
}

TEST_F(CsmaTimingTest, EverySegmentFrameArrivesAtItsModelTimeOrIsCountedLate)
{
    auto sim = RunScript({"--FastPathEmulation=0"}, nullptr);
    ASSERT_EQ(sim["emulated"], "0");
    EXPECT_EQ(Num(sim, "udp_received"), 600);
    EXPECT_EQ(Num(sim, "warmup"), 8);
    EXPECT_EQ(Num(sim, "exact"), 592) << "the script's model delay is the simulated one";

    ASSERT_NO_FATAL_FAILURE(StartFastpathd());
    ASSERT_NO_FATAL_FAILURE(hogs_.Start(2));
    auto emu = RunEmulated();
    ASSERT_NO_FATAL_FAILURE(ExpectTimedDelivery(emu, Num(emu, "warmup")));
    Print("csma timing", emu);
}

} // namespace
