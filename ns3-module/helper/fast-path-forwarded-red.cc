// SPDX-License-Identifier: GPL-2.0-only
#include "fast-path-forwarded-red.h"

#include "fast-path-queue-disc-attributes.h"

#include "fastpath/control_types.h"
#include "fastpath/ctrl/client.h"
#include "ns3/boolean.h"
#include "ns3/fast-path-emulation.h"
#include "ns3/node.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/red-queue-disc.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <memory>
#include <set>

namespace ns3
{

namespace
{

/// The Ethernet header a frame carries and a queue disc item does not.
constexpr uint64_t kEthernetHeader = 14;

uint64_t
IpBytes(uint64_t frameBytes, uint64_t frames)
{
    const uint64_t headers = frames * kEthernetHeader;
    return frameBytes > headers ? frameBytes - headers : 0;
}

constexpr int64_t kRefreshMs = 10;

/// `st` += `sign` * `d`, field by field (the counts Refresh handles; maps by reason).
void
AddStats(QueueDisc::Stats& st, const QueueDisc::Stats& d, int sign)
{
    auto add = [sign](auto& a, auto b) { a = sign > 0 ? a + b : a - std::min(a, b); };
    add(st.nTotalReceivedPackets, d.nTotalReceivedPackets);
    add(st.nTotalReceivedBytes, d.nTotalReceivedBytes);
    add(st.nTotalDroppedPackets, d.nTotalDroppedPackets);
    add(st.nTotalDroppedBytes, d.nTotalDroppedBytes);
    add(st.nTotalDroppedPacketsBeforeEnqueue, d.nTotalDroppedPacketsBeforeEnqueue);
    add(st.nTotalDroppedBytesBeforeEnqueue, d.nTotalDroppedBytesBeforeEnqueue);
    add(st.nTotalEnqueuedPackets, d.nTotalEnqueuedPackets);
    add(st.nTotalEnqueuedBytes, d.nTotalEnqueuedBytes);
    add(st.nTotalDequeuedPackets, d.nTotalDequeuedPackets);
    add(st.nTotalDequeuedBytes, d.nTotalDequeuedBytes);
    add(st.nTotalSentPackets, d.nTotalSentPackets);
    add(st.nTotalSentBytes, d.nTotalSentBytes);
    add(st.nTotalMarkedPackets, d.nTotalMarkedPackets);
    add(st.nTotalMarkedBytes, d.nTotalMarkedBytes);
    auto addMap = [&add](auto& a, const auto& b) {
        for (const auto& [reason, n] : b)
        {
            add(a[reason], n);
            if (a[reason] == 0)
            {
                a.erase(reason);
            }
        }
    };
    addMap(st.nDroppedPacketsBeforeEnqueue, d.nDroppedPacketsBeforeEnqueue);
    addMap(st.nDroppedBytesBeforeEnqueue, d.nDroppedBytesBeforeEnqueue);
    addMap(st.nMarkedPackets, d.nMarkedPackets);
    addMap(st.nMarkedBytes, d.nMarkedBytes);
}

/// The disc's record is ns-3's count of what the node sends itself through it (its own
/// RED decided those) plus fastpathd's count of the direction: `added` is what the last
/// refresh added, so ns-3's own part survives every refresh. fastpathd's direction also
/// carries what the disc sent (the node's own packets): those are not received twice.
struct RedStatsFollower
{
    Ptr<QueueDisc> qd;
    std::function<bool(fastpath::LinkDirectionStats&)> read;
    QueueDisc::Stats added;
};

void
Refresh(std::shared_ptr<RedStatsFollower> f)
{
    fastpath::LinkDirectionStats s;
    if (f->read(s))
    {
        // GetStats() hands out the disc's own record; it is a plain struct of counts.
        auto& st = const_cast<QueueDisc::Stats&>(f->qd->GetStats());
        AddStats(st, f->added, -1);  // ns-3's own part
        QueueDisc::Stats fp;
        CopyRedStats(s, fp);
        const uint32_t ownSent = std::min(st.nTotalSentPackets, fp.nTotalReceivedPackets);
        const uint64_t ownBytes = std::min(st.nTotalSentBytes, fp.nTotalReceivedBytes);
        for (auto* n : {&fp.nTotalReceivedPackets, &fp.nTotalEnqueuedPackets,
                        &fp.nTotalDequeuedPackets, &fp.nTotalSentPackets})
        {
            *n -= std::min(*n, ownSent);
        }
        for (auto* n : {&fp.nTotalReceivedBytes, &fp.nTotalEnqueuedBytes,
                        &fp.nTotalDequeuedBytes, &fp.nTotalSentBytes})
        {
            *n -= std::min(*n, ownBytes);
        }
        AddStats(st, fp, +1);
        f->added = fp;
    }
    if (!Simulator::IsFinished())
    {
        Simulator::Schedule(MilliSeconds(kRefreshMs), &Refresh, f);
    }
}

} // namespace

bool
MirrorRedQueueDisc(Ptr<QueueDisc> qd, fastpath::LinkParams& p)
{
    Ptr<RedQueueDisc> red = DynamicCast<RedQueueDisc>(qd);
    if (!red)
    {
        return false;
    }
    fastpath::LinkParams::Red& r = p.red;
    p.aqm = fastpath::LinkParams::Aqm::kRed;
    MirrorQueueDiscLimit(qd, p);
    p.aqm_ecn = QueueDiscBool(qd, "UseEcn");
    r.min_th = QueueDiscDouble(qd, "MinTh");
    r.max_th = QueueDiscDouble(qd, "MaxTh");
    r.qw = QueueDiscDouble(qd, "QW");
    r.l_interm = QueueDiscDouble(qd, "LInterm");
    r.gentle = QueueDiscBool(qd, "Gentle");
    UintegerValue mean;
    qd->GetAttribute("MeanPktSize", mean);
    r.mean_pkt_size = uint32_t(mean.Get());
    r.wait = QueueDiscBool(qd, "Wait");
    r.hard_drop = QueueDiscBool(qd, "UseHardDrop");
    r.ns1_compat = QueueDiscBool(qd, "Ns1Compat");
    r.ared = QueueDiscBool(qd, "ARED");
    r.adapt_max_p = QueueDiscBool(qd, "AdaptMaxP");
    r.interval_ns = QueueDiscNanoseconds(qd, "Interval");
    r.target_ns = QueueDiscNanoseconds(qd, "TargetDelay");
    // Alpha, Beta, FengAlpha and FengBeta are set-only attributes: their getters read them.
    r.alpha = red->GetAredAlpha();
    r.beta = red->GetAredBeta();
    r.top = QueueDiscDouble(qd, "Top");
    r.bottom = QueueDiscDouble(qd, "Bottom");
    r.last_set_ns = QueueDiscNanoseconds(qd, "LastSet");
    r.rtt_ns = QueueDiscNanoseconds(qd, "Rtt");
    r.feng = QueueDiscBool(qd, "FengAdaptive");
    r.feng_alpha = red->GetFengAdaptiveA();
    r.feng_beta = red->GetFengAdaptiveB();
    r.nonlinear = QueueDiscBool(qd, "NLRED");
    DataRateValue rate;
    qd->GetAttribute("LinkBandwidth", rate);
    r.link_bps = rate.Get().GetBitRate();
    r.link_delay_ns = QueueDiscNanoseconds(qd, "LinkDelay");
    return true;
}

void
CopyRedStats(const fastpath::LinkDirectionStats& s, QueueDisc::Stats& st)
{
    const uint64_t unforced = s.aqm_drops - std::min(s.aqm_drops, s.aqm_forced_drops);
    const uint64_t unforcedBytes =
        s.aqm_drop_bytes - std::min(s.aqm_drop_bytes, s.aqm_forced_drop_bytes);
    const uint64_t before = s.aqm_drops + s.queue_drops;
    st.nTotalReceivedPackets = uint32_t(s.tx_packets);
    st.nTotalReceivedBytes = IpBytes(s.tx_bytes, s.tx_packets);
    st.nDroppedPacketsBeforeEnqueue.clear();
    st.nDroppedBytesBeforeEnqueue.clear();
    auto drop = [&](const char* reason, uint64_t n, uint64_t bytes) {
        if (n)
        {
            st.nDroppedPacketsBeforeEnqueue[reason] = uint32_t(n);
            st.nDroppedBytesBeforeEnqueue[reason] = bytes;
        }
    };
    drop(RedQueueDisc::UNFORCED_DROP, unforced, IpBytes(unforcedBytes, unforced));
    drop(RedQueueDisc::FORCED_DROP,
         s.aqm_forced_drops,
         IpBytes(s.aqm_forced_drop_bytes, s.aqm_forced_drops));
    drop(QueueDisc::INTERNAL_QUEUE_DROP, s.queue_drops, 0);
    st.nTotalDroppedPacketsBeforeEnqueue = uint32_t(before);
    st.nTotalDroppedBytesBeforeEnqueue = 0;
    for (const auto& [reason, bytes] : st.nDroppedBytesBeforeEnqueue)
    {
        st.nTotalDroppedBytesBeforeEnqueue += bytes;
    }
    st.nTotalDroppedPackets = st.nTotalDroppedPacketsBeforeEnqueue;
    st.nTotalDroppedBytes = st.nTotalDroppedBytesBeforeEnqueue;
    // What RED let in left the disc for the link (fastpathd's disc hands every admitted
    // frame on; none waits in it once the link has sent it).
    const uint32_t in = st.nTotalReceivedPackets - std::min<uint32_t>(st.nTotalReceivedPackets,
                                                                       uint32_t(before));
    const uint64_t inBytes =
        st.nTotalReceivedBytes -
        std::min(st.nTotalReceivedBytes, st.nTotalDroppedBytesBeforeEnqueue);
    st.nTotalEnqueuedPackets = st.nTotalDequeuedPackets = st.nTotalSentPackets = in;
    st.nTotalEnqueuedBytes = st.nTotalDequeuedBytes = st.nTotalSentBytes = inBytes;
    st.nMarkedPackets.clear();
    st.nMarkedBytes.clear();
    const uint64_t unforcedMarks = s.aqm_marks - std::min(s.aqm_marks, s.aqm_forced_marks);
    if (unforcedMarks)
    {
        st.nMarkedPackets[RedQueueDisc::UNFORCED_MARK] = uint32_t(unforcedMarks);
        st.nMarkedBytes[RedQueueDisc::UNFORCED_MARK] = 0;
    }
    if (s.aqm_forced_marks)
    {
        st.nMarkedPackets[RedQueueDisc::FORCED_MARK] = uint32_t(s.aqm_forced_marks);
        st.nMarkedBytes[RedQueueDisc::FORCED_MARK] = 0;
    }
    st.nTotalMarkedPackets = uint32_t(s.aqm_marks);
    st.nTotalMarkedBytes = 0;
}

void
FollowRedStats(Ptr<QueueDisc> qd, std::function<bool(fastpath::LinkDirectionStats&)> read)
{
    auto f = std::make_shared<RedStatsFollower>();
    f->qd = qd;
    f->read = std::move(read);
    Simulator::ScheduleNow(&Refresh, f);
}

void
FollowForwardedRed(FastPathEmulation* emulation,
                   const std::string& link,
                   Ptr<NetDevice> devA,
                   Ptr<NetDevice> devB,
                   const fastpath::LinkParams& ab,
                   const fastpath::LinkParams& ba)
{
    static std::set<const NetDevice*> followed;
    for (const bool aToB : {true, false})
    {
        Ptr<NetDevice> dev = aToB ? devA : devB;
        const auto& p = aToB ? ab : ba;
        if (p.aqm != fastpath::LinkParams::Aqm::kRed || !followed.insert(PeekPointer(dev)).second)
        {
            continue;
        }
        Ptr<TrafficControlLayer> tc = dev->GetNode()->GetObject<TrafficControlLayer>();
        Ptr<QueueDisc> qd = tc ? tc->GetRootQueueDiscOnDevice(dev) : nullptr;
        if (!qd)
        {
            continue;
        }
        FollowRedStats(qd, [emulation, link, aToB](fastpath::LinkDirectionStats& s) {
            auto ls = emulation->Client().links();
            if (!ls.ok())
            {
                return false;
            }
            for (const auto& l : ls.value())
            {
                if (l.name == link)
                {
                    s = aToB ? l.a_to_b_stats : l.b_to_a_stats;
                    return true;
                }
            }
            return false;
        });
    }
}

} // namespace ns3
