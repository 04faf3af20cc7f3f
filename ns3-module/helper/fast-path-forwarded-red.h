// SPDX-License-Identifier: GPL-2.0-only
// A router's RedQueueDisc, emulated: its attributes become the link's RED discipline, and
// the counts fastpathd keeps for it become the queue disc's statistics.
#ifndef FAST_PATH_FORWARDED_RED_H
#define FAST_PATH_FORWARDED_RED_H

#include "fastpath/link_params.h"
#include "ns3/queue-disc.h"

#include <functional>
#include <string>

namespace fastpath
{
struct LinkDirectionStats;
}

namespace ns3
{

/**
 * Mirrors `qd` (a RedQueueDisc) onto `p`: `aqm red` with MaxSize as the discipline's
 * limit and every attribute RED's decisions read (MinTh, MaxTh, QW, LInterm, Gentle,
 * MeanPktSize, Wait, UseEcn, UseHardDrop, Ns1Compat, ARED, AdaptMaxP, Interval,
 * TargetDelay, Alpha, Beta, Top, Bottom, LastSet, Rtt, FengAdaptive, FengAlpha, FengBeta,
 * NLRED, LinkBandwidth, LinkDelay). IdlePktSize is read by none of ns-3 3.37's RED
 * decisions (only by a cautious mode no attribute sets) and is not carried.
 * False (p unchanged) when `qd` is not a RedQueueDisc.
 */
bool MirrorRedQueueDisc(Ptr<QueueDisc> qd, fastpath::LinkParams& p);

/**
 * Emulated, the packets a router forwards never enter its queue disc: fastpathd's RED
 * decides for them. So that a script reading `qd->GetStats()` after Simulator::Run()
 * reads what happened, the stats are refreshed from `read` (the link direction's counters
 * in fastpathd) every 10 ms of simulation time while other events remain, and once more
 * when the last of them has run (the refresh then stops, so a script that runs until no
 * event remains still ends). Frame bytes count a 14-byte Ethernet header that ns-3's
 * queue disc items do not: it is taken off. Marked bytes and the bytes of the disc's own
 * overflow (INTERNAL_QUEUE_DROP) are not counted by fastpathd and read 0. What the node
 * sends itself goes through the disc in ns-3 as simulated: its counts stay, and fastpathd's
 * are added to them (the node's own packets, which cross the link too, counted once).
 */
void FollowRedStats(Ptr<QueueDisc> qd,
                    std::function<bool(fastpath::LinkDirectionStats&)> read);

class FastPathEmulation;
class NetDevice;

/// FollowRedStats for each end of `link` whose direction runs RED (`ab`: the direction
/// `devA` sends), reading `emulation`'s fastpathd; once per device.
void FollowForwardedRed(FastPathEmulation* emulation,
                        const std::string& link,
                        Ptr<NetDevice> devA,
                        Ptr<NetDevice> devB,
                        const fastpath::LinkParams& ab,
                        const fastpath::LinkParams& ba);

/// Copies fastpathd's counters of one direction into `qd`'s statistics (as above).
void CopyRedStats(const fastpath::LinkDirectionStats& s, QueueDisc::Stats& st);

} // namespace ns3

#endif
