// SPDX-License-Identifier: GPL-2.0-only
#include "fastpath/ctrl/server.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
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

#include "dispatcher.h"
#include "fastpath/log.h"
#include "framing.h"
#include "peer_policy.h"
#include "wire_encode.h"

namespace fastpath::ctrl {

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kReadChunk = 64 * 1024;
/// Bytes read from one client per poll() round, so one busy client cannot starve others.
constexpr std::size_t kReadBudget = 4u << 20;
/// How long a connection being closed after an error may take to drain its last reply.
constexpr auto kCloseGrace = std::chrono::milliseconds(1000);
/// After accept() failed for want of resources (descriptors, memory), the listening socket
/// rests this long instead of waking the loop again at once.
constexpr auto kAcceptBackoff = std::chrono::milliseconds(200);
/// Descriptors kept for the rest of the daemon (its sockets, logs, netlink, a restart of a
/// port) when the server sizes its own use against RLIMIT_NOFILE.
constexpr std::size_t kReservedFds = 256;

struct OutFrame {
  std::string data;
  std::size_t off = 0;
  int fd = -1;  // passed with SCM_RIGHTS on the frame's first byte
};

/// What a queued frame costs in memory: the string's allocation plus the frame's own
/// bookkeeping (the deque's share and the allocator's header), so that many small event
/// frames are counted as what they really take, not as their few bytes of payload.
std::size_t frameCost(const OutFrame& f) {
  return sizeof(OutFrame) + 16 + (f.data.capacity() > 15 ? f.data.capacity() + 16 : 0);
}

struct Conn {
  int fd = -1;
  PeerCredentials cred;
  Session session;
  FrameDecoder dec;
  std::deque<OutFrame> out;
  std::size_t queued_cost = 0;  ///< frameCost() of everything in `out`
  std::size_t queued_fds = 0;   ///< descriptors in `out` not handed over yet
  uint64_t events_dropped = 0;  ///< since the last EVENTS_DROPPED marker
  Clock::time_point accepted_at;
  Clock::time_point last_rx;
  uint32_t interest = 0;
  bool closing = false;
  bool dead = false;
  Clock::time_point close_deadline;

  explicit Conn(std::size_t max) : dec(max) {}
  ~Conn() {
    for (auto& f : out)
      if (f.fd >= 0) ::close(f.fd);
  }
  const std::string& who() const { return session.who; }
};

}  // namespace

struct ControlServer::Impl {
  TopologyControl& backend;
  ServerOptions opt;
  int listen_fd = -1;
  int epoll_fd = -1;
  bool sink_set = false;
  bool started = false;
  std::unordered_map<int, std::unique_ptr<Conn>> conns;
  ServerCounters ctr;
  Dispatcher dispatcher;
  PeerPolicy policy{opt};
  std::size_t total_cost = 0;  ///< queued_cost over all connections
  std::size_t total_fds = 0;   ///< queued_fds over all connections
  bool listen_paused = false;
  Clock::time_point listen_resume;

  Impl(TopologyControl& b, ServerOptions o)
      : backend(b), opt(std::move(o)), dispatcher(b, dispatchOptions(opt)) {}

  static DispatchOptions dispatchOptions(ServerOptions& o) {
    if (o.node_name.empty()) {
      char host[256] = {};
      gethostname(host, sizeof(host) - 1);
      o.node_name = host;
    }
    DispatchOptions d;
    d.max_batch_routes = o.max_batch_routes;
    d.max_pending_routes = o.max_pending_routes;
    d.route_page_size = o.route_page_size;
    d.daemon_name = o.daemon_name;
    d.node_name = o.node_name;
    d.max_route_grace_period_ms = o.max_route_grace_period_ms;
    return d;
  }

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
      return makeError(-ENOENT,
                       "socket group '" + g + "' does not exist (create it or fix --group)");
    *gid = res->gr_gid;
    return {};
  }

  Status start() {
    if (started) return makeError(-EALREADY, "control server already started");
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
    struct stat sb {};
    if (::lstat(opt.socket_path.c_str(), &sb) == 0) {
      if (!S_ISSOCK(sb.st_mode))
        return makeError(-EEXIST, opt.socket_path + " exists and is not a socket; remove it");
      int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      bool live =
          probe >= 0 && ::connect(probe, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
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
        ((gid != static_cast<gid_t>(-1) || opt.socket_owner != static_cast<uid_t>(-1)) &&
         ::chown(opt.socket_path.c_str(), opt.socket_owner, gid) < 0)) {
      int e = errno;
      closeListen();
      ::unlink(opt.socket_path.c_str());
      return makeError(-e, "set mode/owner/group of " + opt.socket_path + ": " + errnoText(e));
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
    fitDescriptorBudget();
    pr_info("ctrl: listening on %s (mode %04o%s%s)", opt.socket_path.c_str(),
            static_cast<unsigned>(opt.socket_mode), opt.socket_group.empty() ? "" : ", group ",
            opt.socket_group.c_str());
    return {};
  }

  /// Sizes the server's own descriptors (connections, descriptors queued for clients)
  /// below RLIMIT_NOFILE with kReservedFds to spare, raising the soft limit to the hard one
  /// first: forwarding must never run out of descriptors because of the control plane.
  void fitDescriptorBudget() {
    rlimit rl{};
    if (::getrlimit(RLIMIT_NOFILE, &rl) != 0) return;
    if (rl.rlim_cur < rl.rlim_max) {
      rlimit raised = rl;
      raised.rlim_cur = rl.rlim_max;
      if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) rl = raised;
    }
    const std::size_t limit =
        rl.rlim_cur == RLIM_INFINITY ? std::size_t(1) << 20 : std::size_t(rl.rlim_cur);
    const std::size_t want =
        opt.max_clients + opt.reserved_clients + opt.operator_clients + opt.max_queued_fds;
    if (limit >= want + kReservedFds) return;
    const std::size_t have = limit > kReservedFds ? limit - kReservedFds : 0;
    // The operators' extra connections give way first, then queued descriptors, then
    // connections; at least a few of each.
    const std::size_t base = opt.max_clients + opt.reserved_clients + opt.max_queued_fds;
    const std::size_t operators_wanted = opt.operator_clients;
    opt.operator_clients = std::min(opt.operator_clients, have > base ? (have - base) : 0);
    if (have >= base) {
      if (opt.operator_clients < operators_wanted)
        pr_warn("ctrl: RLIMIT_NOFILE is %zu: operators may hold %zu connections beyond %zu",
                limit, opt.operator_clients, opt.max_clients + opt.reserved_clients);
      return;
    }
    opt.max_queued_fds = std::max<std::size_t>(4, std::min(opt.max_queued_fds, have / 4));
    opt.max_queued_fds_per_client = std::min(opt.max_queued_fds_per_client, opt.max_queued_fds);
    const std::size_t conns_room = have > opt.max_queued_fds ? have - opt.max_queued_fds : 8;
    opt.reserved_clients = std::max<std::size_t>(2, std::min(opt.reserved_clients, conns_room / 8));
    opt.max_clients = std::max<std::size_t>(
        2, std::min(opt.max_clients,
                    conns_room > opt.reserved_clients ? conns_room - opt.reserved_clients : 2));
    pr_warn(
        "ctrl: RLIMIT_NOFILE is %zu: serving at most %zu clients (+%zu for operators) "
        "and %zu queued control channels, keeping %zu descriptors for the data plane",
        limit, opt.max_clients, opt.reserved_clients, opt.max_queued_fds, kReservedFds);
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
    total_cost = total_fds = 0;
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
    // Wake up in time for connections being closed, waiting for their Hello or sitting in
    // a frame, and for a listening socket resting after accept() failed.
    bool watch = listen_paused;
    for (auto& [fd, c] : conns) watch |= c->closing || !c->session.hello || c->dec.buffered();
    if (watch && (timeout_ms < 0 || timeout_ms > 100)) timeout_ms = 100;
    if (listen_paused && Clock::now() >= listen_resume) setListening(true);
    if (auto deadline = dispatcher.nextLeaseDeadline()) {
      // Wake up for a route lease running out (rounded up: never wake just before it).
      auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now()).count();
      int cap = static_cast<int>(std::max<long long>(0, std::min<long long>(left, 1 << 30)));
      if (timeout_ms < 0 || timeout_ms > cap) timeout_ms = cap;
    }
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
    dispatcher.expireLeases(Clock::now());
    return n;
  }

  void setListening(bool on) {
    epoll_event ev{};
    ev.events = on ? uint32_t{EPOLLIN} : 0u;
    ev.data.fd = listen_fd;
    ::epoll_ctl(epoll_fd, EPOLL_CTL_MOD, listen_fd, &ev);
    listen_paused = !on;
  }

  void reap() {
    auto now = Clock::now();
    for (auto it = conns.begin(); it != conns.end();) {
      Conn& c = *it->second;
      closeIfIdle(c, now);
      if (c.closing && !c.dead && now > c.close_deadline) {
        pr_warn("ctrl: %s: closing without delivering the last reply (peer not reading)",
                c.who().c_str());
        c.dead = true;
      }
      if (c.dead) {
        dispatcher.disconnected(c.session);
        total_cost -= c.queued_cost;
        total_fds -= c.queued_fds;
        ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c.fd, nullptr);
        ::close(c.fd);
        pr_debug("ctrl: %s: closed", c.who().c_str());
        it = conns.erase(it);
      } else {
        ++it;
      }
    }
  }

  /// A connection that never said Hello, or that stopped in the middle of a frame, holds
  /// a slot (and possibly 16 MiB of buffer) for nothing: it is closed after its timeout.
  void closeIfIdle(Conn& c, Clock::time_point now) {
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
  std::string admissionRefusal(const PeerCredentials& p) const {
    const bool op = policy.isOperator(p);
    std::size_t same_uid = 0, same_pid = 0;
    for (const auto& [fd, c] : conns) {
      same_uid += c->cred.uid == p.uid;
      same_pid += c->cred.pid == p.pid;
    }
    const std::size_t cap =
        opt.max_clients + (op ? opt.reserved_clients + opt.operator_clients : 0);
    if (conns.size() >= cap)
      return "too many clients (" + std::to_string(conns.size()) + "); try again later";
    if (!op && same_uid >= opt.max_clients_per_uid)
      return "uid " + std::to_string(p.uid) + " already has " + std::to_string(same_uid) +
             " connections (limit " + std::to_string(opt.max_clients_per_uid) + ")";
    const std::size_t per_pid = op ? opt.max_clients_per_operator_pid : opt.max_clients_per_pid;
    if (p.uid != 0 && same_pid >= per_pid)
      return "pid " + std::to_string(p.pid) + " already has " + std::to_string(same_pid) +
             " connections (limit " + std::to_string(per_pid) +
             (op ? ")" : "; operators - root, the socket's owner, --socket-uid - may have " +
                             std::to_string(opt.max_clients_per_operator_pid) + ")");
    return {};
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

  void readFrom(Conn& c) {
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

  void processFrames(Conn& c) {
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
  void popFrame(Conn& c) {
    const std::size_t cost = frameCost(c.out.front());
    c.queued_cost -= cost;
    total_cost -= cost;
    c.out.pop_front();
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

  void onEvent(const FastPathEvent& e) {
    int k = static_cast<int>(e.kind);
    if (k < 0 || k > 3) return;
    v1::ServerMessage m;
    toWire(e, m.mutable_event());
    for (auto& [fd, c] : conns) {
      // Only subscribers of the event's node (or of all nodes) get it.
      if (c->dead || c->closing || !c->session.wants(e)) continue;
      // A client that is not reading gets no more events, only their count later: a
      // flood of route misses must not grow its queue (or the daemon's memory).
      if (c->queued_cost >= opt.max_event_queue_bytes ||
          total_cost >= opt.max_total_send_queue_bytes / 2) {
        ++c->events_dropped;
        ++ctr.events_dropped;
        continue;
      }
      ++ctr.events_sent;
      enqueue(*c, m);
    }
  }

  // ------------------------------------------------------------ requests

  void handle(Conn& c, const v1::Request& req) {
    if (req.body_case() == v1::Request::kOpenControlChannel && c.session.hello &&
        (c.queued_fds >= opt.max_queued_fds_per_client || total_fds >= opt.max_queued_fds)) {
      // Every reply holds a duplicated descriptor until the client reads it: bounded, so
      // that clients can never exhaust the daemon's descriptors.
      ++ctr.refused_fds;
      ++ctr.errors;
      pr_warn_ratelimited(
          "ctrl: %s: %zu control channels queued and not read (%zu in all); "
          "refusing more",
          c.who().c_str(), c.queued_fds, total_fds);
      enqueue(c, Dispatcher::errorMessage(req.id(), v1::RESOURCE_EXHAUSTED, "open_control_channel",
                                          "open_control_channel: " + std::to_string(c.queued_fds) +
                                              " control channels are queued for this connection (" +
                                              std::to_string(total_fds) +
                                              " for all) and not read yet; read the "
                                              "replies first"));
      return;
    }
    auto out = dispatcher.handle(c.session, req);
    if (req.body_case() == v1::Request::kGetStats && !out.message.reply().has_error())
      toWire(serverCounterSet(), out.message.mutable_reply()->mutable_stats()->add_sets());
    const auto& rep = out.message.reply();
    if (rep.has_error())
      pr_debug("ctrl: %s: request %llu: %s", c.who().c_str(),
               static_cast<unsigned long long>(rep.id()), rep.error().message().c_str());
    enqueue(c, out.message, out.fd);
    if (out.close_after && !c.dead) startClosing(c);
  }

  CounterSet serverCounterSet() const {
    CounterSet s;
    s.scope = "control-server";
    s.counters = {
        {"clients", conns.size()},
        {"accepted", ctr.accepted},
        {"refused_credentials", ctr.refused_credentials},
        {"refused_too_many", ctr.refused_too_many},
        {"accept_errors", ctr.accept_errors},
        {"closed_no_hello", ctr.closed_no_hello},
        {"closed_stalled", ctr.closed_stalled},
        {"refused_fds", ctr.refused_fds},
        {"events_dropped", ctr.events_dropped},
        {"queued_fds", total_fds},
        {"queued_bytes", total_cost},
        {"requests", dispatcher.counters().requests},
        {"errors", dispatcher.counters().errors + ctr.errors},
        {"malformed_frames", ctr.malformed_frames},
        {"oversize_frames", ctr.oversize_frames},
        {"send_queue_overflows", ctr.send_queue_overflows},
        {"events_sent", ctr.events_sent},
        {"transactions_aborted", dispatcher.counters().transactions_aborted},
        {"leases_expired", dispatcher.leases().counters().expired},
        {"leases_cancelled", dispatcher.leases().counters().cancelled},
        {"lease_routes_withdrawn", dispatcher.leases().counters().routes_withdrawn},
        {"lease_neighbours_withdrawn", dispatcher.leases().counters().neighbours_withdrawn}};
    return s;
  }
};

ControlServer::ControlServer(TopologyControl& backend, ServerOptions options)
    : impl_(std::make_unique<Impl>(backend, std::move(options))) {}
ControlServer::~ControlServer() { impl_->stop(); }
Status ControlServer::start() { return impl_->start(); }
Result<int> ControlServer::poll(int timeout_ms) { return impl_->poll(timeout_ms); }
void ControlServer::stop() { impl_->stop(); }
int ControlServer::fd() const { return impl_->epoll_fd; }
std::size_t ControlServer::clientCount() const { return impl_->conns.size(); }
ServerCounters ControlServer::counters() const {
  ServerCounters c = impl_->ctr;
  c.requests = impl_->dispatcher.counters().requests;
  c.errors += impl_->dispatcher.counters().errors;
  c.transactions_aborted = impl_->dispatcher.counters().transactions_aborted;
  const auto& l = impl_->dispatcher.leases().counters();
  c.leases_expired = l.expired;
  c.leases_cancelled = l.cancelled;
  c.lease_routes_withdrawn = l.routes_withdrawn;
  c.lease_neighbours_withdrawn = l.neighbours_withdrawn;
  return c;
}

}  // namespace fastpath::ctrl
