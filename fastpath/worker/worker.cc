// SPDX-License-Identifier: GPL-2.0-only
// A worker's set-up and what the control thread asks of it: construction, interface ports
// attached and detached at run time (published port sets), and the frame ledger's
// snapshot. The per-batch path is worker_forward.cc, links and emulation worker_links.cc,
// when the loop runs worker_schedule.cc, punts and events worker_punt.cc.
#include "worker/worker.h"

#include "fastpath/monotonic_clock.h"
#include "fastpath/userspace_classifier.h"

#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstring>

namespace fastpath {

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
      frames_(*umem_, book_, port_counters_.get()),
      inbox_(frames_),
      emulation_(frames_, maxReleasePerPass(options)),
      handoff_(frames_, inbox_, emulation_),
      fanout_(frames_, inbox_, emulation_),
      media_(frames_, inbox_, events_, counters_),
      timed_(frames_, inbox_),
      ctrl_tx_(options.ctrl_tx_queue),
      events_(options.event_queue),
      rx_budget_(options.rx_budget_us, 2 * options.batch_size, ~0u) {
  fanout_.setEgress(&bridge_egress_);
  fanout_.setPassClock(&now_ns_);
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
  punt_iov_.resize(2 * size_t(options_.batch_size));
  punt_due_.resize(options_.batch_size);
  ctrl_batch_.resize(options_.batch_size);
  limited_due_.resize(options_.batch_size);
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
  link_due_.resize(options_.batch_size * 2);
  tx_due_.resize(maxReleasePerPass(options_) * kReleaseRounds);
  tx_due_link_.resize(tx_due_.size());
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
  ports_pub_.publish(ctl_set_.get());
  if (!thread_.joinable())
    switchPorts();  // not running: the caller's thread is the only one using the worker
  else if (auto st = awaitPorts(version, timeout_ms); !st)
    return st;
  old_sets_.clear();  // the worker copied the newest set: it holds none of them
  return {};
}

Status Worker::awaitPass(const std::function<bool()>& done, int timeout_ms,
                         const char* what, const char* until) {
  // The worker takes what it was handed at the start of its next pass; an idle one is
  // woken for it.
  const uint64_t one = 1;
  const uint64_t start = monotonicNs();
  for (;;) {
    if (done()) return {};
    if (write(wake_fd_, &one, sizeof(one)) < 0) {
      // The counter is full: the worker is awake anyway.
    }
    if (monotonicNs() - start > uint64_t(timeout_ms) * 1000000)
      return makeError(-ETIMEDOUT, "worker " + std::to_string(options_.index) + " did not " +
                                       what + " within " + std::to_string(timeout_ms) +
                                       " ms; " + until);
    usleep(100);
  }
}

Status Worker::awaitPorts(uint64_t version, int timeout_ms) {
  return awaitPass([&] { return ports_pub_.served() >= version; }, timeout_ms,
                   "take the new port set", "the ports' sockets stay open until it does");
}

Status Worker::resetHistograms(int timeout_ms) {
  const uint64_t gen = reset_asked_.fetch_add(1, std::memory_order_acq_rel) + 1;
  if (!thread_.joinable()) {
    resetHistogramsNow();  // not running: the caller's thread is the only one using it
    return {};
  }
  return awaitPass([&] { return reset_done_.load(std::memory_order_acquire) >= gen; },
                   timeout_ms, "reset its histograms", "it does at its next pass");
}

void Worker::resetHistogramsNow() {
  const uint64_t gen = reset_asked_.load(std::memory_order_acquire);
  counters_.lateness.reset();
  counters_.rx_wait.reset();
  counters_.emu_wake_late.reset();
  counters_.stall_max_ns.v.store(0, std::memory_order_relaxed);
  if (links_) {
    auto resetShaper = [](LinkShaper* sh) {
      if (!sh) return;
      sh->counters.sojourn.reset();
      sh->counters.lateness.reset();
    };
    for (const auto& slot : links_->slots) resetShaper(slot.shaper);
    for (const auto& seg : links_->segments) resetShaper(seg.shaper);
    for (LinkShaper* sh : links_->egress) resetShaper(sh);
    for (const auto& m : links_->media)
      if (m.model) m.model->resetMaxima();
  }
  reset_done_.store(gen, std::memory_order_release);
}

void Worker::switchPorts() {
  const PortSet* set = ports_pub_.newer(port_set_version_);
  if (!set) return;
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
  ports_pub_.serve(set->version);
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

void Worker::publishAccounting() { acct_.publish(umem_->pool(), book_); }

FrameAccounting Worker::accounting() const {
  FrameAccounting a;
  a.total = umem_->pool().capacity();
  acct_.read(&a);
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

}  // namespace fastpath
