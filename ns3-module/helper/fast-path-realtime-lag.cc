// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-realtime-lag.h"

#include "ns3/realtime-simulator-impl.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <iomanip>
#include <iostream>

namespace ns3
{

namespace
{

struct LagState
{
    FastPathRealtimeLag::Summary summary;
    Time interval;
    Time warnAbove;
    uint64_t generation = 0; //!< Reset() orphans the probes of an earlier run
    bool running = false;
};

LagState&
State()
{
    static LagState s;
    return s;
}

void
Probe(uint64_t generation)
{
    LagState& s = State();
    if (generation != s.generation)
    {
        return;
    }
    auto sim = DynamicCast<RealtimeSimulatorImpl>(Simulator::GetImplementation());
    if (!sim)
    {
        return;
    }
    const Time now = Simulator::Now();
    const double late = std::max(0.0, (sim->RealtimeNow() - now).GetSeconds());
    FastPathRealtimeLag::Summary& m = s.summary;
    ++m.probes;
    m.lastS = late;
    m.maxS = std::max(m.maxS, late);
    if (late > s.warnAbove.GetSeconds())
    {
        ++m.late;
        if (m.behindFromS < 0)
        {
            m.behindFromS = now.GetSeconds();
            std::clog << std::fixed << std::setprecision(2)
                      << "fastpath: warning: this process's simulator runs " << late
                      << " s behind real time at " << now.GetSeconds()
                      << " s: its nodes' timers fire late and the frames they receive wait, "
                         "so protocol hold times expire early; it needs more CPU than it "
                         "gets (run fewer nodes per process: more processes on more cores "
                         "or hosts)"
                      << std::defaultfloat << std::endl;
        }
    }
    Simulator::Schedule(s.interval, &Probe, generation);
}

} // namespace

void
FastPathRealtimeLag::Start(Time interval, Time warnAbove)
{
    LagState& s = State();
    if (s.running || !DynamicCast<RealtimeSimulatorImpl>(Simulator::GetImplementation()))
    {
        return;
    }
    s.running = true;
    s.interval = interval;
    s.warnAbove = warnAbove;
    Simulator::Schedule(interval, &Probe, s.generation);
}

FastPathRealtimeLag::Summary
FastPathRealtimeLag::Get()
{
    return State().summary;
}

void
FastPathRealtimeLag::Reset()
{
    LagState& s = State();
    ++s.generation;
    s.summary = Summary{};
    s.running = false;
}

} // namespace ns3
