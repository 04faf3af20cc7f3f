// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-forwarded-queue.h"

#include "fast-path-forwarded-red.h"
#include "fast-path-queue-disc-attributes.h"

#include "ns3/boolean.h"
#include "ns3/cobalt-queue-disc.h"
#include "ns3/codel-queue-disc.h"
#include "ns3/double.h"
#include "ns3/fifo-queue-disc.h"
#include "ns3/fq-codel-queue-disc.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"
#include "ns3/node.h"
#include "ns3/pfifo-fast-queue-disc.h"
#include "ns3/red-queue-disc.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
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

/// A CoDel or COBALT queue disc as the link's queue discipline, its attributes mirrored
/// (the ones both have; COBALT's BLUE besides). False: an attribute fastpathd does not
/// model is set (COBALT's initial Pdrop, UseL4s).
bool
MirrorAqm(Ptr<QueueDisc> qd, fastpath::LinkParams& p)
{
    const bool cobalt = DynamicCast<CobaltQueueDisc>(qd) != nullptr;
    if (cobalt)
    {
        BooleanValue l4s(false);
        qd->GetAttributeFailSafe("UseL4s", l4s);
        if (QueueDiscDouble(qd, "Pdrop") != 0 || l4s.Get())
        {
            return false;
        }
        p.aqm_blue_increment = QueueDiscDouble(qd, "Increment");
        p.aqm_blue_decrement = QueueDiscDouble(qd, "Decrement");
        p.aqm_blue_threshold_ns = QueueDiscAqmTime(qd, "BlueThreshold");
    }
    p.aqm = cobalt ? fastpath::LinkParams::Aqm::kCobalt : fastpath::LinkParams::Aqm::kCoDel;
    MirrorQueueDiscLimit(qd, p);
    p.aqm_target_ns = QueueDiscAqmTime(qd, "Target");
    p.aqm_interval_ns = QueueDiscAqmTime(qd, "Interval");
    p.aqm_ce_threshold_ns = QueueDiscAqmTime(qd, "CeThreshold");
    if (!cobalt)
    {
        UintegerValue minBytes;
        qd->GetAttribute("MinBytes", minBytes);
        p.aqm_min_bytes = uint32_t(minBytes.Get());
    }
    p.aqm_ecn = QueueDiscBool(qd, "UseEcn");
    return true;
}

/// An FqCoDelQueueDisc as the link's queue discipline: its flow queues' attributes (Flows,
/// Quantum — the device's MTU when unset, as ns-3 takes it —, DropBatchSize, Perturbation,
/// EnableSetAssociativeHash, SetWays) and each flow's CoDel (Target, Interval, UseEcn,
/// CeThreshold, and CoDelQueueDisc's default MinBytes, which FqCoDel leaves to its flows).
/// False: UseL4s is set, which fastpathd does not model.
bool
MirrorFqCoDel(Ptr<FqCoDelQueueDisc> qd, Ptr<NetDevice> device, fastpath::LinkParams& p)
{
    BooleanValue l4s(false);
    qd->GetAttributeFailSafe("UseL4s", l4s);
    if (l4s.Get())
    {
        return false;
    }
    p.aqm = fastpath::LinkParams::Aqm::kFqCoDel;
    MirrorQueueDiscLimit(qd, p);
    StringValue target;
    StringValue interval;
    qd->GetAttribute("Target", target);
    qd->GetAttribute("Interval", interval);
    p.aqm_target_ns = uint64_t(Time(target.Get()).GetNanoSeconds());
    p.aqm_interval_ns = uint64_t(Time(interval.Get()).GetNanoSeconds());
    p.aqm_ce_threshold_ns = QueueDiscAqmTime(qd, "CeThreshold");
    p.aqm_ecn = QueueDiscBool(qd, "UseEcn");
    UintegerValue minBytes;
    CreateObject<CoDelQueueDisc>()->GetAttribute("MinBytes", minBytes);
    p.aqm_min_bytes = uint32_t(minBytes.Get());
    UintegerValue flows;
    UintegerValue batch;
    UintegerValue perturbation;
    UintegerValue ways;
    BooleanValue setAssociative(false);
    qd->GetAttribute("Flows", flows);
    qd->GetAttribute("DropBatchSize", batch);
    qd->GetAttribute("Perturbation", perturbation);
    qd->GetAttributeFailSafe("SetWays", ways);
    qd->GetAttributeFailSafe("EnableSetAssociativeHash", setAssociative);
    p.aqm_fq_flows = uint32_t(flows.Get());
    p.aqm_fq_drop_batch = uint32_t(batch.Get());
    p.aqm_fq_perturbation = uint32_t(perturbation.Get());
    p.aqm_fq_set_associative = setAssociative.Get();
    if (ways.Get())
    {
        p.aqm_fq_set_ways = uint32_t(ways.Get());
    }
    p.aqm_fq_quantum = qd->GetQuantum() ? qd->GetQuantum() : device->GetMtu();
    return true;
}

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
    // A device queue counted in packets (the link's `limit`): the queue discipline waits
    // for its room, as ns-3's queue disc waits for its device queue.
    if (p.limit_bytes == 0 && MirrorRedQueueDisc(qd, p))
    {
        return true;
    }
    Ptr<FqCoDelQueueDisc> fq = DynamicCast<FqCoDelQueueDisc>(qd);
    const bool aqm =
        DynamicCast<CoDelQueueDisc>(qd) || DynamicCast<CobaltQueueDisc>(qd) || fq != nullptr;
    if (aqm && p.limit_bytes == 0)
    {
        fastpath::LinkParams with = p;
        if (fq ? MirrorFqCoDel(fq, device, with) : MirrorAqm(qd, with))
        {
            p = with;
            return true;
        }
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
                (fifo || ((aqm || DynamicCast<RedQueueDisc>(qd)) && p.limit_bytes != 0)
                     ? " (limit in other units than the device queue's)"
                 : aqm ? " (Pdrop or UseL4s set)"
                       : "");
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
