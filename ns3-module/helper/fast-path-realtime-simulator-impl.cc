// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-realtime-simulator-impl.h"

#include "ns3/boolean.h"
#include "ns3/event-impl.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FastPathRealtimeSimulatorImpl);

TypeId
FastPathRealtimeSimulatorImpl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FastPathRealtimeSimulatorImpl")
            .SetParent<RealtimeSimulatorImpl>()
            .SetGroupName("FastPath")
            .AddConstructor<FastPathRealtimeSimulatorImpl>()
            .AddAttribute("Partitioned",
                          "The run has several processes: the nodes are placed when Run() "
                          "starts, and until then every event of a node is checked when due.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FastPathRealtimeSimulatorImpl::m_partitioned),
                          MakeBooleanChecker());
    return tid;
}

void
FastPathRealtimeSimulatorImpl::Run()
{
    // By index: work may add work, which runs after it.
    for (size_t i = 0; i < m_beforeClock.size(); ++i)
    {
        std::function<void()> work = std::move(m_beforeClock[i]);
        work();
    }
    m_beforeClock.clear();
    m_clockStarted = true;
    RealtimeSimulatorImpl::Run();
}

bool
FastPathRealtimeSimulatorImpl::RunBeforeClock(std::function<void()> work)
{
    auto sim = DynamicCast<FastPathRealtimeSimulatorImpl>(Simulator::GetImplementation());
    if (!sim || sim->m_clockStarted)
    {
        return false;
    }
    sim->m_beforeClock.push_back(std::move(work));
    return true;
}

void
FastPathRealtimeSimulatorImpl::RunBeforeClockOrNow(std::function<void()> work)
{
    if (!RunBeforeClock(work))
    {
        Simulator::ScheduleNow(work);
    }
}

/// Holds an event whose node was not placed yet when it was scheduled; when due, the event
/// runs if the node is this process's by then, and is counted as inert otherwise.
class FastPathRealtimeSimulatorImpl::DueCheck : public EventImpl
{
  public:
    DueCheck(FastPathRealtimeSimulatorImpl* sim, uint32_t context, EventImpl* event)
        : m_sim(sim),
          m_context(context),
          m_event(event)
    {
    }

    ~DueCheck() override
    {
        m_event->Unref();
    }

  protected:
    void Notify() override
    {
        if (m_sim->IsLocalContext(m_context))
        {
            m_event->Invoke();
            return;
        }
        ++m_sim->m_inertEvents;
    }

  private:
    FastPathRealtimeSimulatorImpl* m_sim;
    uint32_t m_context;
    EventImpl* m_event; //!< owned (one reference)
};

void
FastPathRealtimeSimulatorImpl::SetLocalNodes(std::function<bool(uint32_t)> isLocal)
{
    m_isLocal = std::move(isLocal);
}

uint64_t
FastPathRealtimeSimulatorImpl::GetInertEvents() const
{
    return m_inertEvents.load();
}

bool
FastPathRealtimeSimulatorImpl::IsLocalContext(uint32_t context) const
{
    return context == Simulator::NO_CONTEXT || !m_isLocal || m_isLocal(context);
}

void
FastPathRealtimeSimulatorImpl::ScheduleWithContext(uint32_t context,
                                                   const Time& delay,
                                                   EventImpl* event)
{
    if (context == Simulator::NO_CONTEXT)
    {
        RealtimeSimulatorImpl::ScheduleWithContext(context, delay, event);
        return;
    }
    if (!m_isLocal && m_partitioned)
    {
        // Not placed yet (ns-3 schedules each node's Initialize as the script creates it):
        // decided when due, after the placement.
        RealtimeSimulatorImpl::ScheduleWithContext(context,
                                                   delay,
                                                   new DueCheck(this, context, event));
        return;
    }
    if (m_isLocal && !m_isLocal(context))
    {
        // The caller handed over its reference: dropping it frees the event.
        event->Unref();
        ++m_inertEvents;
        return;
    }
    RealtimeSimulatorImpl::ScheduleWithContext(context, delay, event);
}

} // namespace ns3
