// SPDX-License-Identifier: GPL-2.0-only
// Where the worker meets links, segments and emulation: the one egress dispatch every
// held frame leaves through, link ports' frames received and classified in userspace,
// emulated frames released in due order, the lateness of emulated frames where they leave
// the worker's hands, and link tables switched to (what they retire drained).
#include <time.h>

#include <cassert>

#include "fastpath/monotonic_clock.h"
#include "fastpath/userspace_classifier.h"
#include "worker/worker.h"

namespace fastpath {

void Worker::transmitElsewhere(PortId egress, uint64_t addr, uint32_t len, PortId in,
                               uint64_t sent) {
  auto when = [&] { return sent != kSentOfBatch ? sent : sentAt(addr); };
  if (egress < np_ && sock_[egress]) {  // an interface port: with egress emulation here
    if (LinkShaper* sh = egressShaper(egress))
      return emulation_.transmit(*sh, egress, egress, addr, len, 0, when());
    return stageTx(egress, addr, len);
  }
  if (egress >= kFirstLinkPort && egress < max_ports_) {
    // To a peer node: no copy either. A link port this worker does not serve (yet, or
    // any more) counts at its own end.
    const LinkPortSlot* slot = links_ ? links_->find(egress) : nullptr;
    if (!slot) return frames_.drop(egress, WorkerDrop::kNoEgress, addr);
    if (slot->medium) {
      if (caps_) [[unlikely]]
        tapFrame(egress, kCaptureTx, addr, len);
      return media_.transmit(*slot, addr, len, monotonicNs());
    }
    // Sent when the model has it sent (its arrival here, or a timed client's stamp).
    const uint64_t at = when();
    if (caps_) [[unlikely]]
      tapFrame(egress, kCaptureTx, addr, len, 0xff, 0xff, at && at < now_ns_ ? at : 0);
    if (slot->segment) {
      fanout_.transmit(*links_, *slot, addr, len, at);
      if (slot->segment->shaper)  // a timed member may take it early (worker_timed.cc)
        timed_.entered(*links_, ShaperKey::segment(size_t(slot->segment - links_->segments.data())));
      return;
    }
    handoff_.transmit(*slot, addr, len, at, in == egress);
    if (slot->shaper) timed_.entered(*links_, slot->port);
    return;
  }
  frames_.drop(in, WorkerDrop::kNoEgress, addr);
}

uint32_t Worker::receiveLink(const LinkPortSlot& slot) {
  uint32_t n = slot.inbound->pop(link_rx_.data(), options_.batch_size);
  if (!n) return 0;
  book_.linkToHeld(n);
  const PortId p = slot.port;
  WorkerPortCounters& pc = port_counters_[p];
  // A port set down on its own forwards nothing it receives (an ns-3 interface set down
  // drops what reaches it; its channel and the other end stay up): what the link carried
  // here, even sent before, is dropped at its arrival and counted. What goes to the node's
  // own ns-3 goes on: its interface, whose state fastpathd follows a moment later, decides.
  const bool down = slot.port_state && !slot.port_state->up.load(std::memory_order_relaxed);
  // The userspace twin of the XDP classifier decides what the program decides at a NIC;
  // what it drops never reaches the batch (counted per reason, as the program counts).
  RxFrame* rx = rx_batch_.data();
  uint32_t m = 0, emulated = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const LinkFrame& lf = link_rx_[i];
    if (lf.due) link_due_[emulated++] = lf.due;
    // A frame handed over early carries the verdict this port's classifier gave it.
    const fp_xdp_meta meta = TimedRelease::cached(lf)
                                 ? TimedRelease::cachedMeta(lf)
                                 : slot.classifier->classify(umem_->data(lf.addr), lf.len);
    // A frame a timed client takes early is seen at its arrival time.
    if (caps_) [[unlikely]]
      tapFrame(p, kCaptureRx, lf.addr, lf.len, meta.verdict, meta.reason,
               lf.due > now_ns_ ? lf.due : 0);
    if (meta.reason < FP_REASON_MAX) pc.reason[meta.reason].add(1);
    if (down && meta.verdict == FP_VERDICT_DATA) [[unlikely]] {
      frames_.drop(p, WorkerDrop::kLinkDown, lf.addr);
      continue;
    }
    if (meta.verdict == FP_VERDICT_DROP || meta.verdict == FP_VERDICT_PASS) {
      pc.rx_packets.add(1);
      pc.rx_bytes.add(lf.len);
      pc.verdict[meta.verdict].add(1);
      frames_.drop(p,
                   meta.verdict == FP_VERDICT_DROP ? WorkerDrop::kLinkClassifier
                                                   : WorkerDrop::kLinkPass,
                   lf.addr);
      continue;
    }
    rx[m].addr = lf.addr;
    rx[m].len = lf.len;
    rx[m].meta = meta;
    rx[m].sent = lf.due;
    ++m;
  }
  cur_channel_ = slot.channel;
  if (m) {
    // What this node sends on, it sends when the model has the frame arrive (sentAt()).
    processBatch(p, m, *slot.fib);
  }
  // The batch is handed on (forwarded, punted or dropped): emulated frames were due at
  // the peer end when they left the link, and whatever they waited since — this port's
  // queue, the batches before theirs, this batch — is lateness too.
  if (emulated) {
    // Timed by the sending end's direction of the link (or the segment's medium).
    LinkShaper* timed_by = slot.segment ? slot.segment->shaper : nullptr;
    if (!slot.segment)
      if (const LinkPortSlot* from = links_->find(slot.peer)) timed_by = from->shaper;
    recordLateness(link_due_.data(), emulated, timed_by);
  }
  return n;
}

uint32_t Worker::releaseDue() {
  // Frames sent on at their model time may be due at the next hop already (the worker was
  // later than that hop's delay, or it has none): they go on in this pass, not the next.
  // Bounded: a pass must still come back to its ports, and a pass that took all it may
  // (max_release) leaves the rest to the next, as before.
  uint32_t work = 0;
  // The clock again: releases are due by arrival time, to the nanosecond the clock gives.
  // One read per round: the one that finds a frame due is the one the round releases by.
  uint64_t now = monotonicNs();
  for (int round = 0; round < kReleaseRounds; ++round) {
    const uint32_t w = releaseDueOnce(now);
    work += w;
    if (!w || emulation_.tookMax()) break;
    now = monotonicNs();
    if (emulation_.nextArrival() > now) break;
  }
  return work;
}

uint32_t Worker::releaseDueOnce(uint64_t now) {
  emulation_.sawClock(now);
  // Radio media first: what their members received waits on the members' queues, which
  // the pass walks next.
  uint32_t received = links_->media.empty() ? 0 : media_.advance(*links_, now);
  const std::span<const Released> due =
      emulation_.takeDue(now, *links_, std::span<XskSocket* const>(sock_.data(), np_));
  uint32_t work = received + uint32_t(due.size());
  for (size_t i = 0; i < due.size(); ++i) {
    const Released& r = due[i];
    // Segment members that got the frame ahead of its time (worker_timed.cc) are skipped.
    const uint64_t served_early = timed_.left(r.key, r.frame.addr);
    if (ShaperKey::isEgress(r.key)) {
      // Interface egress: staged; the kicks of this pass send it, and its lateness is
      // taken after them.
      book_.linkToHeld(1);
      stageTx(PortId(r.key), r.frame.addr, r.frame.len);
      // A pass releases at most kReleaseRounds x maxReleasePerPass() frames and pollOnce()
      // empties tx_due_ after each: there is always room.
      assert(tx_due_n_ < tx_due_.size());
      tx_due_link_[tx_due_n_] = egressShaper(PortId(r.key));
      tx_due_[tx_due_n_++] = r.frame.due;
      continue;
    }
    if (ShaperKey::isSegment(r.key)) {
      fanout_.deliver(links_->segments[r.key - ShaperKey::kSegmentBase], r.frame, served_early);
      continue;
    }
    const LinkPortSlot& slot = *links_->find(PortId(r.key));
    handoff_.arrive(slot, r.frame);
    // The peer end takes its run of frames now, before frames due later on other links:
    // a node fed by several links handles their frames in the order they arrived.
    if (i + 1 == due.size() || due[i + 1].key != r.key)
      if (const LinkPortSlot* peer = links_->find(slot.peer)) work += receiveLink(*peer);
  }
  // Then what timed clients may take ahead of its arrival time (worker_timed.cc).
  return work + releaseEarly(now);
}

void Worker::recordLateness(const uint64_t* due, uint32_t n, LinkShaper* link) {
  const uint64_t now = monotonicNs();
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t late = now > due[i] ? now - due[i] : 0;
    counters_.lateness.add(late);
    if (link) link->counters.lateness.add(late);
    if (late > options_.lateness_warn_ns) counters_.link_late_frames.add(1);
  }
}

void Worker::noteLateOnArrival(PortId port, uint64_t sent) {
  const LinkShaper* sh = egressShaper(port);
  if (const LinkPortSlot* slot = links_ ? links_->find(port) : nullptr)
    sh = slot->segment ? slot->segment->shaper : slot->shaper;
  if (!sh) return;  // not emulated: no arrival time, no lateness
  // The pass's clock (read once per loop) is close enough for a bound of a millisecond.
  if (sent + sh->params().delay_ns + options_.lateness_warn_ns < now_ns_)
    counters_.link_late_on_arrival.add(1);
}

void Worker::switchLinkPorts() {
  // Versions, not pointers, tell tables apart: a new table may reuse a freed one's address.
  const LinkPortTable* t = links_pub_.newer(links_version_);
  if (!t) return;
  FramePool& pool = umem_->pool();
  // What the table retires is emptied here, before the daemon may reuse or free it.
  auto discard = [&](uint32_t k) {
    for (uint32_t i = 0; i < k; ++i) pool.give(link_rx_[i].addr);
    book_.linkToFree(k);
    counters_.link_frames_discarded.add(k);
  };
  const uint32_t max = uint32_t(link_rx_.size());
  for (LinkQueue* q : t->retired) {
    if (q->drained()) continue;
    while (const uint32_t k = q->pop(link_rx_.data(), max)) discard(k);
    q->markDrained();
  }
  for (LinkShaper* sh : t->retired_shapers) {
    if (sh->drained()) continue;
    if (sh->successor)
      sh->successor->moveFrom(*sh);  // grown: the frames and the link's state go on
    else
      while (const uint32_t k = sh->takeAll(link_rx_.data(), max)) discard(k);
    sh->markDrained();
  }
  for (medium::RadioMedium* m : t->retired_media) {
    if (m->drained()) continue;
    media_.discard(*m);
    m->markDrained();
  }
  links_ = t;
  links_version_ = t->version;
  // Ports and shapers holding frames are found again in the new table.
  inbox_.adopt(*t);
  emulation_.adopt(*t);
  timed_.adopt(*t, emulation_.active());
  counters_.link_tables.add(1);
  links_pub_.serve(t->version);
}

}  // namespace fastpath
