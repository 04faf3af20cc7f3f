// SPDX-License-Identifier: GPL-2.0-only
#include "worker/control_channel.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "fastpath/log.h"
#include "fastpath/monotonic_clock.h"

namespace fastpath {

Result<std::unique_ptr<ControlChannel>> ControlChannel::create(PortId port,
                                                               const std::string& ifname,
                                                               int sndbuf) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0)
    return makeError(-errno,
                     "control channel of " + ifname + ": socketpair: " + std::strerror(errno));
  std::unique_ptr<ControlChannel> c(new ControlChannel());
  c->port_ = port;
  c->ifname_ = ifname;
  c->daemon_fd_ = sv[0];
  c->client_fd_ = sv[1];
  // The client end is handed to ns-3's FdNetDevice, which expects blocking reads.
  int fl = fcntl(sv[1], F_GETFL);
  fcntl(sv[1], F_SETFL, fl & ~O_NONBLOCK);
  for (int fd : sv) {
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sndbuf, sizeof(sndbuf));
  }
  // Capped by net.core.wmem_max (and doubled by the kernel): the workers' headroom for
  // CONTROL frames is computed from what was granted.
  socklen_t sl = sizeof(c->sndbuf_);
  if (getsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &c->sndbuf_, &sl) != 0) c->sndbuf_ = 0;
  return c;
}

ControlChannel::~ControlChannel() {
  if (daemon_fd_ >= 0) close(daemon_fd_);
  if (client_fd_ >= 0) close(client_fd_);
}

Result<int> ControlChannel::clientFd(const ControlChannelTiming& timing) {
  // Frames still queued on the client end were written for an earlier client that is gone
  // (the daemon holds the client end too, so they stay until read): a new client must not
  // start with stale ARP replies and routing messages. Counted, then discarded; bounded by
  // what the buffer can hold, as workers keep writing meanwhile.
  for (int left = sndbuf_ / 60 + 1;
       left > 0 && recv(client_fd_, nullptr, 0, MSG_DONTWAIT | MSG_TRUNC) >= 0; --left)
    drop_stale_at_attach.fetch_add(1, std::memory_order_relaxed);
  int fd = fcntl(client_fd_, F_DUPFD_CLOEXEC, 3);
  if (fd < 0)
    return makeError(-errno, "control channel of " + ifname_ + ": dup: " + std::strerror(errno));
  lead_ns_.store(timing.timed ? std::min(timing.lead_ns, kMaxDeliveryLeadNs) : 0,
                 std::memory_order_relaxed);
  timed_.store(timing.timed, std::memory_order_release);
  attached_.store(true, std::memory_order_release);
  return fd;
}

ControlRelay::ControlRelay(std::vector<Route> routes) {
  for (const auto& r : routes) routes_.push_back(std::make_unique<Route>(r));
}

ControlRelay::~ControlRelay() {
  stop();
  if (wake_fd_ >= 0) close(wake_fd_);
  if (epoll_fd_ >= 0) close(epoll_fd_);
}

Status ControlRelay::watch(Route* r) {
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = r;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, r->channel->daemonFd(), &ev) != 0)
    return makeError(-errno, "control relay: epoll_ctl(" + r->channel->ifname() +
                                 "): " + std::strerror(errno));
  return {};
}

Status ControlRelay::start() {
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (wake_fd_ < 0 || epoll_fd_ < 0)
    return makeError(-errno, std::string("control relay: eventfd/epoll: ") + std::strerror(errno));
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = nullptr;  // the wake-up eventfd
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev) != 0)
    return makeError(-errno, std::string("control relay: epoll_ctl: ") + std::strerror(errno));
  for (auto& r : routes_)
    if (auto st = watch(r.get()); !st) return st;
  thread_ = std::thread([this] { run(); });
  return {};
}

void ControlRelay::wakeAndWait() {
  std::unique_lock<std::mutex> lock(mu_);
  const uint64_t want = ++requested_;
  uint64_t one = 1;
  if (write(wake_fd_, &one, sizeof(one)) < 0)
    pr_warn("control relay: eventfd write: %s", std::strerror(errno));
  if (!thread_.joinable()) return;
  cv_.wait(lock, [&] { return acknowledged_ >= want || done_; });
}

void ControlRelay::stop() {
  if (!thread_.joinable()) return;
  stop_.store(true, std::memory_order_release);
  uint64_t one = 1;
  if (write(wake_fd_, &one, sizeof(one)) < 0)
    pr_warn("control relay: eventfd write: %s", std::strerror(errno));
  thread_.join();
}

Status ControlRelay::addChannel(ControlChannel* channel, SpscRing<ControlTxFrame>* queue,
                                int wake_fd) {
  auto r = std::make_unique<Route>(Route{channel, queue, wake_fd});
  if (epoll_fd_ >= 0)
    if (auto st = watch(r.get()); !st) return st;
  routes_.push_back(std::move(r));
  return {};
}

void ControlRelay::removeChannel(ControlChannel* channel) {
  for (auto it = routes_.begin(); it != routes_.end(); ++it) {
    if ((*it)->channel != channel) continue;
    if (epoll_fd_ >= 0) epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, channel->daemonFd(), nullptr);
    // The relay may hold the route from an epoll_wait that returned before the DEL: it
    // acknowledges the wake-up only after it handled every event of that batch.
    wakeAndWait();
    routes_.erase(it);
    return;
  }
}

void ControlRelay::drain(Route& r, uint8_t* scratch) {
  ControlChannel* ch = r.channel;
  uint32_t queued = 0;
  // A timed channel's messages start with the send stamp: read into the slot's `sent`.
  const bool timed = ch->timed();
  const uint32_t head = timed ? kControlStampBytes : 0;
  // Drain up to a bounded number of messages per wakeup so one busy client cannot
  // starve the others.
  for (int k = 0; k < 256; ++k) {
    ControlTxFrame* slot = r.queue->claim();
    uint8_t* buf = slot ? slot->data : scratch;
    ControlStamp stamp;
    // One extra byte detects frames larger than a slot (MSG_TRUNC gives the real size).
    iovec iov[2] = {{&stamp, head},
                    {buf, slot ? kControlFrameMax : kControlFrameMax + 1}};
    msghdr msg{};
    msg.msg_iov = timed ? iov : iov + 1;
    msg.msg_iovlen = timed ? 2 : 1;
    ssize_t len = recvmsg(ch->daemonFd(), &msg, MSG_DONTWAIT | MSG_TRUNC);
    if (len < 0) break;  // EAGAIN: drained
    if (len == 0) break;
    if (size_t(len) > kControlFrameMax + head) {
      ch->drop_oversize.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    if (size_t(len) < 14 + head) {
      ch->drop_runt.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    if (!slot) {
      ch->drop_tx_queue_full.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    slot->port = ch->port();
    slot->len = uint32_t(len) - head;
    slot->sent = 0;
    if (timed) {
      const SentStamp s = clampSentStamp(stamp.time_ns, monotonicNs(), ch->last_sent_);
      ch->last_sent_ = s.sent;
      slot->sent = s.sent;
      if (s.future) ch->stamp_future.fetch_add(1, std::memory_order_relaxed);
      if (s.reordered) ch->stamp_reordered.fetch_add(1, std::memory_order_relaxed);
      // Raised with a compare-exchange: a statistics reset (another thread's store of 0)
      // is never overwritten by an age read before it.
      uint64_t max = ch->stamp_age_max_ns.load(std::memory_order_relaxed);
      while (s.age > max &&
             !ch->stamp_age_max_ns.compare_exchange_weak(max, s.age, std::memory_order_relaxed)) {
      }
    }
    r.queue->publish();
    ++queued;
    ch->from_client.fetch_add(1, std::memory_order_relaxed);
    ch->from_client_bytes.fetch_add(uint64_t(slot->len), std::memory_order_relaxed);
  }
  // The worker may be asleep (it sleeps long when idle): wake it for the frames.
  if (queued && r.wake_fd >= 0) {
    const uint64_t one = 1;
    if (write(r.wake_fd, &one, sizeof(one)) < 0) {
      // EAGAIN: the counter is saturated, the worker has wake-ups pending anyway.
    }
  }
}

void ControlRelay::run() {
  constexpr int kEvents = 64;
  epoll_event events[kEvents];
  uint8_t scratch[kControlFrameMax + 1];
  for (;;) {
    int n = epoll_wait(epoll_fd_, events, kEvents, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      pr_err("control relay: epoll_wait: %s", std::strerror(errno));
      break;
    }
    bool woken = false;
    for (int i = 0; i < n; ++i) {
      if (!events[i].data.ptr)
        woken = true;
      else
        drain(*static_cast<Route*>(events[i].data.ptr), scratch);
    }
    if (!woken) continue;
    uint64_t v;
    if (read(wake_fd_, &v, sizeof(v)) < 0 && errno != EAGAIN)
      pr_warn("control relay: eventfd read: %s", std::strerror(errno));
    if (stop_.load(std::memory_order_acquire)) break;
    std::lock_guard<std::mutex> lock(mu_);
    acknowledged_ = requested_;
    cv_.notify_all();
  }
  std::lock_guard<std::mutex> lock(mu_);
  done_ = true;
  cv_.notify_all();
}

}  // namespace fastpath
