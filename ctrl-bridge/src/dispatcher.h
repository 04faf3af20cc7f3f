// SPDX-License-Identifier: GPL-2.0-only
// Request -> reply logic of the control server, independent of sockets: one Session per
// connection (Hello state, open chunked transaction, subscription), one Dispatcher per
// backend. The server feeds it decoded frames; the fuzzer feeds it directly.
// Internal to ctrl-bridge (exposes protobuf types).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fastpath/control_backend.h"
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
  bool hello = false;
  bool subscribed = false;
  bool event_kinds[4] = {false, false, false, false};
  std::unique_ptr<BatchBuilder> txn;  ///< open chunked transaction
  uint64_t txn_id = 0;
  uint32_t next_chunk = 0;
  std::vector<Route> route_snapshot;  ///< for paged GetRoutes
  std::string lease_owner;            ///< node_name holding a route lease (Hello with grace > 0)
  std::vector<PortId> channels;       ///< control channels this connection opened
  bool wants(FastPathEvent::Kind k) const { return subscribed && event_kinds[static_cast<int>(k)]; }
};

struct DispatchCounters {
  uint64_t requests = 0;
  uint64_t errors = 0;
  uint64_t transactions_aborted = 0;
  uint64_t batches_applied = 0;
};

class Dispatcher {
 public:
  Dispatcher(ControlBackend& backend, DispatchOptions options);

  struct Outcome {
    v1::ServerMessage message;  ///< the reply (exactly one per request)
    int fd = -1;                ///< descriptor to pass with the reply (caller owns it)
    bool close_after = false;   ///< close the connection once the reply is sent
  };

  Outcome handle(Session& s, const v1::Request& req);
  /// The connection went away: discard an open transaction (nothing of it was applied).
  void disconnected(Session& s);

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
  void applyRoutes(Session& s, uint64_t id, const v1::RouteBatch& b, Outcome& o);
  void commit(const Session& s, uint64_t id, const RouteBatch& batch, Outcome& o);
  /// Discards the session's open transaction, if any.
  void dropTxn(Session& s);

  ControlBackend& backend_;
  DispatchOptions opt_;
  DispatchCounters ctr_;
  RouteLeases leases_;
  std::map<PortId, std::size_t> channel_holders_;  ///< connections holding each channel
  std::size_t pending_routes_ = 0;                 ///< routes in all open transactions
};

}  // namespace fastpath::ctrl
