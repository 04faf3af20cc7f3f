// SPDX-License-Identifier: GPL-2.0-only
// FastPathRealtimeSimulatorImpl: the realtime simulator of an emulated run, whose clock
// starts once the emulation is set up.
#pragma once

#include "ns3/realtime-simulator-impl.h"

#include <atomic>
#include <functional>
#include <vector>

namespace ns3
{

/**
 * \ingroup fastpath
 * \brief The realtime simulator of an emulated run: its clock starts when the emulation is
 * ready, and in a run of several processes it runs only this process's nodes.
 *
 * ns-3's RealtimeSimulatorImpl starts its clock when Run() is called, and the first events
 * of time 0 are then the emulation's own setup: the control rules, the route mirrors' first
 * pushes, the links' parameters, a few milliseconds of exchanges with fastpathd for a
 * handful of nodes (more for more). Run as events, that setup would leave the simulator
 * behind real time from its start, and the frames the script sends at time 0 (an
 * application started at 0, a routing protocol's first hello) would reach fastpathd late
 * and arrive late. Work given to RunBeforeClock() runs instead in Run() before the clock
 * starts, in the order given (work it adds runs too, after it); Simulator::Now() is 0
 * meanwhile.
 *
 * With the attribute Partitioned (a run of several processes), its work also places the
 * nodes (SetLocalNodes()); an event whose context is another process's node never runs
 * (Node::Initialize, hence the node's routing timers and applications, included). Events
 * scheduled before the placement (ns-3 schedules each node's initialization when the node
 * is created) are checked when they are due; later ones are dropped when scheduled. Each
 * is counted (GetInertEvents()). Events without a node (Simulator::NO_CONTEXT: the
 * script's own global events) and of this process's nodes run as usual.
 *
 * FastPathEmulation selects it (SimulatorImplementationType) when set.
 */
class FastPathRealtimeSimulatorImpl : public RealtimeSimulatorImpl
{
  public:
    static TypeId GetTypeId();
    void Run() override;

    /// Runs `work` before the clock of the current simulator starts, if that simulator is
    /// this one and its clock has not started yet (true); otherwise does nothing (false:
    /// the caller schedules the work as an event of its own).
    static bool RunBeforeClock(std::function<void()> work);
    /// Runs `work` before the clock starts where it can (RunBeforeClock), else in an event
    /// now (Simulator::ScheduleNow).
    static void RunBeforeClockOrNow(std::function<void()> work);

    /// Which nodes (by id, the events' context) this process runs. Set before the clock
    /// starts (its work does); empty = every node.
    void SetLocalNodes(std::function<bool(uint32_t)> isLocal);
    /// Events of other processes' nodes that were dropped instead of run.
    uint64_t GetInertEvents() const;
    /// Does the context belong to this process (always, without SetLocalNodes())?
    bool IsLocalContext(uint32_t context) const;
    void ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event) override;

  private:
    /// An event scheduled before SetLocalNodes(): runs the event if its node is local.
    class DueCheck;
    bool m_partitioned = true; //!< attribute Partitioned: nodes are placed when Run() starts
    bool m_clockStarted = false;
    std::vector<std::function<void()>> m_beforeClock;
    std::function<bool(uint32_t)> m_isLocal;
    std::atomic<uint64_t> m_inertEvents{0};
};

} // namespace ns3
