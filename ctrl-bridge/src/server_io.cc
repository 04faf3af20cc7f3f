// SPDX-License-Identifier: GPL-2.0-only
// The control server's frames: reading and decoding requests within a budget, queueing
// replies and events within memory and descriptor bounds, sending them (descriptors
// with SCM_RIGHTS), and closing after an error once the last reply is out.
#include "server_impl.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "fastpath/log.h"
#include "wire_encode.h"

namespace fastpath::ctrl {

namespace {

constexpr std::size_t kReadChunk = 64 * 1024;

/// Bytes read from one client per poll() round, so one busy client cannot starve others.
constexpr std::size_t kReadBudget = 4u << 20;

/// How long a connection being closed after an error may take to drain its last reply.
constexpr auto kCloseGrace = std::chrono::milliseconds(1000);

/// What a queued frame costs in memory: the string's allocation plus the frame's own
/// bookkeeping (the deque's share and the allocator's header), so that many small event
/// frames are counted as what they really take, not as their few bytes of payload.
std::size_t frameCost(const server_detail::OutFrame& f) {
  const std::size_t heap = f.data.capacity() > 15 ? f.data.capacity() + 16 : 0;
  return sizeof(server_detail::OutFrame) + 16 + heap;
}

}  // namespace

void ControlServer::Impl::readFrom(Conn& c) {
  std::size_t total = 0;
  while (!c.dead && !c.closing && total < kReadBudget) {
    char* buf = c.dec.prepare(kReadChunk);
    ssize_t n = ::recv(c.fd, buf, kReadChunk, MSG_DONTWAIT);
    if (n < 0) {
      c.dec.commit(0);
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      pr_debug("ctrl: %s: recv: %s", c.who().c_str(), errnoText(errno).c_str());
      c.dead = true;
      return;
    }
    c.dec.commit(static_cast<std::size_t>(n));
    if (n > 0) c.last_rx = Clock::now();
    if (n == 0) {
      if (c.dec.buffered() > 0) {
        ++ctr.malformed_frames;
        pr_warn("ctrl: %s: stream ended inside a frame (%zu bytes); dropping it", c.who().c_str(),
                c.dec.buffered());
        closeWithError(c, 0, v1::MALFORMED, "",
                       "truncated frame: the stream ended after " +
                           std::to_string(c.dec.buffered()) + " bytes of an unfinished frame");
      } else {
        c.dead = c.out.empty();
        if (!c.dead) startClosing(c);
      }
      return;
    }
    total += static_cast<std::size_t>(n);
    processFrames(c);
  }
  if (!c.dead && !c.closing && total >= kReadBudget) {
    // More may be pending; epoll (level-triggered) reports it again next round.
  }
}

void ControlServer::Impl::processFrames(Conn& c) {
  while (!c.dead && !c.closing) {
    v1::Request req;
    switch (c.dec.next(&req)) {
      case FrameDecoder::State::kNeedMore: return;
      case FrameDecoder::State::kFrame: handle(c, req); break;
      case FrameDecoder::State::kTooLarge:
        ++ctr.oversize_frames;
        pr_warn("ctrl: %s: frame of %llu bytes over the %zu-byte limit; closing", c.who().c_str(),
                static_cast<unsigned long long>(c.dec.lastAnnouncedLength()),
                opt.max_message_bytes);
        closeWithError(c, 0, v1::MESSAGE_TOO_LARGE, "",
                       "frame of " + std::to_string(c.dec.lastAnnouncedLength()) +
                           " bytes exceeds the limit of " +
                           std::to_string(opt.max_message_bytes) +
                           " bytes; split the batch into chunks (RouteBatch.transaction_id)");
        return;
      case FrameDecoder::State::kMalformed:
        ++ctr.malformed_frames;
        pr_warn("ctrl: %s: undecodable frame; closing", c.who().c_str());
        closeWithError(
            c, 0, v1::MALFORMED, "",
            "undecodable frame (not a fastpath.v1.Request with a varint length prefix)");
        return;
    }
  }
}

void ControlServer::Impl::startClosing(Conn& c) {
  c.closing = true;
  c.close_deadline = Clock::now() + kCloseGrace;
  flush(c);
}

void ControlServer::Impl::closeWithError(Conn& c, uint64_t id, v1::ErrorCode code,
                                         const std::string& field, const std::string& message) {
  ++ctr.errors;
  enqueue(c, Dispatcher::errorMessage(id, code, field, message));
  if (!c.dead) startClosing(c);
}

void ControlServer::Impl::enqueue(Conn& c, const v1::ServerMessage& m, int pass_fd) {
  if (c.dead) {
    if (pass_fd >= 0) ::close(pass_fd);
    return;
  }
  OutFrame f;
  f.fd = pass_fd;
  if (auto st = encodeFrame(m, opt.max_message_bytes, &f.data); !st) {
    // Only a reply can be this large; answer with an error instead.
    v1::ServerMessage err;
    err.mutable_reply()->set_id(m.has_reply() ? m.reply().id() : 0);
    err.mutable_reply()->mutable_error()->set_code(v1::MESSAGE_TOO_LARGE);
    err.mutable_reply()->mutable_error()->set_message("reply too large: " + st.error().message);
    f.data.clear();
    (void)encodeFrame(err, opt.max_message_bytes, &f.data);
  }
  const std::size_t cost = frameCost(f);
  if (c.queued_cost + cost > opt.max_send_queue_bytes ||
      total_cost + cost > opt.max_total_send_queue_bytes) {
    ++ctr.send_queue_overflows;
    pr_warn_ratelimited(
        "ctrl: %s: send queue over %zu bytes (%zu for all clients; client "
        "not reading); disconnecting",
        c.who().c_str(), opt.max_send_queue_bytes, opt.max_total_send_queue_bytes);
    if (f.fd >= 0) ::close(f.fd);
    c.dead = true;
    return;
  }
  c.queued_cost += cost;
  total_cost += cost;
  if (f.fd >= 0) {
    ++c.queued_fds;
    ++total_fds;
  }
  c.out.push_back(std::move(f));
  flush(c);
}

/// The frame at the head of c.out was sent whole.
void ControlServer::Impl::popFrame(Conn& c) {
  const std::size_t cost = frameCost(c.out.front());
  c.queued_cost -= cost;
  total_cost -= cost;
  c.out.pop_front();
}

void ControlServer::Impl::flush(Conn& c) {
  while (!c.out.empty()) {
    OutFrame& f = c.out.front();
    ssize_t n;
    const char* p = f.data.data() + f.off;
    std::size_t len = f.data.size() - f.off;
    if (f.fd >= 0) {
      iovec iov{const_cast<char*>(p), len};
      alignas(cmsghdr) char cbuf[CMSG_SPACE(sizeof(int))] = {};
      msghdr msg{};
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      msg.msg_control = cbuf;
      msg.msg_controllen = sizeof(cbuf);
      cmsghdr* cm = CMSG_FIRSTHDR(&msg);
      cm->cmsg_level = SOL_SOCKET;
      cm->cmsg_type = SCM_RIGHTS;
      cm->cmsg_len = CMSG_LEN(sizeof(int));
      std::memcpy(CMSG_DATA(cm), &f.fd, sizeof(int));
      n = ::sendmsg(c.fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) {
        ::close(f.fd);  // the peer holds its own reference now
        f.fd = -1;
        --c.queued_fds;
        --total_fds;
      }
    } else {
      n = ::send(c.fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      pr_debug("ctrl: %s: send: %s", c.who().c_str(), errnoText(errno).c_str());
      c.dead = true;
      return;
    }
    f.off += static_cast<std::size_t>(n);
    if (f.off == f.data.size()) popFrame(c);
  }
  if (c.events_dropped && c.queued_cost < opt.max_event_queue_bytes / 2 && !c.closing) {
    // Caught up: say how much was missed (enqueue() flushes it in turn).
    FastPathEvent marker;
    marker.kind = FastPathEvent::Kind::kEventsDropped;
    marker.dropped = c.events_dropped;
    c.events_dropped = 0;
    v1::ServerMessage m;
    toWire(marker, m.mutable_event());
    enqueue(c, m);
    return;
  }
  if (c.out.empty() && c.closing) {
    ::shutdown(c.fd, SHUT_WR);
    c.dead = true;
    return;
  }
  uint32_t want =
      (c.closing ? 0u : uint32_t{EPOLLIN}) | (c.out.empty() ? 0u : uint32_t{EPOLLOUT});
  if (want != c.interest) {
    epoll_event ev{};
    ev.events = want;
    ev.data.fd = c.fd;
    ::epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c.fd, &ev);
    c.interest = want;
  }
}

}  // namespace fastpath::ctrl
