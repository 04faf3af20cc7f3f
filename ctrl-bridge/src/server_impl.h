// SPDX-License-Identifier: GPL-2.0-only
// The control server's state (ControlServer::Impl) and its jobs, one file each:
//   server.cc           start-up (socket, permissions, descriptor budget), the poll loop, stop
//   server_accept.cc    accepting: credentials, per-peer and total limits, idle connections
//   server_io.cc        reading frames, queueing and sending replies and events, closing
//   server_dispatch.cc  requests to the dispatcher, events to subscribers, server counters
//   server_capture.cc   captured frames streamed to the connections that started captures
// Internal to ctrl-bridge.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>

#include "dispatcher.h"
#include "fastpath/ctrl/server.h"
#include "framing.h"
#include "peer_policy.h"

namespace fastpath::ctrl {

namespace server_detail {

struct OutFrame {
  std::string data;
  std::size_t off = 0;
  int fd = -1;  // passed with SCM_RIGHTS on the frame's first byte
};

struct Conn {
  int fd = -1;
  PeerCredentials cred;
  Session session;
  FrameDecoder dec;
  std::deque<OutFrame> out;
  std::size_t queued_cost = 0;  ///< frameCost() of everything in `out`
  std::size_t queued_fds = 0;   ///< descriptors in `out` not handed over yet
  uint64_t events_dropped = 0;  ///< since the last EVENTS_DROPPED marker
  std::chrono::steady_clock::time_point accepted_at;
  std::chrono::steady_clock::time_point last_rx;
  uint32_t interest = 0;
  bool closing = false;
  bool dead = false;
  std::chrono::steady_clock::time_point close_deadline;

  explicit Conn(std::size_t max) : dec(max) {}
  ~Conn() {
    for (auto& f : out)
      if (f.fd >= 0) ::close(f.fd);
  }
  const std::string& who() const { return session.who; }
};

}  // namespace server_detail

struct ControlServer::Impl {
  using Clock = std::chrono::steady_clock;
  using Conn = server_detail::Conn;
  using OutFrame = server_detail::OutFrame;

  TopologyControl& backend;
  ServerOptions opt;
  int listen_fd = -1;
  int epoll_fd = -1;
  bool sink_set = false;
  bool started = false;
  std::unordered_map<int, std::unique_ptr<Conn>> conns;
  ServerCounters ctr;
  Dispatcher dispatcher;
  PeerPolicy policy{opt};
  std::size_t total_cost = 0;  ///< queued_cost over all connections
  std::size_t total_fds = 0;   ///< queued_fds over all connections
  bool listen_paused = false;
  Clock::time_point listen_resume;

  Impl(TopologyControl& b, ServerOptions o)
      : backend(b), opt(std::move(o)), dispatcher(b, dispatchOptions(opt)) {}

  // ---- start-up, loop, stop (server.cc)
  static DispatchOptions dispatchOptions(ServerOptions& o);
  Status resolveGroup(gid_t* gid);
  Status start();
  /// Sizes the server's own descriptors (connections, descriptors queued for clients)
  /// below RLIMIT_NOFILE with kReservedFds to spare, raising the soft limit to the hard one
  /// first: forwarding must never run out of descriptors because of the control plane.
  void fitDescriptorBudget();
  void closeListen();
  void stop();
  Result<int> poll(int timeout_ms);
  /// Closes the connections marked dead (and those past their close deadline).
  void reap();

  // ---- accepting and limits (server_accept.cc)
  void setListening(bool on);
  /// A connection that never said Hello, or that stopped in the middle of a frame, holds
  /// a slot (and possibly 16 MiB of buffer) for nothing: it is closed after its timeout.
  void closeIfIdle(Conn& c, Clock::time_point now);
  /// Empty when a peer with these credentials may have one more connection.
  std::string admissionRefusal(const PeerCredentials& p) const;
  /// Best-effort single reply on a connection being refused at accept time.
  void refuse(int fd, v1::ErrorCode code, const std::string& message);
  void acceptAll();

  // ---- frames in and out (server_io.cc)
  void readFrom(Conn& c);
  void processFrames(Conn& c);
  void startClosing(Conn& c);
  void closeWithError(Conn& c, uint64_t id, v1::ErrorCode code, const std::string& field,
                      const std::string& message);
  void enqueue(Conn& c, const v1::ServerMessage& m, int pass_fd = -1);
  /// The frame at the head of c.out was sent whole.
  void popFrame(Conn& c);
  void flush(Conn& c);

  // ---- capture streams (server_capture.cc)
  bool capturesOpen() const;
  /// Sends each connection's captured frames (and the last batch of finished captures).
  void pumpCaptures();

  // ---- requests and events (server_dispatch.cc)
  void onEvent(const FastPathEvent& e);
  void handle(Conn& c, const v1::Request& req);
  CounterSet serverCounterSet() const;
};

}  // namespace fastpath::ctrl
