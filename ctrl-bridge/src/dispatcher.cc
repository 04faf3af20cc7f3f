// SPDX-License-Identifier: GPL-2.0-only
#include "dispatcher.h"

#include "fastpath/ctrl/protocol.h"
#include "fastpath/log.h"
#include "wire_encode.h"

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
    case v1::Request::kAttachInterface:
    case v1::Request::kDetachInterface:
    case v1::Request::kCreateHost:
    case v1::Request::kDeleteHost:
    case v1::Request::kGetHosts: hostsAndInterfaces(s, req, o); return o;
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

void Dispatcher::nodeScoped(Session& s, const v1::Request& req, const Target& t, Outcome& o) {
  const uint64_t id = req.id();
  NodeControl& be = *t.control;
  v1::Reply* rep = o.message.mutable_reply();
  switch (req.body_case()) {
    case v1::Request::kApplyRoutes: applyRoutes(s, id, req.apply_routes(), t, o); return;
    case v1::Request::kGetRoutes: {
      const auto& g = req.get_routes();
      if (g.offset() == 0 || s.route_snapshot.empty() || s.route_snapshot_node != t.node) {
        s.route_snapshot = be.routes();
        s.route_snapshot_node = t.node;
      }
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
      return;
    }
    case v1::Request::kAddNeighbour: {
      auto n = neighbourFromWire(req.add_neighbour(), "add_neighbour",
                                 PortDirectory(be.ports(), t.node));
      if (!n) {
        setError(o, id, n.error());
      } else if (auto st = be.addNeighbour(*n); !st) {
        setBackendError(o, id, "add_neighbour", st.error());
      } else {
        leases_.recordNeighbourAdd(t.node, leaseOwnerFor(s, t.node), n->ip, n->port);
      }
      return;
    }
    case v1::Request::kDeleteNeighbour: {
      const auto& d = req.delete_neighbour();
      auto ip = addressFromWire(d.address(), "delete_neighbour.address", false);
      if (!ip) {
        setError(o, id, ip.error());
        return;
      }
      auto port = PortDirectory(be.ports(), t.node).resolve(d.port(), "delete_neighbour.port");
      if (!port) {
        setError(o, id, port.error());
      } else if (auto st = be.deleteNeighbour(*ip, *port); !st) {
        setBackendError(o, id, "delete_neighbour", st.error());
      } else {
        leases_.recordNeighbourDelete(t.node, *ip, *port);
      }
      return;
    }
    case v1::Request::kGetNeighbours: {
      auto* list = rep->mutable_neighbours();
      for (const auto& n : be.neighbours()) toWire(n, list->add_neighbours());
      return;
    }
    case v1::Request::kGetControlRules: {
      auto* list = rep->mutable_control_rules();
      for (const auto& r : be.controlRules()) toWire(r, list->add_rules());
      return;
    }
    case v1::Request::kSetControlRules: {
      auto rules = controlRulesFromWire(req.set_control_rules(), "set_control_rules");
      if (!rules) {
        setError(o, id, rules.error());
      } else if (auto st = be.setControlRules(*rules); !st) {
        setBackendError(o, id, "set_control_rules", st.error());
      }
      return;
    }
    case v1::Request::kGetPorts: {
      auto* list = rep->mutable_ports();
      for (const auto& p : be.ports()) {
        // Only the node's own ports, as PortDirectory accepts them.
        if (!p.node.empty() && canonicalNode(p.node) != t.node) continue;
        auto* w = list->add_ports();
        toWire(p, w);
        if (p.node.empty()) w->set_node(t.node);  // a backend with one node leaves it out
      }
      return;
    }
    case v1::Request::kGetStats: {
      auto* st = rep->mutable_stats();
      for (const auto& set : be.stats()) toWire(set, st->add_sets());
      return;
    }
    case v1::Request::kSubscribe: {
      auto kinds = subscriptionFromWire(req.subscribe(), "subscribe");
      if (!kinds) {
        setError(o, id, kinds.error());
        return;
      }
      for (bool& b : s.event_kinds) b = false;
      for (auto k : *kinds) s.event_kinds[static_cast<int>(k)] = true;
      s.subscribed = true;
      s.all_nodes = req.subscribe().all_nodes();
      // A subscription that names its node stays on it; one that does not follows the
      // connection's binding (a later Hello may move it).
      s.sub_node = req.node().empty() ? std::string() : t.node;
      return;
    }
    case v1::Request::kOpenControlChannel: {
      auto port = PortDirectory(be.ports(), t.node)
                      .resolve(req.open_control_channel().port(), "open_control_channel.port");
      if (!port) {
        setError(o, id, port.error());
        return;
      }
      auto fd = be.controlChannelFd(*port);
      if (!fd) {
        setBackendError(o, id, "open_control_channel", fd.error());
        return;
      }
      o.fd = fd.value();
      rep->mutable_control_channel()->set_port(*port);
      std::pair<std::string, PortId> key{t.node, *port};
      if (std::find(s.channels.begin(), s.channels.end(), key) == s.channels.end()) {
        s.channels.push_back(key);
        ++channel_holders_[key];
      }
      return;
    }
    default: return;  // handle() sends only the cases above here
  }
}

void Dispatcher::topology(Session& s, const v1::Request& req, Outcome& o) {
  const uint64_t id = req.id();
  v1::Reply* rep = o.message.mutable_reply();
  auto denied = [&](const char* field) {
    setError(o, id, v1::PERMISSION_DENIED, field,
             std::string(field) +
                 ": creating, deleting and changing nodes, links and segments needs an operator "
                 "(root, "
                 "the socket's owner: fastpathd --socket-uid, an allowed uid, or fastpathd's "
                 "own uid); uid " +
                 std::to_string(s.uid) + " is none of them");
  };
  switch (req.body_case()) {
    case v1::Request::kGetNodes: {
      auto* list = rep->mutable_nodes();
      for (const auto& n : topology_.nodes()) toWire(n, list->add_nodes());
      return;
    }
    case v1::Request::kGetLinks: {
      auto* list = rep->mutable_links();
      for (const auto& l : topology_.links()) toWire(l, list->add_links());
      return;
    }
    case v1::Request::kCreateNode: {
      if (!s.may_change_topology) return denied("create_node");
      auto spec = nodeSpecFromWire(req.create_node(), "create_node");
      if (!spec) return setError(o, id, spec.error());
      if (auto st = topology_.createNode(*spec); !st)
        return setBackendError(o, id, "create_node", st.error());
      pr_info("ctrl: %s created node %s (host %s)", s.who.c_str(), spec->name.c_str(),
              spec->host.c_str());
      return;
    }
    case v1::Request::kDeleteNode: {
      if (!s.may_change_topology) return denied("delete_node");
      const std::string& name = req.delete_node().name();
      if (auto st = nameFromWire(name, "delete_node.name", "node"); !st)
        return setError(o, id, st.error());
      if (canonicalNode(name) == kDefaultNodeName)
        return setError(o, id, v1::INVALID_ARGUMENT, "delete_node.name",
                        "delete_node.name: the default node cannot be deleted");
      if (auto st = topology_.deleteNode(name); !st)
        return setBackendError(o, id, "delete_node", st.error());
      nodeDeleted(name);
      pr_info("ctrl: %s deleted node %s", s.who.c_str(), name.c_str());
      return;
    }
    case v1::Request::kCreateLink: {
      if (!s.may_change_topology) return denied("create_link");
      auto spec = linkSpecFromWire(req.create_link(), "create_link");
      if (!spec) return setError(o, id, spec.error());
      for (const auto* end : {&spec->a, &spec->b}) {
        const char* field = end == &spec->a ? "create_link.a.node" : "create_link.b.node";
        if (auto be = topology_.node(end->node); !be)
          return setError(o, id, codeForErrno(be.error().code), field,
                          std::string(field) + ": " + be.error().message);
      }
      if (auto st = topology_.createLink(*spec); !st)
        return setBackendError(o, id, "create_link", st.error());
      std::string emulated;
      if (spec->a_to_b.shapes()) emulated += "; a-to-b " + formatLinkParams(spec->a_to_b);
      if (spec->b_to_a.shapes()) emulated += "; b-to-a " + formatLinkParams(spec->b_to_a);
      pr_info("ctrl: %s created link %s (%s:%s - %s:%s, %s%s)", s.who.c_str(), spec->name.c_str(),
              spec->a.node.c_str(), spec->a.port.c_str(), spec->b.node.c_str(),
              spec->b.port.c_str(), spec->up ? "up" : "down", emulated.c_str());
      return;
    }
    case v1::Request::kDeleteLink: {
      if (!s.may_change_topology) return denied("delete_link");
      const std::string& name = req.delete_link().name();
      if (auto st = nameFromWire(name, "delete_link.name", "link"); !st)
        return setError(o, id, st.error());
      if (auto st = topology_.deleteLink(name); !st)
        return setBackendError(o, id, "delete_link", st.error());
      pr_info("ctrl: %s deleted link %s", s.who.c_str(), name.c_str());
      return;
    }
    case v1::Request::kSetLinkState: {
      if (!s.may_change_topology) return denied("set_link_state");
      const auto& r = req.set_link_state();
      if (auto st = nameFromWire(r.name(), "set_link_state.name", "link"); !st)
        return setError(o, id, st.error());
      if (auto st = topology_.setLinkState(r.name(), r.up()); !st)
        return setBackendError(o, id, "set_link_state", st.error());
      pr_info("ctrl: %s set link %s %s", s.who.c_str(), r.name().c_str(), r.up() ? "up" : "down");
      return;
    }
    case v1::Request::kSetLinkParams: {
      if (!s.may_change_topology) return denied("set_link_params");
      const auto& r = req.set_link_params();
      if (auto st = nameFromWire(r.name(), "set_link_params.name", "link"); !st)
        return setError(o, id, st.error());
      auto direction = linkDirectionFromWire(r.direction(), "set_link_params.direction");
      if (!direction) return setError(o, id, direction.error());
      if (!r.has_params())
        return setError(o, id, v1::INVALID_ARGUMENT, "set_link_params.params",
                        "set_link_params.params: not set (send an empty LinkParams for a "
                        "direction that passes frames at once)");
      auto params = linkParamsFromWire(r.params(), "set_link_params.params");
      if (!params) return setError(o, id, params.error());
      // The backend validates again; on any error the link keeps its parameters.
      if (auto st = topology_.setLinkParams(r.name(), *direction, *params); !st)
        return setBackendError(o, id, "set_link_params", st.error());
      const char* dir = *direction == LinkDirection::kAToB   ? " a-to-b"
                        : *direction == LinkDirection::kBToA ? " b-to-a"
                                                             : "";
      pr_info("ctrl: %s set link %s%s %s", s.who.c_str(), r.name().c_str(), dir,
              formatLinkParams(*params).c_str());
      return;
    }
    case v1::Request::kGetSegments: {
      auto* list = rep->mutable_segments();
      for (const auto& seg : topology_.segments()) toWire(seg, list->add_segments());
      return;
    }
    case v1::Request::kCreateSegment: {
      if (!s.may_change_topology) return denied("create_segment");
      auto spec = segmentSpecFromWire(req.create_segment(), "create_segment");
      if (!spec) return setError(o, id, spec.error());
      for (size_t i = 0; i < spec->ports.size(); ++i)
        if (auto be = topology_.node(spec->ports[i].node); !be) {
          const std::string field = "create_segment.ports[" + std::to_string(i) + "].node";
          return setError(o, id, codeForErrno(be.error().code), field,
                          field + ": " + be.error().message);
        }
      if (auto st = topology_.createSegment(*spec); !st)
        return setBackendError(o, id, "create_segment", st.error());
      std::string nodes;
      for (const auto& p : spec->ports) nodes += (nodes.empty() ? "" : ", ") + p.node;
      pr_info("ctrl: %s created segment %s (%s; %s)", s.who.c_str(), spec->name.c_str(),
              nodes.c_str(), formatLinkParams(spec->params).c_str());
      return;
    }
    case v1::Request::kDeleteSegment: {
      if (!s.may_change_topology) return denied("delete_segment");
      const std::string& name = req.delete_segment().name();
      if (auto st = nameFromWire(name, "delete_segment.name", "segment"); !st)
        return setError(o, id, st.error());
      if (auto st = topology_.deleteSegment(name); !st)
        return setBackendError(o, id, "delete_segment", st.error());
      pr_info("ctrl: %s deleted segment %s", s.who.c_str(), name.c_str());
      return;
    }
    case v1::Request::kSetSegmentState: {
      if (!s.may_change_topology) return denied("set_segment_state");
      const auto& r = req.set_segment_state();
      if (auto st = nameFromWire(r.name(), "set_segment_state.name", "segment"); !st)
        return setError(o, id, st.error());
      if (!r.node().empty())
        if (auto st = segmentNodeFromWire(r.name(), r.node(), "set_segment_state.node",
                                          topology_.segments());
            !st)
          return setError(o, id, st.error());
      if (auto st = topology_.setSegmentState(r.name(), r.up(), r.node()); !st)
        return setBackendError(o, id, "set_segment_state", st.error());
      pr_info("ctrl: %s set segment %s%s%s %s", s.who.c_str(), r.name().c_str(),
              r.node().empty() ? "" : ": node ", r.node().c_str(), r.up() ? "up" : "down");
      return;
    }
    case v1::Request::kSetSegmentParams: {
      if (!s.may_change_topology) return denied("set_segment_params");
      const auto& r = req.set_segment_params();
      if (auto st = nameFromWire(r.name(), "set_segment_params.name", "segment"); !st)
        return setError(o, id, st.error());
      if (!r.has_params())
        return setError(o, id, v1::INVALID_ARGUMENT, "set_segment_params.params",
                        "set_segment_params.params: not set (send an empty LinkParams for a "
                        "segment without emulation)");
      auto params = linkParamsFromWire(r.params(), "set_segment_params.params");
      if (!params) return setError(o, id, params.error());
      if (auto st = topology_.setSegmentParams(r.name(), *params); !st)
        return setBackendError(o, id, "set_segment_params", st.error());
      pr_info("ctrl: %s set segment %s %s", s.who.c_str(), r.name().c_str(),
              formatLinkParams(*params).c_str());
      return;
    }
    default: return;
  }
}

void Dispatcher::applyRoutes(Session& s, uint64_t id, const v1::RouteBatch& b, const Target& t,
                             Outcome& o) {
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
    BatchBuilder builder(PortDirectory(t.control->ports(), t.node), opt_.max_batch_routes);
    if (auto st = builder.addChunk(b); !st) {
      setError(o, id, st.error());
      return;
    }
    auto batch = builder.finish();
    if (!batch) {
      setError(o, id, batch.error());
      return;
    }
    commit(s, id, *batch, t, o);
    return;
  }
  if (s.txn && t.node != s.txn_node) {
    abortTxn("node", "chunk " + std::to_string(b.chunk_index()) + " for node " + t.node +
                         " while transaction " + std::to_string(s.txn_id) + " for node " +
                         s.txn_node + " is open");
    return;
  }
  if (!s.txn) {
    if (b.chunk_index() != 0) {
      abortTxn("apply_routes.chunk_index", "chunk " + std::to_string(b.chunk_index()) +
                                               " of transaction " + std::to_string(tid) +
                                               " arrived before chunk 0");
      return;
    }
    s.txn = std::make_unique<BatchBuilder>(PortDirectory(t.control->ports(), t.node),
                                           opt_.max_batch_routes);
    s.txn_id = tid;
    s.txn_node = t.node;
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
    s.txn_node.clear();
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
  s.txn_node.clear();
  if (!batch) {
    setError(o, id, batch.error());
    return;
  }
  commit(s, id, *batch, t, o);
}

void Dispatcher::commit(const Session& s, uint64_t id, const RouteBatch& batch, const Target& t,
                        Outcome& o) {
  // Returns once the workers can see the new table: only then is the reply sent.
  if (auto st = t.control->applyRoutes(batch); !st) {
    setBackendError(o, id, "apply_routes", st.error());
    return;
  }
  ++ctr_.batches_applied;
  leases_.recordBatch(t.node, leaseOwnerFor(s, t.node), batch);
}

}  // namespace fastpath::ctrl
