// SPDX-License-Identifier: GPL-2.0-only
// The queue disc of an emulated device, for the packets its node forwards.
#ifndef FAST_PATH_FORWARDED_QUEUE_H
#define FAST_PATH_FORWARDED_QUEUE_H

#include "fastpath/link_params.h"
#include "ns3/net-device.h"

#include <string>

namespace ns3
{

/**
 * Emulated, a node's ns-3 sends only what the node itself sends: the packets it forwards
 * cross fastpathd, which queues them in the link's drop-tail queue, never in the node's
 * queue disc. Simulated, a packet waits in the queue disc once the device queue is full.
 * For a FIFO queue disc (FifoQueueDisc, PfifoFastQueueDisc) the two in series are one
 * drop-tail queue of both limits: this adds the root queue disc's limit on `device` to
 * `p`'s (where both count the same unit) and returns true. A CoDelQueueDisc or
 * CobaltQueueDisc becomes the link's queue discipline (`p.aqm` and its attributes: MaxSize,
 * Target, Interval, MinBytes, UseEcn, CeThreshold; COBALT's Increment, Decrement,
 * BlueThreshold), in front of the device queue of `p.limit_packets`, and returns true; so
 * does an FqCoDelQueueDisc (Flows, Quantum, DropBatchSize, Perturbation, set-associative
 * hashing, and its flows' CoDel attributes; not with UseL4s), and a RedQueueDisc
 * (MirrorRedQueueDisc). Any
 * other queue disc (PIE, shaping) cannot apply to
 * forwarded packets: it is noted once per device (NoteForwardedQueueDiscs) and `p` is
 * unchanged.
 */
bool AddForwardedQueueDisc(Ptr<NetDevice> device, fastpath::LinkParams& p);

/// Prints on stderr, in one line, which queue discs the packets forwarded by their nodes
/// bypass (AddForwardedQueueDisc schedules it at the instant it finds the first one).
void NoteForwardedQueueDiscs(const std::string& who);

} // namespace ns3

#endif
