// SPDX-License-Identifier: GPL-2.0-only
// FastPathRealtimeSimulatorImpl's inert nodes: the events of nodes another process runs are
// dropped (and counted) instead of run.
#include "fast-path-ranks.h"

#include "ns3/event-impl.h"
#include "ns3/simulator.h"

namespace ns3
{

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
    if (!m_isLocal)
    {
        // Not placed yet (ns-3 schedules each node's Initialize as the script creates it):
        // decided when due, after the placement.
        RealtimeSimulatorImpl::ScheduleWithContext(context,
                                                   delay,
                                                   new DueCheck(this, context, event));
        return;
    }
    if (!m_isLocal(context))
    {
        // The caller handed over its reference: dropping it frees the event.
        event->Unref();
        ++m_inertEvents;
        return;
    }
    RealtimeSimulatorImpl::ScheduleWithContext(context, delay, event);
}

} // namespace ns3
