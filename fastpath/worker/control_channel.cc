// SPDX-License-Identifier: GPL-2.0-only
#include "worker/control_channel.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fastpath/log.h"

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

Result<int> ControlChannel::clientFd() {
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
  attached_.store(true, std::memory_order_release);
  return fd;
}

ControlRelay::ControlRelay(std::vector<Route> routes) : routes_(std::move(routes)) {}

ControlRelay::~ControlRelay() {
  stop();
  if (stop_fd_ >= 0) close(stop_fd_);
}

Status ControlRelay::start() {
  stop_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (stop_fd_ < 0)
    return makeError(-errno, std::string("control relay: eventfd: ") + std::strerror(errno));
  thread_ = std::thread([this] { run(); });
  return {};
}

void ControlRelay::stop() {
  if (!thread_.joinable()) return;
  uint64_t one = 1;
  if (write(stop_fd_, &one, sizeof(one)) < 0)
    pr_warn("control relay: eventfd write: %s", std::strerror(errno));
  thread_.join();
}

void ControlRelay::run() {
  std::vector<pollfd> fds;
  for (const auto& r : routes_) fds.push_back({r.channel->daemonFd(), POLLIN, 0});
  fds.push_back({stop_fd_, POLLIN, 0});
  uint8_t scratch[kControlFrameMax + 1];
  for (;;) {
    for (auto& p : fds) p.revents = 0;
    int n = poll(fds.data(), fds.size(), -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      pr_err("control relay: poll: %s", std::strerror(errno));
      return;
    }
    if (fds.back().revents) return;
    for (size_t i = 0; i < routes_.size(); ++i) {
      if (!(fds[i].revents & POLLIN)) continue;
      ControlChannel* ch = routes_[i].channel;
      // Drain up to a bounded number of messages per wakeup so one busy client cannot
      // starve the others.
      for (int k = 0; k < 256; ++k) {
        ControlTxFrame* slot = routes_[i].queue->claim();
        uint8_t* buf = slot ? slot->data : scratch;
        // One extra byte detects frames larger than a slot (MSG_TRUNC gives the real size).
        ssize_t len = recv(ch->daemonFd(), buf, slot ? kControlFrameMax : sizeof(scratch),
                           MSG_DONTWAIT | MSG_TRUNC);
        if (len < 0) break;  // EAGAIN: drained
        if (len == 0) break;
        if (size_t(len) > kControlFrameMax) {
          ch->drop_oversize.fetch_add(1, std::memory_order_relaxed);
          continue;
        }
        if (len < 14) {
          ch->drop_runt.fetch_add(1, std::memory_order_relaxed);
          continue;
        }
        if (!slot) {
          ch->drop_tx_queue_full.fetch_add(1, std::memory_order_relaxed);
          continue;
        }
        slot->port = ch->port();
        slot->len = uint32_t(len);
        routes_[i].queue->publish();
        ch->from_client.fetch_add(1, std::memory_order_relaxed);
        ch->from_client_bytes.fetch_add(uint64_t(len), std::memory_order_relaxed);
      }
    }
  }
}

}  // namespace fastpath
