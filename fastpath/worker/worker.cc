// SPDX-License-Identifier: GPL-2.0-only
// The worker's per-batch path: completions, fill, receive -> look up -> rewrite -> stage
// for TX, frames ns-3 sends through a control channel, TX kicks, and the frame ledger.
// When the loop runs is worker_schedule.cc; punts and events are worker_punt.cc.
#include "worker/worker.h"

#include "fastpath/userspace_classifier.h"

#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstring>

namespace fastpath {

const char* workerDropName(WorkerDrop drop) {
  switch (drop) {
    case WorkerDrop::kControlChannelFull: return "control_channel_full";
    case WorkerDrop::kNoControlClient: return "no_control_client";
    case WorkerDrop::kPuntPolicy: return "punt_policy_drop";
    case WorkerDrop::kTxRingFull: return "tx_ring_full";
    case WorkerDrop::kNoEgress: return "no_egress_socket";
    case WorkerDrop::kPortDown: return "port_down";
    case WorkerDrop::kCtrlTxNoFrame: return "ctrl_tx_no_frame";
    case WorkerDrop::kCtrlTxRingFull: return "ctrl_tx_ring_full";
    case WorkerDrop::kPuntRateLimited: return "punt_rate_limited";
    case WorkerDrop::kPuntHeadroom: return "punt_headroom";
    case WorkerDrop::kLinkDown: return "link_down";
    case WorkerDrop::kLinkQueueFull: return "link_queue_full";
    case WorkerDrop::kLinkClassifier: return "link_classifier";
    case WorkerDrop::kLinkPass: return "link_pass";
    case WorkerDrop::kLinkLoss: return "link_loss";
    case WorkerDrop::kLinkQueueDrop: return "link_queue_drop";
    case WorkerDrop::kLinkEmulationFull: return "link_emulation_full";
    case WorkerDrop::kSegmentUnknownDst: return "segment_unknown_dst";
    case WorkerDrop::kSegmentNoFrame: return "segment_no_frame";
    case WorkerDrop::kMax: break;
  }
  return "unknown";
}

Worker::Worker(const WorkerOptions& options, std::unique_ptr<Umem> umem,
               std::vector<std::unique_ptr<XskSocket>> sockets,
               std::vector<ControlChannel*> channels, const FibView& fib, EpochDomain& epoch)
    : options_(options),
      umem_(std::move(umem)),
      fib_(fib),
      epoch_(epoch),
      max_ports_(std::max<uint32_t>(options.max_ports, uint32_t(sockets.size()))),
      book_(&umem_->pool()),
      port_counters_(new WorkerPortCounters[max_ports_]),
      ctrl_tx_(options.ctrl_tx_queue),
      events_(options.event_queue),
      rx_budget_(options.rx_budget_us, 2 * options.batch_size, ~0u) {
  // Room for every interface port id the worker keeps counters for: ports attached later
  // (attachPort) need no allocation on the worker's side.
  const size_t np = sockets.size();
  const size_t cap = std::max<size_t>(np, std::min<size_t>(max_ports_, kFirstLinkPort));
  sockets_.resize(cap);
  for (size_t p = 0; p < np; ++p) sockets_[p] = std::move(sockets[p]);
  ctl_np_ = uint32_t(np);
  np_ = uint32_t(np);
  sock_.assign(cap, nullptr);
  channels_.assign(cap, nullptr);
  port_fib_.assign(cap, &fib);
  for (size_t p = 0; p < np; ++p) {
    sock_[p] = sockets_[p].get();
    channels_[p] = p < channels.size() ? channels[p] : nullptr;
  }
  setFillQuota();
  ctl_set_ = std::make_unique<PortSet>();
  ctl_set_->np = uint32_t(np);
  ctl_set_->sockets = sock_;
  ctl_set_->channels = channels_;
  ctl_set_->fibs = port_fib_;
  tx_stage_.resize(cap);
  // A batch of received frames plus a batch of client frames can land on one port.
  for (size_t p = 0; p < np; ++p) tx_stage_[p].descs.resize(options_.batch_size * 2);
  punt_addr_.resize(options_.batch_size);
  punt_len_.resize(options_.batch_size);
  limited_addr_.resize(options_.batch_size);
  limited_len_.resize(options_.batch_size);
  punt_msgs_.resize(options_.batch_size);
  punt_iov_.resize(options_.batch_size);
  rx_batch_.resize(options_.batch_size);
  dst4_.resize(options_.batch_size);
  nh4_.resize(options_.batch_size);
  idx4_.resize(options_.batch_size);
  tx_pending_.assign(cap, 0);
  tx_out_.assign(cap, 0);
  rx_lent_.assign(cap, 0);
  punt_bucket_.assign(max_ports_, TokenBucket(options_.punt_rate, options_.punt_burst));
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  link_rx_.resize(options_.batch_size * 2);
  link_arrival_.resize(options_.batch_size * 2);
  publishAccounting();
}

void Worker::setFillQuota() {
  uint32_t ports = 0;
  for (PortId p = 0; p < np_; ++p) ports += sock_[p] != nullptr;
  // Half the pool for the fill rings (the rest for TX, links and batches), shared out.
  fill_quota_ = std::max<uint64_t>(options_.batch_size,
                                   umem_->pool().capacity() / (2 * std::max<uint32_t>(ports, 1)));
}

void Worker::setPortFib(PortId p, const FibView* fib) {
  port_fib_[p] = fib;
  ctl_set_->fibs[p] = fib;
}

Status Worker::attachPort(PortId p, std::unique_ptr<XskSocket> socket, ControlChannel* channel,
                          const FibView* fib) {
  if (p >= sockets_.size())
    return makeError(-ENOSPC, "worker " + std::to_string(options_.index) + ": port id " +
                                  std::to_string(p) + " beyond its " +
                                  std::to_string(sockets_.size()) + " interface ports");
  if (sockets_[p])
    return makeError(-EEXIST, "worker " + std::to_string(options_.index) + ": port id " +
                                  std::to_string(p) + " is served already");
  // Prepared here, published below: the worker touches a port's staging area only once
  // the set that has the port is published (release/acquire).
  tx_stage_[p].descs.resize(options_.batch_size * 2);
  tx_stage_[p].n = 0;
  resetPortCounters(p);
  punt_bucket_[p] = TokenBucket(options_.punt_rate, options_.punt_burst);
  auto set = std::make_unique<PortSet>(*ctl_set_);
  set->sockets[p] = socket.get();
  set->channels[p] = channel;
  set->fibs[p] = fib;
  set->np = std::max<uint32_t>(set->np, p + 1);
  sockets_[p] = std::move(socket);
  ctl_np_ = set->np;
  if (auto st = publishPorts(std::move(set), 2000); !st) return st;
  return {};
}

Status Worker::detachPort(PortId p, int timeout_ms) {
  if (p >= sockets_.size() || !sockets_[p])
    return makeError(-ENOENT, "worker " + std::to_string(options_.index) + ": port id " +
                                  std::to_string(p) + " is not served");
  auto set = std::make_unique<PortSet>(*ctl_set_);
  set->sockets[p] = nullptr;
  set->channels[p] = nullptr;
  while (set->np && !set->sockets[set->np - 1]) --set->np;
  if (auto st = publishPorts(std::move(set), timeout_ms); !st) return st;
  sockets_[p].reset();  // the worker gave its frames back: the socket closes
  ctl_np_ = ctl_set_->np;
  return {};
}

Status Worker::publishPorts(std::unique_ptr<PortSet> set, int timeout_ms) {
  set->version = ctl_set_->version + 1;
  const uint64_t version = set->version;
  old_sets_.push_back(std::move(ctl_set_));
  ctl_set_ = std::move(set);
  port_set_.store(ctl_set_.get(), std::memory_order_release);
  if (!thread_.joinable()) {
    switchPorts();  // not running: the caller's thread is the only one using the worker
  } else {
    // The worker switches at the start of its next pass; an idle one is woken for it.
    const uint64_t one = 1;
    timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
      if (port_set_seen_.load(std::memory_order_acquire) >= version) break;
      if (write(wake_fd_, &one, sizeof(one)) < 0) {
        // The counter is full: the worker is awake anyway.
      }
      timespec now;
      clock_gettime(CLOCK_MONOTONIC, &now);
      const int64_t ms = int64_t(now.tv_sec - start.tv_sec) * 1000 +
                         (int64_t(now.tv_nsec) - int64_t(start.tv_nsec)) / 1000000;
      if (ms > timeout_ms)
        return makeError(-ETIMEDOUT, "worker " + std::to_string(options_.index) +
                                         " did not take the new port set within " +
                                         std::to_string(timeout_ms) +
                                         " ms; the ports' sockets stay open until it does");
      usleep(100);
    }
  }
  old_sets_.clear();  // the worker copied the newest set: it holds none of them
  return {};
}

void Worker::switchPorts() {
  const PortSet* set = port_set_.load(std::memory_order_acquire);
  if (!set || set->version == port_set_version_) return;
  for (PortId p = 0; p < np_; ++p)
    if (sock_[p] && (p >= set->np || set->sockets[p] != sock_[p])) reclaimPort(p);
  for (PortId p = 0; p < std::max(np_, set->np); ++p) {
    sock_[p] = p < set->np ? set->sockets[p] : nullptr;
    channels_[p] = p < set->np ? set->channels[p] : nullptr;
    port_fib_[p] = set->fibs[p];
  }
  np_ = set->np;
  setFillQuota();
  port_set_version_ = set->version;
  ports_changed_ = true;
  counters_.port_tables.add(1);
  port_set_seen_.store(set->version, std::memory_order_release);
}

void Worker::reclaimPort(PortId p) {
  // The port's classifier is detached (or its device gone) before the set without it is
  // published: the kernel puts no more frames on this socket. Everything of ours that is
  // still in its rings comes back to the pool; what the kernel itself still holds is lost
  // with the socket (counted).
  XskSocket& s = *sock_[p];
  FramePool& pool = umem_->pool();
  uint64_t discarded = 0;
  Staged& st = tx_stage_[p];
  for (uint32_t i = 0; i < st.n; ++i) pool.give(st.descs[i].addr);
  book_.heldToFree(st.n);
  discarded += st.n;
  st.n = 0;
  uint32_t idx, n;
  while ((n = xsk_ring_cons__peek(&s.rx, 1024, &idx)) != 0) {
    for (uint32_t i = 0; i < n; ++i)
      pool.give(xsk_umem__add_offset_to_addr(xsk_ring_cons__rx_desc(&s.rx, idx + i)->addr));
    xsk_ring_cons__release(&s.rx, n);
    book_.receivedFromRx(n);
    book_.heldToFree(n);
    rx_lent_[p] -= n;
    discarded += n;
  }
  while ((n = xsk_ring_cons__peek(&s.comp, 1024, &idx)) != 0) {
    for (uint32_t i = 0; i < n; ++i) pool.give(*xsk_ring_cons__comp_addr(&s.comp, idx + i));
    xsk_ring_cons__release(&s.comp, n);
    book_.completed(n);
    tx_out_[p] -= n;
  }
  // Fill and TX entries the kernel has not consumed are still ours to take back.
  const uint32_t fill_cons = __atomic_load_n(s.fill.consumer, __ATOMIC_ACQUIRE);
  const uint32_t fill_prod = *s.fill.producer;
  for (uint32_t i = fill_cons; i != fill_prod; ++i)
    pool.give(*xsk_ring_prod__fill_addr(&s.fill, i));
  book_.unlentRx(fill_prod - fill_cons);
  rx_lent_[p] -= fill_prod - fill_cons;
  const uint32_t tx_cons = __atomic_load_n(s.tx.consumer, __ATOMIC_ACQUIRE);
  const uint32_t tx_prod = *s.tx.producer;
  for (uint32_t i = tx_cons; i != tx_prod; ++i) pool.give(xsk_ring_prod__tx_desc(&s.tx, i)->addr);
  book_.unlentTx(tx_prod - tx_cons);
  tx_out_[p] -= tx_prod - tx_cons;
  discarded += tx_prod - tx_cons;
  if (rx_lent_[p]) book_.lostRx(uint32_t(rx_lent_[p]));
  if (tx_out_[p]) book_.lostTx(uint32_t(tx_out_[p]));
  rx_lent_[p] = 0;
  tx_out_[p] = 0;
  tx_pending_[p] = 0;
  counters_.port_frames_discarded.add(discarded);
  publishAccounting();
}

Worker::~Worker() {
  stop();
  if (wake_fd_ >= 0) close(wake_fd_);
}

void Worker::publishAccounting() {
  uint64_t s = acct_seq_.load(std::memory_order_relaxed);
  acct_seq_.store(s + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  acct_free_.store(umem_->pool().available(), std::memory_order_relaxed);
  acct_lent_rx_.store(book_.lentRx(), std::memory_order_relaxed);
  acct_lent_tx_.store(book_.lentTx(), std::memory_order_relaxed);
  acct_held_.store(book_.held(), std::memory_order_relaxed);
  acct_in_link_.store(book_.inLink(), std::memory_order_relaxed);
  acct_seq_.store(s + 2, std::memory_order_release);
}

FrameAccounting Worker::accounting() const {
  FrameAccounting a;
  a.total = umem_->pool().capacity();
  for (;;) {
    uint64_t s1 = acct_seq_.load(std::memory_order_acquire);
    if (s1 & 1) continue;
    a.free = acct_free_.load(std::memory_order_relaxed);
    a.lent_rx = acct_lent_rx_.load(std::memory_order_relaxed);
    a.lent_tx = acct_lent_tx_.load(std::memory_order_relaxed);
    a.held = acct_held_.load(std::memory_order_relaxed);
    a.in_link = acct_in_link_.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (acct_seq_.load(std::memory_order_relaxed) == s1) break;
  }
  a.lost = book_.lost();
  for (const auto& s : sockets_) {
    if (!s) continue;
    a.fill_ring += ringLevel(s->fill);
    a.rx_ring += ringLevel(s->rx);
    a.tx_ring += ringLevel(s->tx);
    a.comp_ring += ringLevel(s->comp);
  }
  return a;
}

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
  }
  // The descriptors are copied: the kernel may reuse the RX slots (the frames stay ours).
  xsk_ring_cons__release(&s.rx, n);
  cur_channel_ = channels_[p];
  process(p, n, *port_fib_[p]);
  return n;
}

uint32_t Worker::receiveLink(const LinkPortSlot& slot) {
  uint32_t n = slot.inbound->pop(link_rx_.data(), options_.batch_size);
  if (!n) return 0;
  book_.linkToHeld(n);
  const PortId p = slot.port;
  WorkerPortCounters& pc = port_counters_[p];
  FramePool& pool = umem_->pool();
  // The userspace twin of the XDP classifier decides what the program decides at a NIC;
  // what it drops never reaches the batch (counted per reason, as the program counts).
  RxFrame* rx = rx_batch_.data();
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const LinkFrame& lf = link_rx_[i];
    const fp_xdp_meta meta = slot.classifier->classify(umem_->data(lf.addr), lf.len);
    if (meta.reason < FP_REASON_MAX) pc.reason[meta.reason].add(1);
    if (meta.verdict == FP_VERDICT_DROP || meta.verdict == FP_VERDICT_PASS) {
      pc.rx_packets.add(1);
      pc.rx_bytes.add(lf.len);
      pc.verdict[meta.verdict].add(1);
      pc.drop[size_t(meta.verdict == FP_VERDICT_DROP ? WorkerDrop::kLinkClassifier
                                                     : WorkerDrop::kLinkPass)]
          .add(1);
      pool.give(lf.addr);
      book_.heldToFree(1);
      continue;
    }
    rx[m].addr = lf.addr;
    rx[m].len = lf.len;
    rx[m].meta = meta;
    ++m;
  }
  cur_channel_ = slot.channel;
  if (m) process(p, m, *slot.fib);
  return n;
}

void Worker::process(PortId p, uint32_t n, const FibView& fib) {
  punt_bucket_[p].refill(now_ns_);
  WorkerPortCounters& pc = port_counters_[p];
  FramePool& pool = umem_->pool();
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
      case ForwardResult::kForward: {
        if (dec.egress < np_ && sock_[dec.egress]) [[likely]] {
          if (LinkShaper* sh = egressShaper(dec.egress)) [[unlikely]]
            shapedTransmit(*sh, port_counters_[dec.egress], addr, len);  // emulated egress
          else
            stageTx(dec.egress, addr, len);  // the same frame: a descriptor move, no copy
          break;
        }
        if (dec.egress >= kFirstLinkPort && dec.egress < max_ports_) {
          linkTransmit(dec.egress, addr, len);  // to the peer node: no copy either
          break;
        }
        pc.drop[size_t(WorkerDrop::kNoEgress)].add(1);
        pool.give(addr);
        book_.heldToFree(1);
        break;
      }
      case ForwardResult::kDropPortDown:
        // A link that is down counts at its own end (the link's direction lost it); an
        // interface that is down at the port the frame came in on, as always.
        if (dec.entry && dec.entry->port >= kFirstLinkPort && dec.entry->port < max_ports_)
          port_counters_[dec.entry->port].drop[size_t(WorkerDrop::kLinkDown)].add(1);
        else
          pc.drop[size_t(WorkerDrop::kPortDown)].add(1);
        pool.give(addr);
        book_.heldToFree(1);
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

void Worker::linkTransmit(PortId egress, uint64_t addr, uint32_t len) {
  WorkerPortCounters& pc = port_counters_[egress];
  const LinkPortSlot* slot = links_ ? links_->find(egress) : nullptr;
  WorkerDrop why = WorkerDrop::kMax;
  if (slot && slot->segment) return segmentTransmit(*slot, addr, len);
  if (!slot)
    why = WorkerDrop::kNoEgress;
  else if (!slot->state->up.load(std::memory_order_relaxed))
    why = WorkerDrop::kLinkDown;
  else if (slot->shaper) {
    pc.tx_packets.add(1);
    pc.tx_bytes.add(len);
    return shapedTransmit(*slot->shaper, pc, addr, len);
  }
  else if (!slot->to_peer->push(addr, len))
    why = WorkerDrop::kLinkQueueFull;
  if (why != WorkerDrop::kMax) {
    pc.drop[size_t(why)].add(1);
    umem_->pool().give(addr);
    book_.heldToFree(1);
    return;
  }
  book_.heldToLink(1);
  pc.tx_packets.add(1);
  pc.tx_bytes.add(len);
}

void Worker::segmentTransmit(const LinkPortSlot& slot, uint64_t addr, uint32_t len) {
  WorkerPortCounters& pc = port_counters_[slot.port];
  const SegmentSlot& seg = *slot.segment;
  if (!seg.state->up.load(std::memory_order_relaxed) ||
      !slot.port_state->up.load(std::memory_order_relaxed)) {
    pc.drop[size_t(WorkerDrop::kLinkDown)].add(1);
    umem_->pool().give(addr);
    book_.heldToFree(1);
    return;
  }
  pc.tx_packets.add(1);
  pc.tx_bytes.add(len);
  if (seg.shaper) return shapedTransmit(*seg.shaper, pc, addr, len, slot.port);
  book_.heldToLink(1);
  segmentDeliver(seg, slot.port, addr, len);
}

void Worker::segmentDeliver(const SegmentSlot& seg, PortId from, uint64_t addr, uint32_t len) {
  FramePool& pool = umem_->pool();
  const uint8_t* pkt = umem_->data(addr);
  auto drop = [&](PortId at, WorkerDrop why) {
    port_counters_[at].drop[size_t(why)].add(1);
    pool.give(addr);
    book_.linkToFree(1);
  };
  // Too short for a destination MAC: nothing on the medium can take it.
  if (len < 14) return drop(from, WorkerDrop::kSegmentUnknownDst);
  if (!(pkt[0] & 1)) {
    // Unicast: the port whose MAC it is, as a CsmaNetDevice keeps only frames for itself.
    for (const SegmentMember& m : seg.members) {
      if (m.port == from || std::memcmp(m.mac, pkt, 6) != 0) continue;
      if (!m.port_state->up.load(std::memory_order_relaxed))
        return drop(m.port, WorkerDrop::kLinkDown);  // its device is down
      if (!m.inbound->push(addr, len)) return drop(m.port, WorkerDrop::kLinkQueueFull);
      return;
    }
    return drop(from, WorkerDrop::kSegmentUnknownDst);
  }
  // Broadcast and multicast: every port but the sender (and those down); the last one
  // takes the frame itself, the others a copy each.
  auto takes = [&](const SegmentMember& m) {
    return m.port != from && m.port_state->up.load(std::memory_order_relaxed);
  };
  const SegmentMember* last = nullptr;
  for (const SegmentMember& m : seg.members)
    if (takes(m)) last = &m;
  if (!last) return drop(from, WorkerDrop::kSegmentUnknownDst);  // nobody else to hear it
  for (const SegmentMember& m : seg.members) {
    if (!takes(m) || &m == last) continue;
    if (m.inbound->size() == m.inbound->capacity()) {
      port_counters_[m.port].drop[size_t(WorkerDrop::kLinkQueueFull)].add(1);
      continue;
    }
    uint64_t copy;
    if (!pool.take(&copy)) {
      port_counters_[from].drop[size_t(WorkerDrop::kSegmentNoFrame)].add(1);
      continue;
    }
    std::memcpy(umem_->data(copy), pkt, len);
    m.inbound->push(copy, len);
    book_.takenFromPool(1);
    book_.heldToLink(1);
  }
  if (!last->inbound->push(addr, len)) drop(last->port, WorkerDrop::kLinkQueueFull);
}

void Worker::shapedTransmit(LinkShaper& sh, WorkerPortCounters& pc, uint64_t addr,
                            uint32_t len, PortId from) {
  FramePool& pool = umem_->pool();
  const LinkShaper::Decision d = sh.decide(len);
  if (d.fate == LinkShaper::Fate::kLost) {
    pc.drop[size_t(WorkerDrop::kLinkLoss)].add(1);
    pool.give(addr);
    book_.heldToFree(1);
    return;
  }
  uint8_t* pkt = umem_->data(addr);
  if (d.corrupt_bit >= 0) {
    pkt[d.corrupt_bit / 8] ^= uint8_t(1u << (d.corrupt_bit % 8));
    sh.counters.corrupted.fetch_add(1, std::memory_order_relaxed);
  }
  // The frame's own sending time, not the pass's start: a pass takes microseconds.
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  const uint64_t now = uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
  auto admit = [&](uint64_t a) {
    const LinkShaper::Admit r = sh.admit(now, a, len, from);
    if (r == LinkShaper::Admit::kQueued) {
      book_.heldToLink(1);
      next_arrival_ = std::min(next_arrival_, sh.nextArrival());
      return;
    }
    pc.drop[size_t(r == LinkShaper::Admit::kQueueFull ? WorkerDrop::kLinkQueueDrop
                                                       : WorkerDrop::kLinkEmulationFull)]
        .add(1);
    pool.give(a);
    book_.heldToFree(1);
  };
  // A duplicate is a copy in a frame of its own, sent right after the original.
  uint64_t copy = 0;
  const bool duplicate = d.duplicate && pool.take(&copy);
  if (duplicate) {
    book_.takenFromPool(1);
    std::memcpy(umem_->data(copy), pkt, len);
    sh.counters.duplicated.fetch_add(1, std::memory_order_relaxed);
  }
  admit(addr);
  if (duplicate) admit(copy);
}

uint32_t Worker::releaseShaped() {
  next_arrival_ = ~0ull;
  if (!links_) return 0;
  // The clock again: releases are due by arrival time, to the nanosecond the clock gives.
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  const uint64_t now = uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
  uint32_t work = 0;
  const uint32_t max = uint32_t(link_rx_.size());
  for (const LinkPortSlot& slot : links_->slots) {
    if (!slot.shaper) continue;
    LinkShaper& sh = *slot.shaper;
    // No more than the peer end's queue takes: the rest stays in the emulation (late, and
    // counted so) instead of being dropped by a queue the model does not have.
    const uint32_t room = slot.to_peer->capacity() - slot.to_peer->size();
    if (room && sh.nextArrival() <= now) {
      const uint32_t n =
          sh.release(now, link_rx_.data(), link_arrival_.data(), std::min(max, room));
      for (uint32_t i = 0; i < n; ++i) {
        recordLateness(now - link_arrival_[i]);
        if (!slot.to_peer->push(link_rx_[i].addr, link_rx_[i].len)) {
          port_counters_[slot.peer].drop[size_t(WorkerDrop::kLinkQueueFull)].add(1);
          umem_->pool().give(link_rx_[i].addr);
          book_.linkToFree(1);
        }
      }
      work += n;
    }
    next_arrival_ = std::min(next_arrival_, sh.nextArrival());
  }
  // Segments: what leaves the medium is fanned out to the ports' queues.
  for (const SegmentSlot& seg : links_->segments) {
    if (!seg.shaper) continue;
    LinkShaper& sh = *seg.shaper;
    if (sh.nextArrival() <= now) {
      const uint32_t n = sh.release(now, link_rx_.data(), link_arrival_.data(), max);
      for (uint32_t i = 0; i < n; ++i) {
        recordLateness(now - link_arrival_[i]);
        segmentDeliver(seg, PortId(link_rx_[i].from), link_rx_[i].addr, link_rx_[i].len);
      }
      work += n;
    }
    next_arrival_ = std::min(next_arrival_, sh.nextArrival());
  }
  // Interface ports' emulated egress: what is due goes to the TX ring (staged; the kicks
  // of this pass send it).
  for (PortId p = 0; p < links_->egress.size(); ++p) {
    LinkShaper* sh = links_->egress[p];
    if (!sh || p >= np_ || !sock_[p]) continue;  // a detached port's shaper is retired
    if (sh->nextArrival() <= now) {
      const uint32_t n = sh->release(now, link_rx_.data(), link_arrival_.data(), max);
      for (uint32_t i = 0; i < n; ++i) {
        recordLateness(now - link_arrival_[i]);
        book_.linkToHeld(1);
        stageTx(p, link_rx_[i].addr, link_rx_[i].len);
      }
      work += n;
    }
    next_arrival_ = std::min(next_arrival_, sh->nextArrival());
  }
  return work;
}

void Worker::switchLinkPorts() {
  const LinkPortTable* t = link_ports_.load(std::memory_order_acquire);
  if (!t || t->version == links_version_) return;
  // Versions, not pointers, tell tables apart: a new table may reuse a freed one's address.
  FramePool& pool = umem_->pool();
  for (LinkQueue* q : t->retired) {
    if (q->drained.load(std::memory_order_acquire)) continue;
    LinkFrame f;
    uint32_t k = 0;
    while (q->pop(&f, 1)) {
      pool.give(f.addr);
      ++k;
    }
    book_.linkToFree(k);
    counters_.link_frames_discarded.add(k);
    q->drained.store(true, std::memory_order_release);
  }
  for (LinkShaper* sh : t->retired_shapers) {
    if (sh->drained.load(std::memory_order_acquire)) continue;
    if (sh->successor) {
      sh->successor->moveFrom(*sh);  // grown: the frames and the link's state go on
    } else {
      uint32_t k, total = 0;
      while ((k = sh->takeAll(link_rx_.data(), uint32_t(link_rx_.size()))) != 0) {
        for (uint32_t i = 0; i < k; ++i) pool.give(link_rx_[i].addr);
        total += k;
      }
      book_.linkToFree(total);
      counters_.link_frames_discarded.add(total);
    }
    sh->drained.store(true, std::memory_order_release);
  }
  links_ = t;
  links_version_ = t->version;
  counters_.link_tables.add(1);
}

uint32_t Worker::transmitControl() {
  FramePool& pool = umem_->pool();
  const uint32_t max_len = umem_->options().frame_size;
  uint32_t n = 0;
  for (; n < options_.batch_size; ++n) {
    ControlTxFrame* f = ctrl_tx_.front();
    if (!f) break;
    // The relay only queues frames of real ports and of at most kControlFrameMax bytes.
    const bool link = f->port >= kFirstLinkPort && f->port < max_ports_;
    if (((f->port < np_ && sock_[f->port]) || link) && f->len <= max_len) {
      uint64_t addr;
      if (pool.take(&addr)) {
        book_.takenFromPool(1);
        std::memcpy(umem_->data(addr), f->data, f->len);
        port_counters_[f->port].ctrl_tx_packets.add(1);
        // A link port's client frames (ARP, routing protocol) travel over the link as data
        // does, to be classified at the peer end.
        if (link)
          linkTransmit(f->port, addr, f->len);
        else if (LinkShaper* sh = egressShaper(f->port))
          shapedTransmit(*sh, port_counters_[f->port], addr, f->len);
        else
          stageTx(f->port, addr, f->len);
      } else {
        port_counters_[f->port].drop[size_t(WorkerDrop::kCtrlTxNoFrame)].add(1);
      }
    }
    ctrl_tx_.consume();
  }
  return n;
}

// Per forwarded frame: always inlined into receive().
[[gnu::always_inline]] inline void Worker::stageTx(PortId egress, uint64_t addr, uint32_t len) {
  Staged& st = tx_stage_[egress];
  if (st.n == st.descs.size()) [[unlikely]]
    flushTx(egress);
  st.descs[st.n].addr = addr;
  st.descs[st.n].len = len;
  st.descs[st.n].options = 0;
  ++st.n;
}

void Worker::flushTx(PortId p) {
  XskSocket& s = *sock_[p];
  Staged& st = tx_stage_[p];
  if (!st.n) return;
  WorkerPortCounters& pc = port_counters_[p];
  FramePool& pool = umem_->pool();
  uint32_t m = std::min(st.n, xsk_prod_nb_free(&s.tx, st.n));
  uint32_t idx;
  if (m && xsk_ring_prod__reserve(&s.tx, m, &idx) == m) {
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < m; ++i) {
      *xsk_ring_prod__tx_desc(&s.tx, idx + i) = st.descs[i];
      bytes += st.descs[i].len;
    }
    xsk_ring_prod__submit(&s.tx, m);
    book_.heldToTx(m);
    tx_out_[p] += m;
    pc.tx_packets.add(m);
    pc.tx_bytes.add(bytes);
    tx_pending_[p] = 1;
  } else {
    m = 0;
  }
  if (m < st.n) {
    pc.drop[size_t(WorkerDrop::kTxRingFull)].add(st.n - m);
    for (uint32_t i = m; i < st.n; ++i) pool.give(st.descs[i].addr);
    book_.heldToFree(st.n - m);
  }
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
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  now_ns_ = uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
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
  if (links_) {
    work += releaseShaped();
    for (const LinkPortSlot& slot : links_->slots) work += receiveLink(slot);
  }
  bool pending = false;
  for (PortId p = 0; p < np; ++p) {
    if (!sock_[p]) continue;
    kick(p);
    pending |= tx_pending_[p] != 0;
  }
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
