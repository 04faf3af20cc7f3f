// SPDX-License-Identifier: GPL-2.0-only
#include "dispatcher.h"

#include "fastpath/ctrl/client.h"
#include "fastpath/log.h"
#include "wire_encode.h"

#include <algorithm>

namespace fastpath::ctrl {

Dispatcher::Dispatcher(ControlBackend& backend, DispatchOptions options)
    : backend_(backend), opt_(std::move(options)), leases_(backend) {}

v1::ServerMessage Dispatcher::errorMessage(uint64_t id, v1::ErrorCode code,
                                           const std::string& field, const std::string& message) {
  v1::ServerMessage m;
  auto* r = m.mutable_reply();
  r->set_id(id);
  r->mutable_error()->set_code(code);
  r->mutable_error()->set_field(field);
  r->mutable_error()->set_message(message);
  return m;
}

void Dispatcher::setError(Outcome& o, uint64_t id, v1::ErrorCode code, const std::string& field,
                          const std::string& message) {
  ++ctr_.errors;
  o.message = errorMessage(id, code, field, message);
}

void Dispatcher::setBackendError(Outcome& o, uint64_t id, const std::string& what, const Error& e) {
  setError(o, id, codeForErrno(e.code), what, what + ": " + e.message);
}

void Dispatcher::disconnected(Session& s) {
  // The channel goes with the last connection that opened it: a client process that
  // exited (or crashed) no longer reads its frames.
  for (PortId port : s.channels)
    if (--channel_holders_[port] == 0) {
      channel_holders_.erase(port);
      backend_.releaseControlChannel(port);
    }
  s.channels.clear();
  if (!s.lease_owner.empty()) {
    leases_.detach(s.lease_owner, RouteLeases::Clock::now());
    s.lease_owner.clear();
  }
  if (!s.txn) return;
  ++ctr_.transactions_aborted;
  pr_info("ctrl: %s: disconnected with transaction %llu open; discarded, nothing applied",
          s.who.c_str(), static_cast<unsigned long long>(s.txn_id));
  dropTxn(s);
}

void Dispatcher::dropTxn(Session& s) {
  if (s.txn) pending_routes_ -= s.txn->size();
  s.txn.reset();
  s.txn_id = 0;
  s.next_chunk = 0;
}

Dispatcher::Outcome Dispatcher::handle(Session& s, const v1::Request& req) {
  ++ctr_.requests;
  Outcome o;
  const uint64_t id = req.id();
  if (!s.hello && req.body_case() != v1::Request::kHello) {
    setError(o, id, v1::FAILED_PRECONDITION, "hello",
             "hello: the first request on a connection must be Hello (protocol version)");
    return o;
  }
  v1::Reply* rep = o.message.mutable_reply();
  rep->set_id(id);
  switch (req.body_case()) {
    case v1::Request::kHello: {
      const auto& h = req.hello();
      uint32_t major = h.version().major(), minor = h.version().minor();
      if (major != kProtocolMajor) {
        std::string msg = "hello.version: client speaks protocol " + std::to_string(major) + "." +
                          std::to_string(minor) + ", fastpathd speaks " +
                          std::to_string(kProtocolMajor) + "." + std::to_string(kProtocolMinor) +
                          "; use a client and daemon of the same major version";
        pr_warn("ctrl: %s refused: %s", s.who.c_str(), msg.c_str());
        setError(o, id, v1::VERSION_MISMATCH, "hello.version", msg);
        o.close_after = true;
        return o;
      }
      uint32_t grace = std::min(h.route_grace_period_ms(), opt_.max_route_grace_period_ms);
      if (grace > 0 && h.node_name().empty()) {
        setError(o, id, v1::INVALID_ARGUMENT, "hello.route_grace_period_ms",
                 "hello.route_grace_period_ms: a route lease needs an owner; set "
                 "hello.node_name (or send route_grace_period_ms = 0 for permanent routes)");
        return o;
      }
      std::string owner = grace > 0 ? h.node_name() : std::string();
      if (owner != s.lease_owner) {
        if (!s.lease_owner.empty()) leases_.detach(s.lease_owner, RouteLeases::Clock::now());
        if (!owner.empty()) leases_.attach(owner, grace);
        s.lease_owner = owner;
      }
      s.hello = true;
      if (!h.client_name().empty() || !h.node_name().empty())
        s.who = h.client_name() + (h.node_name().empty() ? "" : "@" + h.node_name()) + " (pid " +
                std::to_string(s.pid) + " uid " + std::to_string(s.uid) + ")";
      if (grace > 0)
        pr_info_ratelimited("ctrl: %s said hello (protocol %u.%u, route grace period %u ms)",
                            s.who.c_str(), major, minor, grace);
      else
        pr_info_ratelimited("ctrl: %s said hello (protocol %u.%u)", s.who.c_str(), major, minor);
      auto* hr = rep->mutable_hello();
      hr->mutable_version()->set_major(kProtocolMajor);
      hr->mutable_version()->set_minor(kProtocolMinor);
      hr->set_daemon_name(opt_.daemon_name);
      hr->set_node_name(opt_.node_name);
      return o;
    }
    case v1::Request::kApplyRoutes: applyRoutes(s, id, req.apply_routes(), o); return o;
    case v1::Request::kGetRoutes: {
      const auto& g = req.get_routes();
      if (g.offset() == 0 || s.route_snapshot.empty()) s.route_snapshot = backend_.routes();
      std::size_t total = s.route_snapshot.size();
      std::size_t limit = g.limit() ? g.limit() : opt_.route_page_size;
      limit = std::min(limit, opt_.route_page_size);
      std::size_t begin = std::min<std::size_t>(g.offset(), total);
      std::size_t end = std::min(total, begin + limit);
      auto* list = rep->mutable_routes();
      list->mutable_routes()->Reserve(static_cast<int>(end - begin));
      for (std::size_t i = begin; i < end; ++i) toWire(s.route_snapshot[i], list->add_routes());
      list->set_total(static_cast<uint32_t>(total));
      list->set_next_offset(static_cast<uint32_t>(end));
      if (end >= total) s.route_snapshot.clear();
      return o;
    }
    case v1::Request::kAddNeighbour: {
      auto n =
          neighbourFromWire(req.add_neighbour(), "add_neighbour", PortDirectory(backend_.ports()));
      if (!n) {
        setError(o, id, n.error());
      } else if (auto st = backend_.addNeighbour(*n); !st) {
        setBackendError(o, id, "add_neighbour", st.error());
      } else {
        leases_.recordNeighbourAdd(s.lease_owner, n->ip, n->port);
      }
      return o;
    }
    case v1::Request::kDeleteNeighbour: {
      const auto& d = req.delete_neighbour();
      auto ip = addressFromWire(d.address(), "delete_neighbour.address", false);
      if (!ip) {
        setError(o, id, ip.error());
        return o;
      }
      auto port = PortDirectory(backend_.ports()).resolve(d.port(), "delete_neighbour.port");
      if (!port) {
        setError(o, id, port.error());
      } else if (auto st = backend_.deleteNeighbour(*ip, *port); !st) {
        setBackendError(o, id, "delete_neighbour", st.error());
      } else {
        leases_.recordNeighbourDelete(*ip, *port);
      }
      return o;
    }
    case v1::Request::kGetNeighbours: {
      auto* list = rep->mutable_neighbours();
      for (const auto& n : backend_.neighbours()) toWire(n, list->add_neighbours());
      return o;
    }
    case v1::Request::kGetControlRules: {
      auto* list = rep->mutable_control_rules();
      for (const auto& r : backend_.controlRules()) toWire(r, list->add_rules());
      return o;
    }
    case v1::Request::kSetControlRules: {
      auto rules = controlRulesFromWire(req.set_control_rules(), "set_control_rules");
      if (!rules) {
        setError(o, id, rules.error());
      } else if (auto st = backend_.setControlRules(*rules); !st) {
        setBackendError(o, id, "set_control_rules", st.error());
      }
      return o;
    }
    case v1::Request::kGetPorts: {
      auto* list = rep->mutable_ports();
      for (const auto& p : backend_.ports()) toWire(p, list->add_ports());
      return o;
    }
    case v1::Request::kGetStats: {
      auto* st = rep->mutable_stats();
      for (const auto& set : backend_.stats()) toWire(set, st->add_sets());
      return o;
    }
    case v1::Request::kSubscribe: {
      auto kinds = subscriptionFromWire(req.subscribe(), "subscribe");
      if (!kinds) {
        setError(o, id, kinds.error());
        return o;
      }
      for (bool& b : s.event_kinds) b = false;
      for (auto k : *kinds) s.event_kinds[static_cast<int>(k)] = true;
      s.subscribed = true;
      return o;
    }
    case v1::Request::kOpenControlChannel: {
      auto port = PortDirectory(backend_.ports())
                      .resolve(req.open_control_channel().port(), "open_control_channel.port");
      if (!port) {
        setError(o, id, port.error());
        return o;
      }
      auto fd = backend_.controlChannelFd(*port);
      if (!fd) {
        setBackendError(o, id, "open_control_channel", fd.error());
        return o;
      }
      o.fd = fd.value();
      rep->mutable_control_channel()->set_port(*port);
      if (std::find(s.channels.begin(), s.channels.end(), *port) == s.channels.end()) {
        s.channels.push_back(*port);
        ++channel_holders_[*port];
      }
      return o;
    }
    default:
      setError(o, id, v1::UNIMPLEMENTED, "",
               "request has no body, or one this fastpathd (protocol " +
                   std::to_string(kProtocolMajor) + "." + std::to_string(kProtocolMinor) +
                   ") does not know");
      return o;
  }
}

void Dispatcher::applyRoutes(Session& s, uint64_t id, const v1::RouteBatch& b, Outcome& o) {
  const uint64_t tid = b.transaction_id();
  auto abortTxn = [&](const std::string& field, const std::string& why) {
    ++ctr_.transactions_aborted;
    uint64_t old = s.txn_id;
    dropTxn(s);
    setError(o, id, v1::ABORTED, field,
             field + ": " + why + "; transaction " + std::to_string(old ? old : tid) +
                 " discarded, nothing applied (start again at chunk_index 0)");
  };
  if (tid == 0) {
    if (s.txn) {
      abortTxn("apply_routes.transaction_id",
               "unchunked batch while transaction " + std::to_string(s.txn_id) + " is open");
      return;
    }
    BatchBuilder builder(PortDirectory(backend_.ports()), opt_.max_batch_routes);
    if (auto st = builder.addChunk(b); !st) {
      setError(o, id, st.error());
      return;
    }
    auto batch = builder.finish();
    if (!batch) {
      setError(o, id, batch.error());
      return;
    }
    commit(s, id, *batch, o);
    return;
  }
  if (!s.txn) {
    if (b.chunk_index() != 0) {
      abortTxn("apply_routes.chunk_index", "chunk " + std::to_string(b.chunk_index()) +
                                               " of transaction " + std::to_string(tid) +
                                               " arrived before chunk 0");
      return;
    }
    s.txn = std::make_unique<BatchBuilder>(PortDirectory(backend_.ports()), opt_.max_batch_routes);
    s.txn_id = tid;
    s.next_chunk = 0;
  } else if (tid != s.txn_id) {
    abortTxn("apply_routes.transaction_id", "transaction " + std::to_string(tid) +
                                                " started before transaction " +
                                                std::to_string(s.txn_id) + " finished");
    return;
  } else if (b.chunk_index() != s.next_chunk) {
    abortTxn("apply_routes.chunk_index", "chunk " + std::to_string(b.chunk_index()) +
                                             " out of order (expected " +
                                             std::to_string(s.next_chunk) + ")");
    return;
  }
  // What open transactions hold waits in memory (about 140 bytes a route): bounded over
  // all clients, not only per transaction.
  const std::size_t incoming = std::size_t(b.add_size()) + std::size_t(b.remove_size());
  if (pending_routes_ + incoming > opt_.max_pending_routes) {
    abortTxn("apply_routes", "open transactions of all clients would hold " +
                                 std::to_string(pending_routes_ + incoming) +
                                 " routes not yet applied (limit " +
                                 std::to_string(opt_.max_pending_routes) + ")");
    return;
  }
  const std::size_t held = s.txn->size();
  if (auto st = s.txn->addChunk(b); !st) {
    ++ctr_.transactions_aborted;
    pending_routes_ -= held;  // what the failed chunk appended was never counted
    s.txn.reset();
    s.txn_id = 0;
    s.next_chunk = 0;
    WireError err = st.error();
    err.message += "; transaction discarded, nothing applied";
    setError(o, id, err);
    return;
  }
  pending_routes_ += s.txn->size() - held;
  ++s.next_chunk;
  if (!b.final_chunk()) return;  // chunk accepted; applied with the final one
  pending_routes_ -= s.txn->size();
  auto batch = s.txn->finish();
  s.txn.reset();
  s.txn_id = 0;
  s.next_chunk = 0;
  if (!batch) {
    setError(o, id, batch.error());
    return;
  }
  commit(s, id, *batch, o);
}

void Dispatcher::commit(const Session& s, uint64_t id, const RouteBatch& batch, Outcome& o) {
  // Returns once the workers can see the new table: only then is the reply sent.
  if (auto st = backend_.applyRoutes(batch); !st) {
    setBackendError(o, id, "apply_routes", st.error());
    return;
  }
  ++ctr_.batches_applied;
  leases_.recordBatch(s.lease_owner, batch);
}

}  // namespace fastpath::ctrl
