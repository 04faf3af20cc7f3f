// SPDX-License-Identifier: GPL-2.0-only
#include "worker/worker.h"

#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>

#include <cassert>
#include <cerrno>
#include <cstring>

#include "fastpath/log.h"

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
    case WorkerDrop::kMax: break;
  }
  return "unknown";
}

Worker::Worker(const WorkerOptions& options, std::unique_ptr<Umem> umem,
               std::vector<std::unique_ptr<XskSocket>> sockets,
               std::vector<ControlChannel*> channels, const FibView& fib, EpochDomain& epoch)
    : options_(options),
      umem_(std::move(umem)),
      sockets_(std::move(sockets)),
      channels_(std::move(channels)),
      fib_(fib),
      epoch_(epoch),
      book_(&umem_->pool()),
      port_counters_(new WorkerPortCounters[sockets_.size()]),
      ctrl_tx_(options.ctrl_tx_queue),
      events_(options.event_queue) {
  const size_t np = sockets_.size();
  tx_stage_.resize(np);
  // A batch of received frames plus a batch of client frames can land on one port.
  for (auto& s : tx_stage_) s.descs.resize(options_.batch_size * 2);
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
  tx_pending_.assign(np, 0);
  tx_out_.assign(np, 0);
  punt_bucket_.assign(np, TokenBucket(options_.punt_rate, options_.punt_burst));
  headroom_limit_.assign(np, 0);
  for (PortId p = 0; p < PortId(np) && p < channels_.size(); ++p)
    if (channels_[p] && options_.punt_headroom) headroom_limit_[p] = channels_[p]->sendBufferBytes() / 4 * 3;
  publishAccounting();
}

Worker::~Worker() { stop(); }

Status Worker::start() {
  // Fill the fill rings before the thread exists (thread creation orders these writes
  // before the worker's), so frames arriving as soon as start() returns find room.
  for (PortId p = 0; p < PortId(sockets_.size()); ++p) refill(p);
  publishAccounting();
  thread_ = std::thread([this] { run(); });
  if (options_.cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(options_.cpu, &set);
    int err = pthread_setaffinity_np(thread_.native_handle(), sizeof(set), &set);
    if (err) {
      stop();
      return makeError(-err, "worker " + std::to_string(options_.index) + ": pinning to CPU " +
                                 std::to_string(options_.cpu) + " failed: " + std::strerror(err));
    }
  }
  if (options_.rt_priority > 0) {
    if (auto st = setRtPriority(options_.rt_priority); !st) {
      stop();
      return st;
    }
  }
  std::string name = "fp-worker-" + std::to_string(options_.index);
  pthread_setname_np(thread_.native_handle(), name.c_str());
  return {};
}

Status Worker::setRtPriority(int priority, int below) {
  if (!thread_.joinable()) return makeError(-ESRCH, "worker not running");
  // Above the NAPI threads that fill our RX rings: woken by the kernel as soon as frames
  // are there, the worker drains them instead of being starved by the receive work
  // (livelock); it sleeps in poll() when idle, which hands the CPU back. Adaptive
  // (`below`): under NAPI until the RX ring fills up (see run()).
  if (below >= priority) below = 0;
  const int now = below > 0 ? below : priority;
  sched_param sp{};
  sp.sched_priority = now;
  int err = pthread_setschedparam(thread_.native_handle(), now > 0 ? SCHED_FIFO : SCHED_OTHER, &sp);
  if (err)
    return makeError(-err, "worker " + std::to_string(options_.index) + ": scheduling priority " +
                               std::to_string(now) + " refused: " + std::strerror(err));
  rt_.store(priority, std::memory_order_relaxed);
  rt_below_.store(below, std::memory_order_relaxed);
  return {};
}

void Worker::adaptRtPriority(int below) {
  // The fullest RX ring decides. Over 3/4 full: NAPI (above us) fills it faster than we
  // drain it, i.e. overload, where a worker under NAPI would only get the CPU NAPI leaves
  // (receive livelock): go above NAPI. Back under it once the rings stayed under 1/4 for
  // the hold time: while above NAPI the worker drains each NAPI batch at once, so the
  // level says nothing about the load. The hold starts at 100 ms and doubles (up to 6.4 s)
  // each time a boost follows the previous unboost within one hold — a sustained overload,
  // where every return under NAPI costs a starved period until the worker runs again to
  // notice; an isolated burst resets it. Two syscalls per boost, none otherwise.
  constexpr uint64_t kHoldMinNs = 100'000'000, kHoldMaxNs = 6'400'000'000;
  uint32_t level = 0, size = 0;
  for (const auto& s : sockets_) {
    level = std::max(level, ringLevel(s->rx));
    size = std::max(size, s->rx.size);
  }
  if (!rt_hold_ns_) rt_hold_ns_ = kHoldMinNs;
  bool boost;
  if (rt_boosted_) {
    if (level > size / 4) rt_hot_until_ns_ = now_ns_ + rt_hold_ns_;
    boost = now_ns_ < rt_hot_until_ns_;
  } else {
    boost = level >= size - size / 4;
    if (boost) {
      rt_hold_ns_ = now_ns_ - rt_unboost_ns_ < rt_hold_ns_ ? std::min(2 * rt_hold_ns_, kHoldMaxNs)
                                                          : kHoldMinNs;
      rt_hot_until_ns_ = now_ns_ + rt_hold_ns_;
    }
  }
  if (boost == rt_boosted_) return;
  sched_param sp{};
  sp.sched_priority = boost ? rt_.load(std::memory_order_relaxed) : below;
  if (sp.sched_priority <= 0) return;
  if (const int err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp); err) {
    // Refused once, refused every loop: stop adapting rather than retry a syscall per pass.
    pr_warn("worker %u: SCHED_FIFO %d refused (%s); adaptive priority off", options_.index,
            sp.sched_priority, std::strerror(err));
    rt_below_.store(0, std::memory_order_relaxed);
    return;
  }
  rt_boosted_ = boost;
  if (boost) counters_.rt_boosts.add(1);
  else rt_unboost_ns_ = now_ns_;
}

void Worker::stop() {
  stop_.store(true, std::memory_order_release);
  if (thread_.joinable()) thread_.join();
}

void Worker::publishAccounting() {
  uint64_t s = acct_seq_.load(std::memory_order_relaxed);
  acct_seq_.store(s + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  acct_free_.store(umem_->pool().available(), std::memory_order_relaxed);
  acct_lent_rx_.store(book_.lentRx(), std::memory_order_relaxed);
  acct_lent_tx_.store(book_.lentTx(), std::memory_order_relaxed);
  acct_held_.store(book_.held(), std::memory_order_relaxed);
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
    std::atomic_thread_fence(std::memory_order_acquire);
    if (acct_seq_.load(std::memory_order_relaxed) == s1) break;
  }
  for (const auto& s : sockets_) {
    a.fill_ring += ringLevel(s->fill);
    a.rx_ring += ringLevel(s->rx);
    a.tx_ring += ringLevel(s->tx);
    a.comp_ring += ringLevel(s->comp);
  }
  return a;
}

void Worker::drainCompletions(PortId p) {
  if (!tx_out_[p]) return;  // nothing lent for TX on this port: skip the shared ring
  XskSocket& s = *sockets_[p];
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
  XskSocket& s = *sockets_[p];
  FramePool& pool = umem_->pool();
  uint32_t room = xsk_prod_nb_free(&s.fill, options_.batch_size);
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
  if (xsk_ring_prod__needs_wakeup(&s.fill)) recvfrom(s.fd(), nullptr, 0, MSG_DONTWAIT, nullptr, nullptr);
}

void Worker::raiseEvent(FastPathEvent::Kind kind, PortId port, const IpAddress& a) {
  // Cheap de-duplication of bursts for one destination; the control thread rate-limits.
  if (have_last_event_ && last_event_.kind == kind && last_event_.port == port &&
      last_event_.address == a)
    return;
  last_event_ = WorkerEvent{kind, port, a};
  have_last_event_ = true;
  if (events_.push(last_event_)) counters_.events.add(1);
  else counters_.events_dropped.add(1);
}

void Worker::punt(PortId in, uint64_t addr, uint32_t len, bool limited) {
  WorkerPortCounters& pc = port_counters_[in];
  FramePool& pool = umem_->pool();
  ControlChannel* ch = in < channels_.size() ? channels_[in] : nullptr;
  WorkerDrop why = WorkerDrop::kMax;
  if (!options_.punt_to_control) why = WorkerDrop::kPuntPolicy;
  else if (!ch || !ch->attached()) why = WorkerDrop::kNoControlClient;
  else if (limited && !punt_bucket_[in].take()) why = WorkerDrop::kPuntRateLimited;
  if (why != WorkerDrop::kMax) {
    pc.drop[size_t(why)].add(1);
    pool.give(addr);
    book_.heldToFree(1);
    return;
  }
  // receive() handles at most batch_size frames between flushes.
  if (limited) {
    limited_addr_[limited_n_] = addr;
    limited_len_[limited_n_++] = len;
  } else {
    punt_addr_[punt_n_] = addr;
    punt_len_[punt_n_++] = len;
  }
}

void Worker::flushPunts(PortId in) {
  if (!punt_n_ && !limited_n_) return;
  WorkerPortCounters& pc = port_counters_[in];
  FramePool& pool = umem_->pool();
  const int fd = channels_[in]->daemonFd();
  // Headroom for CONTROL frames: once the channel holds 3/4 of its buffer, punts are
  // dropped so routing protocol and ARP frames still fit. One ioctl per batch with punts.
  if (limited_n_ && headroom_limit_[in] > 0) {
    int queued = 0;
    if (ioctl(fd, SIOCOUTQ, &queued) == 0 && queued >= headroom_limit_[in]) {
      pc.drop[size_t(WorkerDrop::kPuntHeadroom)].add(limited_n_);
      for (uint32_t i = 0; i < limited_n_; ++i) pool.give(limited_addr_[i]);
      book_.heldToFree(limited_n_);
      limited_n_ = 0;
    }
  }
  const uint32_t total = punt_n_ + limited_n_;
  if (!total) return;
  // One sendmmsg per batch, CONTROL frames first: one message per frame on the SEQPACKET
  // channel, never blocking.
  mmsghdr* msgs = punt_msgs_.data();
  iovec* iov = punt_iov_.data();
  for (uint32_t i = 0; i < total; ++i) {
    const bool c = i < punt_n_;
    const uint32_t k = c ? i : i - punt_n_;
    iov[i].iov_base = umem_->data(c ? punt_addr_[k] : limited_addr_[k]);
    iov[i].iov_len = c ? punt_len_[k] : limited_len_[k];
    std::memset(&msgs[i], 0, sizeof(msgs[i]));
    msgs[i].msg_hdr.msg_iov = &iov[i];
    msgs[i].msg_hdr.msg_iovlen = 1;
  }
  int sent = sendmmsg(fd, msgs, total, MSG_DONTWAIT | MSG_NOSIGNAL);
  int err = sent < 0 ? errno : (uint32_t(sent) < total ? EAGAIN : 0);
  if (sent < 0) sent = 0;
  uint64_t bytes = 0;
  for (int i = 0; i < sent; ++i) bytes += iov[i].iov_len;
  pc.to_control.add(uint64_t(sent));
  pc.to_control_bytes.add(bytes);
  if (uint32_t(sent) < total) {
    WorkerDrop why = (err == EAGAIN || err == ENOBUFS || err == EWOULDBLOCK)
                         ? WorkerDrop::kControlChannelFull
                         : WorkerDrop::kNoControlClient;
    pc.drop[size_t(why)].add(total - uint32_t(sent));
  }
  for (uint32_t i = 0; i < punt_n_; ++i) pool.give(punt_addr_[i]);
  for (uint32_t i = 0; i < limited_n_; ++i) pool.give(limited_addr_[i]);
  book_.heldToFree(total);
  punt_n_ = limited_n_ = 0;
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
  XskSocket& s = *sockets_[p];
  uint32_t idx;
  uint32_t n = xsk_ring_cons__peek(&s.rx, options_.batch_size, &idx);
  if (!n) {
    if (options_.busy_poll) recvfrom(s.fd(), nullptr, 0, MSG_DONTWAIT, nullptr, nullptr);
    return 0;
  }
  book_.receivedFromRx(n);
  punt_bucket_[p].refill(now_ns_);
  WorkerPortCounters& pc = port_counters_[p];
  FramePool& pool = umem_->pool();
  const FibView& fib = fib_;
  const uint32_t nports = uint32_t(sockets_.size());
  uint64_t bytes = 0;
  uint32_t result_count[size_t(ForwardResult::kMax)] = {};
  uint32_t verdict_count[FP_VERDICT_MAX] = {};

  // Pass 1: descriptors, metadata and the route lookups of the whole batch. The IPv4
  // destinations are gathered and looked up with one bulk LPM call (its lookups are
  // independent, so a large table's cache misses overlap instead of stalling each frame in
  // turn); frames a few ahead are prefetched (metadata line and header line).
  RxFrame* rx = rx_batch_.data();
  uint32_t n4 = 0;
  constexpr uint32_t kAhead = 4;
  auto prefetchFrame = [&](uint32_t i) {
    const uint8_t* f = umem_->data(xsk_umem__add_offset_to_addr(xsk_ring_cons__rx_desc(&s.rx, idx + i)->addr));
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
    bytes += f.len;
    const uint8_t* pkt = umem_->data(f.addr);
    // The classifier wrote fp_xdp_meta with bpf_xdp_adjust_meta(); AF_XDP copied it just
    // in front of the frame, inside the kernel's XDP_PACKET_HEADROOM.
    std::memcpy(&f.meta, pkt - sizeof(f.meta), sizeof(f.meta));
    f.route = nullptr;
    if (f.meta.magic != FP_META_MAGIC) continue;
    if (routeDestination4(pkt, f.len, f.meta, &dst4_[n4]))
      idx4_[n4++] = i;
    else
      f.route = lookupRoute(pkt, f.len, f.meta, fib);  // IPv6, or no route to look up
  }
  // The descriptors are copied: the kernel may reuse the RX slots (the frames stay ours).
  xsk_ring_cons__release(&s.rx, n);
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
        if (dec.egress >= nports) [[unlikely]] {
          pc.drop[size_t(WorkerDrop::kNoEgress)].add(1);
          pool.give(addr);
          book_.heldToFree(1);
          break;
        }
        stageTx(dec.egress, addr, len);  // the same frame: a descriptor move, no copy
        break;
      }
      case ForwardResult::kDropPortDown:
        pc.drop[size_t(WorkerDrop::kPortDown)].add(1);
        pool.give(addr);
        book_.heldToFree(1);
        break;
      case ForwardResult::kPuntNoRoute: {
        IpAddress dst;
        // The event is raised even when the limiter drops the frame: ns-3 learns the route.
        if (packetDestination(pkt, len, meta, &dst)) raiseEvent(FastPathEvent::Kind::kRouteMiss, p, dst);
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
      default:
        punt(p, addr, len, true);
        break;
    }
  }
  pc.rx_packets.add(n);
  pc.rx_bytes.add(bytes);
  for (size_t r = 0; r < size_t(ForwardResult::kMax); ++r)
    if (result_count[r]) pc.result[r].add(result_count[r]);
  for (size_t v = 0; v < FP_VERDICT_MAX; ++v)
    if (verdict_count[v]) pc.verdict[v].add(verdict_count[v]);
  flushPunts(p);
  return n;
}

uint32_t Worker::transmitControl() {
  FramePool& pool = umem_->pool();
  const uint32_t nports = uint32_t(sockets_.size());
  const uint32_t max_len = umem_->options().frame_size;
  uint32_t n = 0;
  for (; n < options_.batch_size; ++n) {
    ControlTxFrame* f = ctrl_tx_.front();
    if (!f) break;
    // The relay only queues frames of real ports and of at most kControlFrameMax bytes.
    if (f->port < nports && f->len <= max_len) {
      uint64_t addr;
      if (pool.take(&addr)) {
        book_.takenFromPool(1);
        std::memcpy(umem_->data(addr), f->data, f->len);
        stageTx(f->port, addr, f->len);
        port_counters_[f->port].ctrl_tx_packets.add(1);
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
  if (st.n == st.descs.size()) [[unlikely]] flushTx(egress);
  st.descs[st.n].addr = addr;
  st.descs[st.n].len = len;
  st.descs[st.n].options = 0;
  ++st.n;
}

void Worker::flushTx(PortId p) {
  XskSocket& s = *sockets_[p];
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
  XskSocket& s = *sockets_[p];
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

uint32_t Worker::pollOnce(bool* tx_pending) {
  const PortId np = PortId(sockets_.size());
  uint32_t work = 0;
  // One clock read per loop (vDSO, no syscall) for the punt limiters.
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  now_ns_ = uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
  for (PortId p = 0; p < np; ++p) drainCompletions(p);
  for (PortId p = 0; p < np; ++p) refill(p);
  for (PortId p = 0; p < np; ++p) work += receive(p);
  work += transmitControl();
  bool pending = false;
  for (PortId p = 0; p < np; ++p) {
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

void Worker::run() {
  EpochReader reader(epoch_, "worker " + std::to_string(options_.index));
  if (!reader.ok()) {
    pr_err("worker %u: no epoch reader slot left; not forwarding", options_.index);
    return;
  }
  std::vector<pollfd> pfds;
  for (auto& s : sockets_) pfds.push_back({s->fd(), POLLIN, 0});
  uint32_t idle = 0;
  // A real-time worker must give the CPU back quickly: fewer empty spins before sleeping.
  auto spinsBeforeSleep = [this] { return rt_.load(std::memory_order_relaxed) ? 16u : 256u; };
  while (!stop_.load(std::memory_order_relaxed)) {
    bool pending = false;
    const uint32_t work = pollOnce(&pending);
    if (const int below = rt_below_.load(std::memory_order_relaxed); below > 0) adaptRtPriority(below);
    else rt_boosted_ = false;
    reader.quiescent();
    counters_.loops.add(1);
    if (work || pending) {
      idle = 0;
      counters_.busy_loops.add(1);
      continue;
    }
    if (options_.idle_poll_us == 0 || options_.busy_poll || ++idle < spinsBeforeSleep()) continue;
    // Idle: sleep in poll() until a frame arrives (or the timeout, which bounds the delay
    // of client frames and of stop). Offline so route updates never wait for us.
    reader.offline();
    counters_.idle_polls.add(1);
    int timeout_ms = int((options_.idle_poll_us + 999) / 1000);
    poll(pfds.data(), pfds.size(), timeout_ms);
    reader.online();
  }
  pr_debug("worker %u: stopped", options_.index);
}

}  // namespace fastpath
