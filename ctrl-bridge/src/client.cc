// SPDX-License-Identifier: GPL-2.0-only
#include "fastpath/ctrl/client.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <thread>

#include "fastpath/log.h"
#include "framing.h"
#include "reply_decode.h"
#include "wire_encode.h"
#include "wire_error.h"

namespace fastpath::ctrl {

namespace {

using Clock = std::chrono::steady_clock;

Error sysError(int err, const std::string& what) {
  return makeError(-err, what + ": " + std::strerror(err));
}

bool isConnectionLoss(int code) {
  return code == -EPIPE || code == -ECONNRESET || code == -ENOTCONN || code == -ECONNABORTED ||
         code == -ESHUTDOWN;
}

}  // namespace

struct Client::Impl {
  std::string path;
  ClientOptions opt;
  int fd = -1;
  FrameDecoder dec;
  std::deque<int> fds;  // descriptors received via SCM_RIGHTS, in arrival order
  std::deque<FastPathEvent> events;
  uint64_t next_id = 1;
  uint64_t next_txn = 1;
  ServerInfo info;
  bool subscribed = false;
  Subscription subscription;
  bool in_reconnect = false;

  Impl(std::string p, ClientOptions o)
      : path(std::move(p)), opt(std::move(o)), dec(opt.max_message_bytes) {}
  ~Impl() { closeFd(); }

  void closeFd() {
    if (fd >= 0) ::close(fd);
    fd = -1;
    for (int f : fds) ::close(f);
    fds.clear();
    dec = FrameDecoder(opt.max_message_bytes);
  }

  Status connectSocket() {
    closeFd();
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.size() >= sizeof(addr.sun_path))
      return makeError(-ENAMETOOLONG, "socket path '" + path + "' is too long");
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) return sysError(errno, "socket(AF_UNIX)");
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

  Status sendRequest(const v1::Request& req) {
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

  /// Reads more bytes (and any passed descriptors), waiting up to `timeout_ms`.
  /// Returns 0 on timeout, 1 when data arrived, or an error.
  Result<int> readMore(int timeout_ms) {
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

  /// Next complete server message; waits up to timeout_ms (<0 forever). Empty = timeout.
  Result<std::optional<v1::ServerMessage>> readMessage(int timeout_ms) {
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

  void bufferEvent(const v1::Event& e) {
    if (auto ev = eventFromReply(e)) events.push_back(*ev);
  }

  /// One request, one reply; events that arrive meanwhile are buffered.
  Result<v1::Reply> callOnce(v1::Request& req) {
    if (fd < 0) return makeError(-ENOTCONN, "not connected to fastpathd");
    req.set_id(next_id++);
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

  Status doHello(const std::string& node_name, const std::string& node) {
    v1::Request req;
    auto* h = req.mutable_hello();
    h->mutable_version()->set_major(opt.protocol_major);
    h->mutable_version()->set_minor(opt.protocol_minor);
    h->set_node_name(node_name);
    h->set_client_name(opt.client_name);
    h->set_route_grace_period_ms(opt.route_grace_period_ms);
    h->set_node(node);
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

  Status doSubscribe(const Subscription& what) {
    v1::Request req;
    req.set_node(what.node);
    req.mutable_subscribe()->set_all_nodes(what.all_nodes);
    auto rep = callOnce(req);
    if (!rep) return rep.error();
    subscribed = true;
    subscription = what;
    return {};
  }

  /// One request without a body to return (a status).
  Status call(v1::Request& req) {
    auto rep = callOnce(req);
    if (!rep) return rep.error();
    return {};
  }
};

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Client::~Client() = default;

Result<std::unique_ptr<Client>> Client::connect(const std::string& socket_path,
                                                const ClientOptions& options) {
  auto impl = std::make_unique<Impl>(socket_path, options);
  if (auto st = impl->connectSocket(); !st) return st.error();
  if (auto st = impl->doHello(options.node_name, options.node); !st) return st.error();
  return std::unique_ptr<Client>(new Client(std::move(impl)));
}

Status Client::reconnect() {
  Impl& d = *impl_;
  if (d.in_reconnect) return makeError(-EALREADY, "reconnect already in progress");
  d.in_reconnect = true;
  int backoff = std::max(1, d.opt.backoff_initial_ms);
  Status last = makeError(-ENOTCONN, "no attempt made");
  int attempts = std::max(1, d.opt.reconnect_attempts);
  for (int i = 0; i < attempts; ++i) {
    if (i > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(backoff));
      backoff = std::min(backoff * 2, std::max(d.opt.backoff_max_ms, 1));
    }
    last = d.connectSocket();
    if (!last) continue;
    last = d.doHello(d.opt.node_name, d.opt.node);
    if (!last) continue;
    if (d.subscribed) {
      last = d.doSubscribe(d.subscription);
      if (!last) continue;
    }
    if (d.opt.on_reconnect) {
      last = d.opt.on_reconnect(*this);
      if (!last) continue;
    }
    pr_info("ctrl client: reconnected to %s after %d attempt(s)", d.path.c_str(), i + 1);
    d.in_reconnect = false;
    return {};
  }
  d.in_reconnect = false;
  return makeError(last.error().code, "reconnect to " + d.path + " failed after " +
                                          std::to_string(attempts) +
                                          " attempts: " + last.error().message);
}

namespace {

/// Runs `op`; on connection loss (and auto_reconnect) reconnects and runs it once more.
template <typename F>
auto withReconnect(Client& c, const ClientOptions& opt, bool in_reconnect, F op) -> decltype(op()) {
  auto r = op();
  if (r.ok() || !opt.auto_reconnect || in_reconnect || !isConnectionLoss(r.error().code)) return r;
  if (auto st = c.reconnect(); !st) return st.error();
  return op();
}

}  // namespace

#define FP_CALL(...) withReconnect(*this, impl_->opt, impl_->in_reconnect, [&]() __VA_ARGS__)

Status Client::hello(const std::string& node_name) {
  return FP_CALL({ return impl_->doHello(node_name, impl_->opt.node); });
}

Status Client::bind(const std::string& node) {
  return FP_CALL({ return impl_->doHello(impl_->opt.node_name, node); });
}

const std::string& Client::boundNode() const { return impl_->info.node; }

const ServerInfo& Client::serverInfo() const { return impl_->info; }

Status Client::applyRoutes(const RouteBatch& batch, const std::string& node) {
  return FP_CALL(->Status {
    Impl& d = *impl_;
    std::size_t per = std::max<std::size_t>(1, d.opt.routes_per_chunk);
    std::size_t total = batch.add.size() + batch.remove.size();
    if (total <= per) {
      v1::Request req;
      req.set_node(node);
      auto* b = req.mutable_apply_routes();
      b->set_replace_all(batch.replace_all);
      b->set_ignore_missing(batch.ignore_missing);
      for (const auto& r : batch.add) toWire(r, b->add_add());
      for (const auto& p : batch.remove) toWire(p, b->add_remove());
      return d.call(req);
    }
    // One transaction in several chunks: adds first, then removes.
    uint64_t txn = d.next_txn++;
    std::size_t ai = 0, ri = 0;
    uint32_t chunk = 0;
    while (ai < batch.add.size() || ri < batch.remove.size() || chunk == 0) {
      v1::Request req;
      req.set_node(node);
      auto* b = req.mutable_apply_routes();
      b->set_transaction_id(txn);
      b->set_chunk_index(chunk);
      b->set_replace_all(batch.replace_all);
      b->set_ignore_missing(batch.ignore_missing);
      std::size_t room = per;
      for (; ai < batch.add.size() && room; ++ai, --room) toWire(batch.add[ai], b->add_add());
      for (; ri < batch.remove.size() && room; ++ri, --room)
        toWire(batch.remove[ri], b->add_remove());
      b->set_final_chunk(ai == batch.add.size() && ri == batch.remove.size());
      auto rep = d.callOnce(req);
      if (!rep) return rep.error();
      ++chunk;
      if (b->final_chunk()) break;
    }
    return {};
  });
}

Status Client::addRoute(const Route& route, const std::string& node) {
  RouteBatch b;
  b.add.push_back(route);
  return applyRoutes(b, node);
}

Status Client::deleteRoute(const IpPrefix& prefix, bool ignore_missing, const std::string& node) {
  RouteBatch b;
  b.remove.push_back(prefix);
  b.ignore_missing = ignore_missing;
  return applyRoutes(b, node);
}

Status Client::replaceAllRoutes(const std::vector<Route>& routes, const std::string& node) {
  RouteBatch b;
  b.add = routes;
  b.replace_all = true;
  return applyRoutes(b, node);
}

Result<std::vector<Route>> Client::routes(const std::string& node) {
  return FP_CALL(->Result<std::vector<Route>> {
    std::vector<Route> out;
    uint32_t offset = 0;
    for (;;) {
      v1::Request req;
      req.set_node(node);
      req.mutable_get_routes()->set_offset(offset);
      auto rep = impl_->callOnce(req);
      if (!rep) return rep.error();
      const auto& list = rep->routes();
      if (out.empty()) out.reserve(list.total());
      for (const auto& r : list.routes()) out.push_back(routeFromReply(r));
      if (list.next_offset() <= offset || list.next_offset() >= list.total()) break;
      offset = list.next_offset();
    }
    return out;
  });
}

Status Client::addNeighbour(const Neighbour& neighbour, const std::string& node) {
  return FP_CALL(->Status {
    v1::Request req;
    req.set_node(node);
    toWire(neighbour, req.mutable_add_neighbour());
    return impl_->call(req);
  });
}

Status Client::deleteNeighbour(const IpAddress& ip, PortId port, const std::string& node) {
  return FP_CALL(->Status {
    v1::Request req;
    req.set_node(node);
    toWire(ip, req.mutable_delete_neighbour()->mutable_address());
    req.mutable_delete_neighbour()->mutable_port()->set_id(port);
    return impl_->call(req);
  });
}

Result<std::vector<Neighbour>> Client::neighbours(const std::string& node) {
  return FP_CALL(->Result<std::vector<Neighbour>> {
    v1::Request req;
    req.set_node(node);
    req.mutable_get_neighbours();
    auto rep = impl_->callOnce(req);
    if (!rep) return rep.error();
    std::vector<Neighbour> out;
    for (const auto& n : rep->neighbours().neighbours()) out.push_back(neighbourFromReply(n));
    return out;
  });
}

Result<std::vector<ControlRule>> Client::controlRules(const std::string& node) {
  return FP_CALL(->Result<std::vector<ControlRule>> {
    v1::Request req;
    req.set_node(node);
    req.mutable_get_control_rules();
    auto rep = impl_->callOnce(req);
    if (!rep) return rep.error();
    std::vector<ControlRule> out;
    for (const auto& r : rep->control_rules().rules()) out.push_back(controlRuleFromReply(r));
    return out;
  });
}

Status Client::setControlRules(const std::vector<ControlRule>& rules, const std::string& node) {
  return FP_CALL(->Status {
    v1::Request req;
    req.set_node(node);
    auto* s = req.mutable_set_control_rules();
    for (const auto& r : rules) toWire(r, s->add_rules());
    return impl_->call(req);
  });
}

Result<std::vector<PortInfo>> Client::ports(const std::string& node) {
  return FP_CALL(->Result<std::vector<PortInfo>> {
    v1::Request req;
    req.set_node(node);
    req.mutable_get_ports();
    auto rep = impl_->callOnce(req);
    if (!rep) return rep.error();
    std::vector<PortInfo> out;
    for (const auto& p : rep->ports().ports()) out.push_back(portFromReply(p));
    return out;
  });
}

Result<PortId> Client::portByName(const std::string& ifname, const std::string& node) {
  auto list = ports(node);
  if (!list) return list.error();
  for (const auto& p : list.value())
    if (p.ifname == ifname) return p.id;
  std::string known;
  for (const auto& p : list.value()) known += (known.empty() ? "" : ", ") + p.ifname;
  std::string where = node.empty() ? std::string("fastpathd") : "node " + node;
  return makeError(-ENOENT, "no port named '" + ifname + "' (" + where +
                                " has: " + (known.empty() ? "none" : known) + ")");
}

Result<int> Client::openControlChannel(PortId port, const std::string& node) {
  return FP_CALL(->Result<int> {
    Impl& d = *impl_;
    for (int f : d.fds) ::close(f);  // strays from earlier (timed-out) requests
    d.fds.clear();
    v1::Request req;
    req.set_node(node);
    req.mutable_open_control_channel()->mutable_port()->set_id(port);
    auto rep = d.callOnce(req);
    if (!rep) return rep.error();
    if (d.fds.empty())
      return makeError(-EBADMSG, "fastpathd's control-channel reply carried no descriptor");
    int f = d.fds.front();
    d.fds.pop_front();
    return f;
  });
}

Result<std::vector<CounterSet>> Client::stats(const std::string& node) {
  return FP_CALL(->Result<std::vector<CounterSet>> {
    v1::Request req;
    req.set_node(node);
    req.mutable_get_stats();
    auto rep = impl_->callOnce(req);
    if (!rep) return rep.error();
    std::vector<CounterSet> out;
    for (const auto& s : rep->stats().sets()) out.push_back(counterSetFromReply(s));
    return out;
  });
}

Status Client::subscribe(const Subscription& what) {
  return FP_CALL({ return impl_->doSubscribe(what); });
}

Status Client::createNode(const NodeSpec& spec) {
  return FP_CALL(->Status {
    v1::Request req;
    toWire(spec, req.mutable_create_node());
    return impl_->call(req);
  });
}

Status Client::deleteNode(const std::string& name) {
  return FP_CALL(->Status {
    v1::Request req;
    req.mutable_delete_node()->set_name(name);
    return impl_->call(req);
  });
}

Result<std::vector<NodeInfo>> Client::nodes() {
  return FP_CALL(->Result<std::vector<NodeInfo>> {
    v1::Request req;
    req.mutable_get_nodes();
    auto rep = impl_->callOnce(req);
    if (!rep) return rep.error();
    std::vector<NodeInfo> out;
    for (const auto& n : rep->nodes().nodes()) out.push_back(nodeFromReply(n));
    return out;
  });
}

namespace {

/// Link emulation is protocol 1.4: an older server ignores the fields (CreateLink) or
/// does not know the request (SetLinkParams).
Status needsLinkEmulation(const ServerInfo& info, const std::string& what) {
  if (info.major > kProtocolMajor || (info.major == kProtocolMajor && info.minor >= 4)) return {};
  return makeError(-ENOSYS, what + ": fastpathd speaks protocol " + std::to_string(info.major) +
                                "." + std::to_string(info.minor) +
                                "; link emulation needs 1.4 (upgrade fastpathd)");
}

}  // namespace

Status Client::createLink(const LinkSpec& spec) {
  return FP_CALL(->Status {
    if (!(spec.a_to_b == LinkParams{}) || !(spec.b_to_a == LinkParams{}))
      if (auto st = needsLinkEmulation(impl_->info, "create_link"); !st) return st;
    v1::Request req;
    toWire(spec, req.mutable_create_link());
    return impl_->call(req);
  });
}

Status Client::deleteLink(const std::string& name) {
  return FP_CALL(->Status {
    v1::Request req;
    req.mutable_delete_link()->set_name(name);
    return impl_->call(req);
  });
}

Status Client::setLinkState(const std::string& name, bool up) {
  return FP_CALL(->Status {
    v1::Request req;
    req.mutable_set_link_state()->set_name(name);
    req.mutable_set_link_state()->set_up(up);
    return impl_->call(req);
  });
}

Status Client::setLinkParams(const std::string& name, LinkDirection direction,
                             const LinkParams& params) {
  return FP_CALL(->Status {
    if (auto st = needsLinkEmulation(impl_->info, "set_link_params"); !st) return st;
    v1::Request req;
    auto* r = req.mutable_set_link_params();
    r->set_name(name);
    r->set_direction(toWire(direction));
    toWire(params, r->mutable_params());
    return impl_->call(req);
  });
}

Result<std::vector<LinkInfo>> Client::links() {
  return FP_CALL(->Result<std::vector<LinkInfo>> {
    v1::Request req;
    req.mutable_get_links();
    auto rep = impl_->callOnce(req);
    if (!rep) return rep.error();
    std::vector<LinkInfo> out;
    for (const auto& l : rep->links().links()) out.push_back(linkFromReply(l));
    return out;
  });
}

namespace {
Status needsSegments(const ServerInfo& info, const std::string& what) {
  if (info.major > kProtocolMajor || (info.major == kProtocolMajor && info.minor >= 5)) return {};
  return makeError(-ENOSYS, what + ": fastpathd speaks protocol " + std::to_string(info.major) +
                                "." + std::to_string(info.minor) +
                                "; segments need 1.5 (upgrade fastpathd)");
}
}  // namespace

Status Client::createSegment(const SegmentSpec& spec) {
  return FP_CALL(->Status {
    if (auto st = needsSegments(impl_->info, "create_segment"); !st) return st;
    v1::Request req;
    toWire(spec, req.mutable_create_segment());
    return impl_->call(req);
  });
}

Status Client::deleteSegment(const std::string& name) {
  return FP_CALL(->Status {
    if (auto st = needsSegments(impl_->info, "delete_segment"); !st) return st;
    v1::Request req;
    req.mutable_delete_segment()->set_name(name);
    return impl_->call(req);
  });
}

Status Client::setSegmentState(const std::string& name, bool up, const std::string& node) {
  return FP_CALL(->Status {
    if (auto st = needsSegments(impl_->info, "set_segment_state"); !st) return st;
    v1::Request req;
    req.mutable_set_segment_state()->set_name(name);
    req.mutable_set_segment_state()->set_up(up);
    req.mutable_set_segment_state()->set_node(node);
    return impl_->call(req);
  });
}

Status Client::setSegmentParams(const std::string& name, const LinkParams& params) {
  return FP_CALL(->Status {
    if (auto st = needsSegments(impl_->info, "set_segment_params"); !st) return st;
    v1::Request req;
    auto* r = req.mutable_set_segment_params();
    r->set_name(name);
    toWire(params, r->mutable_params());
    return impl_->call(req);
  });
}

Result<std::vector<SegmentInfo>> Client::segments() {
  return FP_CALL(->Result<std::vector<SegmentInfo>> {
    if (auto st = needsSegments(impl_->info, "get_segments"); !st) return st.error();
    v1::Request req;
    req.mutable_get_segments();
    auto rep = impl_->callOnce(req);
    if (!rep) return rep.error();
    std::vector<SegmentInfo> out;
    for (const auto& s : rep->segments().segments()) out.push_back(segmentFromReply(s));
    return out;
  });
}

Result<std::optional<FastPathEvent>> Client::nextEvent(int timeout_ms) {
  Impl& d = *impl_;
  auto deadline = Clock::now() + std::chrono::milliseconds(std::max(timeout_ms, 0));
  for (;;) {
    if (!d.events.empty()) {
      FastPathEvent e = d.events.front();
      d.events.pop_front();
      return std::optional<FastPathEvent>(e);
    }
    if (d.fd < 0) return makeError(-ENOTCONN, "not connected to fastpathd");
    int wait = -1;
    if (timeout_ms >= 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      wait = static_cast<int>(std::max<int64_t>(0, left.count()));
    }
    auto m = d.readMessage(wait);
    if (!m) {
      if (d.opt.auto_reconnect && isConnectionLoss(m.error().code)) {
        if (auto st = reconnect(); !st) return st.error();
        continue;
      }
      return m.error();
    }
    if (!m.value()) return std::optional<FastPathEvent>();
    if (m.value()->has_event()) d.bufferEvent(m.value()->event());
  }
}

bool Client::hasBufferedEvents() const { return !impl_->events.empty(); }

namespace {
Status needsHosts(const ServerInfo& info, const std::string& what) {
  if (info.major > kProtocolMajor || (info.major == kProtocolMajor && info.minor >= 5)) return {};
  return makeError(-ENOSYS, what + ": fastpathd speaks protocol " + std::to_string(info.major) +
                                "." + std::to_string(info.minor) +
                                "; interfaces attached at run time and hosts need 1.5 "
                                "(upgrade fastpathd)");
}

HostInfo hostFromReply(const v1::Host& h) {
  HostInfo out;
  out.spec.name = h.name();
  out.spec.node = h.node();
  out.spec.mtu = h.mtu();
  for (const auto& a : h.addresses())
    out.spec.addresses.push_back(IpPrefix{addressFromReply(a.address()), uint8_t(a.length())});
  for (const auto& g : h.gateways()) out.spec.gateways.push_back(addressFromReply(g));
  out.netns = h.netns();
  out.port = h.port();
  out.port_id = h.port_id();
  if (h.mac().size() == 6) std::memcpy(out.mac.bytes.data(), h.mac().data(), 6);
  return out;
}
}  // namespace

Result<PortInfo> Client::attachInterface(const std::string& node, const std::string& ifname) {
  return FP_CALL(->Result<PortInfo> {
    if (auto st = needsHosts(impl_->info, "attach_interface"); !st) return st.error();
    v1::Request req;
    req.mutable_attach_interface()->set_node(node);
    req.mutable_attach_interface()->set_ifname(ifname);
    auto rep = impl_->callOnce(req);
    if (!rep) return rep.error();
    if (rep->attached().ports_size() != 1)
      return makeError(-EPROTO, "attach_interface: the reply has no port");
    return portFromReply(rep->attached().ports(0));
  });
}

Status Client::detachInterface(const std::string& node, const std::string& ifname) {
  return FP_CALL(->Status {
    if (auto st = needsHosts(impl_->info, "detach_interface"); !st) return st;
    v1::Request req;
    req.mutable_detach_interface()->set_node(node);
    req.mutable_detach_interface()->set_ifname(ifname);
    return impl_->call(req);
  });
}

Result<HostInfo> Client::createHost(const HostSpec& spec) {
  return FP_CALL(->Result<HostInfo> {
    if (auto st = needsHosts(impl_->info, "create_host"); !st) return st.error();
    v1::Request req;
    auto* r = req.mutable_create_host();
    r->set_name(spec.name);
    r->set_node(spec.node);
    r->set_mtu(spec.mtu);
    for (const auto& a : spec.addresses) {
      auto* w = r->add_addresses();
      toWire(a.address, w->mutable_address());
      w->set_length(a.length);
    }
    for (const auto& g : spec.gateways) toWire(g, r->add_gateways());
    auto rep = impl_->callOnce(req);
    if (!rep) return rep.error();
    if (rep->hosts().hosts_size() != 1)
      return makeError(-EPROTO, "create_host: the reply has no host");
    return hostFromReply(rep->hosts().hosts(0));
  });
}

Status Client::deleteHost(const std::string& name) {
  return FP_CALL(->Status {
    if (auto st = needsHosts(impl_->info, "delete_host"); !st) return st;
    v1::Request req;
    req.mutable_delete_host()->set_name(name);
    return impl_->call(req);
  });
}

Result<std::vector<HostInfo>> Client::hosts() {
  return FP_CALL(->Result<std::vector<HostInfo>> {
    if (auto st = needsHosts(impl_->info, "get_hosts"); !st) return st.error();
    v1::Request req;
    req.mutable_get_hosts();
    auto rep = impl_->callOnce(req);
    if (!rep) return rep.error();
    std::vector<HostInfo> out;
    for (const auto& h : rep->hosts().hosts()) out.push_back(hostFromReply(h));
    return out;
  });
}

int Client::fd() const { return impl_->fd; }

}  // namespace fastpath::ctrl
