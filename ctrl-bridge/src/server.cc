// SPDX-License-Identifier: GPL-2.0-only
#include "fastpath/ctrl/server.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <unordered_map>

#include "fastpath/ctrl/framing.h"
#include "fastpath/ctrl/translate.h"
#include "fastpath/log.h"

namespace fastpath::ctrl {

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kReadChunk = 64 * 1024;
/// Bytes read from one client per poll() round, so one busy client cannot starve others.
constexpr std::size_t kReadBudget = 4u << 20;
/// How long a connection being closed after an error may take to drain its last reply.
constexpr auto kCloseGrace = std::chrono::milliseconds(1000);

struct OutFrame {
  std::string data;
  std::size_t off = 0;
  int fd = -1;  // passed with SCM_RIGHTS on the frame's first byte
};

struct Conn {
  int fd = -1;
  ucred cred{};
  std::string who;
  FrameDecoder dec;
  std::deque<OutFrame> out;
  std::size_t out_bytes = 0;
  uint32_t interest = 0;
  bool hello = false;
  bool closing = false;
  bool dead = false;
  Clock::time_point close_deadline;
  bool subscribed = false;
  bool event_kinds[4] = {false, false, false, false};
  // Open chunked route transaction.
  std::unique_ptr<BatchBuilder> txn;
  uint64_t txn_id = 0;
  uint32_t next_chunk = 0;
  // Snapshot for paged GetRoutes (taken at offset 0).
  std::vector<Route> route_snapshot;

  explicit Conn(std::size_t max) : dec(max) {}
  ~Conn() {
    for (auto& f : out)
      if (f.fd >= 0) ::close(f.fd);
  }
};

std::string errnoText(int e) { return std::strerror(e); }

}  // namespace

struct ControlServer::Impl {
  ControlBackend& backend;
  ServerOptions opt;
  int listen_fd = -1;
  int epoll_fd = -1;
  bool sink_set = false;
  bool started = false;
  std::unordered_map<int, std::unique_ptr<Conn>> conns;
  ServerCounters ctr;

  Impl(ControlBackend& b, ServerOptions o) : backend(b), opt(std::move(o)) {}

  // ------------------------------------------------------------ setup

  Status resolveGroup(gid_t* gid) {
    const std::string& g = opt.socket_group;
    char* end = nullptr;
    unsigned long n = std::strtoul(g.c_str(), &end, 10);
    if (!g.empty() && *end == '\0') {
      *gid = static_cast<gid_t>(n);
      return {};
    }
    group grp{};
    group* res = nullptr;
    std::vector<char> buf(16384);
    if (getgrnam_r(g.c_str(), &grp, buf.data(), buf.size(), &res) != 0 || !res)
      return makeError(-ENOENT, "socket group '" + g + "' does not exist (create it or fix --group)");
    *gid = res->gr_gid;
    return {};
  }

  Status start() {
    if (started) return makeError(-EALREADY, "control server already started");
    if (opt.node_name.empty()) {
      char host[256] = {};
      gethostname(host, sizeof(host) - 1);
      opt.node_name = host;
    }
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (opt.socket_path.empty() || opt.socket_path.size() >= sizeof(addr.sun_path))
      return makeError(-ENAMETOOLONG, "control socket path '" + opt.socket_path +
                                          "' is empty or longer than " +
                                          std::to_string(sizeof(addr.sun_path) - 1) + " bytes");
    std::memcpy(addr.sun_path, opt.socket_path.c_str(), opt.socket_path.size() + 1);

    gid_t gid = static_cast<gid_t>(-1);
    if (!opt.socket_group.empty()) {
      if (auto st = resolveGroup(&gid); !st) return st;
      opt.allowed_gids.push_back(gid);
    }

    // A socket file may be left over from a crashed daemon; replace it unless a live
    // server still answers on it.
    struct stat sb{};
    if (::lstat(opt.socket_path.c_str(), &sb) == 0) {
      if (!S_ISSOCK(sb.st_mode))
        return makeError(-EEXIST, opt.socket_path + " exists and is not a socket; remove it");
      int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      bool live = probe >= 0 && ::connect(probe, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
      if (probe >= 0) ::close(probe);
      if (live)
        return makeError(-EADDRINUSE, "another server is listening on " + opt.socket_path +
                                          " (is fastpathd already running?)");
      ::unlink(opt.socket_path.c_str());
    }

    listen_fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (listen_fd < 0) return makeError(-errno, "socket(AF_UNIX): " + errnoText(errno));
    if (::bind(listen_fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) < 0) {
      int e = errno;
      closeListen();
      return makeError(-e, "bind " + opt.socket_path + ": " + errnoText(e) +
                               (e == ENOENT ? " (create the directory first)" : ""));
    }
    // Permissions are fixed before listen(): nobody can connect in between.
    if (::chmod(opt.socket_path.c_str(), opt.socket_mode) < 0 ||
        (gid != static_cast<gid_t>(-1) &&
         ::chown(opt.socket_path.c_str(), static_cast<uid_t>(-1), gid) < 0)) {
      int e = errno;
      closeListen();
      ::unlink(opt.socket_path.c_str());
      return makeError(-e, "set mode/group of " + opt.socket_path + ": " + errnoText(e));
    }
    if (::listen(listen_fd, 64) < 0) {
      int e = errno;
      closeListen();
      ::unlink(opt.socket_path.c_str());
      return makeError(-e, "listen on " + opt.socket_path + ": " + errnoText(e));
    }
    epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd < 0) {
      int e = errno;
      closeListen();
      ::unlink(opt.socket_path.c_str());
      return makeError(-e, "epoll_create1: " + errnoText(e));
    }
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = listen_fd;
    ::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, listen_fd, &ev);
    backend.setEventSink([this](const FastPathEvent& e) { onEvent(e); });
    sink_set = true;
    started = true;
    pr_info("ctrl: listening on %s (mode %04o%s%s)", opt.socket_path.c_str(),
            static_cast<unsigned>(opt.socket_mode), opt.socket_group.empty() ? "" : ", group ",
            opt.socket_group.c_str());
    return {};
  }

  void closeListen() {
    if (listen_fd >= 0) ::close(listen_fd);
    listen_fd = -1;
  }

  void stop() {
    if (sink_set) backend.setEventSink([](const FastPathEvent&) {});
    sink_set = false;
    for (auto& [fd, c] : conns) ::close(fd);
    conns.clear();
    if (epoll_fd >= 0) ::close(epoll_fd);
    epoll_fd = -1;
    if (listen_fd >= 0) {
      closeListen();
      ::unlink(opt.socket_path.c_str());
    }
    started = false;
  }

  // ------------------------------------------------------------ loop

  Result<int> poll(int timeout_ms) {
    if (epoll_fd < 0) return makeError(-EBADF, "control server not started");
    bool any_closing = false;
    for (auto& [fd, c] : conns) any_closing |= c->closing;
    if (any_closing && (timeout_ms < 0 || timeout_ms > 100)) timeout_ms = 100;
    epoll_event evs[64];
    int n = ::epoll_wait(epoll_fd, evs, 64, timeout_ms);
    if (n < 0) {
      if (errno == EINTR) return 0;
      return makeError(-errno, "epoll_wait: " + errnoText(errno));
    }
    for (int i = 0; i < n; ++i) {
      int fd = evs[i].data.fd;
      if (fd == listen_fd) {
        acceptAll();
        continue;
      }
      auto it = conns.find(fd);
      if (it == conns.end()) continue;
      Conn& c = *it->second;
      if (!c.dead && (evs[i].events & EPOLLOUT)) flush(c);
      if (!c.dead && (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) readFrom(c);
    }
    reap();
    return n;
  }

  void reap() {
    auto now = Clock::now();
    for (auto it = conns.begin(); it != conns.end();) {
      Conn& c = *it->second;
      if (c.closing && !c.dead && now > c.close_deadline) {
        pr_warn("ctrl: %s: closing without delivering the last reply (peer not reading)",
                c.who.c_str());
        c.dead = true;
      }
      if (c.dead) {
        if (c.txn) {
          ++ctr.transactions_aborted;
          pr_info("ctrl: %s: disconnected with transaction %llu open; discarded, nothing applied",
                  c.who.c_str(), static_cast<unsigned long long>(c.txn_id));
        }
        ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c.fd, nullptr);
        ::close(c.fd);
        pr_debug("ctrl: %s: closed", c.who.c_str());
        it = conns.erase(it);
      } else {
        ++it;
      }
    }
  }

  bool credentialsAllowed(const ucred& cr, std::string* why) {
    if (cr.uid == 0) return true;
    if (opt.allow_same_uid && cr.uid == ::geteuid()) return true;
    if (std::find(opt.allowed_uids.begin(), opt.allowed_uids.end(), cr.uid) != opt.allowed_uids.end())
      return true;
    if (std::find(opt.allowed_gids.begin(), opt.allowed_gids.end(), cr.gid) != opt.allowed_gids.end())
      return true;
    *why = "uid " + std::to_string(cr.uid) + " gid " + std::to_string(cr.gid) +
           " is neither root, " + (opt.allow_same_uid ? "the daemon's uid, " : "") +
           "nor an allowed uid/gid";
    return false;
  }

  /// Best-effort single reply on a connection being refused at accept time.
  void refuse(int fd, v1::ErrorCode code, const std::string& message) {
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

  void acceptAll() {
    for (;;) {
      int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
          pr_warn("ctrl: accept on %s: %s", opt.socket_path.c_str(), errnoText(errno).c_str());
        return;
      }
      ucred cr{};
      socklen_t len = sizeof(cr);
      if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0) {
        pr_warn("ctrl: SO_PEERCRED: %s; refusing connection", errnoText(errno).c_str());
        ::close(fd);
        continue;
      }
      std::string why;
      if (!credentialsAllowed(cr, &why)) {
        ++ctr.refused_credentials;
        pr_warn("ctrl: refused connection from pid %d: %s", cr.pid, why.c_str());
        refuse(fd, v1::PERMISSION_DENIED,
               "permission denied: " + why + " (ask the admin to add you to fastpathd's group)");
        continue;
      }
      if (conns.size() >= opt.max_clients) {
        ++ctr.refused_too_many;
        pr_warn("ctrl: refused connection from pid %d: %zu clients already connected", cr.pid,
                conns.size());
        refuse(fd, v1::RESOURCE_EXHAUSTED,
               "too many clients (" + std::to_string(conns.size()) + "); try again later");
        continue;
      }
      auto c = std::make_unique<Conn>(opt.max_message_bytes);
      c->fd = fd;
      c->cred = cr;
      c->who = "client pid " + std::to_string(cr.pid) + " uid " + std::to_string(cr.uid);
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
      pr_debug("ctrl: %s connected", c->who.c_str());
      conns.emplace(fd, std::move(c));
    }
  }

  void readFrom(Conn& c) {
    std::size_t total = 0;
    while (!c.dead && !c.closing && total < kReadBudget) {
      char* buf = c.dec.prepare(kReadChunk);
      ssize_t n = ::recv(c.fd, buf, kReadChunk, MSG_DONTWAIT);
      if (n < 0) {
        c.dec.commit(0);
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        pr_debug("ctrl: %s: recv: %s", c.who.c_str(), errnoText(errno).c_str());
        c.dead = true;
        return;
      }
      c.dec.commit(static_cast<std::size_t>(n));
      if (n == 0) {
        if (c.dec.buffered() > 0) {
          ++ctr.malformed_frames;
          pr_warn("ctrl: %s: stream ended inside a frame (%zu bytes); dropping it", c.who.c_str(),
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

  void processFrames(Conn& c) {
    while (!c.dead && !c.closing) {
      v1::Request req;
      switch (c.dec.next(&req)) {
        case FrameDecoder::State::kNeedMore:
          return;
        case FrameDecoder::State::kFrame:
          handle(c, req);
          break;
        case FrameDecoder::State::kTooLarge:
          ++ctr.oversize_frames;
          pr_warn("ctrl: %s: frame of %llu bytes over the %zu-byte limit; closing", c.who.c_str(),
                  static_cast<unsigned long long>(c.dec.lastAnnouncedLength()),
                  opt.max_message_bytes);
          closeWithError(c, 0, v1::MESSAGE_TOO_LARGE, "",
                         "frame of " + std::to_string(c.dec.lastAnnouncedLength()) +
                             " bytes exceeds the limit of " + std::to_string(opt.max_message_bytes) +
                             " bytes; split the batch into chunks (RouteBatch.transaction_id)");
          return;
        case FrameDecoder::State::kMalformed:
          ++ctr.malformed_frames;
          pr_warn("ctrl: %s: undecodable frame; closing", c.who.c_str());
          closeWithError(c, 0, v1::MALFORMED, "",
                         "undecodable frame (not a fastpath.v1.Request with a varint length prefix)");
          return;
      }
    }
  }

  // ------------------------------------------------------------ output

  void startClosing(Conn& c) {
    c.closing = true;
    c.close_deadline = Clock::now() + kCloseGrace;
    flush(c);
  }

  void closeWithError(Conn& c, uint64_t id, v1::ErrorCode code, const std::string& field,
                      const std::string& message) {
    v1::ServerMessage m;
    auto* r = m.mutable_reply();
    r->set_id(id);
    r->mutable_error()->set_code(code);
    r->mutable_error()->set_field(field);
    r->mutable_error()->set_message(message);
    ++ctr.errors;
    enqueue(c, m);
    if (!c.dead) startClosing(c);
  }

  void enqueue(Conn& c, const v1::ServerMessage& m, int pass_fd = -1) {
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
    c.out_bytes += f.data.size();
    c.out.push_back(std::move(f));
    if (c.out_bytes > opt.max_send_queue_bytes) {
      ++ctr.send_queue_overflows;
      pr_warn("ctrl: %s: send queue over %zu bytes (client not reading); disconnecting",
              c.who.c_str(), opt.max_send_queue_bytes);
      c.dead = true;
      return;
    }
    flush(c);
  }

  void flush(Conn& c) {
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
        }
      } else {
        n = ::send(c.fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
      }
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) break;
        pr_debug("ctrl: %s: send: %s", c.who.c_str(), errnoText(errno).c_str());
        c.dead = true;
        return;
      }
      f.off += static_cast<std::size_t>(n);
      c.out_bytes -= static_cast<std::size_t>(n);
      if (f.off == f.data.size()) c.out.pop_front();
    }
    if (c.out.empty() && c.closing) {
      ::shutdown(c.fd, SHUT_WR);
      c.dead = true;
      return;
    }
    uint32_t want = (c.closing ? 0u : uint32_t{EPOLLIN}) | (c.out.empty() ? 0u : uint32_t{EPOLLOUT});
    if (want != c.interest) {
      epoll_event ev{};
      ev.events = want;
      ev.data.fd = c.fd;
      ::epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c.fd, &ev);
      c.interest = want;
    }
  }

  void onEvent(const FastPathEvent& e) {
    int k = static_cast<int>(e.kind);
    if (k < 0 || k > 3) return;
    v1::ServerMessage m;
    toWire(e, m.mutable_event());
    for (auto& [fd, c] : conns) {
      if (c->dead || c->closing || !c->subscribed || !c->event_kinds[k]) continue;
      ++ctr.events_sent;
      enqueue(*c, m);
    }
  }

  // ------------------------------------------------------------ requests

  void sendError(Conn& c, uint64_t id, v1::ErrorCode code, const std::string& field,
                 const std::string& message) {
    v1::ServerMessage m;
    auto* r = m.mutable_reply();
    r->set_id(id);
    r->mutable_error()->set_code(code);
    r->mutable_error()->set_field(field);
    r->mutable_error()->set_message(message);
    ++ctr.errors;
    pr_debug("ctrl: %s: request %llu: %s", c.who.c_str(), static_cast<unsigned long long>(id),
             message.c_str());
    enqueue(c, m);
  }

  void sendError(Conn& c, uint64_t id, const WireError& e) {
    sendError(c, id, e.code, e.field, e.message);
  }

  void sendBackendError(Conn& c, uint64_t id, const std::string& what, const Error& e) {
    sendError(c, id, codeForErrno(e.code), what, what + ": " + e.message);
  }

  void handle(Conn& c, v1::Request& req) {
    ++ctr.requests;
    const uint64_t id = req.id();
    if (!c.hello && req.body_case() != v1::Request::kHello) {
      sendError(c, id, v1::FAILED_PRECONDITION, "hello",
                "hello: the first request on a connection must be Hello (protocol version)");
      return;
    }
    v1::ServerMessage out;
    v1::Reply* rep = out.mutable_reply();
    rep->set_id(id);
    int pass_fd = -1;
    WireError err;
    switch (req.body_case()) {
      case v1::Request::kHello: {
        const auto& h = req.hello();
        uint32_t major = h.version().major(), minor = h.version().minor();
        if (major != kProtocolMajor) {
          std::string msg = "hello.version: client speaks protocol " + std::to_string(major) +
                            "." + std::to_string(minor) + ", fastpathd speaks " +
                            std::to_string(kProtocolMajor) + "." + std::to_string(kProtocolMinor) +
                            "; use a client and daemon of the same major version";
          pr_warn("ctrl: %s refused: %s", c.who.c_str(), msg.c_str());
          closeWithError(c, id, v1::VERSION_MISMATCH, "hello.version", msg);
          return;
        }
        c.hello = true;
        if (!h.client_name().empty() || !h.node_name().empty())
          c.who = h.client_name() + (h.node_name().empty() ? "" : "@" + h.node_name()) +
                  " (pid " + std::to_string(c.cred.pid) + " uid " + std::to_string(c.cred.uid) + ")";
        pr_info("ctrl: %s said hello (protocol %u.%u)", c.who.c_str(), major, minor);
        auto* hr = rep->mutable_hello();
        hr->mutable_version()->set_major(kProtocolMajor);
        hr->mutable_version()->set_minor(kProtocolMinor);
        hr->set_daemon_name(opt.daemon_name);
        hr->set_node_name(opt.node_name);
        break;
      }
      case v1::Request::kApplyRoutes:
        if (!applyRoutes(c, id, req.apply_routes())) return;
        break;
      case v1::Request::kGetRoutes: {
        const auto& g = req.get_routes();
        if (g.offset() == 0 || c.route_snapshot.empty()) c.route_snapshot = backend.routes();
        std::size_t total = c.route_snapshot.size();
        std::size_t limit = g.limit() ? g.limit() : opt.route_page_size;
        limit = std::min(limit, opt.route_page_size);
        std::size_t begin = std::min<std::size_t>(g.offset(), total);
        std::size_t end = std::min(total, begin + limit);
        auto* list = rep->mutable_routes();
        list->mutable_routes()->Reserve(static_cast<int>(end - begin));
        for (std::size_t i = begin; i < end; ++i) toWire(c.route_snapshot[i], list->add_routes());
        list->set_total(static_cast<uint32_t>(total));
        list->set_next_offset(static_cast<uint32_t>(end));
        if (end >= total) c.route_snapshot.clear();
        break;
      }
      case v1::Request::kAddNeighbour: {
        Neighbour n;
        if (!neighbourFromWire(req.add_neighbour(), "add_neighbour", PortDirectory(backend.ports()),
                               &n, &err)) {
          sendError(c, id, err);
          return;
        }
        if (auto st = backend.addNeighbour(n); !st) {
          sendBackendError(c, id, "add_neighbour", st.error());
          return;
        }
        break;
      }
      case v1::Request::kDeleteNeighbour: {
        const auto& d = req.delete_neighbour();
        IpAddress ip;
        PortId port = 0;
        if (!addressFromWire(d.address(), "delete_neighbour.address", false, &ip, &err) ||
            !PortDirectory(backend.ports()).resolve(d.port(), "delete_neighbour.port", &port, &err)) {
          sendError(c, id, err);
          return;
        }
        if (auto st = backend.deleteNeighbour(ip, port); !st) {
          sendBackendError(c, id, "delete_neighbour", st.error());
          return;
        }
        break;
      }
      case v1::Request::kGetNeighbours: {
        auto* list = rep->mutable_neighbours();
        for (const auto& n : backend.neighbours()) toWire(n, list->add_neighbours());
        break;
      }
      case v1::Request::kGetControlRules: {
        auto* list = rep->mutable_control_rules();
        for (const auto& r : backend.controlRules()) toWire(r, list->add_rules());
        break;
      }
      case v1::Request::kSetControlRules: {
        std::vector<ControlRule> rules;
        if (!controlRulesFromWire(req.set_control_rules(), "set_control_rules", &rules, &err)) {
          sendError(c, id, err);
          return;
        }
        if (auto st = backend.setControlRules(rules); !st) {
          sendBackendError(c, id, "set_control_rules", st.error());
          return;
        }
        break;
      }
      case v1::Request::kGetPorts: {
        auto* list = rep->mutable_ports();
        for (const auto& p : backend.ports()) toWire(p, list->add_ports());
        break;
      }
      case v1::Request::kGetStats: {
        auto* s = rep->mutable_stats();
        for (const auto& set : backend.stats()) toWire(set, s->add_sets());
        toWire(serverCounterSet(), s->add_sets());
        break;
      }
      case v1::Request::kSubscribe: {
        std::vector<FastPathEvent::Kind> kinds;
        if (!subscriptionFromWire(req.subscribe(), "subscribe", &kinds, &err)) {
          sendError(c, id, err);
          return;
        }
        for (bool& b : c.event_kinds) b = false;
        for (auto k : kinds) c.event_kinds[static_cast<int>(k)] = true;
        c.subscribed = true;
        break;
      }
      case v1::Request::kOpenControlChannel: {
        PortId port = 0;
        if (!PortDirectory(backend.ports())
                 .resolve(req.open_control_channel().port(), "open_control_channel.port", &port,
                          &err)) {
          sendError(c, id, err);
          return;
        }
        auto fd = backend.controlChannelFd(port);
        if (!fd) {
          sendBackendError(c, id, "open_control_channel", fd.error());
          return;
        }
        pass_fd = fd.value();
        rep->mutable_control_channel()->set_port(port);
        break;
      }
      default:
        sendError(c, id, v1::UNIMPLEMENTED, "",
                  "request has no body, or one this fastpathd (protocol " +
                      std::to_string(kProtocolMajor) + "." + std::to_string(kProtocolMinor) +
                      ") does not know");
        return;
    }
    enqueue(c, out, pass_fd);
  }

  /// Returns true when an ok reply should be sent (errors are sent here).
  bool applyRoutes(Conn& c, uint64_t id, const v1::RouteBatch& b) {
    WireError err;
    const uint64_t tid = b.transaction_id();
    auto abortTxn = [&](const std::string& field, const std::string& why) {
      ++ctr.transactions_aborted;
      uint64_t old = c.txn_id;
      c.txn.reset();
      c.txn_id = 0;
      c.next_chunk = 0;
      sendError(c, id, v1::ABORTED, field,
                field + ": " + why + "; transaction " + std::to_string(old ? old : tid) +
                    " discarded, nothing applied (start again at chunk_index 0)");
    };
    if (tid == 0) {
      if (c.txn) {
        abortTxn("apply_routes.transaction_id",
                 "unchunked batch while transaction " + std::to_string(c.txn_id) + " is open");
        return false;
      }
      BatchBuilder builder(PortDirectory(backend.ports()), opt.max_batch_routes);
      RouteBatch batch;
      if (!builder.addChunk(b, &err) || !builder.finish(&batch, &err)) {
        sendError(c, id, err);
        return false;
      }
      return commit(c, id, batch);
    }
    if (!c.txn) {
      if (b.chunk_index() != 0) {
        abortTxn("apply_routes.chunk_index", "chunk " + std::to_string(b.chunk_index()) +
                                                 " of transaction " + std::to_string(tid) +
                                                 " arrived before chunk 0");
        return false;
      }
      c.txn = std::make_unique<BatchBuilder>(PortDirectory(backend.ports()), opt.max_batch_routes);
      c.txn_id = tid;
      c.next_chunk = 0;
    } else if (tid != c.txn_id) {
      abortTxn("apply_routes.transaction_id", "transaction " + std::to_string(tid) +
                                                  " started before transaction " +
                                                  std::to_string(c.txn_id) + " finished");
      return false;
    } else if (b.chunk_index() != c.next_chunk) {
      abortTxn("apply_routes.chunk_index", "chunk " + std::to_string(b.chunk_index()) +
                                               " out of order (expected " +
                                               std::to_string(c.next_chunk) + ")");
      return false;
    }
    if (!c.txn->addChunk(b, &err)) {
      ++ctr.transactions_aborted;
      c.txn.reset();
      c.txn_id = 0;
      err.message += "; transaction discarded, nothing applied";
      sendError(c, id, err);
      return false;
    }
    ++c.next_chunk;
    if (!b.final_chunk()) return true;  // chunk accepted; applied with the final one
    RouteBatch batch;
    bool ok = c.txn->finish(&batch, &err);
    c.txn.reset();
    c.txn_id = 0;
    c.next_chunk = 0;
    if (!ok) {
      sendError(c, id, err);
      return false;
    }
    return commit(c, id, batch);
  }

  bool commit(Conn& c, uint64_t id, const RouteBatch& batch) {
    // Returns once the workers can see the new table: only then is the reply sent.
    if (auto st = backend.applyRoutes(batch); !st) {
      sendBackendError(c, id, "apply_routes", st.error());
      return false;
    }
    return true;
  }

  CounterSet serverCounterSet() const {
    CounterSet s;
    s.scope = "control-server";
    s.counters = {{"clients", conns.size()},
                  {"accepted", ctr.accepted},
                  {"refused_credentials", ctr.refused_credentials},
                  {"refused_too_many", ctr.refused_too_many},
                  {"requests", ctr.requests},
                  {"errors", ctr.errors},
                  {"malformed_frames", ctr.malformed_frames},
                  {"oversize_frames", ctr.oversize_frames},
                  {"send_queue_overflows", ctr.send_queue_overflows},
                  {"events_sent", ctr.events_sent},
                  {"transactions_aborted", ctr.transactions_aborted}};
    return s;
  }
};

ControlServer::ControlServer(ControlBackend& backend, ServerOptions options)
    : impl_(std::make_unique<Impl>(backend, std::move(options))) {}
ControlServer::~ControlServer() { impl_->stop(); }
Status ControlServer::start() { return impl_->start(); }
Result<int> ControlServer::poll(int timeout_ms) { return impl_->poll(timeout_ms); }
void ControlServer::stop() { impl_->stop(); }
int ControlServer::fd() const { return impl_->epoll_fd; }
std::size_t ControlServer::clientCount() const { return impl_->conns.size(); }
ServerCounters ControlServer::counters() const { return impl_->ctr; }

}  // namespace fastpath::ctrl
