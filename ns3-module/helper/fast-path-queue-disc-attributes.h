// SPDX-License-Identifier: GPL-2.0-only
// A router's queue disc, mirrored onto its emulated link: the readers of its attributes that
// every mirrored disc (CoDel, COBALT, FqCoDel, RED) shares, so that a Time, a limit or a flag
// means the same to each.
#ifndef FAST_PATH_QUEUE_DISC_ATTRIBUTES_H
#define FAST_PATH_QUEUE_DISC_ATTRIBUTES_H

#include "fastpath/link_params.h"
#include "ns3/queue-disc.h"

#include <cstdint>
#include <string>

namespace ns3
{

/// The DoubleValue attribute `name` of `qd`.
double QueueDiscDouble(Ptr<QueueDisc> qd, const std::string& name);

/// The BooleanValue attribute `name` of `qd`.
bool QueueDiscBool(Ptr<QueueDisc> qd, const std::string& name);

/// The TimeValue attribute `name` of `qd` in ns; a negative time as 0.
uint64_t QueueDiscNanoseconds(Ptr<QueueDisc> qd, const std::string& name);

/**
 * A CoDel-family time (Target, Interval, BlueThreshold, CeThreshold) in ns. ns-3 writes
 * "never" as Time::Max, which fastpathd's 64-bit ns cannot add to a clock: 60 s and above,
 * or a negative time, read as 60 s, except CeThreshold, whose "never" is 0 (marking off).
 */
uint64_t QueueDiscAqmTime(Ptr<QueueDisc> qd, const std::string& name);

/// `qd`'s MaxSize as the link discipline's limit: aqm_limit_packets or aqm_limit_bytes by
/// its unit, the other 0.
void MirrorQueueDiscLimit(Ptr<QueueDisc> qd, fastpath::LinkParams& p);

} // namespace ns3

#endif
