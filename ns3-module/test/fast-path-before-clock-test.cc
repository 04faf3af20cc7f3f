// SPDX-License-Identifier: GPL-2.0-only
// The emulation's setup before the simulator's clock starts (FastPathRealtimeSimulatorImpl):
// work given to RunBeforeClock runs in Simulator::Run() first, in the order given (work it
// adds after it), at simulated time 0 and before every event of time 0; once the clock runs,
// or under another simulator, it is refused. And what the emulating helpers hand fastpathd
// (a link's parameters with the queue disc the script installed after the devices) is there
// when the script's first event of time 0 runs. Against fastpathd's control server over an
// in-memory network (no fastpathd, no privileges).
#include "fast-path-in-memory-fixture.h"

#include "ns3/core-module.h"
#include "ns3/fast-path-point-to-point-helper.h"
#include "ns3/fast-path-realtime-simulator-impl.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"

#include "fastpath/ctrl/client.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Runs the current simulator for 2 ms and destroys it, the simulator type put back.
void
RunBriefly()
{
    Simulator::Stop(MilliSeconds(2));
    Simulator::Run();
    Simulator::Destroy();
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
}

TEST(FastPathBeforeClockTest, WorkRunsInOrderBeforeEveryEventOfTimeZero)
{
    GlobalValue::Bind("SimulatorImplementationType",
                      StringValue("ns3::FastPathRealtimeSimulatorImpl"));
    std::vector<std::string> order;
    Simulator::Schedule(Seconds(0), [&order]() { order.push_back("event of time 0"); });
    bool refusedOnceRunning = false;
    Simulator::Schedule(MilliSeconds(1), [&]() {
        refusedOnceRunning =
            !FastPathRealtimeSimulatorImpl::RunBeforeClock([&order]() { order.push_back("late"); });
    });
    EXPECT_TRUE(FastPathRealtimeSimulatorImpl::RunBeforeClock([&order]() {
        order.push_back("first at " + std::to_string(Simulator::Now().GetNanoSeconds()));
        FastPathRealtimeSimulatorImpl::RunBeforeClock(
            [&order]() { order.push_back("added by the first"); });
    }));
    EXPECT_TRUE(
        FastPathRealtimeSimulatorImpl::RunBeforeClock([&order]() { order.push_back("second"); }));
    EXPECT_TRUE(order.empty()) << "work ran before Simulator::Run()";
    RunBriefly();
    EXPECT_EQ(order,
              (std::vector<std::string>{"first at 0",
                                        "second",
                                        "added by the first",
                                        "event of time 0"}));
    EXPECT_TRUE(refusedOnceRunning);
}

TEST(FastPathBeforeClockTest, AnotherSimulatorRunsNoWorkBeforeItsClock)
{
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::RealtimeSimulatorImpl"));
    bool ran = false;
    EXPECT_FALSE(FastPathRealtimeSimulatorImpl::RunBeforeClock([&ran]() { ran = true; }));
    RunBriefly();
    EXPECT_FALSE(ran);
}

class BeforeClockTest : public fastpath_ns3_test::InMemoryEmulationTest
{
  protected:
    BeforeClockTest()
        : InMemoryEmulationTest("clock")
    {
    }
};

// The script's first event of time 0, scheduled before anything is attached, asks fastpathd
// for the link: its parameters already carry the FqCoDelQueueDisc the script's address
// assignment installed after the devices (pushed before the clock; as an event of time 0,
// that push came after the script's event, and the simulator's clock was running meanwhile).
TEST_F(BeforeClockTest, TheLinksParametersAreInFastpathdAtTheScriptsFirstEvent)
{
    Emulate(true);
    std::string name;
    bool found = false;
    fastpath::LinkParams seen;
    Simulator::Schedule(Seconds(0), [&]() {
        auto c = fastpath::ctrl::Client::connect(server_.SocketPath());
        ASSERT_TRUE(c.ok() && c.value()->hello("test").ok());
        auto links = c.value()->links();
        ASSERT_TRUE(links.ok()) << links.error().message;
        for (const auto& l : links.value())
        {
            if (l.name == name)
            {
                found = true;
                seen = l.a_to_b;
            }
        }
    });
    NodeContainer nodes;
    nodes.Create(2);
    InternetStackHelper().Install(nodes);
    FastPathPointToPointHelper p2p;
    NetDeviceContainer link = p2p.Install(nodes.Get(0), nodes.Get(1));
    Ipv4AddressHelper("198.18.9.0", "255.255.255.0").Assign(link);
    name = FastPathPointToPointHelper::GetFastPathLinkName(link.Get(0));
    Simulator::Stop(MilliSeconds(2));
    Simulator::Run();

    ASSERT_TRUE(found) << "no link " << name;
    EXPECT_EQ(seen.aqm, fastpath::LinkParams::Aqm::kFqCoDel)
        << "the link's queue discipline when the script's first event ran: " << int(seen.aqm);
}

} // namespace
