// SPDX-License-Identifier: GPL-2.0-only
// Radio media inside a worker: a frame sent on a medium port goes into the medium's model
// (medium/radio_medium.h) as its member's frame — to the member of its destination MAC, or
// broadcast; the model says when, and which members received it: each gets a copy on its
// port's queue (due at the model's time, so its lateness is counted as a link's), and the
// sender's frame goes back to the pool when the model is done with it (acknowledged, sent,
// or a counted drop after its tries). A unicast dropped after its tries is also an event
// for the control thread (kMediumRetryLimit, with the receiver's MAC): the sender's ns-3
// learns of the failed link as its MAC would tell it (AODV's link breakage detection).
#pragma once

#include <cstdint>

#include "link/link_ports.h"
#include "medium/radio_medium.h"
#include "worker/link_inbox.h"
#include "worker/spsc_ring.h"
#include "worker/worker_counters.h"
#include "worker/worker_event.h"
#include "worker/worker_frames.h"

namespace fastpath {

class MediumEgress : public medium::MediumSink {
 public:
  MediumEgress(WorkerFrames& frames, LinkInbox& inbox, SpscRing<WorkerEvent>& events,
               WorkerCounters& counters)
      : frames_(frames), inbox_(inbox), events_(events), counters_(counters) {}

  /// A held frame sent on medium port `slot` at `now`.
  void transmit(const LinkPortSlot& slot, uint64_t addr, uint32_t len, uint64_t now);
  /// Runs the models of `t`'s media up to `now`; returns the frames received.
  uint32_t advance(const LinkPortTable& t, uint64_t now);
  /// When a model of `t` next has something to do (~0: nothing).
  uint64_t nextEvent(const LinkPortTable& t) const;
  /// Gives back the frames of a retired model.
  void discard(medium::RadioMedium& model);

  void deliver(uint64_t cookie, uint32_t to, uint64_t due_ns) override;
  void done(uint64_t cookie, uint32_t from, medium::TxOutcome outcome) override;

 private:
  WorkerFrames& frames_;
  LinkInbox& inbox_;
  SpscRing<WorkerEvent>& events_;
  WorkerCounters& counters_;
  const MediumSlot* cur_ = nullptr;  ///< the medium whose model is running
  uint32_t received_ = 0;
};

}  // namespace fastpath
