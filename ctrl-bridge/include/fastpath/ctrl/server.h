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
  /// Owner of the socket file (fastpathd --socket-uid): with socket_mode 0660 that user can
  /// connect, and it is allowed and counts as an operator. -1 keeps the daemon's uid.
  uid_t socket_owner = static_cast<uid_t>(-1);
  /// Group to chown the socket file to (name or number); empty keeps the daemon's group.
  std::string socket_group;
  /// Peer credentials allowed to talk; uid 0 is always allowed. A peer is accepted when
  /// its uid is socket_owner or in allowed_uids, its primary or any supplementary group
  /// (SO_PEERGROUPS) in allowed_gids, or (with allow_same_uid) its uid is the daemon's
  /// effective uid. The gid of socket_group is added to allowed_gids automatically.
  std::vector<uid_t> allowed_uids;
  std::vector<gid_t> allowed_gids;
  bool allow_same_uid = true;

  std::size_t max_message_bytes = kDefaultMaxMessageBytes;
  /// Per-client bound on the memory of queued outgoing frames (replies + events, counted as
  /// allocated); a reply beyond it disconnects the client.
  std::size_t max_send_queue_bytes = 32u << 20;
  /// The same over all clients together.
  std::size_t max_total_send_queue_bytes = 128u << 20;
  /// Events are queued for a client only while its queue holds less than this; the rest
  /// are dropped and counted, and once the client has caught up it receives one
  /// EVENTS_DROPPED event with the count (route misses of a flood carry little news).
  std::size_t max_event_queue_bytes = 256u << 10;
  /// Control-channel descriptors queued for a client that has not read them yet, per
  /// client and over all clients: OpenControlChannel beyond is refused (RESOURCE_EXHAUSTED),
  /// so that the daemon's descriptors are never exhausted by its clients.
  std::size_t max_queued_fds_per_client = 8;
  std::size_t max_queued_fds = 128;
  /// Connections: max_clients in all; root and operators (socket_owner, allowed_uids) get
  /// reserved_clients more, so that other peers cannot lock them out. Other peers are
  /// limited per uid, every peer but root per pid.
  std::size_t max_clients = 64;
  std::size_t reserved_clients = 8;
  std::size_t max_clients_per_uid = 16;
  std::size_t max_clients_per_pid = 8;
  /// Operators run scenarios: an ns-3 script attaching N nodes holds N + 1 connections
  /// from one process. Root and operators may therefore hold operator_clients more
  /// connections beyond max_clients + reserved_clients (that no other peer may use), and an
  /// operator's process (root: unlimited) max_clients_per_operator_pid.
  std::size_t operator_clients = 440;
  std::size_t max_clients_per_operator_pid = 256;
  /// A connection that has not said Hello after hello_timeout_ms, or that has sat in the
  /// middle of a frame without sending a byte for frame_stall_timeout_ms, is closed.
  int hello_timeout_ms = 5000;
  int frame_stall_timeout_ms = 10000;
  /// Largest route transaction (adds + removes, over all chunks).
  std::size_t max_batch_routes = 4u << 20;
  /// Routes held by the open chunked transactions of all clients together (about 140
  /// bytes each until applied): a transaction that would go beyond is aborted.
  std::size_t max_pending_routes = 4u << 20;
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
  uint64_t refused_too_many = 0;  ///< over max_clients, or over a per-uid / per-pid limit
  uint64_t accept_errors = 0;     ///< accept() failed (e.g. out of descriptors): backed off
  uint64_t closed_no_hello = 0;   ///< no Hello within hello_timeout_ms
  uint64_t closed_stalled = 0;    ///< an unfinished frame without progress
  uint64_t refused_fds = 0;       ///< OpenControlChannel over the queued-descriptor bounds
  uint64_t events_dropped = 0;    ///< not queued for a client that was not reading
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
  ControlServer(TopologyControl& backend, ServerOptions options);
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
