// SPDX-License-Identifier: GPL-2.0-only
// The client's connection: socket, framing, descriptors passed with replies, one request
// and its reply, Hello and subscribe.
#include "client_connection.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/random.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "reply_decode.h"

namespace fastpath::ctrl {

namespace {

using Clock = std::chrono::steady_clock;

Error sysError(int err, const std::string& what) {
  return makeError(-err, what + ": " + std::strerror(err));
}

}  // namespace

bool isConnectionLoss(int code) {
  return code == -EPIPE || code == -ECONNRESET || code == -ENOTCONN || code == -ECONNABORTED ||
         code == -ESHUTDOWN;
}

Status requireFeature(const ServerInfo& info, const CallInfo& call) {
  const Feature& f = call.feature;
  if (!f.needs || info.major > kProtocolMajor ||
      (info.major == kProtocolMajor && info.minor >= f.minor))
    return {};
  return makeError(-ENOSYS, std::string(call.name) + ": fastpathd speaks protocol " +
                                std::to_string(info.major) + "." + std::to_string(info.minor) +
                                "; " + f.needs + " (upgrade fastpathd)");
}

namespace {

/// -EPROTONOSUPPORT: `what` needs protocol 1.`minor`; the server is older and would drop
/// the field unseen, doing `instead`.
Status olderServer(const ServerInfo& info, const std::string& call, const std::string& what,
                   uint32_t minor, const std::string& instead) {
  if (info.major > kProtocolMajor || (info.major == kProtocolMajor && info.minor >= minor))
    return {};
  return makeError(-EPROTONOSUPPORT,
                   call + ": " + what + " needs protocol " + std::to_string(kProtocolMajor) +
                       "." + std::to_string(minor) + " (this client speaks " +
                       std::to_string(kProtocolMajor) + "." + std::to_string(kProtocolMinor) +
                       "); fastpathd speaks " + std::to_string(info.major) + "." +
                       std::to_string(info.minor) + " and would " + instead);
}

}  // namespace

Status requireAqm(const ServerInfo& info, const char* call, const LinkParams& params) {
  if (params.aqm == LinkParams::Aqm::kNone) return {};
  if (params.aqm == LinkParams::Aqm::kRed)
    if (auto st = olderServer(info, call, "RED (aqm red)", kLinkRedMinor,
                              "refuse it as an unknown queue discipline (upgrade fastpathd)");
        !st)
      return st;
  if (params.aqm == LinkParams::Aqm::kFqCoDel)
    if (auto st = olderServer(info, call, "a flow-queue discipline (aqm fq_codel)", kFqCoDelMinor,
                              "refuse it as an unknown discipline (upgrade fastpathd, or use "
                              "aqm codel)");
        !st)
      return st;
  return olderServer(info, call,
                     "a queue discipline (aqm " + std::string(aqmName(params.aqm)) + ")",
                     kLinkAqmMinor,
                     "ignore it (upgrade fastpathd, or use no queue discipline)");
}

Status requireLinkEndState(const ServerInfo& info, const std::string& node) {
  if (node.empty()) return {};
  return olderServer(info, "set_link_state", "setting " + node + "'s end alone",
                     kLinkEndStateMinor, "set the whole link (upgrade fastpathd)");
}

Status requireWireVxlan(const ServerInfo& info, const MultiHostDeclaration& declaration) {
  if (declaration.vxlan.empty()) return {};
  const auto& [ifname, v] = *declaration.vxlan.begin();
  return olderServer(info, "multi_host_declare",
                     "a VXLAN wire (" + ifname + ", " + v.underlay.toString() + " -> " +
                         v.peer_underlay.toString() + ")",
                     kWireVxlanMinor,
                     "make it an 802.1Q wire, which a routed underlay does not carry "
                     "(upgrade fastpathd, or join the hosts by a shared segment)");
}

Client::Impl::Impl(std::string p, ClientOptions o)
  : path(std::move(p)), opt(std::move(o)), dec(opt.max_message_bytes) {
  // Unguessable, so that two clients of one user do not answer each other's resends.
  while (opt.auto_reconnect && session_id == 0)
    if (::getrandom(&session_id, sizeof(session_id), 0) != sizeof(session_id)) break;
}

uint64_t Client::Impl::nextRequestId() {
  uint64_t id;
  if (resend_ids.empty()) {
    id = next_id++;
  } else {
    id = resend_ids.front();
    resend_ids.pop_front();
  }
  if (in_call) call_ids.push_back(id);
  return id;
}

Client::Impl::~Impl() { closeFd(); }

void Client::Impl::closeFd() {
  if (fd >= 0) ::close(fd);
  fd = -1;
  for (int f : fds) ::close(f);
  fds.clear();
  dec = FrameDecoder(opt.max_message_bytes);
}

Status Client::Impl::connectSocket() {
  closeFd();
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path))
    return makeError(-ENAMETOOLONG, "socket path '" + path + "' is too long");
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return sysError(errno, "socket(AF_UNIX)");
  // Programs using the client may select() other descriptors, which works below FD_SETSIZE
  // only (ns-3's FdNetDevice reads each device that way): the client's own socket goes
  // above that range when RLIMIT_NOFILE allows, and stays where it is otherwise.
  if (int high = ::fcntl(s, F_DUPFD_CLOEXEC, FD_SETSIZE); high >= 0) {
    ::close(s);
    s = high;
  }
  if (::connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) < 0) {
    int e = errno;
    ::close(s);
    std::string hint = e == ENOENT || e == ECONNREFUSED ? " (is fastpathd running?)"
                       : e == EACCES                    ? " (are you in fastpathd's group?)"
                                                        : "";
    return makeError(-e, "connect to " + path + ": " + std::strerror(e) + hint);
  }
  fd = s;
  return {};
}

Status Client::Impl::sendRequest(const v1::Request& req) {
  std::string frame;
  if (auto st = encodeFrame(req, opt.max_message_bytes, &frame); !st) return st;
  std::size_t off = 0;
  while (off < frame.size()) {
    ssize_t n = ::send(fd, frame.data() + off, frame.size() - off, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return sysError(errno, "send to fastpathd");
    }
    off += static_cast<std::size_t>(n);
  }
  return {};
}

Result<int> Client::Impl::readMore(int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  int r;
  do {
    r = ::poll(&p, 1, timeout_ms);
  } while (r < 0 && errno == EINTR);
  if (r < 0) return sysError(errno, "poll");
  if (r == 0) return 0;
  char* buf = dec.prepare(64 * 1024);
  iovec iov{buf, 64 * 1024};
  alignas(cmsghdr) char cbuf[CMSG_SPACE(sizeof(int) * 8)];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = cbuf;
  msg.msg_controllen = sizeof(cbuf);
  ssize_t n;
  do {
    n = ::recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    int e = errno;
    dec.commit(0);
    return sysError(e, "receive from fastpathd");
  }
  dec.commit(static_cast<std::size_t>(n));
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (std::size_t i = 0; i < count; ++i) {
        int f;
        std::memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
        fds.push_back(f);
      }
    }
  }
  if (n == 0)
    return makeError(-ECONNRESET, dec.buffered() ? "fastpathd closed the connection mid-frame"
                                                 : "fastpathd closed the connection");
  return 1;
}

Result<std::optional<v1::ServerMessage>> Client::Impl::readMessage(int timeout_ms) {
  auto deadline = Clock::now() + std::chrono::milliseconds(std::max(timeout_ms, 0));
  for (;;) {
    v1::ServerMessage m;
    switch (dec.next(&m)) {
      case FrameDecoder::State::kFrame: return std::optional<v1::ServerMessage>(std::move(m));
      case FrameDecoder::State::kTooLarge:
        closeFd();
        return makeError(-EMSGSIZE, "fastpathd sent a frame larger than max_message_bytes (" +
                                        std::to_string(opt.max_message_bytes) + ")");
      case FrameDecoder::State::kMalformed:
        closeFd();
        return makeError(-EBADMSG, "undecodable frame from fastpathd");
      case FrameDecoder::State::kNeedMore: break;
    }
    int wait = -1;
    if (timeout_ms >= 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      wait = static_cast<int>(std::max<int64_t>(0, left.count()));
    }
    auto r = readMore(wait);
    if (!r) return r.error();
    if (r.value() == 0) return std::optional<v1::ServerMessage>();
  }
}

void Client::Impl::bufferEvent(const v1::Event& e) {
  if (auto ev = eventFromReply(e)) events.push_back(*ev);
}

Result<v1::Reply> Client::Impl::callOnce(v1::Request& req) {
  if (fd < 0) return makeError(-ENOTCONN, "not connected to fastpathd");
  req.set_id(nextRequestId());
  if (auto st = sendRequest(req); !st) {
    // The server may have refused us and closed (credentials, too many clients): its
    // error reply is still readable and says why, which beats "broken pipe".
    auto m = readMessage(0);
    if (m && m.value() && m.value()->has_reply() && m.value()->reply().has_error()) {
      const auto& e = m.value()->reply().error();
      closeFd();
      return makeError(errnoForCode(e.code()), e.message());
    }
    return st.error();
  }
  auto deadline = Clock::now() + std::chrono::milliseconds(opt.reply_timeout_ms);
  for (;;) {
    int wait = -1;
    if (opt.reply_timeout_ms > 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      wait = static_cast<int>(std::max<int64_t>(0, left.count()));
    }
    auto m = readMessage(wait);
    if (!m) return m.error();
    if (!m.value())
      return makeError(-ETIMEDOUT, "no reply from fastpathd within " +
                                       std::to_string(opt.reply_timeout_ms) + " ms");
    auto& msg = *m.value();
    if (msg.has_event()) {
      bufferEvent(msg.event());
      continue;
    }
    if (msg.has_capture()) {
      bufferCapture(*msg.mutable_capture());
      continue;
    }
    if (!msg.has_reply()) continue;
    v1::Reply& rep = *msg.mutable_reply();
    if (rep.id() != req.id() && rep.id() != 0) continue;  // stale reply (after a timeout)
    if (rep.has_error() && rep.error().code() != v1::OK) {
      Error e = makeError(errnoForCode(rep.error().code()), rep.error().message());
      if (rep.id() == 0) closeFd();  // connection-level error: the server closes
      return e;
    }
    return std::move(rep);
  }
}

Status Client::Impl::doHello(const std::string& node_name, const std::string& node) {
  v1::Request req;
  auto* h = req.mutable_hello();
  h->mutable_version()->set_major(opt.protocol_major);
  h->mutable_version()->set_minor(opt.protocol_minor);
  h->set_node_name(node_name);
  h->set_client_name(opt.client_name);
  h->set_route_grace_period_ms(opt.route_grace_period_ms);
  h->set_node(node);
  // Announcing an older protocol (tests) promises what that protocol did: no resends.
  if (opt.protocol_major > kProtocolMajor || opt.protocol_minor >= kAtMostOnceMinor)
    h->set_session_id(session_id);
  auto rep = callOnce(req);
  if (!rep) return rep.error();
  const auto& hr = rep->hello();
  info.major = hr.version().major();
  info.minor = hr.version().minor();
  info.daemon_name = hr.daemon_name();
  info.node_name = hr.node_name();
  info.node = hr.node();
  opt.node_name = node_name;
  opt.node = node;
  return {};
}

Status Client::Impl::doSubscribe(const Subscription& what) {
  v1::Request req;
  req.set_node(what.node);
  req.mutable_subscribe()->set_all_nodes(what.all_nodes);
  auto rep = callOnce(req);
  if (!rep) return rep.error();
  subscribed = true;
  subscription = what;
  return {};
}

}  // namespace fastpath::ctrl
