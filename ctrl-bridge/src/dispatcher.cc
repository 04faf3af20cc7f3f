// SPDX-License-Identifier: GPL-2.0-only
// Sessions: the handshake, which request goes to which part, errors, resent changes answered
// from their first reply (reply_cache.h), and what a client leaves behind when it goes (its
// transaction, leases and channels). The parts themselves live in
// dispatcher_node.cc, dispatcher_topology.cc, dispatcher_hosts.cc and dispatcher_medium.cc.
#include "dispatcher.h"

#include "fastpath/ctrl/protocol.h"
#include "fastpath/log.h"
#include "wire_validate.h"

#include <algorithm>
#include <iterator>

namespace fastpath::ctrl {

Dispatcher::Dispatcher(TopologyControl& topology, DispatchOptions options)
    : topology_(topology), opt_(std::move(options)), leases_(topology) {}

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

void Dispatcher::setOperatorNeeded(Outcome& o, uint64_t id, const std::string& field,
                                   const std::string& what, uint32_t uid) {
  setError(o, id, v1::PERMISSION_DENIED, field,
           field + ": " + what +
               " needs an operator (root, the socket's owner: fastpathd --socket-uid, an "
               "allowed uid, or fastpathd's own uid); uid " +
               std::to_string(uid) + " is none of them");
}

void Dispatcher::setBackendError(Outcome& o, uint64_t id, const std::string& what, const Error& e) {
  setError(o, id, codeForErrno(e.code), what, what + ": " + e.message);
}

void Dispatcher::disconnected(Session& s) {
  // The channel goes with the last connection that opened it: a client process that
  // exited (or crashed) no longer reads its frames.
  for (const auto& key : s.channels) {
    auto it = channel_holders_.find(key);
    if (it == channel_holders_.end()) continue;  // its node was deleted meanwhile
    if (--it->second > 0) continue;
    channel_holders_.erase(it);
    if (auto be = topology_.node(key.first)) (*be)->releaseControlChannel(key.second);
  }
  s.channels.clear();
  stopCaptures(s);
  if (s.reply_session != 0)
    replies_.closed({s.uid, s.reply_session}, s.conn_serial, ReplyCache::Clock::now());
  if (!s.lease_owner.empty()) {
    leases_.detach(s.lease_node, s.lease_owner, RouteLeases::Clock::now());
    s.lease_owner.clear();
    s.lease_node.clear();
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
  s.txn_node.clear();
}

void Dispatcher::nodeDeleted(const std::string& node) {
  leases_.forgetNode(node);
  for (auto it = channel_holders_.begin(); it != channel_holders_.end();)
    it = it->first.first == node ? channel_holders_.erase(it) : std::next(it);
}

const std::string& Dispatcher::leaseOwnerFor(const Session& s, const std::string& node) {
  static const std::string kNone;
  return s.lease_node == node ? s.lease_owner : kNone;
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
  if (s.reply_session == 0 || !changesState(req)) return dispatch(s, req);
  // At-most-once: a request this session resends on a new connection, whose reply went
  // with the old one, gets that reply; it is not carried out again.
  const ReplyCache::Key key{s.uid, s.reply_session};
  if (const v1::ServerMessage* kept = replies_.find(key, s.conn_serial, id)) {
    ++ctr_.replayed;
    pr_info_ratelimited("ctrl: %s: request %llu was carried out before its connection closed; "
                        "answered with its reply",
                        s.who.c_str(), static_cast<unsigned long long>(id));
    // A resent last chunk: the resent chunks before it opened the transaction again on
    // this connection, and it was applied once already.
    if (req.body_case() == v1::Request::kApplyRoutes) dropTxn(s);
    o.message = *kept;
    return o;
  }
  o = dispatch(s, req);
  if (o.fd < 0) replies_.remember(key, s.conn_serial, id, o.message);
  return o;
}

Dispatcher::Outcome Dispatcher::dispatch(Session& s, const v1::Request& req) {
  Outcome o;
  const uint64_t id = req.id();
  o.message.mutable_reply()->set_id(id);
  switch (req.body_case()) {
    case v1::Request::kHello: return hello(s, req);
    case v1::Request::kCreateNode:
    case v1::Request::kDeleteNode:
    case v1::Request::kGetNodes:
    case v1::Request::kCreateLink:
    case v1::Request::kDeleteLink:
    case v1::Request::kSetLinkState:
    case v1::Request::kSetLinkParams:
    case v1::Request::kGetLinks:
    case v1::Request::kCreateSegment:
    case v1::Request::kDeleteSegment:
    case v1::Request::kSetSegmentState:
    case v1::Request::kSetSegmentParams:
    case v1::Request::kGetSegments: topology(s, req, o); return o;
    case v1::Request::kCreateBridge:
    case v1::Request::kDeleteBridge:
    case v1::Request::kGetBridges: bridges(s, req, o); return o;
    case v1::Request::kResetStats: resetStats(s, req, o); return o;
    case v1::Request::kAttachInterface:
    case v1::Request::kDetachInterface:
    case v1::Request::kCreateHost:
    case v1::Request::kDeleteHost:
    case v1::Request::kGetHosts: hostsAndInterfaces(s, req, o); return o;
    case v1::Request::kStartCapture:
    case v1::Request::kStopCapture: capture(s, req, o); return o;
    case v1::Request::kCreateMedium:
    case v1::Request::kDeleteMedium:
    case v1::Request::kUpdateMedium:
    case v1::Request::kGetMedia: media(s, req, o); return o;
    case v1::Request::kMultiHostDeclare:
    case v1::Request::kMultiHostCreateLink:
    case v1::Request::kMultiHostDeleteLink:
    case v1::Request::kGetMultiHost: multiHost(s, req, o); return o;
    case v1::Request::kApplyRoutes:
    case v1::Request::kGetRoutes:
    case v1::Request::kAddNeighbour:
    case v1::Request::kDeleteNeighbour:
    case v1::Request::kGetNeighbours:
    case v1::Request::kGetControlRules:
    case v1::Request::kSetControlRules:
    case v1::Request::kGetPorts:
    case v1::Request::kGetStats:
    case v1::Request::kSubscribe:
    case v1::Request::kOpenControlChannel: {
      Target t;
      if (!resolve(s, req, &t, o)) return o;
      nodeScoped(s, req, t, o);
      // Errors about another node than the default one say which node they are about.
      auto* rep = o.message.mutable_reply();
      if (rep->has_error() && t.node != kDefaultNodeName)
        rep->mutable_error()->set_message("node " + t.node + ": " + rep->error().message());
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

Dispatcher::Outcome Dispatcher::hello(Session& s, const v1::Request& req) {
  Outcome o;
  const uint64_t id = req.id();
  v1::Reply* rep = o.message.mutable_reply();
  rep->set_id(id);
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
  if (auto st = optionalNodeFromWire(h.node(), "hello.node"); !st) {
    setError(o, id, st.error());
    return o;
  }
  const std::string node = canonicalNode(h.node());
  if (auto be = topology_.node(node); !be) {
    setError(o, id, codeForErrno(be.error().code), "hello.node",
             "hello.node: " + be.error().message);
    return o;
  }
  uint32_t grace = std::min(h.route_grace_period_ms(), opt_.max_route_grace_period_ms);
  if (grace > 0 && h.node_name().empty()) {
    setError(o, id, v1::INVALID_ARGUMENT, "hello.route_grace_period_ms",
             "hello.route_grace_period_ms: a route lease needs an owner; set "
             "hello.node_name (or send route_grace_period_ms = 0 for permanent routes)");
    return o;
  }
  // The lease belongs to (node, node_name): binding elsewhere is another owner.
  std::string owner = grace > 0 ? h.node_name() : std::string();
  std::string lease_node = grace > 0 ? node : std::string();
  if (owner != s.lease_owner || lease_node != s.lease_node) {
    if (!s.lease_owner.empty())
      leases_.detach(s.lease_node, s.lease_owner, RouteLeases::Clock::now());
    if (!owner.empty()) leases_.attach(lease_node, owner, grace);
    s.lease_owner = owner;
    s.lease_node = lease_node;
  }
  s.hello = true;
  s.node = node;
  if (s.conn_serial == 0) s.conn_serial = ++conn_serials_;
  if (s.reply_session != 0 && s.reply_session != h.session_id())
    replies_.closed({s.uid, s.reply_session}, s.conn_serial, ReplyCache::Clock::now());
  s.reply_session = h.session_id();
  if (!h.client_name().empty() || !h.node_name().empty())
    s.who = h.client_name() + (h.node_name().empty() ? "" : "@" + h.node_name()) + " (pid " +
            std::to_string(s.pid) + " uid " + std::to_string(s.uid) + ")";
  const std::string on = node == kDefaultNodeName ? "" : ", node " + node;
  if (grace > 0)
    pr_info_ratelimited("ctrl: %s said hello (protocol %u.%u%s, route grace period %u ms)",
                        s.who.c_str(), major, minor, on.c_str(), grace);
  else
    pr_info_ratelimited("ctrl: %s said hello (protocol %u.%u%s)", s.who.c_str(), major, minor,
                        on.c_str());
  auto* hr = rep->mutable_hello();
  hr->mutable_version()->set_major(kProtocolMajor);
  hr->mutable_version()->set_minor(kProtocolMinor);
  hr->set_daemon_name(opt_.daemon_name);
  hr->set_node_name(opt_.node_name);
  hr->set_node(node);
  return o;
}

bool Dispatcher::resolve(Session& s, const v1::Request& req, Target* t, Outcome& o) {
  const uint64_t id = req.id();
  if (auto st = optionalNodeFromWire(req.node(), "node"); !st) {
    setError(o, id, st.error());
    return false;
  }
  t->node = req.node().empty() ? s.node : canonicalNode(req.node());
  auto be = topology_.node(t->node);
  if (be) {
    t->control = *be;
    return true;
  }
  std::string msg = "node: " + be.error().message;
  if (req.body_case() == v1::Request::kApplyRoutes && s.txn && s.txn_node == t->node) {
    // The node of the open transaction is gone: so is the transaction.
    ++ctr_.transactions_aborted;
    msg += "; transaction " + std::to_string(s.txn_id) + " discarded";
    dropTxn(s);
  }
  setError(o, id, codeForErrno(be.error().code), "node", msg);
  return false;
}

}  // namespace fastpath::ctrl
