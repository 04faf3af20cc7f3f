// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-forwarded-queue.h"

#include "ns3/fifo-queue-disc.h"
#include "ns3/node.h"
#include "ns3/pfifo-fast-queue-disc.h"
#include "ns3/simulator.h"
#include "ns3/traffic-control-layer.h"

#include <iostream>
#include <map>
#include <set>

namespace ns3
{

namespace
{

/// Queue discs forwarded packets bypass, by device, not yet noted; and the devices noted.
std::map<const NetDevice*, std::string> g_bypassed;
std::set<const NetDevice*> g_noted;

} // namespace

bool
AddForwardedQueueDisc(Ptr<NetDevice> device, fastpath::LinkParams& p)
{
    Ptr<Node> node = device ? device->GetNode() : nullptr;
    Ptr<TrafficControlLayer> tc = node ? node->GetObject<TrafficControlLayer>() : nullptr;
    Ptr<QueueDisc> qd = tc ? tc->GetRootQueueDiscOnDevice(device) : nullptr;
    if (!qd)
    {
        return false;
    }
    const bool fifo = DynamicCast<FifoQueueDisc>(qd) || DynamicCast<PfifoFastQueueDisc>(qd);
    const QueueSize max = qd->GetMaxSize();
    const bool packets = max.GetUnit() == QueueSizeUnit::PACKETS;
    // The link counts packets (limit_packets) or bytes (limit_bytes), as its device queue.
    const bool sameUnit = packets ? p.limit_bytes == 0 : p.limit_bytes != 0;
    if (!fifo || !sameUnit)
    {
        if (g_noted.insert(PeekPointer(device)).second)
        {
            if (g_bypassed.empty())
            {
                // After every link's push of this instant: one line for all of them.
                Simulator::ScheduleNow(
                    []() { NoteForwardedQueueDiscs("FastPathPointToPointHelper"); });
            }
            g_bypassed[PeekPointer(device)] =
                qd->GetInstanceTypeId().GetName() +
                (fifo ? " (limit in other units than the device queue's)" : "");
        }
        return false;
    }
    if (packets)
    {
        p.limit_packets += max.GetValue();
    }
    else
    {
        p.limit_bytes += max.GetValue();
    }
    return true;
}

void
NoteForwardedQueueDiscs(const std::string& who)
{
    if (g_bypassed.empty())
    {
        return;
    }
    std::map<std::string, uint32_t> byType;
    for (const auto& [device, type] : g_bypassed)
    {
        ++byType[type];
    }
    std::string list;
    for (const auto& [type, n] : byType)
    {
        list += (list.empty() ? "" : ", ") + type + " on " + std::to_string(n) + " device" +
                (n == 1 ? "" : "s");
    }
    std::cerr << who << ": queue discs " << list
              << " hold only what their node sends itself: the packets a node forwards "
                 "cross fastpathd and wait in its drop-tail link queue (the device queue's "
                 "limit) instead"
              << std::endl;
    g_bypassed.clear();
}

} // namespace ns3
