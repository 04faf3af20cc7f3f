// SPDX-License-Identifier: GPL-2.0-only
// FastPathTraceTaps: pcap and ascii tracing of emulated devices. Each traced device's
// fastpathd port is tapped (a capture on its own connection), the captured frames are
// batched into the simulation and written by the device's FastPathTraceWriter with the
// time they were seen at the port, mapped onto the simulator's clock.
#pragma once

#include "ns3/net-device.h"
#include "ns3/output-stream-wrapper.h"
#include "ns3/type-id.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup fastpath
 * \brief The tracing helpers' path for emulated devices.
 *
 * EnablePcap and EnableAscii of FastPathPointToPointHelper and FastPathCsmaHelper end here
 * for an emulated device: the file gets the name PcapHelper and AsciiTraceHelper give the
 * simulated device (prefix-NODE-DEVICE.pcap / .tr, from the emulated device's node and
 * index, or its Names), and the frames fastpathd carries on the device's port.
 *
 * The port is tapped from the call on (from time 0 in a run of several processes, for this
 * process's nodes), through a connection of its own to fastpathd. A reader thread takes the
 * taps' batches as fastpathd streams them and hands them to the simulation (one event per
 * batch or run of batches); there each frame is written with the time fastpathd saw it at the
 * port, on the simulator's clock (realtime: the wall clock of time 0 plus the simulated
 * time). Frames within one hand-over are written in time order.
 *
 * A tap never slows forwarding: when the simulation reads too slowly, fastpathd's capture
 * ring (4096 frames per worker and tap) overflows and the frames it could not copy are
 * counted (GetCounters().droppedReaderSlow; a warning at the end names them). At
 * Simulator::Destroy the taps are stopped, their last frames written (those seen after the
 * simulation's last event are counted, not written), and the files closed.
 */
class FastPathTraceTaps
{
  public:
    /// If `nd` is an emulated device whose stand-in is a `deviceType`
    /// (ns3::PointToPointNetDevice or ns3::CsmaNetDevice): opens its pcap file and taps its
    /// port, and returns true. False for any other device (the caller's own path).
    /// `who` names the call in a refusal (a device that cannot be tapped).
    static bool EnablePcap(const std::string& who,
                           Ptr<NetDevice> nd,
                           TypeId deviceType,
                           const std::string& prefix,
                           bool promiscuous,
                           bool explicitFilename);
    /// The same for ascii tracing: into `stream` with context when it is set, else into
    /// the device's own file named from `prefix`.
    static bool EnableAscii(const std::string& who,
                            Ptr<NetDevice> nd,
                            TypeId deviceType,
                            Ptr<OutputStreamWrapper> stream,
                            const std::string& prefix,
                            bool explicitFilename);

    /// Taps each emulated device that has a sink on a trace source the taps feed (a
    /// script's Config::Connect, or a sink on the TxQueue GetQueue() returns) and no tap
    /// yet (FastPathDeviceTraces::Unobserved()), writing no file, so that those sources
    /// follow the frames fastpathd carries. The emulation calls it at time 0, before it
    /// checks the trace sources.
    static void ObserveConnected();

    /// What the taps of the current (or last) emulated simulation handled.
    struct Counters
    {
        uint64_t devices = 0;            //!< devices tapped
        uint64_t frames = 0;             //!< frames fastpathd handed over
        uint64_t written = 0;            //!< frames written to the files
        uint64_t unrepresentable = 0;    //!< no counterpart on the device (ARP on PPP)
        uint64_t outsideRun = 0;         //!< seen before time 0 or after the last event
        uint64_t droppedReaderSlow = 0;  //!< not copied by fastpathd: its ring was full
    };
    static Counters GetCounters();
};

} // namespace ns3
