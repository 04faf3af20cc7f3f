// SPDX-License-Identifier: GPL-2.0-only
// FastPathRealtimeLag: how far a real-time simulation runs behind the wall clock.
#pragma once

#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup fastpath
 * \brief Measures how late a real-time simulation runs its events.
 *
 * A real-time simulator runs each event when the wall clock reaches the event's time; a
 * process that needs more CPU than it gets runs them later and later (ns-3's default
 * BestEffort synchronization never catches up by skipping work). Its nodes' protocol timers
 * then fire late while the frames they receive are stamped with the real time, so a
 * protocol's hold times expire before the messages that would refresh them are processed
 * (OLSR's neighbour hold time is three HELLO intervals): routes flap or never form.
 *
 * Start() schedules a probe event (no node's context) every `interval`; each compares the
 * simulation time it was scheduled for with the real time it runs at. The first probe
 * more than `warnAbove` late prints one line on std::clog, as fastpathd warns when its
 * link emulation falls behind; Get() gives the whole run's figures. FastPathEmulation
 * starts it in every emulated run; a script may start it itself (any realtime simulator).
 */
class FastPathRealtimeLag
{
  public:
    /// The run's figures so far.
    struct Summary
    {
        uint64_t probes = 0;     //!< probes run
        uint64_t late = 0;       //!< probes more than warnAbove late
        double maxS = 0;         //!< largest lateness of a probe, seconds
        double lastS = 0;        //!< lateness of the latest probe, seconds
        double behindFromS = -1; //!< simulation time of the first late probe (-1: none)
    };

    /// Starts probing now (a second call while it probes does nothing). Needs
    /// ns3::RealtimeSimulatorImpl or a subclass; with another simulator it does nothing.
    static void Start(Time interval = MilliSeconds(100), Time warnAbove = MilliSeconds(500));
    static Summary Get();
    /// Forgets the figures and stops the probe (the next Start() starts afresh; for tests).
    static void Reset();
};

} // namespace ns3
