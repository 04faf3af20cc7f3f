// SPDX-License-Identifier: GPL-2.0-only
// The control server accepting connections: peer credentials, per-uid/pid and total
// limits, refusals with a reason, and closing connections that hold a slot for nothing.
#include "server_impl.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "fastpath/log.h"
#include "wire_encode.h"

namespace fastpath::ctrl {

namespace {

/// After accept() failed for want of resources (descriptors, memory), the listening socket
/// rests this long instead of waking the loop again at once.
constexpr auto kAcceptBackoff = std::chrono::milliseconds(200);

}  // namespace

void ControlServer::Impl::setListening(bool on) {
  epoll_event ev{};
  ev.events = on ? uint32_t{EPOLLIN} : 0u;
  ev.data.fd = listen_fd;
  ::epoll_ctl(epoll_fd, EPOLL_CTL_MOD, listen_fd, &ev);
  listen_paused = !on;
}

/// A connection that never said Hello, or that stopped in the middle of a frame, holds
/// a slot (and possibly 16 MiB of buffer) for nothing: it is closed after its timeout.
void ControlServer::Impl::closeIfIdle(Conn& c, Clock::time_point now) {
  if (c.dead || c.closing) return;
  using std::chrono::milliseconds;
  if (!c.session.hello && now - c.accepted_at > milliseconds(opt.hello_timeout_ms)) {
    ++ctr.closed_no_hello;
    pr_warn_ratelimited("ctrl: %s: no Hello within %d ms; closing", c.who().c_str(),
                        opt.hello_timeout_ms);
    closeWithError(c, 0, v1::FAILED_PRECONDITION, "hello",
                   "hello: none within " + std::to_string(opt.hello_timeout_ms) +
                       " ms of connecting; closing");
  } else if (c.dec.buffered() > 0 && now - c.last_rx > milliseconds(opt.frame_stall_timeout_ms)) {
    ++ctr.closed_stalled;
    pr_warn_ratelimited(
        "ctrl: %s: %zu bytes of an unfinished frame, nothing more for %d ms; "
        "closing",
        c.who().c_str(), c.dec.buffered(), opt.frame_stall_timeout_ms);
    closeWithError(c, 0, v1::MALFORMED, "",
                   "unfinished frame: no byte for " + std::to_string(opt.frame_stall_timeout_ms) +
                       " ms; closing");
  }
}

/// Empty when a peer with these credentials may have one more connection.
std::string ControlServer::Impl::admissionRefusal(const PeerCredentials& p) const {
  const bool op = policy.isOperator(p);
  std::size_t same_uid = 0, same_pid = 0;
  for (const auto& [fd, c] : conns) {
    same_uid += c->cred.uid == p.uid;
    same_pid += c->cred.pid == p.pid;
  }
  const std::size_t cap =
      opt.max_clients + (op ? opt.reserved_clients + opt.operator_clients : 0);
  if (conns.size() >= cap)
    return "too many clients (" + std::to_string(conns.size()) + ", limit " +
           std::to_string(cap) +
           (op ? " for operators: fastpathd --operator-connections N allows 2N beyond " +
                     std::to_string(opt.max_clients + opt.reserved_clients) + ")"
               : "); try again later");
  if (!op && same_uid >= opt.max_clients_per_uid)
    return "uid " + std::to_string(p.uid) + " already has " + std::to_string(same_uid) +
           " connections (limit " + std::to_string(opt.max_clients_per_uid) + ")";
  const std::size_t per_pid = op ? opt.max_clients_per_operator_pid : opt.max_clients_per_pid;
  if (p.uid != 0 && same_pid >= per_pid)
    return "pid " + std::to_string(p.pid) + " already has " + std::to_string(same_pid) +
           " connections (limit " + std::to_string(per_pid) +
           (op ? " for an operator's process: raise it with fastpathd "
                 "--operator-connections, or run the scenario as several processes, "
                 "mpirun -np K)"
               : "; operators - root, the socket's owner, --socket-uid - may have " +
                     std::to_string(opt.max_clients_per_operator_pid) + ")");
  return {};
}

/// Best-effort single reply on a connection being refused at accept time.
void ControlServer::Impl::refuse(int fd, v1::ErrorCode code, const std::string& message) {
  v1::ServerMessage m;
  auto* e = m.mutable_reply()->mutable_error();
  e->set_code(code);
  e->set_message(message);
  std::string frame;
  if (encodeFrame(m, opt.max_message_bytes, &frame))
    (void)!::send(fd, frame.data(), frame.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  ::shutdown(fd, SHUT_RDWR);
  ::close(fd);
}

void ControlServer::Impl::acceptAll() {
  for (;;) {
    int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      // Out of descriptors or memory: pending connections stay in the backlog; the
      // listening socket rests instead of waking the loop again at once.
      ++ctr.accept_errors;
      pr_warn_ratelimited("ctrl: accept on %s: %s; not accepting for %lld ms",
                          opt.socket_path.c_str(), errnoText(errno).c_str(),
                          static_cast<long long>(kAcceptBackoff.count()));
      listen_resume = Clock::now() + kAcceptBackoff;
      setListening(false);
      return;
    }
    auto cred = peerCredentials(fd);
    if (!cred) {
      pr_warn_ratelimited("ctrl: %s; refusing connection", cred.error().message.c_str());
      ::close(fd);
      continue;
    }
    const PeerCredentials& cr = *cred;
    if (std::string why = policy.refusal(cr); !why.empty()) {
      ++ctr.refused_credentials;
      pr_warn_ratelimited("ctrl: refused connection from pid %d: %s", int(cr.pid), why.c_str());
      refuse(fd, v1::PERMISSION_DENIED, "permission denied: " + why);
      continue;
    }
    if (std::string why = admissionRefusal(cr); !why.empty()) {
      ++ctr.refused_too_many;
      pr_warn_ratelimited("ctrl: refused connection from pid %d: %s", int(cr.pid), why.c_str());
      refuse(fd, v1::RESOURCE_EXHAUSTED, why);
      continue;
    }
    auto c = std::make_unique<Conn>(opt.max_message_bytes);
    c->fd = fd;
    c->cred = cr;
    c->accepted_at = c->last_rx = Clock::now();
    c->session.who = "client pid " + std::to_string(cr.pid) + " uid " + std::to_string(cr.uid);
    c->session.pid = static_cast<uint32_t>(cr.pid);
    c->session.uid = cr.uid;
    c->session.may_change_topology = policy.mayChangeTopology(cr);
    c->interest = EPOLLIN;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    if (::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0) {
      pr_warn("ctrl: epoll_ctl: %s", errnoText(errno).c_str());
      ::close(fd);
      continue;
    }
    ++ctr.accepted;
    pr_debug("ctrl: %s connected", c->who().c_str());
    conns.emplace(fd, std::move(c));
  }
}

}  // namespace fastpath::ctrl
