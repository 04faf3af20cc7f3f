// SPDX-License-Identifier: GPL-2.0-only
// At-most-once for clients that resend a request after reconnecting (Hello.session_id,
// protocol 1.15): the reply to the last request that changed fastpathd's state on each
// connection of a session, kept while the connection lives and for `retain` after it
// closed, so that a request resent on a new connection is answered from here instead of
// being carried out twice (a create that would report EEXIST for what it created, a reset
// that would reset twice). Pure bookkeeping; the dispatcher decides what to remember and
// when to answer from it. Internal to ctrl-bridge.
//
// Per connection, not per session: the requests a client makes on its new connection
// before it resends (its Hello, the state it replays after a reconnect) must not push the
// lost reply out.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "fastpath/v1/fastpath.pb.h"

namespace fastpath::ctrl {

/// Whether `req` changes fastpathd's state (a resend must not carry it out again). Reads
/// and what lives and dies with one connection (Hello, subscriptions, control channels,
/// captures, the chunks of a route transaction before its last) do not.
bool changesState(const v1::Request& req);

class ReplyCache {
 public:
  using Clock = std::chrono::steady_clock;

  /// A session is the client's id within its peer's uid: another user's client cannot
  /// read (or answer itself with) someone else's replies by naming their session.
  struct Key {
    uint32_t uid = 0;
    uint64_t session = 0;
    bool operator==(const Key& o) const { return uid == o.uid && session == o.session; }
  };

  struct Limits {
    /// How long a closed connection's last reply is kept for a resend.
    Clock::duration retain = std::chrono::seconds(60);
    /// Connections remembered per session (live and closed); the oldest closed one goes.
    std::size_t connections_per_session = 8;
    /// Sessions remembered; beyond it, the session whose last connection closed first goes.
    std::size_t sessions = 4096;
  };

  ReplyCache() : ReplyCache(Limits{}) {}
  explicit ReplyCache(Limits limits) : limits_(limits) {}

  /// Remembers `reply` (to request `id`) as connection `conn`'s last state change.
  void remember(const Key& key, uint64_t conn, uint64_t id, const v1::ServerMessage& reply);
  /// Connection `conn` of the session closed: its last reply is kept for `retain` from now.
  void closed(const Key& key, uint64_t conn, Clock::time_point now);
  /// The reply to request `id` of the session on another connection than `conn`, if kept.
  const v1::ServerMessage* find(const Key& key, uint64_t conn, uint64_t id) const;
  /// Drops what was kept longer than `retain` after its connection closed.
  void expire(Clock::time_point now);

  std::size_t sessions() const { return sessions_.size(); }

 private:
  struct KeyHash {
    std::size_t operator()(const Key& k) const noexcept {
      return std::hash<uint64_t>()(k.session * 0x9e3779b97f4a7c15ull ^ k.uid);
    }
  };
  struct Slot {
    uint64_t conn = 0;
    uint64_t id = 0;
    v1::ServerMessage reply;
    bool open = true;
    Clock::time_point closed_at;
  };
  /// Keeps the session count within the limit: drops the session whose newest closed slot
  /// is oldest, among those without a live connection.
  void evictOneSession();

  Limits limits_;
  std::unordered_map<Key, std::vector<Slot>, KeyHash> sessions_;
};

}  // namespace fastpath::ctrl
