// SPDX-License-Identifier: GPL-2.0-only
// The ctrl-bridge server: fastpathd's end of the control socket. Single-threaded and
// non-blocking (epoll); fastpathd runs it in its control thread:
//
//   ControlServer server(backend, options);
//   if (auto st = server.start(); !st) ...;
//   while (!stop) server.poll(50);
//
// Every backend call happens inside poll(), on the calling thread. A slow or stuck client
// never blocks the thread: sockets are non-blocking and each client's send queue is
// bounded (the client is disconnected when it overflows).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "fastpath/control_backend.h"
#include "fastpath/ctrl/protocol.h"
#include "fastpath/result.h"

namespace fastpath::ctrl {

struct ServerOptions {
  std::string socket_path = kDefaultSocketPath;
  /// Mode of the socket file; clients need write permission to connect.
  mode_t socket_mode = 0660;
  /// Group to chown the socket file to (name or number); empty keeps the daemon's group.
  std::string socket_group;
  /// Peer credentials (SO_PEERCRED) allowed to talk; uid 0 is always allowed. A peer is
  /// accepted when its uid is in allowed_uids, or its gid in allowed_gids, or (with
  /// allow_same_uid) its uid equals the daemon's effective uid. The gid of socket_group
  /// is added to allowed_gids automatically.
  std::vector<uid_t> allowed_uids;
  std::vector<gid_t> allowed_gids;
  bool allow_same_uid = true;

  std::size_t max_message_bytes = kDefaultMaxMessageBytes;
  /// Per-client bound on queued outgoing bytes (replies + events); overflow disconnects.
  std::size_t max_send_queue_bytes = 32u << 20;
  std::size_t max_clients = 64;
  /// Largest route transaction (adds + removes, over all chunks).
  std::size_t max_batch_routes = 4u << 20;
  /// Routes per GetRoutes page when the client does not say.
  std::size_t route_page_size = 100000;

  std::string daemon_name = "fastpathd";
  std::string node_name;  ///< empty = host name
  /// Route leases: a client's Hello.route_grace_period_ms is clamped to this. 0 disables
  /// leases (every route is permanent whatever clients ask).
  uint32_t max_route_grace_period_ms = 3600u * 1000u;
};

/// Counters of the server itself (also reported by GetStats under scope "control").
struct ServerCounters {
  uint64_t accepted = 0;
  uint64_t refused_credentials = 0;
  uint64_t refused_too_many = 0;
  uint64_t requests = 0;
  uint64_t errors = 0;
  uint64_t malformed_frames = 0;
  uint64_t oversize_frames = 0;
  uint64_t send_queue_overflows = 0;
  uint64_t events_sent = 0;
  uint64_t transactions_aborted = 0;
  /// Route leases (Hello.route_grace_period_ms): owners whose grace period ran out, owners
  /// that came back in time, and what the expiries withdrew.
  uint64_t leases_expired = 0;
  uint64_t leases_cancelled = 0;
  uint64_t lease_routes_withdrawn = 0;
  uint64_t lease_neighbours_withdrawn = 0;
};

class ControlServer {
 public:
  ControlServer(ControlBackend& backend, ServerOptions options);
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  /// Creates the socket (replacing a stale one; refusing when another server answers on
  /// it), sets mode/group, listens, and registers the backend's event sink.
  Status start();
  /// Handles whatever is ready, waiting up to timeout_ms (0 = don't wait). Returns the
  /// number of events handled, or an error when the epoll instance itself failed.
  Result<int> poll(int timeout_ms);
  /// Closes every connection and removes the socket file. Also done by the destructor.
  void stop();

  /// The epoll fd (readable when poll() has work), to nest in another event loop.
  int fd() const;
  std::size_t clientCount() const;
  ServerCounters counters() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fastpath::ctrl
