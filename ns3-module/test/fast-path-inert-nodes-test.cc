// SPDX-License-Identifier: GPL-2.0-only
// FastPathRealtimeSimulatorImpl's inert nodes without fastpathd: once the simulator knows
// this process's nodes, the events of the others never run (their initialization and
// applications included, whether scheduled before or after), the script's global events
// and this process's nodes' events do, and every dropped event is counted.
#include "ns3/core-module.h"
#include "ns3/fast-path-ranks.h"
#include "ns3/network-module.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace ns3;

namespace
{

std::set<std::string> g_ran;

void
Ran(std::string what)
{
    g_ran.insert(what);
}

/// Records that it started, and on which node.
class StartRecorder : public Application
{
  private:
    void StartApplication() override
    {
        Ran("app" + std::to_string(GetNode()->GetId()));
        // Follows the node's context: runs (or not) as the node does.
        Simulator::Schedule(MilliSeconds(1), &Ran, "app-timer" + std::to_string(GetNode()->GetId()));
    }
};

/// Three nodes, an application on each, events with each node's context scheduled before
/// and after the placement, and a global event; `local` (empty: no placement) says which
/// node ids are this process's. Returns the simulator's count of inert events.
uint64_t
RunThreeNodes(std::function<bool(uint32_t)> local)
{
    g_ran.clear();
    GlobalValue::Bind("SimulatorImplementationType",
                      StringValue("ns3::FastPathRealtimeSimulatorImpl"));
    NodeContainer nodes;
    nodes.Create(3);
    for (uint32_t i = 0; i < 3; ++i)
    {
        Ptr<StartRecorder> app = CreateObject<StartRecorder>();
        app->SetStartTime(MilliSeconds(2));
        nodes.Get(i)->AddApplication(app);
        const uint32_t id = nodes.Get(i)->GetId();
        Simulator::ScheduleWithContext(id, MilliSeconds(3), &Ran, "before" + std::to_string(i));
    }
    // The script's own event: no node, runs in every process; it schedules the nodes' work
    // after the placement.
    Simulator::Schedule(MilliSeconds(5), [nodes]() {
        Ran("global");
        for (uint32_t i = 0; i < 3; ++i)
        {
            Simulator::ScheduleWithContext(nodes.Get(i)->GetId(),
                                           MilliSeconds(1),
                                           &Ran,
                                           "after" + std::to_string(i));
        }
    });
    Ptr<FastPathRealtimeSimulatorImpl> sim =
        DynamicCast<FastPathRealtimeSimulatorImpl>(Simulator::GetImplementation());
    EXPECT_TRUE(sim);
    if (local)
    {
        const uint32_t first = nodes.Get(0)->GetId();
        EXPECT_TRUE(FastPathRealtimeSimulatorImpl::RunBeforeClock(
            [sim, local, first]() { sim->SetLocalNodes([local, first](uint32_t id) {
                                        return local(id - first);
                                    }); }));
    }
    Simulator::Stop(MilliSeconds(20));
    Simulator::Run();
    const uint64_t inert = sim->GetInertEvents();
    Simulator::Destroy();
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
    return inert;
}

TEST(FastPathInertNodesTest, EventsOfOtherProcessesNodesNeverRun)
{
    // Node 1 is this process's; nodes 0 and 2 another's.
    const uint64_t inert = RunThreeNodes([](uint32_t i) { return i == 1; });
    EXPECT_EQ(g_ran,
              (std::set<std::string>{"app1", "app-timer1", "before1", "after1", "global"}));
    // Per foreign node: the initializations ns-3 scheduled as the script built it (the
    // node's, the application's by AddApplication) and the event before the placement,
    // dropped when due; the event after, dropped when scheduled.
    EXPECT_EQ(inert, 2u * 4u);
}

TEST(FastPathInertNodesTest, WithoutAPlacementEveryNodeRuns)
{
    const uint64_t inert = RunThreeNodes(nullptr);
    EXPECT_EQ(g_ran.size(), 3u * 4u + 1u);
    EXPECT_EQ(g_ran.count("app-timer2"), 1u);
    EXPECT_EQ(inert, 0u);
}

TEST(FastPathInertNodesTest, EveryNodeLocalDropsNothing)
{
    const uint64_t inert = RunThreeNodes([](uint32_t) { return true; });
    EXPECT_EQ(g_ran.size(), 3u * 4u + 1u);
    EXPECT_EQ(inert, 0u);
}

} // namespace
