// SPDX-License-Identifier: GPL-2.0-only
// The worker's per-batch path: completions, fill, receive -> look up -> rewrite -> one
// egress dispatch (worker_links.cc), frames ns-3 sends through a control channel, TX
// staging and kicks, and the pass itself (pollOnce).
#include <sys/socket.h>
#include <time.h>

#include <cassert>
#include <cerrno>
#include <cstring>

#include "fastpath/monotonic_clock.h"
#include "worker/send_order.h"
#include "worker/worker.h"

namespace fastpath {

void Worker::drainCompletions(PortId p) {
  if (!tx_out_[p]) return;  // nothing lent for TX on this port: skip the shared ring
  XskSocket& s = *sock_[p];
  uint32_t idx;
  uint32_t n = xsk_ring_cons__peek(&s.comp, options_.batch_size * 4, &idx);
  if (!n) return;
  FramePool& pool = umem_->pool();
  for (uint32_t i = 0; i < n; ++i) pool.give(*xsk_ring_cons__comp_addr(&s.comp, idx + i));
  xsk_ring_cons__release(&s.comp, n);
  book_.completed(n);
  tx_out_[p] -= n;
}

void Worker::refill(PortId p) {
  XskSocket& s = *sock_[p];
  FramePool& pool = umem_->pool();
  uint32_t room = xsk_prod_nb_free(&s.fill, options_.batch_size);
  // A port's fill ring holds at most its share of the pool, so ports attached later (or
  // many ports on a small UMEM) are not starved by the first one's full ring.
  if (rx_lent_[p] >= fill_quota_) return;
  room = std::min<uint64_t>(room, fill_quota_ - rx_lent_[p]);
  // No more lent for RX (fill ring + RX ring) than the worker drains in rx_budget_us:
  // beyond that the kernel drops at RX, counted, instead of queueing (RxBudget).
  const uint32_t target = rx_budget_.target();
  if (target != ~0u) {
    const uint32_t lent = ringLevel(s.fill) + ringLevel(s.rx);
    room = std::min(room, lent < target ? target - lent : 0);
  }
  // Refill in batches; a nearly empty pool is shared fairly by refilling in batch steps.
  uint32_t n = std::min(room, pool.available());
  if (n < options_.batch_size && n < room) n = 0;  // wait for a batch worth of frames
  if (!n) return;
  uint32_t idx;
  n = xsk_ring_prod__reserve(&s.fill, n, &idx);
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t a = 0;
    pool.take(&a);
    *xsk_ring_prod__fill_addr(&s.fill, idx + i) = a;
  }
  xsk_ring_prod__submit(&s.fill, n);
  book_.lentForRx(n);
  rx_lent_[p] += n;
  if (xsk_ring_prod__needs_wakeup(&s.fill))
    recvfrom(s.fd(), nullptr, 0, MSG_DONTWAIT, nullptr, nullptr);
}

namespace {

bool packetDestination(const uint8_t* pkt, uint32_t len, const fp_xdp_meta& m, IpAddress* out) {
  if (m.l3_proto == FP_L3_IPV4 && uint32_t(m.l3_offset) + 20 <= len) {
    uint32_t d;
    std::memcpy(&d, pkt + m.l3_offset + 16, 4);
    *out = IpAddress::v4(d);
    return true;
  }
  if (m.l3_proto == FP_L3_IPV6 && uint32_t(m.l3_offset) + 40 <= len) {
    std::array<uint8_t, 16> b;
    std::memcpy(b.data(), pkt + m.l3_offset + 24, 16);
    *out = IpAddress::v6(b);
    return true;
  }
  return false;
}

}  // namespace

uint32_t Worker::receive(PortId p) {
  XskSocket& s = *sock_[p];
  uint32_t idx;
  uint32_t n = xsk_ring_cons__peek(&s.rx, options_.batch_size, &idx);
  if (!n) {
    if (options_.busy_poll) recvfrom(s.fd(), nullptr, 0, MSG_DONTWAIT, nullptr, nullptr);
    return 0;
  }
  book_.receivedFromRx(n);
  rx_lent_[p] -= n;
  // Descriptors and metadata of the whole batch; frames a few ahead are prefetched
  // (metadata line and header line) for the lookups that follow.
  RxFrame* rx = rx_batch_.data();
  constexpr uint32_t kAhead = 4;
  auto prefetchFrame = [&](uint32_t i) {
    const uint8_t* f =
        umem_->data(xsk_umem__add_offset_to_addr(xsk_ring_cons__rx_desc(&s.rx, idx + i)->addr));
    __builtin_prefetch(f - sizeof(fp_xdp_meta));
    __builtin_prefetch(f);
  };
  for (uint32_t i = 0; i < n && i < kAhead; ++i) prefetchFrame(i);
  for (uint32_t i = 0; i < n; ++i) {
    if (i + kAhead < n) prefetchFrame(i + kAhead);
    const xdp_desc* d = xsk_ring_cons__rx_desc(&s.rx, idx + i);
    RxFrame& f = rx[i];
    f.addr = xsk_umem__add_offset_to_addr(d->addr);
    f.len = d->len;
    // The classifier wrote fp_xdp_meta with bpf_xdp_adjust_meta(); AF_XDP copied it just
    // in front of the frame, inside the kernel's XDP_PACKET_HEADROOM.
    std::memcpy(&f.meta, umem_->data(f.addr) - sizeof(f.meta), sizeof(f.meta));
    // The classifier's arrival stamp: an emulation starts from it (sentAt()). No stamp
    // (no metadata): sent when taken, as before.
    f.sent = f.meta.magic == FP_META_MAGIC ? f.meta.rx_ns : 0;
  }
  // The wait until this pass, once per batch: its first frame's, the one that waited
  // longest (a histogram add per frame costs the forwarding path more than the rest).
  if (const uint64_t stamp = rx[0].sent)
    counters_.rx_wait.add(now_ns_ > stamp ? now_ns_ - stamp : 0);
  // The descriptors are copied: the kernel may reuse the RX slots (the frames stay ours).
  xsk_ring_cons__release(&s.rx, n);
  if (caps_) [[unlikely]]
    tapRxBatch(p, n);
  cur_channel_ = channels_[p];
  processBatch(p, n, *port_fib_[p]);
  return n;
}

void Worker::process(PortId p, uint32_t n, const FibView& fib) {
  punt_bucket_[p].refill(now_ns_);
  WorkerPortCounters& pc = port_counters_[p];
  uint64_t bytes = 0;
  uint32_t result_count[size_t(ForwardResult::kMax)] = {};
  uint32_t verdict_count[FP_VERDICT_MAX] = {};

  // Pass 1: the route lookups of the whole batch. The IPv4 destinations are gathered and
  // looked up with one bulk LPM call (its lookups are independent, so a large table's
  // cache misses overlap instead of stalling each frame in turn).
  RxFrame* rx = rx_batch_.data();
  uint32_t n4 = 0;
  for (uint32_t i = 0; i < n; ++i) {
    RxFrame& f = rx[i];
    bytes += f.len;
    f.route = nullptr;
    if (f.meta.magic != FP_META_MAGIC) continue;
    const uint8_t* pkt = umem_->data(f.addr);
    if (routeDestination4(pkt, f.len, f.meta, &dst4_[n4]))
      idx4_[n4++] = i;
    else
      f.route = lookupRoute(pkt, f.len, f.meta, fib);  // IPv6, or no route to look up
  }
  if (n4) {
    fib.nextHops4(dst4_.data(), nh4_.data(), n4);
    for (uint32_t j = 0; j < n4; ++j) rx[idx4_[j]].route = fib.route(nh4_[j]);
  }

  // Pass 2: verdicts, decisions, rewrites, staging.
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t addr = rx[i].addr;
    const uint32_t len = rx[i].len;
    const fp_xdp_meta& meta = rx[i].meta;
    uint8_t* pkt = umem_->data(addr);
    if (meta.magic != FP_META_MAGIC) {
      pc.no_meta.add(1);
      punt(p, addr, len, true);
      continue;
    }
    if (meta.verdict < FP_VERDICT_MAX) ++verdict_count[meta.verdict];
    if (meta.verdict != FP_VERDICT_DATA) {
      // Only CONTROL (routing protocol, ARP, ND, local addresses) bypasses the limiter.
      punt(p, addr, len, meta.verdict != FP_VERDICT_CONTROL);
      continue;
    }
    const ForwardDecision dec = forwardFrameRouted(pkt, len, meta, rx[i].route);
    ++result_count[size_t(dec.result)];
    switch (dec.result) {
      case ForwardResult::kForward: transmit(dec.egress, addr, len, p); break;
      case ForwardResult::kDropPortDown:
        // A link that is down counts at its own end (the link's direction lost it); an
        // interface that is down at the port the frame came in on, as always.
        if (dec.entry && dec.entry->port >= kFirstLinkPort && dec.entry->port < max_ports_)
          frames_.drop(dec.entry->port, WorkerDrop::kLinkDown, addr);
        else
          frames_.drop(p, WorkerDrop::kPortDown, addr);
        break;
      case ForwardResult::kPuntNoRoute: {
        IpAddress dst;
        // The event is raised even when the limiter drops the frame: ns-3 learns the route.
        if (packetDestination(pkt, len, meta, &dst))
          raiseEvent(FastPathEvent::Kind::kRouteMiss, p, dst);
        punt(p, addr, len, true);
        break;
      }
      case ForwardResult::kPuntNeighbourUnresolved: {
        IpAddress nh;
        PortId port = p;
        bool have = false;
        if (dec.entry && !(dec.entry->flags & kFwdGlean)) {
          std::array<uint8_t, 16> b{};
          std::memcpy(b.data(), dec.entry->next_hop, 16);
          nh = dec.entry->family == 6 ? IpAddress::v6(b) : IpAddress::v4(0);
          if (dec.entry->family != 6) std::memcpy(nh.bytes.data(), dec.entry->next_hop, 4);
          port = dec.entry->port;
          have = true;
        } else {
          have = packetDestination(pkt, len, meta, &nh);
          if (dec.entry) port = dec.entry->port;
        }
        if (have) raiseEvent(FastPathEvent::Kind::kNeighbourNeeded, port, nh);
        punt(p, addr, len, true);
        break;
      }
      default: punt(p, addr, len, true); break;
    }
  }
  pc.rx_packets.add(n);
  pc.rx_bytes.add(bytes);
  for (size_t r = 0; r < size_t(ForwardResult::kMax); ++r)
    if (result_count[r]) pc.result[r].add(result_count[r]);
  for (size_t v = 0; v < FP_VERDICT_MAX; ++v)
    if (verdict_count[v]) pc.verdict[v].add(verdict_count[v]);
  flushPunts(p);
}

uint32_t Worker::transmitControl() {
  const uint32_t max_len = umem_->options().frame_size;
  uint32_t n = 0;
  for (; n < options_.batch_size; ++n) {
    ControlTxFrame* f = ctrl_tx_.peek(n);
    if (!f) break;
    ctrl_batch_[n] = f;
  }
  if (!n) return 0;
  // Across ports in send order (send_order.h): what two ports feed into one emulation is
  // admitted as the model sends it, not channel after channel.
  if (orderBySent(std::span<ControlTxFrame*>(ctrl_batch_.data(), n)))
    counters_.ctrl_tx_reordered.add(1);
  for (uint32_t i = 0; i < n; ++i) {
    const ControlTxFrame* f = ctrl_batch_[i];
    // The relay only queues frames of real ports and of at most kControlFrameMax bytes.
    // A link port's client frames (ARP, routing protocol) travel over the link as data
    // does, to be classified at the peer end.
    const bool link = f->port >= kFirstLinkPort && f->port < max_ports_;
    if (((f->port < np_ && sock_[f->port]) || link) && f->len <= max_len) {
      uint64_t addr;
      if (frames_.copyOf(f->data, f->len, &addr)) {
        port_counters_[f->port].ctrl_tx_packets.add(1);
        // A timed client's frame is sent when its stamp says (the relay clamped it).
        if (f->sent) noteLateOnArrival(f->port, f->sent);
        transmit(f->port, addr, f->len, f->port, f->sent);
      } else {
        frames_.count(f->port, WorkerDrop::kCtrlTxNoFrame);
      }
    }
  }
  ctrl_tx_.consume(n);
  return n;
}

void Worker::flushTx(PortId p) {
  XskSocket& s = *sock_[p];
  Staged& st = tx_stage_[p];
  if (!st.n) return;
  WorkerPortCounters& pc = port_counters_[p];
  uint32_t m = std::min(st.n, xsk_prod_nb_free(&s.tx, st.n));
  uint32_t idx;
  if (m && xsk_ring_prod__reserve(&s.tx, m, &idx) == m) {
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < m; ++i) {
      *xsk_ring_prod__tx_desc(&s.tx, idx + i) = st.descs[i];
      bytes += st.descs[i].len;
    }
    xsk_ring_prod__submit(&s.tx, m);
    if (caps_) [[unlikely]]
      for (uint32_t i = 0; i < m; ++i) tapFrame(p, kCaptureTx, st.descs[i].addr, st.descs[i].len);
    book_.heldToTx(m);
    tx_out_[p] += m;
    pc.tx_packets.add(m);
    pc.tx_bytes.add(bytes);
    tx_pending_[p] = 1;
  } else {
    m = 0;
  }
  for (uint32_t i = m; i < st.n; ++i) frames_.drop(p, WorkerDrop::kTxRingFull, st.descs[i].addr);
  st.n = 0;
}

void Worker::kick(PortId p) {
  XskSocket& s = *sock_[p];
  WorkerPortCounters& pc = port_counters_[p];
  flushTx(p);
  if (!tx_pending_[p]) return;
  // In copy mode the kernel sends at most 32 frames per sendto (then EAGAIN): a few calls
  // per loop keep up; what remains is sent on the next loop.
  for (int k = 0; k < 8; ++k) {
    if (ringLevel(s.tx) == 0) {
      tx_pending_[p] = 0;
      return;
    }
    if (!xsk_ring_prod__needs_wakeup(&s.tx)) return;
    pc.tx_kicks.add(1);
    if (sendto(s.fd(), nullptr, 0, MSG_DONTWAIT, nullptr, 0) >= 0) continue;
    if (errno == EAGAIN || errno == EBUSY) continue;
    if (errno == ENOBUFS) return;  // the kernel is short of skbs: next loop
    // The device is down or gone (ENETDOWN, ENXIO): the ring cannot drain, so the loop
    // must not spin on it; the next frames staged for this port kick again.
    pc.tx_kick_errors.add(1);
    tx_pending_[p] = 0;
    return;
  }
}

void Worker::watchRxDrops() {
  // Once per window, the share of arriving frames the kernel dropped at RX (one
  // XDP_STATISTICS getsockopt per port) and the standing queue tell an overload from a
  // burst (RxBudget).
  constexpr uint64_t kWindowNs = 2000000;
  // What this pass left on the RX rings; the window's minimum is the standing queue.
  uint32_t backlog = 0;
  for (PortId p = 0; p < np_; ++p)
    if (const XskSocket* s = sock_[p]) backlog += ringLevel(s->rx);
  rx_window_min_backlog_ = std::min(rx_window_min_backlog_, backlog);
  rx_window_frames_ += last_pass_rx_;
  if (now_ns_ - rx_window_ns_ < kWindowNs) return;
  uint64_t dropped = 0;
  for (PortId p = 0; p < np_; ++p) {
    const XskSocket* s = sock_[p];
    if (!s || s->fd() < 0) continue;  // detached, or in-memory (no kernel, no drops)
    if (auto st = s->statistics(); st) dropped += st->rx_dropped + st->rx_ring_full;
  }
  // A port that left takes its counts along: never a negative difference.
  const uint64_t d = dropped >= rx_dropped_seen_ ? dropped - rx_dropped_seen_ : 0;
  rx_budget_.addWindow(now_ns_, rx_window_frames_ + d, d, rx_window_min_backlog_);
  rx_window_min_backlog_ = ~0u;
  if (rx_budget_.overloaded()) counters_.rx_overload_windows.add(1);
  rx_dropped_seen_ = dropped;
  rx_window_frames_ = 0;
  rx_window_ns_ = now_ns_;
}

uint32_t Worker::pollOnce(bool* tx_pending) {
  uint32_t work = 0;
  // One clock read per loop (vDSO, no syscall) for the punt limiters.
  now_ns_ = monotonicNs();
  // The previous pass's RX frames over the time until this one: the drain rate that
  // sizes the frames lent for RX.
  if (last_pass_rx_) {
    rx_budget_.addBusy(last_pass_rx_, now_ns_ - last_pass_ns_);
    rx_target_.store(rx_budget_.budgetTarget(), std::memory_order_relaxed);
    rx_rate_.store(rx_budget_.ratePps(), std::memory_order_relaxed);
  }
  last_pass_ns_ = now_ns_;
  switchPorts();
  switchLinkPorts();
  switchCaptures();
  if (reset_asked_.load(std::memory_order_acquire) !=
      reset_done_.load(std::memory_order_relaxed)) [[unlikely]]
    resetHistogramsNow();
  const PortId np = np_;
  for (PortId p = 0; p < np; ++p)
    if (sock_[p]) drainCompletions(p);
  for (PortId p = 0; p < np; ++p)
    if (sock_[p]) refill(p);
  uint32_t rx = 0;
  for (PortId p = 0; p < np; ++p)
    if (sock_[p]) rx += receive(p);
  last_pass_rx_ = rx;
  work += rx;
  if (options_.rx_budget_us) watchRxDrops();
  work += transmitControl();
  // Link ports: frames sent to them in this pass (or left over, beyond a batch), and
  // emulated frames whose arrival time has come, are received at the peer end now; what
  // that forwards on is staged or queued again.
  // Only link ports with frames waiting are visited (idle links cost nothing); ports that
  // get frames while they are walked are received in the same pass.
  if (links_) {
    work += releaseDue();
    for (size_t i = 0; i < inbox_.size(); ++i)
      if (const LinkPortSlot* slot = links_->find(inbox_.port(i))) work += receiveLink(*slot);
    inbox_.prune(*links_);
  }
  bool pending = false;
  for (PortId p = 0; p < np; ++p) {
    if (!sock_[p]) continue;
    kick(p);
    pending |= tx_pending_[p] != 0;
  }
  // Emulated egress frames are handed to the kernel now.
  // Per run of one port's egress emulation (a pass may release several ports' frames).
  for (uint32_t i = 0, j; i < tx_due_n_; i = j) {
    for (j = i + 1; j < tx_due_n_ && tx_due_link_[j] == tx_due_link_[i];) ++j;
    recordLateness(&tx_due_[i], j - i, tx_due_link_[i]);
  }
  tx_due_n_ = 0;
  publishAccounting();
#ifndef NDEBUG
  {
    FrameAccounting a = book_.snapshot();
    assert(a.balanced());
    assert(a.held == 0);
  }
#endif
  *tx_pending = pending;
  return work;
}

}  // namespace fastpath
