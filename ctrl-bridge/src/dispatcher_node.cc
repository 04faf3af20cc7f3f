// SPDX-License-Identifier: GPL-2.0-only
// Requests about one node's tables: routes (whole batches or chunked transactions),
// neighbours, control rules, counters and subscriptions.
#include "dispatcher.h"

#include <algorithm>
#include <string>

#include "wire_encode.h"
#include "wire_validate.h"

namespace fastpath::ctrl {

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
      const StatsEpoch epoch = topology_.statsEpoch();
      st->set_histograms_since_unix_ns(epoch.since_unix_ns);
      st->set_histogram_resets(epoch.resets);
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
      const auto& open = req.open_control_channel();
      auto fd = be.controlChannelFd(*port, ControlChannelTiming{open.timed(), open.lead_ns()});
      if (!fd) {
        setBackendError(o, id, "open_control_channel", fd.error());
        return;
      }
      o.fd = fd.value();
      rep->mutable_control_channel()->set_port(*port);
      rep->mutable_control_channel()->set_timed(open.timed());
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
