// SPDX-License-Identifier: GPL-2.0-only
// Request -> reply logic of the control server, independent of sockets: one Session per
// connection (Hello state, bound node, open chunked transaction, subscription), one
// Dispatcher per topology. The server feeds it decoded frames; the fuzzer feeds it directly.
// Internal to ctrl-bridge (exposes protobuf types).
//
// Nodes: every node-scoped request runs on topology.node(N), where N is Request.node, else
// the node the connection's Hello bound it to, else the default node. Nodes are kept by
// their canonical name (kDefaultNodeName for "" and "default").
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fastpath/control_backend.h"
#include "reply_cache.h"
#include "route_batch.h"
#include "route_lease.h"
#include "wire_error.h"

namespace fastpath::ctrl {

struct DispatchOptions {
  std::size_t max_batch_routes = 4u << 20;
  /// Routes held by all open chunked transactions together.
  std::size_t max_pending_routes = 4u << 20;
  std::size_t route_page_size = 100000;
  std::string daemon_name = "fastpathd";
  std::string node_name;
  /// Largest route_grace_period_ms a client may ask for (larger values are clamped).
  uint32_t max_route_grace_period_ms = 3600u * 1000u;
};

/// Per-connection protocol state.
struct Session {
  std::string who;  ///< for log lines: "fpctl@host (pid 12 uid 0)"
  uint32_t pid = 0;
  uint32_t uid = 0;
  /// May create, delete and change nodes and links (an operator; set by the server from
  /// the peer's credentials).
  bool may_change_topology = false;
  bool hello = false;
  std::string node = kDefaultNodeName;  ///< the node Hello bound the connection to
  bool subscribed = false;
  /// Subscribed kinds, indexed by FastPathEvent::Kind (every kind has its entry).
  bool event_kinds[int(FastPathEvent::Kind::kMediumRetryLimit) + 1] = {};
  bool all_nodes = false;             ///< subscribed to the events of every node
  std::string sub_node;               ///< subscribed for this node; empty = follow `node`
  std::unique_ptr<BatchBuilder> txn;  ///< open chunked transaction
  std::string txn_node;               ///< the node of the open transaction
  uint64_t txn_id = 0;
  uint32_t next_chunk = 0;
  std::vector<Route> route_snapshot;  ///< for paged GetRoutes
  std::string route_snapshot_node;    ///< the node route_snapshot was taken from
  std::string lease_owner;            ///< node_name holding a route lease (Hello with grace > 0)
  std::string lease_node;             ///< the node of that lease
  /// Control channels this connection opened: (node, port).
  std::vector<std::pair<std::string, PortId>> channels;
  /// Captures this connection started (protocol 1.6); the server streams their frames.
  struct SessionCapture {
    uint64_t id = 0;
    bool stopping = false;  ///< StopCapture: one last batch (done), then stopped
  };
  std::vector<SessionCapture> captures;
  /// Hello.session_id (1.15): the client resends after reconnecting; 0 = it does not.
  uint64_t reply_session = 0;
  /// This connection among the dispatcher's (set by its first Hello), for the reply cache.
  uint64_t conn_serial = 0;

  /// Whether an event goes to this connection: subscribed to its kind, and of its node.
  bool wants(const FastPathEvent& e) const {
    if (!subscribed || !event_kinds[static_cast<int>(e.kind)]) return false;
    if (all_nodes) return true;
    const std::string& mine = sub_node.empty() ? node : sub_node;
    return e.node.empty() ? mine == kDefaultNodeName : e.node == mine;
  }
};

struct DispatchCounters {
  uint64_t requests = 0;
  uint64_t errors = 0;
  uint64_t transactions_aborted = 0;
  uint64_t batches_applied = 0;
  uint64_t replayed = 0;  ///< resent requests answered with their first reply (1.15)
};

/// A StartCapture's fields as a CaptureSpec (node left empty); INVALID_ARGUMENT naming the
/// field otherwise.
WireStatus captureSpecFromWire(const v1::StartCapture& w, CaptureSpec* spec);

class Dispatcher {
 public:
  Dispatcher(TopologyControl& topology, DispatchOptions options);

  struct Outcome {
    v1::ServerMessage message;  ///< the reply (exactly one per request)
    int fd = -1;                ///< descriptor to pass with the reply (caller owns it)
    bool close_after = false;   ///< close the connection once the reply is sent
  };

  Outcome handle(Session& s, const v1::Request& req);
  /// The connection went away: discard an open transaction (nothing of it was applied),
  /// release its control channels and stop its captures.
  void disconnected(Session& s);
  /// Stops every capture of the session (the server stops one with topology()).
  void stopCaptures(Session& s);
  TopologyControl& topology() { return topology_; }

  /// Withdraws the routes of owners whose grace period has ended (call from the poll loop).
  void expireLeases(RouteLeases::Clock::time_point now) { leases_.expire(now); }
  /// When expireLeases() next has work, if ever (bounds the poll loop's wait).
  std::optional<RouteLeases::Clock::time_point> nextLeaseDeadline() const {
    return leases_.nextDeadline();
  }
  const RouteLeases& leases() const { return leases_; }

  /// An error reply not tied to a request (bad frame): id 0.
  static v1::ServerMessage errorMessage(uint64_t id, v1::ErrorCode code, const std::string& field,
                                        const std::string& message);

  const DispatchCounters& counters() const { return ctr_; }
  const DispatchOptions& options() const { return opt_; }

 private:
  void setError(Outcome& o, uint64_t id, v1::ErrorCode code, const std::string& field,
                const std::string& message);
  void setError(Outcome& o, uint64_t id, const WireError& e) {
    setError(o, id, e.code, e.field, e.message);
  }
  void setBackendError(Outcome& o, uint64_t id, const std::string& what, const Error& e);
  /// A request only an operator may make, from a peer that is none: PERMISSION_DENIED on
  /// `field`, saying that `what` needs an operator, who operators are, and the peer's uid.
  void setOperatorNeeded(Outcome& o, uint64_t id, const std::string& field,
                         const std::string& what, uint32_t uid);

  /// The node a node-scoped request is for, and its control plane.
  struct Target {
    std::string node;  ///< canonical name
    NodeControl* control = nullptr;
  };
  /// The request to the part that carries it out (everything but the reply cache).
  Outcome dispatch(Session& s, const v1::Request& req);
  Outcome hello(Session& s, const v1::Request& req);
  /// Resolves Request.node (else the session's node); false with the error set in `o`.
  bool resolve(Session& s, const v1::Request& req, Target* t, Outcome& o);
  void nodeScoped(Session& s, const v1::Request& req, const Target& t, Outcome& o);
  void topology(Session& s, const v1::Request& req, Outcome& o);
  /// StartCapture, StopCapture (dispatcher_capture.cc).
  void capture(Session& s, const v1::Request& req, Outcome& o);
  /// AttachInterface .. GetHosts (dispatcher_hosts.cc).
  void hostsAndInterfaces(Session& s, const v1::Request& req, Outcome& o);
  /// MultiHostDeclare .. GetMultiHost (dispatcher_multihost.cc).
  void multiHost(Session& s, const v1::Request& req, Outcome& o);
  /// CreateMedium .. GetMedia (dispatcher_medium.cc).
  void media(Session& s, const v1::Request& req, Outcome& o);
  /// CreateBridge, DeleteBridge, GetBridges (dispatcher_bridge.cc).
  void bridges(Session& s, const v1::Request& req, Outcome& o);
  /// ResetStats (dispatcher_stats.cc).
  void resetStats(Session& s, const v1::Request& req, Outcome& o);
  /// The lease owner of a write from `s` to `node`: the session's own lease when the write
  /// is for the node of that lease, else none (the write is permanent).
  static const std::string& leaseOwnerFor(const Session& s, const std::string& node);
  void applyRoutes(Session& s, uint64_t id, const v1::RouteBatch& b, const Target& t, Outcome& o);
  void commit(const Session& s, uint64_t id, const RouteBatch& batch, const Target& t, Outcome& o);
  /// Discards the session's open transaction, if any.
  void dropTxn(Session& s);
  /// A node was deleted: its leases and channel bookkeeping go with it.
  void nodeDeleted(const std::string& node);

  TopologyControl& topology_;
  DispatchOptions opt_;
  DispatchCounters ctr_;
  RouteLeases leases_;
  ReplyCache replies_;
  uint64_t conn_serials_ = 0;
  /// Connections holding each control channel, by (node, port).
  std::map<std::pair<std::string, PortId>, std::size_t> channel_holders_;
  std::size_t pending_routes_ = 0;  ///< routes in all open transactions
};

}  // namespace fastpath::ctrl
