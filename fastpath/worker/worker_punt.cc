// SPDX-License-Identifier: GPL-2.0-only
// The worker's slow path: frames punted to the port's control channel (batched per port,
// rate-limited, CONTROL frames before limited punts, headroom kept for routing protocol
// frames) and the route-miss / neighbour events raised to the control thread. The
// forwarding hot path, and the frames ns-3 sends out through a channel, are in
// worker_forward.cc.
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>

#include <cerrno>
#include <cstring>

#include "fastpath/monotonic_clock.h"
#include "worker/worker.h"

namespace fastpath {

void Worker::raiseEvent(FastPathEvent::Kind kind, PortId port, const IpAddress& a) {
  // Cheap de-duplication of bursts for one destination; the control thread rate-limits.
  if (have_last_event_ && last_event_.kind == kind && last_event_.port == port &&
      last_event_.address == a)
    return;
  last_event_ = WorkerEvent{kind, port, a, {}};
  have_last_event_ = true;
  if (events_.push(last_event_))
    counters_.events.add(1);
  else
    counters_.events_dropped.add(1);
}

void Worker::punt(PortId in, uint64_t addr, uint32_t len, bool limited) {
  ControlChannel* ch = cur_channel_;
  WorkerDrop why = WorkerDrop::kMax;
  if (!options_.punt_to_control)
    why = WorkerDrop::kPuntPolicy;
  else if (!ch || !ch->attached())
    why = WorkerDrop::kNoControlClient;
  else if (limited && !punt_bucket_[in].take())
    why = WorkerDrop::kPuntRateLimited;
  if (why != WorkerDrop::kMax) return frames_.drop(in, why, addr);
  // A timed client learns when the model has the frame arrive (0: not emulated). A frame
  // from an interface port was not emulated: its arrival stamp is not sent on.
  const ControlStamp due{ch->timed() && in >= kFirstLinkPort ? sentAt(addr) : 0};
  // receive() handles at most batch_size frames between flushes.
  if (limited) {
    limited_due_[limited_n_] = due;
    limited_addr_[limited_n_] = addr;
    limited_len_[limited_n_++] = len;
  } else {
    punt_due_[punt_n_] = due;
    punt_addr_[punt_n_] = addr;
    punt_len_[punt_n_++] = len;
  }
}

void Worker::flushPunts(PortId in) {
  if (!punt_n_ && !limited_n_) return;
  WorkerPortCounters& pc = port_counters_[in];
  FramePool& pool = umem_->pool();
  const int fd = cur_channel_->daemonFd();
  // Headroom for CONTROL frames: once the channel holds 3/4 of its buffer, punts are
  // dropped so routing protocol and ARP frames still fit. One ioctl per batch with punts.
  const int headroom_limit = options_.punt_headroom ? cur_channel_->sendBufferBytes() / 4 * 3 : 0;
  if (limited_n_ && headroom_limit > 0) {
    int queued = 0;
    if (ioctl(fd, SIOCOUTQ, &queued) == 0 && queued >= headroom_limit) {
      for (uint32_t i = 0; i < limited_n_; ++i)
        frames_.drop(in, WorkerDrop::kPuntHeadroom, limited_addr_[i]);
      limited_n_ = 0;
    }
  }
  const uint32_t total = punt_n_ + limited_n_;
  if (!total) return;
  // One sendmmsg per batch, CONTROL frames first: one message per frame on the SEQPACKET
  // channel, never blocking; on a timed channel each message starts with the frame's
  // arrival stamp.
  const bool timed = cur_channel_->timed();
  mmsghdr* msgs = punt_msgs_.data();
  iovec* iov = punt_iov_.data();
  uint64_t early = 0;
  const uint64_t now = timed ? monotonicNs() : 0;
  for (uint32_t i = 0; i < total; ++i) {
    const bool c = i < punt_n_;
    const uint32_t k = c ? i : i - punt_n_;
    ControlStamp& due = c ? punt_due_[k] : limited_due_[k];
    if (due.time_ns > now) ++early;
    iov[2 * i] = {&due, kControlStampBytes};
    iov[2 * i + 1] = {umem_->data(c ? punt_addr_[k] : limited_addr_[k]),
                      c ? punt_len_[k] : limited_len_[k]};
    std::memset(&msgs[i], 0, sizeof(msgs[i]));
    msgs[i].msg_hdr.msg_iov = timed ? &iov[2 * i] : &iov[2 * i + 1];
    msgs[i].msg_hdr.msg_iovlen = timed ? 2 : 1;
  }
  int sent = sendmmsg(fd, msgs, total, MSG_DONTWAIT | MSG_NOSIGNAL);
  int err = sent < 0 ? errno : (uint32_t(sent) < total ? EAGAIN : 0);
  if (sent < 0) sent = 0;
  uint64_t bytes = 0;
  for (int i = 0; i < sent; ++i) bytes += iov[2 * i + 1].iov_len;
  if (early) cur_channel_->to_client_early.fetch_add(early, std::memory_order_relaxed);
  if (timed && sent > 0) cur_channel_->to_client_ns.store(now, std::memory_order_relaxed);
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

}  // namespace fastpath
