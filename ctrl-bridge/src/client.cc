// SPDX-License-Identifier: GPL-2.0-only
// The client library: connecting, reconnecting, events, and the calls that take more
// than one request (chunked route batches, paged route listings). The calls of one
// request each are in client_calls.cc.
#include "fastpath/ctrl/client.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <thread>

#include "client_connection.h"
#include "fastpath/log.h"
#include "reply_decode.h"
#include "wire_encode.h"

namespace fastpath::ctrl {

namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

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

Status Client::hello(const std::string& node_name) {
  return impl_->retrying(*this, [&] { return impl_->doHello(node_name, impl_->opt.node); });
}

Status Client::bind(const std::string& node) {
  return impl_->retrying(*this, [&] { return impl_->doHello(impl_->opt.node_name, node); });
}

const std::string& Client::boundNode() const { return impl_->info.node; }

const ServerInfo& Client::serverInfo() const { return impl_->info; }

Status Client::applyRoutes(const RouteBatch& batch, const std::string& node) {
  return impl_->retrying(*this, [&]() -> Status {
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
      if (auto rep = d.callOnce(req); !rep) return rep.error();
      return {};
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
  return impl_->retrying(*this, [&]() -> Result<std::vector<Route>> {
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
    if (m.value()->has_capture()) d.bufferCapture(*m.value()->mutable_capture());
  }
}

bool Client::hasBufferedEvents() const { return !impl_->events.empty(); }

int Client::fd() const { return impl_->fd; }

}  // namespace fastpath::ctrl
