// SPDX-License-Identifier: GPL-2.0-only
// What the timing scripts count and report: each UDP packet's one-way delay in simulator
// time (server Rx time minus the client's SeqTs stamp) against the channel model's, within
// 1 us (exact), before it (early) or after it (late); packets that also waited for address
// resolution apart (warmup); and the receiving devices' own counts of their timed channels.
#pragma once

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/fast-path-net-device.h"
#include "ns3/network-module.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

namespace fastpath_ns3_test
{

class TimingTally
{
  public:
    /// `modelDelayNs`: the channel model's one-way delay of every packet; packets with a
    /// sequence number below `warmupSeq` are counted apart (they waited for ARP too).
    TimingTally(int64_t modelDelayNs, uint32_t warmupSeq)
        : m_model(modelDelayNs),
          m_warmupSeq(warmupSeq)
    {
    }

    /// A UdpServer's Rx trace.
    void Received(ns3::Ptr<const ns3::Packet> packet)
    {
        ns3::Ptr<ns3::Packet> copy = packet->Copy();
        ns3::SeqTsHeader ts;
        copy->RemoveHeader(ts);
        ++m_received;
        if (ts.GetSeq() < m_warmupSeq)
        {
            ++m_warmup;
            return;
        }
        const int64_t err = (ns3::Simulator::Now() - ts.GetTs()).GetNanoSeconds() - m_model;
        if (err < -kToleranceNs)
        {
            ++m_early;
        }
        else if (err > kToleranceNs)
        {
            ++m_late;
            m_maxLateNs = std::max(m_maxLateNs, err);
            m_lateFrames << " " << ts.GetSeq() << "@" << ts.GetTs().GetNanoSeconds() << ":+"
                         << err;
        }
        else
        {
            ++m_exact;
        }
    }

    /// The key=value report (to `file` when given, and stdout): emulated, timed (every
    /// device's channel is timed), udp_sent, udp_received, warmup, exact, early, late,
    /// max_late_us, late_frames (each late packet as seq@send_ns:+ns_late, for the reader of
    /// a failure), device_on_time, device_late, device_max_late_us.
    void Report(const ns3::NetDeviceContainer& devices, bool emulated, uint32_t sent,
                const std::string& file) const
    {
        uint64_t onTime = 0, late = 0;
        int64_t deviceMaxLate = 0;
        bool timed = true;
        for (uint32_t i = 0; i < devices.GetN(); ++i)
        {
            auto dev = devices.Get(i)->GetObject<ns3::FastPathNetDevice>();
            if (!dev)
            {
                timed = false;
                continue;
            }
            timed = timed && dev->IsChannelTimed();
            onTime += dev->GetOnTimeReceived();
            late += dev->GetLateReceived();
            deviceMaxLate = std::max(deviceMaxLate, dev->GetMaxLateness().GetNanoSeconds());
        }
        std::ostringstream out;
        out << "emulated=" << (emulated ? 1 : 0) << "\n"
            << "timed=" << (timed ? 1 : 0) << "\n"
            << "udp_sent=" << sent << "\n"
            << "udp_received=" << m_received << "\n"
            << "warmup=" << m_warmup << "\n"
            << "exact=" << m_exact << "\n"
            << "early=" << m_early << "\n"
            << "late=" << m_late << "\n"
            << "max_late_us=" << m_maxLateNs / 1000.0 << "\n"
            << "late_frames=" << m_lateFrames.str() << "\n"
            << "device_on_time=" << onTime << "\n"
            << "device_late=" << late << "\n"
            << "device_max_late_us=" << deviceMaxLate / 1000.0 << "\n";
        if (!file.empty())
        {
            std::ofstream(file) << out.str();
        }
        std::cout << out.str();
    }

  private:
    static constexpr int64_t kToleranceNs = 1000;
    int64_t m_model;
    uint32_t m_warmupSeq;
    uint32_t m_received = 0;
    uint32_t m_warmup = 0;
    uint32_t m_exact = 0;
    uint32_t m_early = 0;
    uint32_t m_late = 0;
    int64_t m_maxLateNs = 0;
    std::ostringstream m_lateFrames;
};

} // namespace fastpath_ns3_test
