// SPDX-License-Identifier: GPL-2.0-only
// The control server: start-up (socket, its permissions, the descriptor budget), the
// poll loop and stop; the public ControlServer forwards here.
#include "server_impl.h"

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
#include <cstring>
#include <vector>

#include "fastpath/log.h"
#include "wire_encode.h"

namespace fastpath::ctrl {

namespace {

/// Descriptors kept for the rest of the daemon (its sockets, logs, netlink, a restart of a
/// port) when the server sizes its own use against RLIMIT_NOFILE.
constexpr std::size_t kReservedFds = 256;

}  // namespace

DispatchOptions ControlServer::Impl::dispatchOptions(ServerOptions& o) {
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

Status ControlServer::Impl::resolveGroup(gid_t* gid) {
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

Status ControlServer::Impl::start() {
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
void ControlServer::Impl::fitDescriptorBudget() {
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

void ControlServer::Impl::closeListen() {
  if (listen_fd >= 0) ::close(listen_fd);
  listen_fd = -1;
}

void ControlServer::Impl::stop() {
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

Result<int> ControlServer::Impl::poll(int timeout_ms) {
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
  // Captures are drained every few milliseconds (the workers never signal: no syscall on
  // the data path); their rings hold thousands of frames.
  const bool capturing = capturesOpen();
  if (capturing && (timeout_ms < 0 || timeout_ms > 5)) timeout_ms = 5;
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
  if (capturing) pumpCaptures();
  reap();
  dispatcher.expireLeases(Clock::now());
  return n;
}

void ControlServer::Impl::reap() {
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
